"""``python -m harness fetch``: fill the cache folder with every pinned fixture and subject
package, or copy them from a folder (decision
[0033](../../docs/decisions/0033-user-cache-and-offline-fixtures.md))."""

from __future__ import annotations

import argparse
import sys

from ..core import interrupts
from .arguments import UsageError


def run(args: argparse.Namespace) -> int:
    from ..fixtures.fetch import TARGETS, fetch

    unknown = [name for name in args.names if name not in TARGETS]
    if unknown:
        raise UsageError(f"fetch: unknown name(s) {', '.join(unknown)}; known: "
                         f"{', '.join(TARGETS)}")
    if args.source is not None and not args.source.is_dir():
        raise UsageError(f"fetch --from {args.source}: not a folder")
    interrupts.set_phase("fetching into the cache")
    return fetch(tuple(args.names) or TARGETS, source=args.source, out=sys.stdout)

"""``python -m harness matrix``: every registered subject side by side (harness/matrix/,
decision [0037](../../docs/decisions/0037-matrix.md))."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from ..matrix.command import main

    return main(args)

"""Canonical, atomic writing of the files people review (oracles, reports).

Canonical: sorted keys, stable order, LF line ends, a trailing newline, UTF-8.
Atomic: written to a temporary file beside the target, flushed, then renamed over it, so
a crash never leaves a half-written oracle or report.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml


def canonical_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


class _Dumper(yaml.SafeDumper):
    """Block style, multi-line strings as literal blocks, no aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Ask for a literal block for multi-line text; PyYAML falls back to a quoted scalar
    # by itself whenever a block could not carry the string exactly.
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_representer)


def canonical_yaml(data: Any, *, preamble: str = "") -> str:
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=True, allow_unicode=True,
                     default_flow_style=False, width=100, line_break="\n")
    lines = [f"# {line}".rstrip() for line in preamble.strip().splitlines()] if preamble else []
    return ("\n".join(lines) + "\n" if lines else "") + body


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, LF) to ``path`` via a temp file + rename."""
    if not text.endswith("\n"):
        text += "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give what open() would
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def read_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))

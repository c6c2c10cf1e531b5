"""The version of HuggingFace ``tokenizers`` the harness compares against.

Declared once, in ``pyproject.toml`` (the ``harness`` extra); read from the installed
distribution's metadata, or from ``pyproject.toml`` in a checkout that is not installed.
``noxfile.py`` reads the same line.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import metadata

from .resources import checkout_root

DISTRIBUTION = "tokenizer-conformance"
_PIN = re.compile(r"^tokenizers\s*==\s*([0-9][0-9A-Za-z.+-]*)")


@cache
def upstream_version() -> str:
    """The pinned version (a string such as 0.23.1)."""
    requirements: list[str] = []
    root = checkout_root()
    if root is not None:
        import tomllib

        with (root / "pyproject.toml").open("rb") as handle:
            extras = tomllib.load(handle)["project"]["optional-dependencies"]
        requirements = list(extras["harness"])
    else:
        requirements = metadata.requires(DISTRIBUTION) or []
    for requirement in requirements:
        match = _PIN.match(requirement.strip())
        if match:
            return match.group(1)
    raise LookupError(f"{DISTRIBUTION} pins no tokenizers version (pyproject.toml, the "
                      "'harness' extra)")


def upstream_requirement() -> str:
    return f"tokenizers=={upstream_version()}"

"""tokie as a subject: the PyPI package ``tokie`` (Rust: BPE, WordPiece, Unigram), pinned
by wheel and sha256, installed by ``harness.subjects.pypi`` into its own environment,
driven by ``program.py`` beside this module. The folder holds its expectations,
recognisers, pinned witnesses and findings (decision 0034).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from .. import pypi

NAME: Final = "tokie"
VERSION: Final = "0.1.4"
#: tokie ships one wheel per CPython version (no abi3): this is CPython 3.11's.
WHEEL: Final = pypi.Wheel(NAME, VERSION, {
    "tokie-0.1.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl":
        "b8a5b5dd143d807981711e973a9fff21a4fc48e472ef3a976054be04ac236a63"})
PROGRAM: Final = Path(__file__).resolve().with_name("program.py")


def command() -> list[str]:
    """The command that runs the subject (installing the wheel first if needed)."""
    return pypi.program_command(f"{NAME}-{VERSION}", [WHEEL], PROGRAM, label=NAME)

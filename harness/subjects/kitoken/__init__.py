"""kitoken as a subject: the PyPI package ``kitoken`` (Rust; reads tokenizers,
SentencePiece, tiktoken and tekken files into its own definition), pinned by wheel and
sha256, installed by ``harness.subjects.pypi`` into its own environment, driven by
``program.py`` beside this module. The folder holds its expectations, recognisers,
pinned witnesses and findings (decision 0034).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from .. import pypi

NAME: Final = "kitoken"
VERSION: Final = "0.11.1"
WHEEL: Final = pypi.Wheel(NAME, VERSION, {
    "kitoken-0.11.1-cp310-abi3-manylinux_2_28_x86_64.whl":
        "50728d5adcc3c5b4af1d71ea30e22e8a2809bf3b8a56de0df1c184a54279d13c"})
PROGRAM: Final = Path(__file__).resolve().with_name("program.py")


def command() -> list[str]:
    """The command that runs the subject (installing the wheel first if needed)."""
    return pypi.program_command(f"{NAME}-{VERSION}", [WHEEL], PROGRAM, label=NAME)

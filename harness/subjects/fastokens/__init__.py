"""fastokens as a subject: the PyPI package ``fastokens`` (Rust, a drop-in ``Tokenizer``),
pinned by wheel and sha256, installed by ``harness.subjects.pypi`` into its own
environment, driven by ``program.py`` beside this module. The folder holds its
expectations, recognisers, pinned witnesses and findings (decision 0034).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from .. import pypi

NAME: Final = "fastokens"
VERSION: Final = "0.3.5"
WHEEL: Final = pypi.Wheel(NAME, VERSION, {
    "fastokens-0.3.5-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl":
        "e1cd218c61dacc3f30228c67a4d26d498076b6e9a5b30d89a09109ca06f1480a"})
PROGRAM: Final = Path(__file__).resolve().with_name("program.py")


def command() -> list[str]:
    """The command that runs the subject (installing the wheel first if needed)."""
    return pypi.program_command(f"{NAME}-{VERSION}", [WHEEL], PROGRAM, label=NAME)

"""iree-tokenizer as a subject: the PyPI package ``iree-tokenizer`` (IREE's tokenizer in
C, with Python bindings), pinned by wheel and sha256 with the numpy it imports, installed
by ``harness.subjects.pypi`` into its own environment, driven by ``program.py`` beside
this module. The folder holds its expectations, recognisers, pinned witnesses and
findings (decisions 0034, 0042).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from .. import pypi

NAME: Final = "iree-tokenizer"
VERSION: Final = "0.3.0"
#: The CPython 3.11 wheel (the abi3 one is for 3.12 and later).
WHEEL: Final = pypi.Wheel(NAME, VERSION, {
    "iree_tokenizer-0.3.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl":
        "d3e631e8787df80b7794b9d45fe2fb70b49df09645e5395cd272d1adb0ce1641"})
#: Its one run-time dependency (``numpy>=1.26``), the version tokenizers 1.x runs with.
NUMPY: Final = pypi.Wheel("numpy", "2.4.6", {
    "numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl":
        "89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93"})
PROGRAM: Final = Path(__file__).resolve().with_name("program.py")


def command() -> list[str]:
    """The command that runs the subject (installing the wheels first if needed)."""
    return pypi.program_command(f"{NAME}-{VERSION}", [WHEEL, NUMPY], PROGRAM, label=NAME)

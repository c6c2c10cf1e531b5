"""pytorch-tokenizers as a subject: the PyPI package ``pytorch-tokenizers`` (Meta's C++
tokenizers for ExecuTorch; its ``pytorch_tokenizers_cpp.HFTokenizer`` loads a
tokenizer.json from a path), pinned by wheel and sha256, installed by
``harness.subjects.pypi`` into its own environment, driven by ``program.py`` beside this
module. The folder holds its expectations, recognisers, pinned witnesses and findings
(decisions 0034, 0042).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from .. import pypi

NAME: Final = "pytorch-tokenizers"
VERSION: Final = "1.5.0"
#: One wheel per CPython version (no abi3): this is CPython 3.11's. Its declared
#: dependencies (tiktoken, tokenizers, sentencepiece) serve the pure-Python tokenizers of
#: the package, not the C++ extension this subject drives: not installed.
WHEEL: Final = pypi.Wheel(NAME, VERSION, {
    "pytorch_tokenizers-1.5.0-cp311-cp311-manylinux_2_28_x86_64.whl":
        "479f1fae0fec08394019a5446c8a04d18e7c9308b8f01b7ce8e177785492184b"})
PROGRAM: Final = Path(__file__).resolve().with_name("program.py")


def command() -> list[str]:
    """The command that runs the subject (installing the wheel first if needed)."""
    return pypi.program_command(f"{NAME}-{VERSION}", [WHEEL], PROGRAM, label=NAME)

"""tiktoken as a subject, a lineage oracle: the PyPI package ``tiktoken`` (OpenAI's Rust
BPE) and its one dependency ``regex``, pinned by wheel and sha256, installed by
``harness.subjects.pypi`` into their own environment, driven by ``program.py`` beside
this module. A byte-level tokenizer.json is converted to an ``Encoding`` (``convert.py``);
a document that does not convert is declined as not expressible and skipped (decision
0040). The folder holds its expectations, recognisers, pinned witnesses and findings
(decision 0034).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from .. import pypi

NAME: Final = "tiktoken"
VERSION: Final = "0.14.0"
WHEELS: Final = (
    pypi.Wheel(NAME, VERSION, {
        "tiktoken-0.14.0-cp311-cp311-manylinux_2_28_x86_64.whl":
            "f5e7665f6624e052e5e7f6a36919ab69279decdc976d7b16b4fa15e1897d0513"}),
    pypi.Wheel("regex", "2026.11.19", {
        "regex-2026.11.19-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64."
        "manylinux_2_28_x86_64.whl":
            "86d3b2ea69b3c56df3e8ddbac6cd98eaf5a8c5b5e7e006897ebdf7a28d6818e6"}),
)
PROGRAM: Final = Path(__file__).resolve().with_name("program.py")


def command() -> list[str]:
    """The command that runs the subject (installing the wheels first if needed)."""
    return pypi.program_command(f"{NAME}-{VERSION}", WHEELS, PROGRAM, label=NAME)

"""sentencepiece as a subject, a lineage oracle: the PyPI package ``sentencepiece``
(Google's C++ SentencePiece), pinned by wheel and sha256, installed by
``harness.subjects.pypi`` into its own environment, driven by ``program.py`` beside this
module. A SentencePiece-lineage tokenizer.json is converted to a ``ModelProto``
(``convert.py``); a document that does not convert is declined as not expressible and
skipped (decision 0040). The folder holds its expectations, recognisers, pinned
witnesses and findings (decision 0034).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from .. import pypi

NAME: Final = "sentencepiece"
VERSION: Final = "0.2.3"
WHEEL: Final = pypi.Wheel(NAME, VERSION, {
    "sentencepiece-0.2.3-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl":
        "141dc0bef1e28a5cf7e41c8354ad6cc14525758278045286dcb5429b9906d39f"})
PROGRAM: Final = Path(__file__).resolve().with_name("program.py")


def command() -> list[str]:
    """The command that runs the subject (installing the wheel first if needed)."""
    return pypi.program_command(f"{NAME}-{VERSION}", [WHEEL], PROGRAM, label=NAME)

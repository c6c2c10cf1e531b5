"""The regex constructs the reference's Oniguruma reader reads, per dialect: facts measured on
both sides (``tests/harness/test_strategies.py``), declared once here so that the
strategies draw them (``strategies.regex_probes``, ``strategies.declared``) and the judge
refuses to excuse a refusal of one of them (``judge.predicates``;
docs/decisions/0046-mutation-campaign.md).
"""

from __future__ import annotations

from typing import Final

#: Constructs the Split reader translates that no real pattern holds; added to a real
#: pattern as alternatives (the "add-alternative" mutation of ``split_family``).
ONIGURUMA_READ: Final = (
    ".", r"\w+", r"\W", r"\H", r"\n", r"\.", r"(?i:a\.b|\'s)", r"x{2}?", r"\P{L}", r"\p{^L}",
    r"(?<=a|bc)d", r"(?<!\s)x", r"(?>ab|a)c", r"\A\s", r"\s\z", r"\s\Z", r"\x41", r"\u00e9",
    r"(b*a)+", r"[\d-]", r"[\x41-\x43]", r"x{1,2}+", r"x{1,2}?", r"[a+c]",
)
#: Constructs the Replace reader translates that the listed patterns rarely reach, as one
#: pattern: anchors, a lazy and an exact repeat, escaped punctuation.
REPLACE_READ: Final = r"\Ax+?|y{2}|\.|\$"
#: Replace constructs read, each a probe of its own (``declared``): look-behinds over exact
#: repeats, whose fixed width the reader computes (a wrong width refuses them).
REPLACE_READ_EACH: Final = (r"(?<=a{2})b", r"(?<=ab{2})c", r"(?<=(?:ab){2})x",
                            r"(?<=a(?:)*)b")

#: Each dialect's declared reads: a refusal of one of these is the reader's bug, never the
#: strictness of decision 0031.
DECLARED_READ: Final = {
    "Split": frozenset((*ONIGURUMA_READ, "|".join(ONIGURUMA_READ))),
    "Replace": frozenset((REPLACE_READ, *REPLACE_READ_EACH)),
}

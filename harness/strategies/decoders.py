"""Decoders: the two shapes the spec reproduces, Metaspace, ByteLevel, and perturbations
of the two.

The byte-fallback decision reproduces exactly a bare ``ByteFallback`` and
``Sequence[Replace("▁"→" "), ByteFallback, Fuse, Strip(" ", 1, 0)]``; anything else on
a byte-fallback model is refused by the reference and accepted by upstream.  The
perturbations walk the boundary: drop a step, swap two, repeat one, add one, or replace
one by another type.
"""

from __future__ import annotations

from typing import Any, Final

from hypothesis import strategies as st

from harness.documents import llama_decoder
from harness.strategies import profile as shares
from harness.strategies._weights import chance, weighted
from harness.strategies.alphabet import METASPACE
from harness.strategies.components import byte_levels, metaspace, metaspaces, replace
from harness.strategies.profile import DEFAULT_WEIGHTS, DecoderKind, Weights

JSON = dict[str, Any]


def byte_fallback() -> JSON:
    return {"type": "ByteFallback"}


def fuse() -> JSON:
    return {"type": "Fuse"}


def strip(start: int = 1, stop: int = 0, content: str = " ") -> JSON:
    return {"type": "Strip", "content": content, "start": start, "stop": stop}


def sequence(steps: list[JSON]) -> JSON:
    return {"type": "Sequence", "decoders": steps}


def llama_steps() -> list[JSON]:
    """Llama-2's chain: ``[Replace("▁"→" "), ByteFallback, Fuse, Strip(" ",1,0)]``."""
    steps: list[JSON] = llama_decoder()["decoders"]
    return steps


#: Steps a perturbation may add or substitute.
STEPS: Final[tuple[JSON, ...]] = (
    replace(METASPACE, " "), byte_fallback(), fuse(), strip(), strip(0, 0), strip(2, 0),
    metaspace("always", True), replace(" ", ""),
)
#: Strip windows of Llama's chain other than its ``(1, 0)``, the shape the reference
#: reproduces with any parameters: windows up to 3 wide on either side (a trailing window
#: reaching a decoded text that ends in spaces, or as long as an all-space text; a leading
#: window past the first other character, as in " a b"). Some panic upstream: ``stop >= 1``
#: on an empty token (the ``[""]`` Fuse makes of an empty decode), crossing windows on an
#: all-space text (measured on tokenizers 0.23.1; class strip-decoder-panic).
HAZARD_STEPS: Final[tuple[JSON, ...]] = tuple(
    strip(start, stop) for start in range(4) for stop in range(4) if (start, stop) != (1, 0))


@st.composite
def perturbed(draw: st.DrawFn, strip_hazard: int = shares.STRIP_HAZARD) -> JSON:
    """One of the two reproduced shapes with one perturbation (always a Sequence).

    With probability ``strip_hazard`` per thousand the perturbation is Llama's chain with
    its Strip window changed (``HAZARD_STEPS``; some of them make upstream panic at decode).
    """
    if draw(chance(strip_hazard)):
        return sequence([*llama_steps()[:3], draw(st.sampled_from(HAZARD_STEPS))])
    chain = list(draw(st.sampled_from([llama_steps(), [byte_fallback()]])))
    how = draw(weighted(shares.PERTURBATION))
    i = draw(st.integers(0, len(chain) - 1))
    if how == "drop":
        del chain[i]
    elif how == "swap" and len(chain) > 1:
        j = draw(st.integers(0, len(chain) - 2))
        j = j if j < i else j + 1
        chain[i], chain[j] = chain[j], chain[i]
    elif how == "repeat":
        chain.insert(i, chain[i])
    elif how == "replace":
        chain[i] = draw(st.sampled_from([step for step in STEPS if step != chain[i]]))
    else:  # add (also "swap" on a one-step chain)
        chain.insert(draw(st.integers(0, len(chain))), draw(st.sampled_from(STEPS)))
    return sequence(chain)


def decoders(kind: DecoderKind, profile: Weights = DEFAULT_WEIGHTS,
             metaspace_like: JSON | None = None) -> st.SearchStrategy[JSON | None]:
    """The ``decoder`` field for one kind; "metaspace" copies ``metaspace_like`` if given."""
    if kind == "none":
        return st.none()
    if kind == "byte-level":
        return byte_levels(profile)
    if kind == "byte-fallback":
        return st.just(byte_fallback())
    if kind == "llama":
        return st.just(llama_decoder())
    if kind == "metaspace":
        return st.just(dict(metaspace_like)) if metaspace_like else metaspaces()
    return perturbed(profile.strip_hazard)

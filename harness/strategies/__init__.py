"""Hypothesis strategies for whole tokenizer.json documents and the inputs to run on them.

The central product is ``cases()``: a strategy of ``harness.core.case.Case`` objects (a
generated tokenizer.json, 1..6 texts, raw id runs for decode, optional pairs).  Every share of the
generation is a named weight table in ``harness.strategies.profile``; keyword arguments
narrow them (``cases(byte_alphabet="complete")``).

Module layout, smallest pieces first:

- ``_weights``      weighted choices (``weighted``, ``chance``, ``one_of_weighted``)
- ``profile``       the kinds, the share tables, ``Weights``
- ``alphabet``      character pools by UTF-8 width; ``alphabets()``
- ``vocabulary``    byte alphabets, decoration, upstream's merge rule, merges, ids;
                    ``bpe_models()``
- ``byte_vocabulary`` the 256 byte symbols and merges over them; ``byte_level_models()``
- ``added_tokens``  Llama specials, other specials, non-special added tokens, their ids
- ``split_family``  Split (real-world patterns, their mutations, Strings), Digits,
                    Punctuation, Whitespace, WhitespaceSplit, their Sequences
- ``components``    normalizers (Unicode ones too), pre-tokenizers (ByteLevel too),
                    template, ByteLevel and Sequence post-processors
- ``decoders``      the two reproduced decoder shapes, Metaspace, ByteLevel, perturbations
- ``texts``         ``texts_for(document)``, ``pairs_for``, ``id_runs_for``; the stress
                    alphabets (composition, compatibility forms, case, spaces, ...)
- ``cases``         ``documents()`` (either family), ``cases()``, ``llama_like_cases()``,
                    ``metaspace_cases()``, ``byte_level_cases()``
- ``describe``      ``features(case)``: labels a case by what it exercises
- ``measure``       ``python -m harness.strategies.measure``: speed, shares, upstream outcomes
"""

from harness.core.case import Case
from harness.documents import llama_decoder
from harness.strategies._constants import draw_from_strategies_only
from harness.strategies.alphabet import alphabets, uncovered_characters
from harness.strategies.cases import (
    byte_level_cases,
    byte_level_documents,
    cases,
    cases_from,
    documents,
    llama_like_cases,
    metaspace_cases,
)
from harness.strategies.components import metaspaces, normalizers, pre_tokenizers, templates
from harness.strategies.decoders import decoders, perturbed
from harness.strategies.describe import features
from harness.strategies.profile import DEFAULT_WEIGHTS, Weights
from harness.strategies.texts import id_runs_for, inventory, pairs_for, texts_for
from harness.strategies.vocabulary import bpe_models, byte_alphabets, merge_result

draw_from_strategies_only()

__all__ = [
    "DEFAULT_WEIGHTS",
    "Case",
    "Weights",
    "alphabets",
    "bpe_models",
    "byte_alphabets",
    "byte_level_cases",
    "byte_level_documents",
    "cases",
    "cases_from",
    "decoders",
    "documents",
    "features",
    "id_runs_for",
    "inventory",
    "llama_decoder",
    "llama_like_cases",
    "merge_result",
    "metaspace_cases",
    "metaspaces",
    "normalizers",
    "pairs_for",
    "perturbed",
    "pre_tokenizers",
    "templates",
    "texts_for",
    "uncovered_characters",
]

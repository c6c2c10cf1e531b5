"""Whole cases: a tokenizer.json assembled from the parts, with inputs drawn from it.

Order of decisions: the family, then the pipeline's kinds (they decide whether '▁' must be
in the alphabet), then the unk token and added tokens (they reserve model ids and decide
whether id holes are safe), then the model, then the components that refer to ids.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from harness.core.case import Case
from harness.strategies import profile as shares
from harness.strategies._weights import chance, weighted
from harness.strategies.added_tokens import (
    AddedPlan,
    added_token_plans,
    assign_ids,
    vocabulary_piece_specs,
    with_oddity,
)
from harness.strategies.alphabet import METASPACE, alphabets
from harness.strategies.byte_vocabulary import byte_level_models
from harness.strategies.components import normalizers, post_processors, pre_tokenizers
from harness.strategies.decoders import decoders
from harness.strategies.malformed import MALFORMATIONS
from harness.strategies.profile import DEFAULT_WEIGHTS, UnkKind, Weights
from harness.strategies.sampled_inputs import sampled_inputs
from harness.strategies.sampled_texts import seeds
from harness.strategies.texts import id_runs_for, inventory, pairs_for, texts_for
from harness.strategies.vocabulary import bpe_models

#: unk_token spellings: Llama's, and BERT's (never an added token unless Llama's).
UNK_TOKENS = {"<unk>": 85, "[UNK]": 15}


def _metaspace_step(pre_tokenizer: dict[str, Any] | None) -> dict[str, Any] | None:
    """The pre-tokenizer's first Metaspace step, which a "metaspace" decoder copies."""
    if not pre_tokenizer:
        return None
    steps: list[dict[str, Any]] = pre_tokenizer.get("pretokenizers", [pre_tokenizer])
    return next((step for step in steps if step["type"] == "Metaspace"), None)


@st.composite
def documents(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS) -> dict[str, Any]:
    """A whole tokenizer.json (version 1.0, no truncation or padding) of either family."""
    if draw(weighted(profile.family)) == "byte-level":
        return draw(byte_level_documents(profile))
    normalizer_kind = draw(weighted(profile.normalizer))
    pre_tokenizer_kind = draw(weighted(profile.pre_tokenizer))
    uses_metaspace = normalizer_kind != "none" or pre_tokenizer_kind != "none"
    required = (METASPACE,) if uses_metaspace and draw(
        chance(shares.METASPACE_IN_ALPHABET)) else ()
    alphabet = draw(alphabets(required=required))

    unk: UnkKind = draw(weighted(profile.unk))
    unk_token = draw(weighted(UNK_TOKENS))
    plan = draw(added_token_plans(profile, unk=unk, unk_token=unk_token))
    model = draw(bpe_models(profile, alphabet=alphabet, reserved=plan.reserved,
                            unk_token=unk_token, unk=unk,
                            free_ids=sum(not s.in_model_vocab for s in plan.specs)))
    added_tokens = draw(_added_tokens(plan, model, profile))
    pre_tokenizer = draw(pre_tokenizers(pre_tokenizer_kind, profile, alphabet))
    post_processor = draw(post_processors(draw(weighted(profile.post_processor)),
                                          _specials(added_tokens), profile))
    return _document(
        added_tokens, draw(normalizers(normalizer_kind, alphabet, profile)),
        pre_tokenizer=pre_tokenizer, post_processor=post_processor,
        decoder=draw(decoders(draw(weighted(profile.decoder)), profile,
                              _metaspace_step(pre_tokenizer))), model=model)


@st.composite
def byte_level_documents(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS
                         ) -> dict[str, Any]:
    """A tokenizer.json of the byte-level family: a vocabulary over the 256 byte symbols,
    a ByteLevel pre-tokenizer (alone, or after Splits), a ByteLevel decoder, a ByteLevel or
    template post-processor or both; with the family's perturbations at small shares."""
    normalizer_kind = draw(weighted(profile.byte_level_normalizer))
    pre_tokenizer_kind = draw(weighted(profile.byte_level_pre_tokenizer))
    alphabet = draw(alphabets())
    unk: UnkKind = draw(weighted(profile.byte_level_unk))
    unk_token = draw(weighted(UNK_TOKENS))
    plan = draw(added_token_plans(profile, unk=unk, unk_token=unk_token))
    model = draw(byte_level_models(profile, alphabet=alphabet, reserved=plan.reserved,
                                   unk_token=unk_token, unk=unk,
                                   free_ids=sum(not s.in_model_vocab for s in plan.specs)))
    added_tokens = draw(_added_tokens(plan, model, profile))
    pre_tokenizer = draw(pre_tokenizers(pre_tokenizer_kind, profile, alphabet))
    post_processor = draw(post_processors(draw(weighted(profile.byte_level_post_processor)),
                                          _specials(added_tokens), profile))
    decoder_kind = draw(weighted(profile.byte_level_decoder))
    if decoder_kind == "perturbed":
        decoder_kind = draw(weighted(shares.BYTE_LEVEL_FOREIGN_DECODER))
    return _document(
        added_tokens, draw(normalizers(normalizer_kind, alphabet, profile)),
        pre_tokenizer=pre_tokenizer, post_processor=post_processor,
        decoder=draw(decoders(decoder_kind, profile, _metaspace_step(pre_tokenizer))),
        model=model)


@st.composite
def _added_tokens(draw: st.DrawFn, plan: AddedPlan, model: dict[str, Any],
                  profile: Weights = DEFAULT_WEIGHTS) -> list[dict[str, Any]]:
    vocab = model["vocab"]
    specs = [*plan.specs, *draw(vocabulary_piece_specs(
        vocab, exclude=frozenset(s.content for s in plan.specs)))]
    return draw(with_oddity(assign_ids(specs, vocab), vocab,
                            draw(weighted(profile.added_oddity))))


def _specials(added_tokens: list[dict[str, Any]]) -> dict[str, int]:
    return {e["content"]: e["id"] for e in added_tokens if e["special"]}


def _document(added_tokens: list[dict[str, Any]], normalizer: dict[str, Any] | None, *,
              pre_tokenizer: dict[str, Any] | None, post_processor: dict[str, Any] | None,
              decoder: dict[str, Any] | None, model: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added_tokens,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": post_processor,
        "decoder": decoder,
        "model": model,
    }


@st.composite
def cases_from(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS) -> Case:
    """Cases under an explicit ``Weights``; a malformed document (``profile.MALFORMED``)
    is broken after its inputs are drawn from it whole."""
    document = draw(documents(profile))
    if profile.duplicate_id_hazard and draw(chance(profile.duplicate_id_hazard)):
        document = _with_duplicate_id(document)
    offer = inventory(document)
    text = texts_for(offer)
    texts = draw(st.lists(text, min_size=shares.TEXTS_MIN, max_size=shares.TEXTS_MAX))
    pairs: list[tuple[str, str]] = []
    bare = document["post_processor"] is None  # a pair still gets type ids 0, then 1
    if draw(chance(profile.pairs // shares.PAIRS_BARE_DIVISOR if bare else profile.pairs)):
        pairs = draw(st.lists(pairs_for(offer), min_size=1, max_size=2))
    id_runs = draw(st.lists(id_runs_for(offer), min_size=shares.ID_RUNS_MIN,
                            max_size=shares.ID_RUNS_MAX))
    if profile.sampled_texts or profile.sampled_id_runs:
        more_texts, more_runs = sampled_inputs(
            offer, draw(seeds()), texts=profile.sampled_texts,
            id_runs=profile.sampled_id_runs, drawn_texts=texts)
        texts = [*texts, *more_texts]
        id_runs = [*id_runs, *more_runs]
    if draw(weighted(profile.malformed)) == "malformed":
        document = MALFORMATIONS[draw(st.sampled_from(sorted(MALFORMATIONS)))].apply(document)
    return Case(document=document, texts=tuple(texts), id_runs=tuple(id_runs),
                pairs=tuple(pairs))


def _with_duplicate_id(document: dict[str, Any]) -> dict[str, Any]:
    """The hazard of two vocabulary strings on one id: the last string (in id order) takes
    the id of the first non-reserved one. Upstream loads it and picks either string at
    random per process; the reference refuses it (``duplicate-id``). Nothing but the load
    is compared for such a file, so the randomness never reaches a comparison."""
    vocab: dict[str, int] = dict(document["model"]["vocab"])
    taken = {e["content"] for e in document["added_tokens"]}
    free = sorted((i, s) for s, i in vocab.items() if s not in taken)
    if len(free) < 2:
        return document
    vocab[free[-1][1]] = free[0][0]
    return {**document, "model": {**document["model"], "vocab": vocab}}


def cases(profile: Weights | None = None, **constraints: Any) -> st.SearchStrategy[Case]:
    """Cases over generated vocabularies, in the default mix of ``profile``.

    Keywords narrow one dimension each, e.g. ``cases(byte_alphabet="complete")``,
    ``cases(decoder=("llama", "perturbed"), hazards=False)``, ``cases(unk="dangling")``;
    see ``Weights.narrowed`` for the names.
    """
    return cases_from((profile or DEFAULT_WEIGHTS).narrowed(**constraints))


#: The Llama-2 / Mistral v0.1 pipeline: Prepend+Replace normalizer, no pre-tokenizer, the
#: Llama specials, a BOS template, the reproduced decoders, byte_fallback and fuse_unk on.
LLAMA_LIKE: dict[str, Any] = {
    "normalizer": "llama", "pre_tokenizer": "none", "decoder": ("llama", "byte-fallback"),
    "added_tokens": ("llama", "llama+extras"), "post_processor": "template",
    "template_shape": "bos", "template_hazard": 0, "unk": "present", "byte_fallback": True,
    "fuse_unk": True,
    "prefix": "none", "suffix": "none", "dropout": "null", "ignore_merges": False,
    "malformed": "none",
}

#: Metaspace pipelines: no normalizer, a Metaspace pre-tokenizer (every prepend_scheme x
#: split), a Metaspace decoder matching it.
METASPACE_LIKE: dict[str, Any] = {
    "normalizer": "none", "pre_tokenizer": "metaspace", "decoder": "metaspace",
    "malformed": "none",
}


#: The byte-level family alone (every share of its own tables).
BYTE_LEVEL_LIKE: dict[str, Any] = {"family": "byte-level"}


def byte_level_cases(**constraints: Any) -> st.SearchStrategy[Case]:
    """Cases of the byte-level family (vocabulary, pipeline and inputs still fuzzed)."""
    return cases(**{**BYTE_LEVEL_LIKE, **constraints})


def llama_like_cases(**constraints: Any) -> st.SearchStrategy[Case]:
    """Cases restricted to the Llama-2 pipeline shape (vocabulary still fuzzed)."""
    return cases(**{**LLAMA_LIKE, **constraints})


def metaspace_cases(**constraints: Any) -> st.SearchStrategy[Case]:
    """Cases restricted to Metaspace pipelines."""
    return cases(**{**METASPACE_LIKE, **constraints})

"""The recognisers of the control's expectations (``../expectations.yaml``), by name.

A plugin of the judge (decision 0034). The control is the Rust core of ``tokenizers``
behind N-API: the only divergences it may show are the binding's, each recognised here by
its mechanism.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from ....core.outcome import Crashed, Decoded, Encoded, Refused
from ....judge.compare import Divergence
from ....judge.predicates import ALL, NONE, Context, Predicate

#: What Rust prints when a panic cannot unwind out of an ``extern "C"`` frame.
_ABORT_MARKS = ("panicked at", "aborting")


def panic_aborts_process(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream panics (Python turns the Rust panic into ``PanicException``); the npm
    binding's process dies of the very same panic: its stderr carries Rust's
    "panicked at ...: <upstream's panic message>" and the abort a panic that cannot unwind
    through N-API ends in. Same core, same bug, a different way to die."""
    del ctx
    obs = div.observation
    upstream, mine = obs.upstream, obs.subject
    if not (isinstance(upstream, Crashed) and upstream.kind == "panic"
            and isinstance(mine, Crashed) and mine.kind == "died"):
        return NONE
    message = upstream.message.strip()
    said = mine.message
    return ALL if message and message in said and all(m in said for m in _ABORT_MARKS) \
        else NONE


def _shared_ids(vocab: Mapping[str, Any]) -> dict[int, list[str]]:
    """The ids the vocabulary gives to more than one string, with those strings."""
    strings: dict[int, list[str]] = {}
    for token, index in vocab.items():
        if isinstance(index, int):
            strings.setdefault(index, []).append(token)
    return {i: sorted(t) for i, t in strings.items() if len(t) > 1}


def duplicate_id_string_choice(ctx: Context, div: Divergence) -> frozenset[int]:
    """Several strings share one id: the core's id-to-string map is built at each load from
    a randomly seeded hash map, so each load keeps its own one of them. Yes
    when the answers differ only by that choice: the ids agree and every differing token
    shares its position's id with upstream's; a decode is upstream's decode of the same ids
    with each shared id spelt by one of its strings (upstream decodes a marker per shared id;
    each marker may stand for any of that id's strings, raw or as decoded alone)."""
    shared = _shared_ids(ctx.doc.vocab)
    obs = div.observation
    mine, theirs = obs.subject, obs.upstream
    if not shared:
        return NONE
    if isinstance(mine, Encoded) and isinstance(theirs, Encoded):
        if mine.ids != theirs.ids or len(mine.tokens) != len(theirs.tokens):
            return NONE
        differing = [(i, a, b) for i, (a, b) in enumerate(zip(mine.tokens, theirs.tokens,
                                                                strict=True)) if a != b]
        return ALL if differing and all(
            mine.ids[i] in shared and a in shared[mine.ids[i]] and b in shared[mine.ids[i]]
            for i, a, b in differing) else NONE
    if not (isinstance(mine, Decoded) and isinstance(theirs, Decoded)
            and obs.operation == "decode" and isinstance(obs.input, tuple)):
        return NONE
    used = sorted(i for i in shared if i in obs.input)
    if not used:
        return NONE
    markers = {k: f"\ue000{chr(0xE001 + n)}\ue000" for n, k in enumerate(used)}
    skip = bool(obs.option("skip_special_tokens"))
    marked = _decode_with(ctx, {k: [markers[k]] for k in used}, obs.input, skip)
    if marked is None:
        return NONE
    pattern = re.escape(marked)
    for k in used:
        forms = set(shared[k])
        for token in shared[k]:
            alone = _decode_with(ctx, {k: [token]}, (k,), skip)
            if alone is not None:
                forms.add(alone)
        alternatives = "|".join(re.escape(f) for f in sorted(forms, key=lambda f: (-len(f), f)))
        pattern = pattern.replace(re.escape(markers[k]), f"(?:{alternatives})")
    return ALL if re.fullmatch(pattern, mine.text) else NONE


def _decode_with(ctx: Context, strings: dict[int, list[str]], ids: tuple[int, ...],
                 skip: bool) -> str | None:
    """Upstream's decode of ``ids`` on the document whose shared ids map to ``strings``
    only (None where it does not load or decode)."""
    vocab = {t: i for t, i in ctx.doc.vocab.items() if i not in strings}
    for index, tokens in strings.items():
        vocab.update({token: index for token in tokens})
    document = json.dumps({**ctx.doc.raw, "model": {**ctx.doc.model, "vocab": vocab}},
                          ensure_ascii=False)
    if isinstance(ctx.replay.load("upstream", document), Refused | Crashed):
        return None
    answer = ctx.replay.decode("upstream", document, ids, skip_special_tokens=skip)
    return answer.text if isinstance(answer, Decoded) else None


#: tokenizers 0.23.1's refusal of an added token whose normalized form is empty (the
#: Aho-Corasick builder's); the 0.23.2 core (and 0.23.3 on PyPI) builds the matcher anyway.
_EMPTY_PATTERN: Final = "pattern.len() must be >= 1"


def empty_normalized_added_token_loads(ctx: Context, div: Divergence) -> frozenset[int]:
    """A version difference of the core, not the binding's: a normalized added token that
    the file's normalizer turns into nothing makes 0.23.1 refuse the file; 0.23.2 loads it.
    Yes when upstream refuses with exactly that error, the subject loads, and upstream's own
    normalizer (on the file without its added tokens) maps such a token's content to ""."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.upstream, Refused) \
            or _EMPTY_PATTERN not in obs.upstream.message \
            or isinstance(obs.subject, Refused | Crashed):
        return NONE
    bare = json.dumps({**ctx.doc.raw, "added_tokens": []}, ensure_ascii=False)
    if isinstance(ctx.replay.load("upstream", bare), Refused | Crashed):
        return NONE

    def normalizes_to_nothing(content: str) -> bool:
        aligned = ctx.replay.aligned(bare, content)
        return aligned is not None and "".join(c for c, _ in aligned) == ""

    return ALL if any(t.get("normalized") and isinstance(t.get("content"), str)
                      and t["content"] and normalizes_to_nothing(t["content"])
                      for t in ctx.doc.added_tokens) else NONE


RECOGNISERS: dict[str, Predicate] = {function.__name__: function for function in (
    panic_aborts_process,
    duplicate_id_string_choice,
    empty_normalized_added_token_loads,
)}

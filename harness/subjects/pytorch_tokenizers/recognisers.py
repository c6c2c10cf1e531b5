"""The recognisers of pytorch-tokenizers' expectations (``expectations.yaml`` beside this
module).

A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the expectations
parser; nothing in ``harness/judge/`` imports it. *Subject* is pytorch-tokenizers'
``HFTokenizer``, *upstream* is ``tokenizers``. A refusal is recognised by the rule the
adapter read from the library's log (program.py) and a document that really has what the
rule names; an answer by upstream replayed with the mechanism applied giving exactly the
subject's answer.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, Final

from ...core.outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ...judge.specification import known_ids
from ..fastokens.recognisers import component_types, decodes_normalized_added_token_as_content
from ..transformers_js.recognisers.replay import (
    replay_on,
    replaying,
    upstream_handle,
    with_model,
    yes,
)
from ..transformers_js.recognisers.replay import token_id as upstream_token_id


def _refused_load(div: Divergence) -> str | None:
    """The rule of the subject's refused load where upstream loaded (or panicked: that
    is upstream's own finding, judged by our intended classes), else None."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Refused):
        return None
    upstream = obs.upstream
    loaded = isinstance(upstream, Loaded) or (isinstance(upstream, Crashed)
                                              and upstream.kind == "panic")
    return obs.subject.rule if loaded else None


def same_answer(subject: Outcome, replayed: Outcome | None) -> bool:
    """The subject's answer equals a replayed upstream answer on the tiers the subject
    has: the ids of an encode, the text of a decode."""
    if isinstance(subject, Decoded) and isinstance(replayed, Decoded):
        return subject.text == replayed.text
    return (isinstance(subject, Encoded) and isinstance(replayed, Encoded)
            and subject.ids == replayed.ids)


#: The log line of a component the library has no class for: (slot, its wording).
_UNSUPPORTED: Final = {
    "decoder": re.compile(r"^Failed to setup decoder: Unsupported TokenDecoder type: (\w+)$"),
    "normalizer": re.compile(r"^Failed to setup normalizer: Unsupported Normalizer type: "
                             r"(\w+)$"),
    "pre_tokenizer": re.compile(r"^Failed to setup pretokenizer: Unsupported PreTokenizer "
                                r"type: (\w+)$"),
    "post_processor": re.compile(r"^Failed to setup post_processor: Unsupported "
                                 r"PostProcessor type: (\w+)$"),
}


def unsupported(slot: str) -> Predicate:
    """A file whose ``slot`` holds a component type the library has no class for: it
    refuses the load naming that type. Checked: upstream loads, the rule names the type,
    and the document's ``slot`` (or a Sequence in it) really holds it."""
    wording = _UNSUPPORTED[slot]

    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        rule = _refused_load(div)
        named = wording.match(rule) if rule is not None else None
        return yes(named is not None
                   and named.group(1) in component_types(ctx.doc.raw.get(slot)))

    recognise.__name__ = f"refuses_unsupported_{slot}"
    return recognise


_DUPLICATE: Final = re.compile(r"^duplicate token: (.*)$", re.DOTALL)


def duplicate_added_content_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """Two added tokens with the same content: the library's special-token map refuses
    the duplicate, upstream loads the file (the later entry wins). Checked: the content
    the rule names is the content of two or more added tokens."""
    rule = _refused_load(div)
    named = _DUPLICATE.match(rule) if rule is not None else None
    if named is None:
        return NONE
    contents = [entry.get("content") for entry in ctx.doc.added_tokens]
    return yes(contents.count(named.group(1)) >= 2)


def end_of_word_suffix_ignored(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE ``end_of_word_suffix``: the library's BPE never appends it to a word's last
    symbol. Checked: the model has a suffix, and upstream replayed on the document
    without it answers exactly the subject's ids."""
    obs = div.observation
    if not (obs.operation == "encode" and isinstance(obs.subject, Encoded)
            and ctx.doc.end_of_word_suffix):
        return NONE
    return yes(same_answer(obs.subject, replay_on(
        with_model(ctx.doc.raw, end_of_word_suffix=None), obs)))


_SPLIT_BEHAVIOUR: Final = re.compile(r"^Failed to setup pretokenizer: Unsupported behavior "
                                     r"'(\w+)' for Split PreTokenizer\.")


def split_behaviour_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split pre-tokenizer whose behaviour is MergedWithNext or Contiguous: the library
    has only MergedWithPrevious, Removed and Isolated and refuses the load naming it.
    Checked: a Split step of the pre-tokenizer has exactly the behaviour named."""
    rule = _refused_load(div)
    named = _SPLIT_BEHAVIOUR.match(rule) if rule is not None else None
    return yes(named is not None and any(
        step is not None and step.get("type") == "Split"
        and step.get("behavior") == named.group(1)
        for step in ctx.doc.steps("pre_tokenizer")))


def whole_piece_looked_up(ctx: Context, div: Divergence) -> frozenset[int]:
    """A piece that is itself a vocabulary entry is that entry, merges or not: the
    library's BPE (tiktoken's) returns a piece found in the vocabulary before merging,
    as upstream does only with ``ignore_merges: true``. Checked: the model has
    ``ignore_merges`` false, and upstream replayed with it true (and without the dropout
    and end_of_word_suffix the library also ignores: their own entries) answers exactly
    the subject's ids."""
    obs = div.observation
    if not (obs.operation == "encode" and isinstance(obs.subject, Encoded)
            and ctx.doc.model.get("type") == "BPE"
            and ctx.doc.model.get("ignore_merges") is not True):
        return NONE
    return yes(same_answer(obs.subject, replay_on(with_model(
        ctx.doc.raw, ignore_merges=True, dropout=None, end_of_word_suffix=None), obs)))


def normalized_added_token_matched_raw(ctx: Context, div: Divergence) -> frozenset[int]:
    """An added token marked ``normalized: true`` is matched against the raw text, by
    its content, as if it were ``normalized: false``; upstream matches it against the
    normalized text (by its normalized form). Checked: the document has a normalizer and
    such a token, and upstream replayed with every added token ``normalized: false`` (and
    without the dropout and end_of_word_suffix the library also ignores) answers
    exactly the subject's ids."""
    obs = div.observation
    if not (obs.operation == "encode" and isinstance(obs.subject, Encoded)
            and ctx.doc.present("normalizer")
            and any(entry.get("normalized") is True for entry in ctx.doc.added_tokens)):
        return NONE
    added = [{**entry, "normalized": False} if isinstance(entry, dict) else entry
             for entry in ctx.doc.added_tokens]
    document = with_model({**ctx.doc.raw, "added_tokens": added}, dropout=None,
                          end_of_word_suffix=None)
    return yes(same_answer(obs.subject, replay_on(document, obs)))


def dropout_ignored(ctx: Context, div: Divergence) -> frozenset[int]:
    """BPE ``dropout``: the library never drops a merge (a dropout of 1.0, which drops
    every merge upstream, still merges). Checked: the model's dropout is in (0, 1], and
    upstream replayed without dropout (and without the end_of_word_suffix the library
    also ignores: its own entry) answers exactly the subject's ids."""
    obs = div.observation
    dropout = ctx.doc.dropout
    if not (obs.operation == "encode" and isinstance(obs.subject, Encoded)
            and isinstance(dropout, int | float) and not isinstance(dropout, bool)
            and 0.0 < float(dropout) <= 1.0):
        return NONE
    return yes(same_answer(obs.subject, replay_on(
        with_model(ctx.doc.raw, dropout=None, end_of_word_suffix=None), obs)))


def declared_added_id_kept(ctx: Context, div: Divergence) -> frozenset[int]:
    """An added token missing from the model's vocabulary keeps the id the file declares
    in the library; upstream gives it the next free id instead (the vocabulary's size
    onwards), so a decode of the declared id is that token in the subject and nothing
    (an unknown id) upstream. Checked: the input holds a declared id of such a token,
    and upstream decoding the input with each such id replaced by the id upstream gave
    the token (the tokens stored as their content, ``normalized: false``, so the text is
    the content as the library has it) answers exactly the subject's text."""
    obs = div.observation
    if not (obs.operation == "decode" and isinstance(obs.input, tuple)
            and isinstance(obs.subject, Decoded)):
        return NONE
    declared = {entry["id"]: entry["content"] for entry in ctx.doc.added_tokens
                if isinstance(entry.get("id"), int) and isinstance(entry.get("content"), str)
                and entry["id"] in obs.input and entry["content"] not in ctx.doc.vocab}
    if not declared:
        return NONE
    added = [{**entry, "normalized": False} if isinstance(entry, dict)
             and entry.get("id") in declared else entry for entry in ctx.doc.added_tokens]
    document = {**ctx.doc.raw, "added_tokens": added}
    handle = upstream_handle(document)
    if isinstance(handle, Refused | Crashed):
        return NONE
    moved: dict[int, int] = {}
    for number, content in declared.items():
        given = upstream_token_id(handle, content)
        if given is not None and given != number:
            moved[number] = given
    if not moved:
        return NONE
    renumbered = dataclasses.replace(obs, input=tuple(moved.get(i, i) for i in obs.input))
    return yes(same_answer(obs.subject, replay_on(document, renumbered)))


_UNKNOWN_TOKEN: Final = re.compile(r"unknown token: (\d+)")


def decode_of_unknown_id_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """Decode of an id that names no token: upstream skips it, HFTokenizer refuses the
    decode naming it. Checked: the id the refusal names is the first of the input that is
    neither a vocabulary id nor an added token's (the id its entry declares, which
    HFTokenizer keeps, or the one upstream gives it), and upstream decoded."""
    obs = div.observation
    if (obs.operation != "decode" or not isinstance(obs.subject, Refused)
            or not isinstance(obs.upstream, Decoded) or not isinstance(obs.input, tuple)):
        return NONE
    named = _UNKNOWN_TOKEN.fullmatch(obs.subject.rule)
    known = known_ids(ctx.doc.raw) | {entry["id"] for entry in ctx.doc.added_tokens
                                      if isinstance(entry, dict)
                                      and isinstance(entry.get("id"), int)}
    unknown = [i for i in obs.input if i not in known]
    return yes(named is not None and bool(unknown) and int(named.group(1)) == unknown[0])


def _all_added_special(ctx: Context) -> dict[str, Any]:
    """The document with every added token ``special: true`` (written once per document:
    the memo keeps the same object, so the replay's text cache finds it)."""
    def derive() -> dict[str, Any]:
        added = [{**entry, "special": True} if isinstance(entry, dict) else entry
                 for entry in ctx.doc.raw.get("added_tokens") or ()]
        return {**ctx.doc.raw, "added_tokens": added}

    return ctx.doc.memo("pytorch-tokenizers/all-added-special", derive)


def skips_every_added_token(ctx: Context, div: Divergence) -> frozenset[int]:
    """Decode with ``skip_special_tokens`` skips every added token, ``special: false``
    ones too (the library keeps one map of added tokens, all of them special to it);
    upstream skips only the special ones. Checked: the decode skips, its input holds the
    declared id of an added token marked ``special: false``, and upstream replayed with
    every added token special answers exactly the subject's text."""
    obs = div.observation
    if not (obs.operation == "decode" and isinstance(obs.input, tuple)
            and isinstance(obs.subject, Decoded) and obs.option("skip_special_tokens")):
        return NONE
    plain = {entry["id"] for entry in ctx.doc.added_tokens
             if entry.get("special") is not True and isinstance(entry.get("id"), int)}
    if plain.isdisjoint(obs.input):
        return NONE
    return yes(same_answer(obs.subject, replay_on(_all_added_special(ctx), obs)))


def _unbuildable(ctx: Context) -> dict[str, Any] | None:
    """The document without the merges the library drops: its BPE table leaves out every
    vocabulary entry whose id is an added token's, so a merge with such an entry as a side
    or as its result is never applied. None where no merge is dropped. Derived once per
    document (a real file's merges walked once)."""
    def derive() -> dict[str, Any] | None:
        added = {entry["id"] for entry in ctx.doc.added_tokens
                 if isinstance(entry.get("id"), int)}
        hidden = {piece for piece, number in ctx.doc.vocab.items() if number in added}
        merges = ctx.doc.merges
        if not hidden or not isinstance(merges, list):
            return None
        kept = []
        for merge in merges:
            sides = merge.split(" ") if isinstance(merge, str) else merge
            if not (isinstance(sides, list) and len(sides) == 2
                    and all(isinstance(side, str) for side in sides)):
                return None
            if sides[0] in hidden or sides[1] in hidden or sides[0] + sides[1] in hidden:
                continue
            kept.append(merge)
        if len(kept) == len(merges):
            return None
        return with_model(ctx.doc.raw, merges=kept)

    return ctx.doc.memo("pytorch-tokenizers/unbuildable", derive)


def added_token_never_merged(ctx: Context, div: Divergence) -> frozenset[int]:
    """A vocabulary entry whose id is an added token's is left out of the library's BPE
    table, so the BPE never builds it (nor merges from it): Gemma 3's "▁▁" (an added
    token, normalized: false, so not matched in the raw text "  ") is "▁", "▁" in the
    library and "▁▁" upstream, which merges "▁" "▁". Checked: the document has such an
    entry and a merge that builds or uses one, and upstream replayed without those merges
    answers exactly the subject's ids."""
    obs = div.observation
    if not (obs.operation == "encode" and isinstance(obs.subject, Encoded)
            and ctx.doc.model.get("type") == "BPE"):
        return NONE
    document = _unbuildable(ctx)
    return yes(document is not None and same_answer(obs.subject, replay_on(document, obs)))


#: The rule program.py gives a decode whose bytes the binding cannot return as a str.
_NOT_UTF8: Final = "UnicodeDecodeError: the decoded bytes are not UTF-8"


def decode_not_utf8_raises(ctx: Context, div: Divergence) -> frozenset[int]:
    """A decode whose bytes are not UTF-8 (a byte-level token that is part of a
    character, alone): the binding converts the C++ string to a str and raises
    ``UnicodeDecodeError``; upstream decodes lossily, with U+FFFD. Checked: the refusal
    is that one, the decoder has a step that gives bytes (ByteLevel, ByteFallback), and
    upstream's text has a U+FFFD."""
    obs = div.observation
    if not (obs.operation == "decode" and isinstance(obs.subject, Refused)
            and obs.subject.rule == _NOT_UTF8 and isinstance(obs.upstream, Decoded)):
        return NONE
    return yes("\ufffd" in obs.upstream.text
               and bool({"ByteLevel", "ByteFallback"} & set(ctx.doc.step_types("decoder"))))


def _has_no_token(ctx: Context, char: str) -> bool:
    """The library's BPE has no token for ``char``: not a vocabulary entry of its table
    (an added token's id leaves it out), nor with byte_fallback a ``<0xNN>`` for each of
    its bytes."""
    added = {entry.get("id") for entry in ctx.doc.added_tokens}
    if char in ctx.doc.vocab and ctx.doc.vocab[char] not in added:
        return False
    pieces = [f"<0x{byte:02X}>" for byte in char.encode("utf-8", "surrogatepass")]
    return not (ctx.doc.model.get("byte_fallback") is True
                and all(p in ctx.doc.vocab and ctx.doc.vocab[p] not in added
                        for p in pieces))


def unknown_character_drops_piece(ctx: Context, div: Divergence) -> frozenset[int]:
    """A piece of more than one byte holding a character the BPE has no token for (no
    vocabulary entry, no byte-fallback tokens) gives no ids at all: the library's BPE
    logs nothing and returns an empty list for the piece, where upstream gives the unk
    token for the character (or drops the character alone where the model has none, or
    refuses the encode when the unk token is not in the vocabulary). Read where the text
    between added tokens is a piece each: no normalizer, no pre-tokenizer. (Where an
    added token is "<unk>" the library may give its id for such a character instead:
    unknown-character-is-added-unk; the replay tells which.) Checked: a piece has such a
    character, and upstream replayed on the text without those pieces (the added tokens
    alone where every piece goes) answers exactly the subject's ids."""
    obs = div.observation
    if not (obs.operation == "encode" and isinstance(obs.subject, Encoded)
            and isinstance(obs.input, str) and obs.option("pair") is None
            and ctx.doc.model.get("type") == "BPE" and not ctx.doc.present("normalizer")
            and not ctx.doc.present("pre_tokenizer")):
        return NONE
    contents = sorted({entry["content"] for entry in ctx.doc.added_tokens
                       if isinstance(entry.get("content"), str) and entry["content"]},
                      key=len, reverse=True)
    pieces = re.split("(" + "|".join(map(re.escape, contents)) + ")", obs.input) \
        if contents else [obs.input]
    kept = [piece for index, piece in enumerate(pieces)
            if index % 2 == 1 or not (len(piece.encode("utf-8", "surrogatepass")) >= 2
                                      and any(_has_no_token(ctx, c) for c in set(piece)))]
    if len(kept) == len(pieces):
        return NONE
    emptied = dataclasses.replace(obs, input="".join(kept))
    return yes(same_answer(obs.subject, replay_on(ctx.doc.raw, emptied)))


def _added_unk(ctx: Context) -> dict[str, Any] | None:
    """The document as the library reads a character without a token, where an added
    token is ``<unk>``: the model's ``unk_token`` that token, unfused, and with
    ``byte_fallback`` every missing ``<0xNN>`` a vocabulary entry with its id (so a byte
    without a token is that token, byte by byte); without the dropout the library
    ignores. None where no added token is ``<unk>``. Derived once per document."""
    def derive() -> dict[str, Any] | None:
        number = next((entry.get("id") for entry in ctx.doc.added_tokens
                       if entry.get("content") == "<unk>"), None)
        if not isinstance(number, int) or ctx.doc.vocab.get("<unk>") != number:
            return None
        changes: dict[str, Any] = {"unk_token": "<unk>", "fuse_unk": False, "dropout": None}
        if ctx.doc.model.get("byte_fallback") is True:
            vocab = dict(ctx.doc.vocab)
            for byte in range(256):
                vocab.setdefault(f"<0x{byte:02X}>", number)
            changes["vocab"] = vocab
        return with_model(ctx.doc.raw, **changes)

    return ctx.doc.memo("pytorch-tokenizers/added-unk", derive)


def unknown_character_is_added_unk(ctx: Context, div: Divergence) -> frozenset[int]:
    """Where an added token is ``<unk>``, a character the BPE has no token for is that
    token, whatever the model's ``unk_token`` and ``fuse_unk``: once, or with
    ``byte_fallback`` once per UTF-8 byte that has no ``<0xNN>`` token; upstream gives
    the model's unk token once per character (fused), or refuses the encode when it is not
    in the vocabulary. Checked: the subject's ids hold that token's id, and upstream
    replayed on the document with ``unk_token`` "<unk>" unfused and, with
    ``byte_fallback``, every missing ``<0xNN>`` entry given that id (and without the
    dropout the library ignores) answers exactly the subject's ids."""
    obs = div.observation
    if not (obs.operation == "encode" and isinstance(obs.subject, Encoded)
            and ctx.doc.model.get("type") == "BPE"):
        return NONE
    document = _added_unk(ctx)
    if document is None or model_unk_id(document) not in obs.subject.ids:
        return NONE
    return yes(same_answer(obs.subject, replay_on(document, obs)))


def model_unk_id(document: dict[str, Any]) -> int | None:
    """The vocabulary id of the ``<unk>`` entry of a rewritten document."""
    vocab = document["model"].get("vocab")
    found = vocab.get("<unk>") if isinstance(vocab, dict) else None
    return found if isinstance(found, int) else None

def _regex_split(step: Any) -> bool:
    return (isinstance(step, dict) and step.get("type") == "Split"
            and isinstance(step.get("pattern"), dict) and "Regex" in step["pattern"]
            and step.get("invert") is False)


def _matches_kept(step: Any) -> Any:
    """A pre-tokenizer step as the library reads it: a Split with a Regex pattern keeps
    its matches alone, each a piece (upstream's Removed with the pattern inverted)."""
    if _regex_split(step):
        return {**step, "behavior": "Removed", "invert": True}
    if isinstance(step, dict) and step.get("type") == "Sequence" \
            and isinstance(step.get("pretokenizers"), list):
        return {**step, "pretokenizers": [_matches_kept(s) for s in step["pretokenizers"]]}
    return step


def split_regex_keeps_only_matches(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split pre-tokenizer with a Regex pattern keeps only the text its regex matches,
    whatever the behaviour (tiktoken's find-all): the text between matches is dropped.
    Upstream keeps it as pieces (Isolated, MergedWith*), or drops the matches (Removed).
    Checked: a step of the pre-tokenizer is such a Split (not inverted), and upstream
    replayed with each such step Removed and inverted (its matches kept, each a piece)
    answers exactly the subject's ids."""
    obs = div.observation
    if not (obs.operation == "encode" and isinstance(obs.subject, Encoded)
            and any(_regex_split(step) for step in ctx.doc.steps("pre_tokenizer"))):
        return NONE
    document = {**ctx.doc.raw, "pre_tokenizer": _matches_kept(ctx.doc.raw["pre_tokenizer"])}
    return yes(same_answer(obs.subject, replay_on(document, obs)))

_ALL: Final[tuple[Callable[[Context, Divergence], frozenset[int]], ...]] = (
    unsupported("decoder"),
    unsupported("pre_tokenizer"),
    unsupported("normalizer"),
    unsupported("post_processor"),
    split_behaviour_refused,
    dropout_ignored,
    whole_piece_looked_up,
    normalized_added_token_matched_raw,
    decodes_normalized_added_token_as_content,
    duplicate_added_content_refused,
    end_of_word_suffix_ignored,
    declared_added_id_kept,
    decode_of_unknown_id_refused,
    skips_every_added_token,
    added_token_never_merged,
    decode_not_utf8_raises,
    unknown_character_drops_piece,
    unknown_character_is_added_unk,
    split_regex_keeps_only_matches,
)
RECOGNISERS: dict[str, Predicate] = {function.__name__: replaying(function) for function in _ALL}

"""The recognisers of kitoken's expectations (``expectations.yaml`` beside this module).

A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the expectations
parser; nothing in ``harness/judge/`` imports it. *Subject* is kitoken, *upstream* is
``tokenizers``. A refusal (or a crash) is recognised by the document really having what
kitoken names (``refusals.py``); an encode or a decode by replaying upstream on the
document as kitoken reads it (``readings.py``: every applicable reading composed, the
recognised one needed), each reading taken from kitoken's conversion
(``src/convert/tokenizers.rs``) and its BPE (``src/encoder/bytepair.rs``: a pair merges
when its join is a vocabulary token, the lowest-ranked first; tokens ranked by the first
merge giving them, then by id).
"""

from __future__ import annotations

import re
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Decoded, Encoded, Outcome
from ....judge.predicates import Predicate
from ...transformers_js.recognisers.replay import model_of, replaying, with_model
from .added import merge_joins_not_added
from .bytes import (
    _decodes_byte_runes,
    byte_pieces_as_tokens,
    byte_pieces_kept,
    byte_pieces_uppercased,
    byte_runs_as_utf8,
    every_byte_piece,
    new_pieces_dropped,
)
from .readings import DECODE, ENCODE, Change, Reading, Readings, with_option
from .refusals import (
    _merge_sides,
    _types,
    byte_level_decoder_refused,
    byte_level_post_processor_refused,
    decode_shadowed_byte_piece_refused,
    decode_unknown_id_refused,
    merge_out_of_vocabulary_loaded,
    normalizer_variant_refused,
    one_char_split_panics,
    unk_not_an_added_token_refused,
)

#: A byte piece's spelling in a text.
_BYTE_PIECE_SPELT: Final = re.compile(r"<0x[0-9A-Fa-f]{2}>")

# -- the readings ----------------------------------------------------------------------


def _ranked_vocabulary(model: dict[str, Any]) -> list[str]:
    """kitoken's order of the vocabulary: tokens a merge gives by that merge's index
    (the first one giving them), then the others by id."""
    first: dict[str, int] = {}
    for index, merge in enumerate(model.get("merges") or ()):
        sides = _merge_sides(merge)
        if sides is not None:
            first.setdefault(sides[0] + sides[1], index)
    vocab = model["vocab"]
    return sorted((t for t, i in vocab.items() if isinstance(i, int)),
                  key=lambda t: (0, first[t], vocab[t]) if t in first else (1, 0, vocab[t]))


def merges_from_vocabulary(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken merges two adjacent parts whenever their join is a vocabulary token,
    whether or not the file lists that merge: the merges every vocabulary token can be
    split into, in kitoken's rank order (the file's own merge of a token first). Applies
    where some pair joins into a token by no merge the file lists."""
    model = model_of(document)
    if model_of(document).get("continuing_subword_prefix"):
        # Not modelled with a continuing_subword_prefix: upstream reads a merge's right
        # side without the prefix, and a derived merge would slice a character there
        # (upstream then panics, or aborts the process raising the message).
        return None
    vocab = model.get("vocab")
    if model.get("type") != "BPE" or not isinstance(vocab, dict):
        return None
    listed = {sides for m in model.get("merges") or () if (sides := _merge_sides(m))}
    merges: list[list[str]] = []
    extra = False
    for token in _ranked_vocabulary(model):
        splits = [(token[:i], token[i:]) for i in range(1, len(token))
                  if token[:i] in vocab and token[i:] in vocab]
        splits.sort(key=lambda sides: sides not in listed)
        extra = extra or any(sides not in listed for sides in splits)
        merges.extend([left, right] for left, right in splits)
    return with_model(document, merges=merges) if extra else None


def _specials_in_vocabulary(document: dict[str, Any]) -> set[str]:
    model = model_of(document)
    vocab = model.get("vocab")
    if model.get("type") != "BPE" or not isinstance(vocab, dict):
        return set()
    special = {e.get("content") for e in document.get("added_tokens") or ()
               if isinstance(e, dict) and e.get("special") is True} - {model.get("unk_token")}
    return {t for t in special if isinstance(t, str)} & vocab.keys()


def special_entries_out_of_model(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken takes the special added tokens (``special`` true, its kind Control) out of
    the model's vocabulary: the model never gives them (a word ``▁`` whose ``▁</w>`` is a
    special added token has no token in kitoken, and no unk: nothing). Upstream with those
    entries out of the vocabulary (and the merges naming them); the unk token stays
    (``unk_from_added_tokens`` reads it). Applied to texts that do not hold such a token
    (``_holds_no_special_of_vocabulary``), whose added-token entries are left out too:
    upstream numbers an added token anew when its content is not in the vocabulary, and
    the new number may be another token's."""
    gone = _specials_in_vocabulary(document)
    if not gone:
        return None
    model = model_of(document)
    merges = [m for m in model.get("merges") or ()
              if (sides := _merge_sides(m)) is None
              or not {sides[0], sides[1], sides[0] + sides[1]} & gone]
    changed = with_model(document, vocab={t: i for t, i in model["vocab"].items()
                                          if t not in gone}, merges=merges)
    return {**changed, "added_tokens": [e for e in document.get("added_tokens") or ()
                                        if not (isinstance(e, dict)
                                                and e.get("content") in gone)]}


def _holds_no_special_of_vocabulary(document: dict[str, Any], obs: Observation) -> bool:
    return isinstance(obs.input, str) and not any(
        content in obs.input for content in _specials_in_vocabulary(document))


def last_added_entry_wins(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken keys its added tokens by content: of two entries of one content the last
    one's flags stand (a special <unk> listed again with ``special`` false is not skipped
    by a decode skipping the specials). Upstream with the earlier entries of each content
    left out."""
    added = document.get("added_tokens") or []
    last = {e.get("content"): n for n, e in enumerate(added) if isinstance(e, dict)}
    kept = [e for n, e in enumerate(added)
            if not isinstance(e, dict) or last[e.get("content")] == n]
    return {**document, "added_tokens": kept} if len(kept) != len(added) else None


def unknown_characters_split_words(document: dict[str, Any]) -> dict[str, Any] | None:
    """Without an unk token or byte fallback, a character no token covers is dropped by
    both; upstream drops it from the word before merging (its neighbours become adjacent
    and may merge), kitoken's BPE keeps it between them as a barrier. Upstream with a
    last pre-tokenizer step isolating every character that is no one-character token.
    Not modelled with an end-of-word suffix or a continuing-subword prefix (the word's
    ends would move)."""
    model = model_of(document)
    vocab = model.get("vocab")
    if (model.get("type") != "BPE" or not isinstance(vocab, dict) or model.get("unk_token")
            or model.get("byte_fallback") or model.get("end_of_word_suffix")
            or model.get("continuing_subword_prefix")):
        return None
    known = sorted({t for t in vocab if isinstance(t, str) and len(t) == 1})
    barrier = {"type": "Split", "pattern": {"Regex": "[^" + "".join(
        f"\\x{{{ord(c):X}}}" for c in known) + "]" if known else "."},
        "behavior": "Isolated", "invert": False}
    pre = document.get("pre_tokenizer")
    steps = [pre] if isinstance(pre, dict) else []
    return {**document, "pre_tokenizer": {"type": "Sequence",
                                          "pretokenizers": [*steps, barrier]}}


def unk_from_added_tokens(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken takes the unk token from the added tokens; upstream looks it up in the
    model's vocabulary, and refuses the encode that needs it when it is not there: the
    vocabulary with the unk token at its added id."""
    model = model_of(document)
    unk, vocab = model.get("unk_token"), model.get("vocab")
    if not isinstance(unk, str) or not isinstance(vocab, dict) or unk in vocab:
        return None
    ids = [e.get("id") for e in document.get("added_tokens") or ()
           if isinstance(e, dict) and e.get("content") == unk and isinstance(e.get("id"), int)]
    return with_model(document, vocab={**vocab, unk: ids[-1]}) if ids else None


def ignore_merges_off(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken does not read ``ignore_merges``: upstream with it off (with it on,
    upstream takes a word found in the vocabulary whole, its end-of-word suffix unjoined)."""
    return with_model(document, ignore_merges=False) \
        if model_of(document).get("ignore_merges") is True else None


def whole_piece_first(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken's BPE looks a piece up whole before merging (tiktoken's way): a piece that
    is a vocabulary token is that token, however its merges would go. Upstream with
    ``ignore_merges`` on, where no end-of-word suffix or subword prefix changes what is
    looked up (``ignore_merges_not_read`` reads the suffix case)."""
    model = model_of(document)
    if (model.get("type") != "BPE" or model.get("ignore_merges") is True
            or model.get("end_of_word_suffix") or model.get("continuing_subword_prefix")):
        return None
    return with_model(document, ignore_merges=True)


def _spells_no_byte_piece(document: dict[str, Any], obs: Observation) -> bool:
    """The text spells no byte piece of the vocabulary (``<0x0A>`` literally), or byte
    pieces are not decoded. Where they are, kitoken's vocabulary holds a byte piece as
    the byte it stands for: a piece spelling ``<0x0A>`` is no token of it whole, where
    upstream's ``ignore_merges`` finds the byte piece (``whole_piece_first`` does not
    model that; the text is left to the other readings)."""
    if not isinstance(obs.input, str) or not _decodes_byte_runes(document):
        return True
    vocab = model_of(document).get("vocab") or {}
    return not any(found.group(0) in vocab for found in _BYTE_PIECE_SPELT.finditer(obs.input))


def subword_prefix_off(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken's conversion reads no ``continuing_subword_prefix`` of a BPE model (only
    WordPiece's): upstream with none (with one, upstream gives a word's later pieces
    their prefixed tokens, ``##▁``)."""
    model = model_of(document)
    vocab = model.get("vocab")
    if model.get("type") != "BPE" or not model.get("continuing_subword_prefix") or \
            not isinstance(vocab, dict):
        return None
    # a merge's join spelt with the prefix (upstream drops it from the right side) is no
    # entry without it: such merges are left out (upstream would refuse them)
    merges = [m for m in model.get("merges") or ()
              if (sides := _merge_sides(m)) is not None
              and {sides[0], sides[1], sides[0] + sides[1]} <= vocab.keys()]
    return with_model(document, continuing_subword_prefix=None, merges=merges)


def dropout_off(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken does not read ``dropout``: upstream with none (1.0 drops every merge)."""
    dropout = model_of(document).get("dropout")
    return with_model(document, dropout=None) if dropout not in (None, 0, 0.0) else None


def _metaspace_runs_split(step: Any) -> Any:
    if isinstance(step, dict) and step.get("type") == "Sequence" and isinstance(
            step.get("pretokenizers"), list):
        return {**step, "pretokenizers": [_metaspace_runs_split(s)
                                          for s in step["pretokenizers"]]}
    if isinstance(step, dict) and step.get("type") == "Metaspace" and step.get("split") is True \
            and isinstance(step.get("replacement"), str) and len(step["replacement"]) == 1:
        return {"type": "Sequence", "pretokenizers": [
            {**step, "split": False},
            {"type": "Split", "pattern": {"Regex": re.escape(step["replacement"]) + "+"},
             "behavior": "MergedWithNext", "invert": False}]}
    return step


def metaspace_split_at_runs(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken converts Metaspace's ``split`` into a split at each run of the replacement
    (``▁+``) merged with the next piece: a run of spaces before a word is one piece with
    it (``▁▁▁日``), where upstream splits before every ``▁`` (``▁``, ``▁``, ``▁日``).
    Upstream with the Metaspace unsplit, followed by that split."""
    pre = document.get("pre_tokenizer")
    changed = _metaspace_runs_split(pre)
    return {**document, "pre_tokenizer": changed} if changed != pre else None


def _metaspace_first(step: Any) -> bool:
    if not isinstance(step, dict):
        return False
    if step.get("type") == "Sequence" and isinstance(step.get("pretokenizers"), list):
        return any(_metaspace_first(s) for s in step["pretokenizers"])
    return step.get("type") == "Metaspace" and step.get("prepend_scheme") == "first"


def _first_as_never(step: Any) -> Any:
    if isinstance(step, dict) and step.get("type") == "Sequence" and isinstance(
            step.get("pretokenizers"), list):
        return {**step, "pretokenizers": [_first_as_never(s) for s in step["pretokenizers"]]}
    if isinstance(step, dict) and step.get("type") == "Metaspace":
        return {**step, "prepend_scheme": "never"}
    return step


def metaspace_first_on_text(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken's Metaspace "first" is a normalization of the whole text (a ``▁`` put
    before its first character), ahead of any added token that starts it; upstream
    prepends to the first section after the added tokens are split off, only where it
    starts the text: the scheme "never" with the ``▁`` given in the text itself
    (``_prefixed``)."""
    pre = document.get("pre_tokenizer")
    if not _metaspace_first(pre):
        return None
    return {**document, "pre_tokenizer": _first_as_never(pre)}


#: What upstream's WhitespaceSplit splits at: Rust's ``char::is_whitespace``.
_RUST_WHITESPACE: Final = re.compile(
    "[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")


def _splits_at_whitespace(step: Any) -> bool:
    """The pre-tokenizer is a WhitespaceSplit or a Sequence holding one (nested alike)."""
    if not isinstance(step, dict):
        return False
    inner = step.get("pretokenizers")
    if step.get("type") == "Sequence" and isinstance(inner, list):
        return any(_splits_at_whitespace(s) for s in inner)
    return step.get("type") == "WhitespaceSplit"


#: kitoken's split of WhitespaceSplit: at each space, the space starting the next piece.
_SPACE_STARTS_PIECE: Final = {"type": "Split", "pattern": {"String": " "},
                              "behavior": "MergedWithNext", "invert": False}


def _space_split_for_whitespace_split(step: Any) -> Any:
    if isinstance(step, dict) and step.get("type") == "Sequence" and isinstance(
            step.get("pretokenizers"), list):
        return {**step, "pretokenizers": [_space_split_for_whitespace_split(s)
                                          for s in step["pretokenizers"]]}
    if isinstance(step, dict) and step.get("type") == "WhitespaceSplit":
        return dict(_SPACE_STARTS_PIECE)
    return step


def whitespace_split_as_one_space(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken converts WhitespaceSplit into two normalizations of the whole text (each
    run of white space, ``\\s+``, becomes one space; spaces are stripped from both ends)
    and a split at ' ' that starts the next piece with the space (``MergeRight``): the
    space is kept, read by the steps after it (a ByteLevel makes it ``Ġ``, a GPT-2 Split
    keeps `` ''`` whole). Upstream with each WhitespaceSplit step (at any place of the
    Sequence) a ``MergedWithNext`` split at " ", on the text with its words joined by one
    space (``_words_joined``)."""
    pre = document.get("pre_tokenizer")
    if not _splits_at_whitespace(pre):
        return None
    return {**document, "pre_tokenizer": _space_split_for_whitespace_split(pre)}


def _extracted(document: dict[str, Any]) -> re.Pattern[str] | None:
    """The added tokens kitoken cuts out of the text before it normalizes (those with
    ``normalized`` false), longest first; None where there are none."""
    contents = sorted({e["content"] for e in document.get("added_tokens") or ()
                       if isinstance(e, dict) and e.get("normalized") is False
                       and isinstance(e.get("content"), str) and e["content"]},
                      key=lambda content: (-len(content), content))
    return re.compile("|".join(map(re.escape, contents))) if contents else None


def _one_space(section: str) -> str:
    return " ".join(word for word in _RUST_WHITESPACE.split(section) if word)


def _words_joined(document: dict[str, Any], obs: Observation) -> Observation:
    """The text as kitoken's WhitespaceSplit normalizes it: in each section between the
    added tokens it cuts out first (``_extracted``), every run of white space one space,
    none at the section's ends."""
    assert isinstance(obs.input, str)
    cut = _extracted(document)
    if cut is None:
        joined = _one_space(obs.input)
    else:
        pieces, start = [], 0
        for found in cut.finditer(obs.input):
            pieces += [_one_space(obs.input[start:found.start()]), found.group(0)]
            start = found.end()
        joined = "".join([*pieces, _one_space(obs.input[start:])])
    return Observation(obs.track, obs.operation, joined, obs.options, obs.subject,
                       obs.upstream)


def _one_text(document: dict[str, Any], obs: Observation) -> bool:
    return isinstance(obs.input, str) and obs.option("pair") is None


def _prefixed(document: dict[str, Any], obs: Observation) -> Observation:
    assert isinstance(obs.input, str)
    return Observation(obs.track, obs.operation, "\u2581" + obs.input, obs.options,
                       obs.subject, obs.upstream)


def _text_not_spaced(document: dict[str, Any], obs: Observation) -> bool:
    return isinstance(obs.input, str) and obs.option("pair") is None and bool(obs.input) \
        and obs.input[0] not in " \u2581"


def flag_off(flag: str) -> Change:
    """kitoken reads an added token's content, id, ``special`` and ``normalized`` only:
    upstream with ``flag`` (single_word, lstrip, rstrip) off on every added token."""

    def change(document: dict[str, Any]) -> dict[str, Any] | None:
        added = document.get("added_tokens") or []
        if not any(isinstance(e, dict) and e.get(flag) is True for e in added):
            return None
        return {**document, "added_tokens": [{**e, flag: False} if isinstance(e, dict)
                                             else e for e in added]}

    change.__name__ = f"{flag}_off"
    return change


def _unk_id(document: dict[str, Any]) -> int | None:
    unk = model_of(document).get("unk_token")
    for entry in document.get("added_tokens") or ():
        if isinstance(entry, dict) and entry.get("content") == unk and isinstance(
                entry.get("id"), int):
            return int(entry["id"])
    return None


def _fuses_unk(document: dict[str, Any]) -> dict[str, Any] | None:
    return document if model_of(document).get("fuse_unk") is True and \
        _unk_id(document) is not None else None


def unk_runs_collapsed(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                       ) -> Outcome | None:
    """kitoken's fuse_unk is a processing step over the whole encoding (``Collapse``):
    consecutive unk ids collapse into one across words and pre-tokenizer splits, where
    upstream fuses unknown characters within a word only."""
    unk = _unk_id(document)
    if not isinstance(outcome, Encoded) or unk is None:
        return outcome
    keep = [n for n, i in enumerate(outcome.ids)
            if not (i == unk and n and outcome.ids[n - 1] == unk)]
    tokens = tuple(outcome.tokens[n] for n in keep) \
        if len(outcome.tokens) == len(outcome.ids) else ()
    return Encoded(ids=tuple(outcome.ids[n] for n in keep), tokens=tokens, spans=(),
                   special_mask=())


def _unchanged(document: dict[str, Any]) -> dict[str, Any]:
    return document


def _without_template(document: dict[str, Any], obs: Observation) -> Observation:
    return with_option(obs, "add_special_tokens", False)


def _asks_template(document: dict[str, Any], obs: Observation) -> bool:
    return obs.option("add_special_tokens") is True and bool(document.get("post_processor"))


def no_decoder_fused(document: dict[str, Any]) -> dict[str, Any] | None:
    """Without a decoder upstream joins the tokens with spaces; kitoken concatenates
    them: the decoder ``Fuse``."""
    return {**document, "decoder": {"type": "Fuse"}} if document.get("decoder") is None \
        else None


def _text_steps(decoder: Any) -> list[dict[str, Any]] | None:
    """The Replace (String pattern) and Strip steps of a decoder, in order; None where a
    Replace has a Regex pattern (not modelled) or there are none."""
    steps = decoder.get("decoders") if isinstance(decoder, dict) and decoder.get(
        "type") == "Sequence" else [decoder]
    if not isinstance(steps, list):
        return None
    found = [s for s in steps if isinstance(s, dict) and s.get("type") in ("Replace", "Strip")]
    if any(s.get("type") == "Replace" and not (
            isinstance(s.get("pattern"), dict) and isinstance(s["pattern"].get("String"), str)
            and isinstance(s.get("content"), str)) for s in found):
        return None
    if any(s.get("type") == "Strip" and not (
            isinstance(s.get("content"), str) and len(s["content"]) == 1
            and isinstance(s.get("start"), int) and isinstance(s.get("stop"), int))
            for s in found):
        return None
    return found or None


def decoder_without_text_steps(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken applies a decoder's Replace and Strip steps to the whole decoded text, after
    its byte pieces are bytes (``config.decoding``); upstream applies them to each token in
    its place in the Sequence (a ▁ spelt by byte pieces is never replaced). The decoder
    without them; ``text_steps_applied`` applies them to the replayed text."""
    decoder = document.get("decoder")
    if not isinstance(decoder, dict) or _text_steps(decoder) is None:
        return None
    if decoder.get("type") != "Sequence":
        return {**document, "decoder": {"type": "Fuse"}}
    kept = [s for s in decoder["decoders"]
            if not (isinstance(s, dict) and s.get("type") in ("Replace", "Strip"))]
    return {**document, "decoder": {**decoder, "decoders": kept} if kept else {"type": "Fuse"}}


def _strip(text: str, char: str, start: int, stop: int) -> str:
    head = 0
    while head < min(start, len(text)) and text[head] == char:
        head += 1
    tail = len(text)
    while len(text) - tail < stop and tail > head and text[tail - 1] == char:
        tail -= 1
    return text[head:tail]


def text_steps_applied(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                       ) -> Outcome | None:
    """The decoder's Replace and Strip steps applied to the whole text, in order."""
    steps = _text_steps(document.get("decoder"))
    if not isinstance(outcome, Decoded) or steps is None:
        return outcome
    text = outcome.text
    for step in steps:
        if step["type"] == "Replace":
            text = text.replace(step["pattern"]["String"], step["content"])
        else:
            text = _strip(text, step["content"], step["start"], step["stop"])
    return Decoded(text)


def _model_byte_fallback_only(document: dict[str, Any], obs: Observation) -> bool:
    return model_of(document).get("byte_fallback") is True and \
        "ByteFallback" not in _types(document.get("decoder"))


def _decoder_byte_fallback(document: dict[str, Any], obs: Observation) -> bool:
    return "ByteFallback" in _types(document.get("decoder"))


READINGS: Final = Readings({
    "special_entries_out_of_model": Reading(special_entries_out_of_model, ENCODE,
                                            when=_holds_no_special_of_vocabulary),
    "merge_joins_not_added": Reading(merge_joins_not_added, ENCODE),
    "no_template": Reading(_unchanged, ENCODE, request=_without_template,
                           when=_asks_template),
    "lowercase_byte_pieces": Reading(byte_pieces_uppercased, ENCODE | DECODE),
    "byte_pieces_as_tokens": Reading(byte_pieces_as_tokens, ENCODE),
    "partial_byte_fallback": Reading(every_byte_piece, ENCODE, answer=new_pieces_dropped),
    "unk_from_added_tokens": Reading(unk_from_added_tokens, ENCODE),
    "merges_from_vocabulary": Reading(merges_from_vocabulary, ENCODE),
    "unknown_characters_split_words": Reading(unknown_characters_split_words, ENCODE),
    "whitespace_split_as_one_space": Reading(whitespace_split_as_one_space, ENCODE,
                                             request=_words_joined, when=_one_text),
    "single_word_not_read": Reading(flag_off("single_word"), ENCODE),
    "lstrip_not_read": Reading(flag_off("lstrip"), ENCODE),
    "rstrip_not_read": Reading(flag_off("rstrip"), ENCODE),
    "ignore_merges_not_read": Reading(ignore_merges_off, ENCODE),
    "whole_piece_first": Reading(whole_piece_first, ENCODE, when=_spells_no_byte_piece),
    "subword_prefix_not_read": Reading(subword_prefix_off, ENCODE),
    "dropout_not_read": Reading(dropout_off, ENCODE),
    "metaspace_split_at_runs": Reading(metaspace_split_at_runs, ENCODE),
    "metaspace_first_on_whole_text": Reading(metaspace_first_on_text, ENCODE,
                                             request=_prefixed, when=_text_not_spaced),
    "unk_fused_across_words": Reading(_fuses_unk, ENCODE, answer=unk_runs_collapsed),
    "last_added_entry_wins": Reading(last_added_entry_wins, DECODE),
    "no_decoder_concatenates": Reading(no_decoder_fused, DECODE),
    "byte_fallback_model_decodes_bytes": Reading(byte_pieces_kept, DECODE,
                                                 answer=byte_runs_as_utf8,
                                                 when=_model_byte_fallback_only),
    "byte_runs_read_as_utf8": Reading(byte_pieces_kept, DECODE, answer=byte_runs_as_utf8,
                                      when=_decoder_byte_fallback),
    "decoder_steps_on_text": Reading(decoder_without_text_steps, DECODE,
                                     answer=text_steps_applied),
}, tiers=("ids",))


RECOGNISERS: dict[str, Predicate] = {function.__name__: replaying(function) for function in (
    unk_not_an_added_token_refused,
    normalizer_variant_refused,
    decode_unknown_id_refused,
    decode_shadowed_byte_piece_refused,
    merge_out_of_vocabulary_loaded,
    byte_level_post_processor_refused,
    byte_level_decoder_refused,
    one_char_split_panics,
    *READINGS.recognisers().values(),
)}

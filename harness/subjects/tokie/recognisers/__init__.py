"""The recognisers of tokie's expectations (``expectations.yaml`` beside this module).

A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the expectations
parser; nothing in ``harness/judge/`` imports it. *Subject* is tokie, *upstream* is
``tokenizers``. A panic is recognised by the source file tokie's panic message names (an
unchecked index in one function); a decode by rebuilding what tokie answered from the document.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Crashed, Decoded, Encoded, Outcome, Refused
from ....judge.compare import Divergence
from ....judge.predicates import ALL, NONE, Context, Predicate
from ...kitoken.recognisers.readings import ENCODE, Reading, Readings, with_option
from ...transformers_js.recognisers.replay import model_of, replaying, with_model, yes
from . import backtracking, cl100k, cleaning, model, uncovered
from .cleaning import _BERT_UNCASED, _bert_uncased, _cleaned_alike

#: Where tokie 0.1.4 panics, measured: (the operation, its source file; one unchecked
#: index per file, at a line or two: sentencepiece.rs:469-470, vocab.rs:76-83).
PANICS: Final = (("load", "encoder/sentencepiece.rs"), ("load", "encoder/simple.rs"),
                 ("load", "encoder/backtracking.rs"), ("decode", "decoder/vocab.rs"))


def panics_at(operation: str, site: str) -> Predicate:
    """tokie panics in ``site`` (``crates/tokie/src/<site>``) in ``operation``, whatever
    upstream does there. Checked: the subject died, its standard error naming that file
    (an index out of bounds)."""
    where = re.compile(r"panicked at crates/tokie/src/" + re.escape(site)
                       + r":\d+:\d+: index out of bounds")

    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        subject = div.observation.subject
        return yes(div.observation.operation == operation and isinstance(subject, Crashed)
                   and where.search(subject.message) is not None)

    source = site.removesuffix(".rs")
    recognise.__name__ = "panics_in_" + re.sub(r"\W", "_", source)
    return recognise


_ENCODE_PANIC: Final = re.compile(r"panicked at crates/tokie/src/encoder/backtracking\.rs:"
                                  r"\d+:\d+: index out of bounds")


@model.per_document
def _added_contents(document: dict[str, Any]) -> tuple[str, ...]:
    """The added tokens' contents tokie matches in the raw text, longest first (contents
    of one byte left out: hf.rs ``extract_added_tokens``)."""
    return tuple(sorted({str(e["content"]) for e in document.get("added_tokens") or ()
                         if isinstance(e, dict) and isinstance(e.get("content"), str)
                         and len(e["content"].encode("utf-8", "surrogatepass")) > 1},
                        key=len, reverse=True))


def _pieces(document: dict[str, Any], text: str) -> list[str]:
    """The text cut at every added token's content (``_added_contents``)."""
    contents = _added_contents(document)
    if not contents:
        return [text]
    return [p for p in re.split("|".join(map(re.escape, contents)), text) if p]


def panics_in_backtracking_encode(ctx: Context, div: Divergence) -> frozenset[int]:
    """tokie panics encoding (an index out of bounds in ``encoder/backtracking.rs``) where
    its backtracking encoder, ported (``backtracking.py``), indexes past its tables: its
    split table holds the file's ids, indexed by position, so an id at or past the
    vocabulary's size (ids with a gap) is read past its end. Checked: the subject died
    with that message, tokie reads the text as it is (no normalizer, or the file's
    Prepend "▁" + Replace " " pair, and no pre-tokenizer detected) on a path of that
    encoder, and the port raises IndexError on a piece of the
    text between added tokens."""
    obs = div.observation
    subject = obs.subject
    document = ctx.doc.raw
    if not (obs.operation == "encode" and isinstance(subject, Crashed)
            and _ENCODE_PANIC.search(subject.message) is not None
            and model_of(document).get("type") == "BPE"
            and (model.detected_normalizer(document) == "None"
                 or _metaspace_from_pre_tokenizer(document) is False)
            and model.pretokenizer_type(document) == "None"
            and (model.topological(document) or model.backtracking_on_vocab(document))):
        return NONE
    tables = backtracking.tables(document)
    if tables is None:
        return NONE
    pair = obs.option("pair")
    for text in (t for t in (obs.input, pair) if isinstance(t, str)):
        for raw in _pieces(document, text):
            piece = raw if model.detected_normalizer(document) == "None" \
                else "\u2581" + raw.replace(" ", "\u2581")  # its Prepend + Replace
            try:
                backtracking.encode(tables, piece.encode("utf-8", "surrogatepass"))
            except IndexError:
                return ALL
            except backtracking.EndlessError:
                continue
    return NONE


def loads_dropout_out_of_range(ctx: Context, div: Divergence) -> frozenset[int]:
    """tokie reads no dropout (``dropout-not-read``), so it loads a BPE file whose dropout
    upstream refuses as out of range. Checked: upstream refused naming the dropout, the
    subject loaded, and the document's dropout really is a number outside [0, 1]."""
    obs = div.observation
    upstream = obs.upstream
    dropout = model_of(ctx.doc.raw).get("dropout")
    return yes(obs.operation == "load" and isinstance(upstream, Refused)
               and "Dropout should be between 0 and 1" in upstream.message
               and not isinstance(obs.subject, Refused | Crashed)
               and model_of(ctx.doc.raw).get("type") == "BPE"
               and isinstance(dropout, int | float) and not isinstance(dropout, bool)
               and not 0 <= dropout <= 1)


#: The model types upstream knows (its ModelWrapper's variants).
_MODEL_TYPES: Final = ("BPE", "WordPiece", "WordLevel", "Unigram")
_OUT_OF_VOCABULARY: Final = re.compile(r"^Token `(.*)` out of vocabulary", re.S)


def _loads_where_upstream_refuses(obs: Observation, message: str) -> bool:
    upstream = obs.upstream
    return obs.operation == "load" and isinstance(upstream, Refused) \
        and message in upstream.message and not isinstance(obs.subject, Refused | Crashed)


def loads_unknown_model_type(ctx: Context, div: Divergence) -> frozenset[int]:
    """tokie loads a file whose model type upstream does not know (it reads a vocab and
    merges whatever the type says). Checked: upstream refused the model as no variant it
    knows, the subject loaded, and the document's model type is a string none of
    upstream's."""
    kind = model_of(ctx.doc.raw).get("type")
    return yes(_loads_where_upstream_refuses(div.observation, "untagged enum ModelUntagged")
               and isinstance(kind, str) and kind not in _MODEL_TYPES)


def loads_merge_out_of_vocabulary(ctx: Context, div: Divergence) -> frozenset[int]:
    """tokie skips a merge naming a token the vocabulary lacks, or whose result it lacks
    (hf.rs: ``filter_map``, and no pair where the joined bytes are no token); upstream
    refuses the file. Checked: upstream's message names the token, the subject loaded,
    and the token, absent from the vocabulary, is a side of one of the document's BPE
    merges or that merge's result."""
    obs = div.observation
    upstream = obs.upstream
    if not (_loads_where_upstream_refuses(obs, "out of vocabulary")
            and isinstance(upstream, Refused)):
        return NONE
    found = _OUT_OF_VOCABULARY.match(upstream.message)
    model_ = model_of(ctx.doc.raw)
    vocab = model_.get("vocab")
    if found is None or model_.get("type") != "BPE" or not isinstance(vocab, dict) \
            or found.group(1) in vocab:
        return NONE
    token, prefix = found.group(1), model_.get("continuing_subword_prefix") or ""
    for sides in (model.merge_sides(m) for m in model_.get("merges") or ()):
        if sides is None:
            continue
        right = sides[1][len(prefix):] if prefix and sides[1].startswith(prefix) else sides[1]
        if token in sides or token == sides[0] + right:  # a side, or the merge's result
            return ALL
    return NONE


def _decode_model(ctx: Context, div: Divergence, with_decoder: bool) -> frozenset[int]:
    obs = div.observation
    subject = obs.subject
    if not (obs.operation == "decode" and isinstance(obs.input, tuple)
            and obs.option("skip_special_tokens") is False
            and bool(ctx.doc.raw.get("decoder")) is with_decoder):
        return NONE
    raw = model.decoded(ctx.doc.raw, obs.input)
    if raw is None:
        return NONE
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return yes(isinstance(subject, Refused) and subject.rule == "decode-not-utf-8")
    return yes(isinstance(subject, Decoded) and subject.text == text)


def decodes_raw_tokens(ctx: Context, div: Divergence) -> frozenset[int]:
    """tokie's decode runs none of the document's decoders (no ByteFallback, Replace,
    Strip, Metaspace...): its text is the bytes of the ids' tokens concatenated, each
    token read as tokie reads it (``model.py``: by position in the id-sorted vocabulary,
    GPT-2's byte map on the byte-level path). Checked: the document has a decoder, and
    the subject's text is exactly that (bytes that are not UTF-8: decode gave None)."""
    return _decode_model(ctx, div, True)


def decodes_raw_tokens_without_decoder(ctx: Context, div: Divergence) -> frozenset[int]:
    """Without a decoder upstream joins the tokens with spaces; tokie concatenates their
    bytes. Checked as ``decodes_raw_tokens``, on a document without a decoder."""
    return _decode_model(ctx, div, False)


def ids_as_positions(document: dict[str, Any]) -> dict[str, Any] | None:
    """tokie's encoders answer a token's position in the id-sorted vocabulary, not its
    id: the vocabulary renumbered 0..n-1 in that order (where that changes an id)."""
    vocab = model_of(document).get("vocab")
    if not isinstance(vocab, dict):
        return None
    renumbered = {token: i for i, token in enumerate(model.positions(document))}
    return with_model(document, vocab=renumbered) if renumbered != vocab else None


def _model_field_off(field: str, neutral: Any) -> Any:
    def change(document: dict[str, Any]) -> dict[str, Any] | None:
        value = model_of(document).get(field)
        return with_model(document, **{field: neutral}) if value not in (None, neutral, 0.0) \
            else None

    change.__name__ = f"{field}_off"
    return change


def merges_by_id(document: dict[str, Any]) -> dict[str, Any] | None:
    """On its byte-level path tokie's encoders reach every vocabulary token that two
    tokens join into, ranked by id, whatever merges the file lists: the merges every
    token splits into, in id order (on the positions tokie numbers them by)."""
    if model_of(document).get("continuing_subword_prefix"):
        # Not modelled with a continuing_subword_prefix: upstream reads a merge's right
        # side without the prefix, and a derived merge would slice a character there
        # (upstream then panics, or aborts the process raising the message).
        return None
    vocab = model_of(document).get("vocab")
    if not isinstance(vocab, dict) or not model.topological(document):
        return None  # the vocab-defined path merges by the file's merges
    merges = [[token[:i], token[i:]] for token in model.positions(document)
              for i in range(1, len(token)) if token[:i] in vocab and token[i:] in vocab]
    return with_model(document, merges=merges) if merges != model_of(document).get(
        "merges") else None


def vocabulary_as_gpt2_bytes(document: dict[str, Any]) -> dict[str, Any] | None:
    """On its byte-level path (merges "topological", ``model.py``) tokie reads every
    vocabulary string through GPT-2's byte map, ByteLevel pre-tokenizer or not: "é" is
    the byte 0xE9, never the text "é". The vocabulary with each string spelt as the text
    of those bytes (a string whose bytes are not UTF-8 dropped: no text reaches it)."""
    vocab = model_of(document).get("vocab")
    if not isinstance(vocab, dict) or not model.topological(document) or any(
            isinstance(p, dict) and p.get("type") == "ByteLevel"
            for p in _pre_steps(document.get("pre_tokenizer"))):
        return None
    spelt: dict[str, Any] = {}
    for token, i in vocab.items():
        try:
            spelt.setdefault(model.bytelevel_bytes(token).decode("utf-8"), i)
        except UnicodeDecodeError:
            continue
    if spelt == vocab:
        return None
    merges = [m for m in model_of(document).get("merges") or ()
              if all(side in spelt for side in (m if isinstance(m, list) else m.split(" ")))]
    return with_model(document, vocab=spelt, merges=merges)


def _pre_steps(step: Any) -> list[Any]:
    if isinstance(step, dict) and step.get("type") == "Sequence":
        return [s for inner in step.get("pretokenizers") or () for s in _pre_steps(inner)]
    return [step]


def unknown_dropped(document: dict[str, Any]) -> dict[str, Any] | None:
    """On its byte-level path tokie drops a character no token covers, silently (no
    unk, no byte fallback): upstream without an unk token and byte fallback drops it
    too."""
    model_ = model_of(document)
    if not model.topological(document) or (model_.get("unk_token") is None
                                            and model_.get("byte_fallback") is not True):
        return None  # (on its byte-level path: the vocab-defined one falls back to bytes)
    return with_model(document, unk_token=None, byte_fallback=False)


def tokies_template(document: dict[str, Any]) -> dict[str, Any] | None:
    """The document with tokie's post-processor (``model.template``) in its place."""
    single = model.template_parts(document.get("post_processor"))
    if single is None:
        return None
    return {**document, "post_processor": model.template(document)}


def special_mask_by_id(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                       ) -> Outcome | None:
    """tokie's special-tokens mask marks every id of its post-processor's tokens,
    wherever it stands (a special token matched in the text too)."""
    if not isinstance(outcome, Encoded):
        return outcome
    marked = model.special_ids(document)
    return dataclasses.replace(outcome, special_mask=tuple(
        1 if i in marked else 0 for i in outcome.ids))


def uncovered_bytes_walked(document: dict[str, Any], obs: Observation,
                           outcome: Outcome | None) -> Outcome | None:
    """Upstream's answer on ``uncovered.marked``'s document, each byte no token covers
    given the next token tokie's encoder finds (``uncovered.walked``); on its byte-level
    path with no pre-tokenizer, tokie's whole backtracking encoder (``backtracking.py``)
    on each segment's bytes, of which that walk is a part."""
    return uncovered.walked(document, outcome, port=uncovered.ports_bytes(document))


def backtracked(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                ) -> Outcome | None:
    """Upstream's answer on ``uncovered.marked``'s document, each segment encoded again
    by tokie's backtracking encoder (``backtracking.py``) from its bytes."""
    return uncovered.walked(document, outcome, port=True)


_REPLACE_SPACE: Final = {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}
#: tokie's normalizers that upstream expresses exactly (hf.rs ``detect_normalizer``, the
#: names of ``model.detected_normalizer``), for the document's normalizer. tokie's
#: Metaspace detected from a Prepend + Replace Sequence is that pair; detected from a
#: Metaspace pre-tokenizer (prepend_scheme "first") it is " " as "▁" and a "▁" prepended
#: unless the text starts with " " or "▁" (measured on tokie 0.1.4): made on the request.
_NORMALIZERS: Final[dict[str, dict[str, Any] | None]] = {
    "None": None,
    "NFC": {"type": "NFC"},
    "MetaspaceReplace": _REPLACE_SPACE,
}
_PREPEND_REPLACE: Final = {"type": "Sequence", "normalizers": [
    {"type": "Prepend", "prepend": "\u2581"}, _REPLACE_SPACE]}


def _metaspace_steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    pre = document.get("pre_tokenizer")
    steps = [pre] if isinstance(pre, dict) else []
    if isinstance(pre, dict) and pre.get("type") == "Sequence":
        steps = [p for p in pre.get("pretokenizers") or () if isinstance(p, dict)]
    return [p for p in steps if p.get("type") == "Metaspace"]


def _metaspace_from_pre_tokenizer(document: dict[str, Any]) -> bool | None:
    """Where tokie detects its Metaspace normalizer: True from a Metaspace pre-tokenizer
    (each one prepending "first", "▁" its replacement), False from a Prepend + Replace
    Sequence, None from anything else (not modelled)."""
    normalizer = document.get("normalizer")
    steps = normalizer.get("normalizers") if isinstance(normalizer, dict) \
        and normalizer.get("type") == "Sequence" else None
    if isinstance(steps, list) and {"type": "Prepend", "prepend": "\u2581"} in steps \
            and _REPLACE_SPACE in steps and not any(
                isinstance(n, dict) and n.get("type") == "Precompiled" for n in steps):
        return False
    metaspace = _metaspace_steps(document)
    if metaspace and all(p.get("prepend_scheme") == "first"
                         and p.get("replacement") == "\u2581" for p in metaspace):
        return True
    return None


def normalizer_by_detection(document: dict[str, Any]) -> dict[str, Any] | None:
    """tokie does not run the file's normalizer: it detects one of its own from the file
    (``model.detected_normalizer``). The document with upstream's equivalent in its place
    (None where tokie's is not expressible, or is the file's already)."""
    detected = model.detected_normalizer(document)
    if model.sentencepiece_encoder(document):
        return None  # (its SentencePiece encoder cuts the text at "▁" its own way)
    if detected == "Metaspace":
        source = _metaspace_from_pre_tokenizer(document)
        if source is None:
            return None
        normalizer: dict[str, Any] | None = _REPLACE_SPACE if source else _PREPEND_REPLACE
    elif _bert_uncased(document):
        normalizer = _BERT_UNCASED
    elif detected in _NORMALIZERS:
        normalizer = _NORMALIZERS[detected]
    else:
        return None
    if normalizer == document.get("normalizer") and not (
            detected == "Metaspace" and _metaspace_from_pre_tokenizer(document)):
        return None
    return {**document, "normalizer": normalizer}


def _texts(obs: Observation) -> list[str]:
    pair = obs.option("pair")
    return [t for t in (obs.input, pair) if isinstance(t, str)]


def normalizes_whole_texts(document: dict[str, Any], obs: Observation) -> bool:
    """Where tokie's normalizer is its BERT uncased one, each text is one its cleaning
    treats as upstream's does (``_cleaned_alike``)."""
    if _bert_uncased(document):
        return all(_cleaned_alike(text) for text in _texts(obs))
    return True


def metaspace_prepended(document: dict[str, Any], obs: Observation) -> Observation:
    """tokie's Metaspace prepend (detected from a Metaspace pre-tokenizer), made on the
    texts: "▁" before a text that does not start with " ", "▁" or an added token's
    content (tokie matches one of more than a byte: ``_pieces``); the segments after an
    added token get none, as upstream's "first" scheme gives (the rest of its
    normalizer, " " as "▁", is the document's)."""
    if model.detected_normalizer(document) != "Metaspace" \
            or not _metaspace_from_pre_tokenizer(document):
        return obs
    contents = _added_contents(document)

    def prepended(text: str) -> str:
        return text if text[:1] in (" ", "\u2581") or text.startswith(contents) \
            else "\u2581" + text

    changed = obs
    if isinstance(obs.input, str):
        changed = Observation(obs.track, obs.operation, prepended(obs.input), obs.options,
                              obs.subject, obs.upstream)
    pair = obs.option("pair")
    return with_option(changed, "pair", prepended(pair)) if isinstance(pair, str) else changed


#: tokie's GPT-2 pre-tokenizer (a ByteLevel pre-tokenizer alone: its GPT-2 regex split,
#: whatever the file's use_regex, no prefix space whatever its add_prefix_space; measured).
_GPT2_SPLIT: Final = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                      "use_regex": True}


def pre_tokenizer_by_detection(document: dict[str, Any]) -> dict[str, Any] | None:
    """tokie does not run the file's pre-tokenizer: it detects one of its own
    (``model.pretokenizer_type``). Where it detects none (a Metaspace, a Whitespace, a
    Sequence without ByteLevel or a regex Split...) the document without one; where the
    file's is a ByteLevel alone, its GPT-2 split (``_GPT2_SPLIT``)."""
    if document.get("pre_tokenizer") is None or model.sentencepiece_encoder(document):
        return None  # (its SentencePiece encoder cuts the text its own way: not modelled)
    kind = model.pretokenizer_type(document)
    if kind == "None":
        return {**document, "pre_tokenizer": None}
    if kind == "Gpt2" and document["pre_tokenizer"] != _GPT2_SPLIT:
        return {**document, "pre_tokenizer": _GPT2_SPLIT}
    return None


#: How tokie's CL100K pre-tokenizer reads the regex's \p{N}: decimal digits and other
#: numbers, not letter numbers (Ⅻ, U+216B, is none of its \p{N}; measured on Llama 3).
_NUMBERS_WITHOUT_LETTER_NUMBERS: Final = r"[\p{Nd}\p{No}]"


def _cl100k_split(step: Any) -> bool:
    r"""hf.rs ``detect_pretokenizer_type``: a Split regex read as tokie's CL100K family (its
    \p{L}+ or contractions, numbers in threes, not case-aware, no \p{M} class)."""
    pattern = step.get("pattern") if isinstance(step, dict) else None
    regex = pattern.get("Regex") if isinstance(pattern, dict) else None
    return step.get("type") == "Split" and isinstance(regex, str) \
        and ("\\p{L}+" in regex or "(?i:'s|'t|'re" in regex) \
        and not any(c in regex for c in ("\\p{Lu}", "\\p{Lt}", "\\p{Ll}", "[\\p{L}\\p{M}]+")) \
        and not ("\\p{N}|" in regex and "\\p{N}{" not in regex)


def _without_letter_numbers(regex: str) -> str:
    r"""``regex`` with each \p{N} spelt \p{Nd}\p{No} (inside a class) or [\p{Nd}\p{No}]."""
    out, depth, at = [], 0, 0
    while at < len(regex):
        if regex.startswith("\\p{N}", at):
            out.append("\\p{Nd}\\p{No}" if depth else _NUMBERS_WITHOUT_LETTER_NUMBERS)
            at += 5
            continue
        char = regex[at]
        if char == "\\":
            out.append(regex[at:at + 2])
            at += 2
            continue
        depth += 1 if char == "[" else -1 if char == "]" and depth else 0
        out.append(char)
        at += 1
    return "".join(out)


def letter_numbers_not_numbers(document: dict[str, Any]) -> dict[str, Any] | None:
    r"""tokie splits a CL100K-style file (a Sequence of its Split regex and a ByteLevel, as
    Llama 3's) with its own lexer, whose \p{N} holds no letter number: " Ⅻ" stays one piece
    (`` ?[^\s\p{L}\p{N}]+``) where upstream splits " " from "Ⅻ" (``\p{N}{1,3}``). The
    document with \p{N} spelt ``[\p{Nd}\p{No}]`` in that regex."""
    pre = document.get("pre_tokenizer")
    if not isinstance(pre, dict) or pre.get("type") != "Sequence":
        return None
    steps = pre.get("pretokenizers")
    if not isinstance(steps, list) or model.pretokenizer_type(document) != "ByteLevel-family":
        return None
    splits = [s for s in steps if isinstance(s, dict) and s.get("type") == "Split"]
    if len(splits) != 1 or not _cl100k_split(splits[0]) \
            or "\\p{N}" not in splits[0]["pattern"]["Regex"]:
        return None
    changed = [{**s, "pattern": {"Regex": _without_letter_numbers(s["pattern"]["Regex"])}}
               if s is splits[0] else s for s in steps]
    return {**document, "pre_tokenizer": {**pre, "pretokenizers": changed}}


def _every_document(document: dict[str, Any]) -> dict[str, Any]:
    return document


def tokens_from_bytes(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                      ) -> Outcome | None:
    """tokie's tokens are ``id_to_token`` of its ids: the bytes it holds for the token at
    that position read as UTF-8 (``<0x0A>`` is a newline, GPT-2's ``Ġ`` a space on the
    byte-level path), "" for an id past the table (an added token's, measured on tokie
    0.1.4: special or not, matched in the text or the template's)."""
    if not isinstance(outcome, Encoded):
        return outcome
    table = model.positions(document)
    tokens = tuple(model.token_bytes(document, table[i]).decode("utf-8", errors="replace")
                   if 0 <= i < len(table) else "" for i in outcome.ids)
    return dataclasses.replace(outcome, tokens=tokens)


READINGS: Final = Readings({
    "template_by_token_names": Reading(tokies_template, ENCODE, answer=special_mask_by_id),
    # Positions of the file's own vocabulary, before any other reading changes it.
    "ids_as_positions": Reading(ids_as_positions, ENCODE),
    "dropout_not_read": Reading(_model_field_off("dropout", None), ENCODE),
    "end_of_word_suffix_not_read": Reading(_model_field_off("end_of_word_suffix", None),
                                           ENCODE),
    "vocabulary_as_gpt2_bytes": Reading(vocabulary_as_gpt2_bytes, ENCODE),
    "merges_by_id": Reading(merges_by_id, ENCODE),
    "unknown_dropped": Reading(unknown_dropped, ENCODE),
    # tokie's own normalizer, detected from the file's normalizer and pre-tokenizer (before
    # the next reading takes the pre-tokenizer off), then the file without the
    # pre-tokenizer tokie does not run (before the readings that mark uncovered bytes).
    "normalizer_by_detection": Reading(normalizer_by_detection, ENCODE,
                                       request=metaspace_prepended,
                                       when=normalizes_whole_texts),
    "bert_cleaning_by_category": Reading(cleaning.removes_by_category, ENCODE,
                                         request=cleaning.without_removed,
                                         when=cleaning.holds_removed),
    "pre_tokenizer_by_detection": Reading(pre_tokenizer_by_detection, ENCODE),
    "uncovered_bytes_take_the_next_token": Reading(
        uncovered.marked, ENCODE, answer=uncovered_bytes_walked,
        when=uncovered.walks_bytes),
    "uncovered_bytes_dropped_by_sentencepiece_encoder": Reading(
        uncovered.marked, ENCODE, answer=uncovered_bytes_walked,
        when=uncovered.drops_uncovered),
    "backtracking_encoder": Reading(
        uncovered.marked, ENCODE, answer=backtracked, when=uncovered.backtracks),
    "letter_numbers_not_numbers": Reading(letter_numbers_not_numbers, ENCODE),
    "no_prefix_after_control_space": Reading(cl100k.no_prefix_after_control_space, ENCODE),
    "tokens_from_bytes": Reading(_every_document, ENCODE, answer=tokens_from_bytes),
}, tiers=("ids", "tokens", "special_mask", "type_ids", "attention_mask"))


RECOGNISERS: dict[str, Predicate] = {function.__name__: replaying(function) for function in (
    *(panics_at(operation, site) for operation, site in PANICS),
    panics_in_backtracking_encode,
    loads_dropout_out_of_range,
    loads_unknown_model_type,
    loads_merge_out_of_vocabulary,
    decodes_raw_tokens,
    decodes_raw_tokens_without_decoder,
    *READINGS.recognisers().values(),
)}

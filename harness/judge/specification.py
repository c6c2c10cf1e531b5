"""The specification oracle: what the founding rules and the decision records require of
the reference, derived from the tokenizer.json document alone and checked against the
reference's outcome whatever upstream answered.

A differential harness is blind where the reference and upstream agree; this oracle is
not: a reference that loads a file a founding rule refuses, applies a Metaspace decoder
the founding decision says to keep, or gives byte pieces spans the offset contract does
not, is a failure here even when upstream does the same. It is the specification in
code, kept small on purpose (it is not a second tokenizer):

- **load** (``docs/spec/byte-fallback.md`` rules 1-2, decisions 0004, 0005, 0011, 0012): the
  rules a document breaks, each with the JSON paths where it breaks it. The strict
  reference must refuse such a document; a refusal by one of these rules must name a
  path where the document breaks it; the lenient reference never refuses by a rule
  that only strict mode keeps.
- **decode** (decisions 0002, 0007): an id that names no token (no vocabulary or added
  token has it) is refused by the strict reference at ``ids[i]``, the first such id,
  and dropped by the lenient one; a Metaspace decoder step applies nothing, so the text
  must equal that of the same document with every Metaspace step taken out.
- **encode** (``docs/spec/offset-contract.md``): the template lays out its special
  tokens at the places it names, each with its ids, ``-1, -1`` and special mask 1, and
  every token the type id of its template piece (``oc-synthetic-specials``); every other
  span lies within its text (``oc-inv-1-bounds``) and starts never go backwards within
  one text (``oc-inv-2-monotonic``); ids, tokens, spans, masks and type ids have one
  length (``oc-inv-3-lengths``); the byte pieces of one (decorated) symbol share one
  non-empty span, the span of its character (``oc-byte-fallback-spans``), and a token of
  byte-level symbols spans the characters its bytes come from (decision 0024); in a word a
  normalizer changed, the characters come from the normalized text, each on the span
  upstream's normalizer aligns it to (the alignment decision 0025 makes the reference's: the
  one place the oracle asks upstream, and never its encode).

Each finding is a ``Divergence`` at tier ``specification[<rule>]``; no class explains such
a tier, so it is always a failure.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.case import Case
from ..core.observation import Observation
from ..core.outcome import Crashed, Decoded, Encoded, Loaded, Refused
from ..documents.view import DocumentView
from .byte_level_spans import byte_level_spans
from .byte_pieces import byte_piece_violations
from .compare import Divergence
from .replay import Replayer, Side

BYTE_PIECES = tuple(f"<0x{b:02X}>" for b in range(256))
_ANY_CASE_PIECE = re.compile(r"<0x[0-9A-Fa-f]{2}>")
#: The two decoder shapes the founding decision reproduces under byte_fallback.
LLAMA_CHAIN = ("Replace", "ByteFallback", "Fuse", "Strip")
#: Rules only the strict reference keeps (the lenient one loads such files).
STRICT_ONLY = frozenset({"byte-piece-lowercase", "byte-alphabet-incomplete", "decoder-shape",
                         "unk-token-not-in-vocabulary"})
#: Every load rule this oracle derives from the document.
LOAD_RULES = STRICT_ONLY | {"dropout-nondeterministic", "duplicate-id", "template-incoherent"}


def tier(rule: str) -> str:
    return f"specification[{rule}]"


# -- load -----------------------------------------------------------------------------------
def _key_path(path: str, key: str) -> str:
    """The JSON path of an object key as refusals name it: ``.key`` for a short
    identifier, else the quoted key (``$.model.vocab['<0xc3>']``)."""
    if len(key) <= 80 and key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{key!r}]"


def names_broken_path(rule: str, path: str, broken: dict[str, set[str]]) -> bool:
    """A refusal by ``rule`` at ``path`` names a place where the document breaks it (for
    a duplicate id: any entry of the vocabulary, as either string of the pair may be the
    one named)."""
    paths = broken.get(rule, set())
    if rule == "duplicate-id":
        return any(path.startswith(p) for p in paths)
    return path in paths


def broken_rules(document: dict[str, Any]) -> dict[str, set[str]]:
    """Each rule of ``LOAD_RULES`` the document breaks -> the paths where it breaks it."""
    doc = DocumentView(document)
    vocab = doc.vocab
    broken: dict[str, set[str]] = {}
    if doc.byte_fallback:
        lower = {_key_path("$.model.vocab", p) for p in vocab
                 if _ANY_CASE_PIECE.fullmatch(p) and p[3:5] != p[3:5].upper()}
        if lower:
            broken["byte-piece-lowercase"] = lower
        if any(p not in vocab for p in BYTE_PIECES):
            broken["byte-alphabet-incomplete"] = {"$.model.vocab"}
        shape = decoder_shape_path(document.get("decoder"))
        if shape is not None:
            broken["decoder-shape"] = {shape}
    unk = doc.unk_token
    if unk is not None and unk not in vocab:
        broken["unk-token-not-in-vocabulary"] = {"$.model.unk_token"}
    dropout = doc.dropout
    if isinstance(dropout, int | float) and not isinstance(dropout, bool) and 0 < dropout < 1:
        broken["dropout-nondeterministic"] = {"$.model.dropout"}
    ids = [v for v in vocab.values() if isinstance(v, int)]
    if len(ids) != len(set(ids)):
        broken["duplicate-id"] = {"$.model.vocab"}
    incoherent = set(template_incoherent_paths(document.get("post_processor"),
                                               "$.post_processor"))
    if incoherent:
        broken["template-incoherent"] = incoherent
    unreproduced = unreproduced_component_paths(document)
    if unreproduced:
        broken["unsupported-component"] = unreproduced
    return broken


#: Component types upstream builds that decision 0012 leaves out, by the top-level field
#: holding them, with the field a ``Sequence`` of them lists its steps in (upstream's
#: serde enums in 0.23.1, less the types the reference reproduces; not ``Precompiled``,
#: which upstream builds only from a SentencePiece charsmap no generated file carries).
UNREPRODUCED_TYPES: dict[str, tuple[str, frozenset[str]]] = {
    "normalizer": ("normalizers", frozenset({
        "BertNormalizer", "StripAccents", "Nmt", "ByteLevel"})),
    "pre_tokenizer": ("pretokenizers", frozenset({
        "BertPreTokenizer", "CharDelimiterSplit", "UnicodeScripts", "FixedLength"})),
    "post_processor": ("processors", frozenset({"BertProcessing", "RobertaProcessing"})),
    "decoder": ("decoders", frozenset({"BPEDecoder", "WordPiece", "CTC"})),
}


def unreproduced_component_paths(document: dict[str, Any]) -> set[str]:
    """The ``type`` path of every component the reference refuses by name although upstream
    builds it (decision 0012): a type of ``UNREPRODUCED_TYPES``, in a Sequence too, and every
    TemplateProcessing applied after another one."""
    found: set[str] = set()
    templates: list[str] = []

    def visit(field: str, node: Any, path: str) -> None:
        if not isinstance(node, dict):
            return
        steps_key, unreproduced = UNREPRODUCED_TYPES[field]
        kind = node.get("type")
        if kind == "Sequence" and isinstance(node.get(steps_key), list):
            for i, step in enumerate(node[steps_key]):
                visit(field, step, f"{path}.{steps_key}[{i}]")
        elif kind in unreproduced:
            found.add(f"{path}.type")
        elif field == "post_processor" and kind == "TemplateProcessing":
            if templates:
                found.add(f"{path}.type")
            templates.append(path)

    for field in UNREPRODUCED_TYPES:
        visit(field, document.get(field), f"$.{field}")
    return found


def template_incoherent_paths(processor: Any, path: str) -> list[str]:
    """Where each TemplateProcessing of a post-processor (a Sequence's steps, nested ones
    too) is incoherent (decision 0047): a special entry whose ids and tokens differ in
    length (``special_tokens[key]``), a piece naming a special absent from
    ``special_tokens`` (``single[k]``, ``pair[k]``), a ``single`` piece using sequence B."""
    if not isinstance(processor, dict):
        return []
    if processor.get("type") == "Sequence" and isinstance(processor.get("processors"), list):
        return [p for i, step in enumerate(processor["processors"])
                for p in template_incoherent_paths(step, f"{path}.processors[{i}]")]
    specials = processor.get("special_tokens")
    if processor.get("type") != "TemplateProcessing" or not isinstance(specials, dict):
        return []
    found = [_key_path(f"{path}.special_tokens", key) for key, entry in specials.items()
             if isinstance(entry, dict) and isinstance(entry.get("ids"), list)
             and isinstance(entry.get("tokens"), list)
             and len(entry["ids"]) != len(entry["tokens"])]
    for field in ("single", "pair"):
        pieces = processor.get(field)
        for k, piece in enumerate(pieces if isinstance(pieces, list) else []):
            if not isinstance(piece, dict) or len(piece) != 1:
                continue
            (kind, body), = piece.items()
            name = body.get("id") if isinstance(body, dict) else None
            if ((kind == "SpecialToken" and isinstance(name, str) and name not in specials)
                    or (field == "single" and kind == "Sequence" and name == "B")):
                found.append(f"{path}.{field}[{k}]")
    return found


def decoder_shape_path(decoder: Any) -> str | None:
    """Where a byte_fallback document's decoder leaves the two reproduced shapes (bare
    ``ByteFallback``; ``Sequence`` of exactly Replace, ByteFallback, Fuse, Strip), as
    decision 0001 names it: ``$.decoder``, the first offending ``$.decoder.decoders[i]``,
    or ``$.decoder.decoders`` when steps are missing at the end. None: a reproduced shape."""
    if not isinstance(decoder, dict):
        return "$.decoder"
    if decoder.get("type") == "ByteFallback":
        return None
    steps = decoder.get("decoders")
    if decoder.get("type") != "Sequence" or not isinstance(steps, list):
        return "$.decoder"
    for i, step in enumerate(steps):
        kind = step.get("type") if isinstance(step, dict) else None
        if i >= len(LLAMA_CHAIN) or kind != LLAMA_CHAIN[i]:
            return f"$.decoder.decoders[{i}]"
    return "$.decoder.decoders" if len(steps) < len(LLAMA_CHAIN) else None


# -- decode ---------------------------------------------------------------------------------
def known_ids(document: dict[str, Any]) -> set[int]:
    """Every id that names a token: the vocabulary's and the added tokens'. An added token
    takes the id upstream gives it, not the one its entry writes: its vocabulary string's,
    else the next after the vocabulary's size in the order of the list (a content listed
    twice keeps its first id; an entry with an empty content names none)."""
    doc = DocumentView(document)
    vocab = doc.vocab
    ids = {v for v in vocab.values() if isinstance(v, int)}
    assigned: dict[str, int] = {}
    next_id = len(vocab)
    for entry in doc.added_tokens:
        content = entry.get("content")
        if not isinstance(content, str) or not content or content in assigned:
            continue
        model_id = vocab.get(content)
        if isinstance(model_id, int):
            assigned[content] = model_id
        else:
            assigned[content] = next_id
            next_id += 1
    return ids | set(assigned.values())


def without_metaspace(decoder: Any) -> tuple[Any, bool]:
    """The decoder with every Metaspace step taken out (a bare Metaspace becomes an empty
    Sequence: tokens joined with nothing), and whether there was one."""
    if not isinstance(decoder, dict):
        return decoder, False
    if decoder.get("type") == "Metaspace":
        return {"type": "Sequence", "decoders": []}, True
    steps = decoder.get("decoders")
    if decoder.get("type") != "Sequence" or not isinstance(steps, list):
        return decoder, False
    kept, found = [], False
    for step in steps:
        if isinstance(step, dict) and step.get("type") == "Metaspace":
            found = True
            continue
        inner, nested = without_metaspace(step)
        kept.append(inner)
        found = found or nested
    return {**decoder, "decoders": kept}, found


# -- encode ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Slot:
    """One place of a template layout: a special token's id, or a token of sequence
    ``sequence`` (0 or 1); with the type id the template gives it."""

    type_id: int
    special_id: int | None = None
    sequence: int | None = None


def template_layout(document: dict[str, Any], counts: Sequence[int], pair: bool,
                    add_special_tokens: bool) -> list[Slot] | None:
    """The layout the document's TemplateProcessing gives sequences of ``counts`` tokens;
    None when the document has no template (or not one this oracle reads)."""
    processor = template_of(document.get("post_processor"))
    if processor is None:
        return None
    pieces = processor.get("pair" if pair else "single")
    specials = processor.get("special_tokens")
    if not isinstance(pieces, list) or not isinstance(specials, dict):
        return None
    layout: list[Slot] = []
    for piece in pieces:
        if not isinstance(piece, dict) or len(piece) != 1:
            return None
        (kind, body), = piece.items()
        if not isinstance(body, dict) or not isinstance(body.get("type_id"), int):
            return None
        type_id = body["type_id"]
        if kind == "Sequence" and body.get("id") in ("A", "B"):
            sequence = 0 if body["id"] == "A" else 1
            layout.extend([Slot(type_id, sequence=sequence)] * counts[sequence])
        elif kind == "SpecialToken" and isinstance(specials.get(body.get("id")), dict):
            if add_special_tokens:
                ids = specials[body["id"]].get("ids")
                if not isinstance(ids, list):
                    return None
                layout.extend(Slot(type_id, special_id=i) for i in ids)
        else:
            return None
    return layout


def template_of(processor: Any) -> dict[str, Any] | None:
    """The post-processor's template: the TemplateProcessing itself, or the only one among
    the steps of a Sequence (nested Sequences flattened; its ByteLevel steps lay nothing
    out). None without one, or with more than one (the reference refuses that)."""
    steps: list[Any] = [processor]
    templates: list[dict[str, Any]] = []
    while steps:
        step = steps.pop(0)
        if not isinstance(step, dict):
            continue
        if step.get("type") == "TemplateProcessing":
            templates.append(step)
        elif step.get("type") == "Sequence" and isinstance(step.get("processors"), list):
            steps[:0] = step["processors"]
    return templates[0] if len(templates) == 1 else None


def sequence_counts(document: dict[str, Any], enc: Encoded, pair: bool,
                    add_special_tokens: bool) -> list[int] | None:
    """How many tokens each input gave: from the encoding's sequence ids, or, for a
    single text of a subject that does not expose them, its length less the template's
    specials. None when that cannot be told."""
    if enc.sequence_ids:
        return [enc.sequence_ids.count(0), enc.sequence_ids.count(1)]
    if pair:
        return None
    layout = template_layout(document, [0, 0], False, add_special_tokens)
    specials = len(layout) if layout is not None else 0
    return [len(enc.ids) - specials, 0]


# -- the oracle -----------------------------------------------------------------------------
class Specification:
    """The oracle over one case: ``check(observation)`` lists what the reference's
    outcome breaks."""

    def __init__(self, case: Case, replay: Replayer) -> None:
        self.case = case
        self.replay = replay
        self.document = case.document
        self.doc = DocumentView(case.document)
        self._broken: dict[str, set[str]] | None = None
        self._ids: set[int] | None = None
        self._bare: dict[str, str | None] = {}

    @property
    def broken(self) -> dict[str, set[str]]:
        if self._broken is None:
            self._broken = broken_rules(self.document)
        return self._broken

    def aligned(self, text: str) -> list[tuple[str, tuple[int, int]]] | None:
        """How the document's normalizer aligns ``text`` (upstream's normalizer, whose
        per-character alignment decision 0025 makes the reference's); None where upstream
        does not load the document or its normalizer fails, or where tokenizers cannot be
        imported (the oracle replay runs without it: normalized words are then not read)."""
        return self.replay.aligned(self.case.document_json(), text)

    @property
    def ids(self) -> set[int]:
        if self._ids is None:
            self._ids = known_ids(self.document)
        return self._ids

    def check(self, obs: Observation) -> list[Divergence]:
        if isinstance(obs.subject, Crashed):
            return []  # a crash is a failure of its own already
        if obs.operation == "load":
            found = self._load(obs)
        elif obs.operation == "decode":
            found = self._decode(obs)
        else:
            found = self._encode(obs)
        return [Divergence(tier(rule), detail, obs) for rule, detail in found]

    # -- load
    def _load(self, obs: Observation) -> list[tuple[str, str]]:
        ref = obs.subject
        broken = self.broken
        if obs.track == "lenient":
            if isinstance(ref, Refused) and ref.rule in STRICT_ONLY:
                return [(ref.rule, "the lenient reference refused by a rule only strict mode "
                                   "keeps")]
            return []
        if isinstance(ref, Loaded) and broken:
            rule = sorted(broken)[0]
            return [(rule, f"loaded, but the document breaks {', '.join(sorted(broken))} "
                           f"(at {sorted(broken[rule])[0]})")]
        if isinstance(ref, Refused) and ref.rule in LOAD_RULES:
            if ref.rule not in broken:
                return [(ref.rule, f"refused by {ref.rule} at {ref.path}, a rule the "
                                   "document keeps")]
            if not names_broken_path(ref.rule, ref.path, broken):
                return [(ref.rule, f"refused by {ref.rule} at {ref.path}; the document "
                                   f"breaks it at {sorted(broken[ref.rule])[:3]}")]
        return []

    # -- decode
    def _decode(self, obs: Observation) -> list[tuple[str, str]]:
        ref = obs.subject
        ids = obs.input if isinstance(obs.input, tuple) else ()
        unknown = [k for k, i in enumerate(ids) if i not in self.ids]
        if obs.track == "strict" and unknown:
            where = f"ids[{unknown[0]}]"
            if not (isinstance(ref, Refused) and ref.rule == "decode-unknown-id"
                    and ref.path == where):
                return [("decode-unknown-id", f"id {ids[unknown[0]]} at {where} names no "
                                              f"token; the reference gave {_kind(ref)}")]
            return []
        if isinstance(ref, Refused) and ref.rule == "decode-unknown-id":
            why = ("the lenient reference refused an unknown id" if unknown
                   else f"refused at {ref.path}, but every id names a token")
            return [("decode-unknown-id", why)]
        if not isinstance(ref, Decoded):
            return []
        expected = self.decode_without_metaspace(obs.track, ids, bool(
            obs.option("skip_special_tokens", True)))
        if expected is not None and expected != ref.text:
            return [("metaspace-decoder-not-applied",
                     f"decoded {ref.text!r}; with the Metaspace steps taken out "
                     f"{expected!r}")]
        return []

    def decode_without_metaspace(self, track: str, ids: tuple[int, ...], skip: bool
                                 ) -> str | None:
        """The reference's decode of ``ids`` with every Metaspace step of the document's
        decoder taken out; None when the decoder has none (or that document does not
        load)."""
        side: Side = "strict" if track == "strict" else "lenient"
        if track not in self._bare:
            decoder, found = without_metaspace(self.document.get("decoder"))
            bare = None
            if found:
                document = copy.copy(self.document)
                document["decoder"] = decoder
                bare = json.dumps(document, ensure_ascii=False)
                if isinstance(self.replay.load(side, bare), Refused | Crashed):
                    bare = None
            self._bare[track] = bare
        bare = self._bare[track]
        if bare is None:
            return None
        result = self.replay.decode(side, bare, ids, skip_special_tokens=skip)
        return result.text if isinstance(result, Decoded) else None

    # -- encode
    def _encode(self, obs: Observation) -> list[tuple[str, str]]:
        enc = obs.subject
        if not isinstance(enc, Encoded):
            return []
        lengths = {len(enc.ids), len(enc.tokens), len(enc.spans), len(enc.special_mask),
                   len(enc.type_ids), len(enc.attention_mask)}
        if len(lengths) != 1:
            return [("oc-inv-3-lengths", f"lengths {sorted(lengths)}")]
        if any(m != 1 for m in enc.attention_mask):
            return [("oc-inv-3-lengths", "an attention mask that is not all 1")]
        pair = obs.option("pair")
        text = obs.input if isinstance(obs.input, str) else ""
        texts = (text, pair) if isinstance(pair, str) else (text,)
        found = self._layout(obs, enc, texts)
        if found:
            return found
        violations = byte_piece_violations(enc, texts, self.doc.model, plain=(
            not self.doc.present("normalizer")
            and not self.doc.present("pre_tokenizer")))
        if violations:
            position = min(violations)
            return [("oc-byte-fallback-spans", f"position {position}: "
                                               f"{violations[position]}")]
        expected = byte_level_spans(enc, texts, self.document, self.aligned)
        wrong = sorted(i for i, span in expected.items() if enc.spans[i] != span)
        if wrong:
            position = wrong[0]
            return [("oc-byte-fallback-spans", f"position {position}: byte-level token "
                                               f"{enc.tokens[position]!r} at "
                                               f"{enc.spans[position]}, its characters at "
                                               f"{expected[position]}")]
        return []

    def _layout(self, obs: Observation, enc: Encoded, texts: tuple[str, ...]
                ) -> list[tuple[str, str]]:
        sequences = list(enc.sequence_ids) if enc.sequence_ids else [0] * len(enc.ids)
        counts = [sequences.count(0), sequences.count(1)]
        pair = len(texts) > 1
        layout = template_layout(self.document, counts, pair,
                                 bool(obs.option("add_special_tokens", True)))
        if layout is None:
            layout = ([Slot(0, sequence=0)] * counts[0]
                      + [Slot(1, sequence=1)] * (counts[1] if pair else 0))
        if len(layout) != len(enc.ids):
            return [("oc-synthetic-specials", f"{len(enc.ids)} tokens where the template "
                                              f"lays out {len(layout)}")]
        last = [-1, -1]
        for i, slot in enumerate(layout):
            span = enc.spans[i]
            if slot.special_id is not None:
                if (enc.ids[i], span, enc.special_mask[i], sequences[i]) != (
                        slot.special_id, (-1, -1), 1, None):
                    return [("oc-synthetic-specials",
                             f"position {i}: id {enc.ids[i]}, span {span}, mask "
                             f"{enc.special_mask[i]} where the template puts special id "
                             f"{slot.special_id} at -1,-1 with mask 1")]
            else:
                sequence = slot.sequence or 0
                if sequences[i] != sequence:
                    return [("oc-synthetic-specials", f"position {i}: sequence "
                                                      f"{sequences[i]} where the template "
                                                      f"lays out sequence {sequence}")]
                if not 0 <= span[0] <= span[1] <= len(texts[sequence]):
                    return [("oc-inv-1-bounds", f"position {i}: span {span} outside "
                                                f"{len(texts[sequence])} characters")]
                if span[0] < last[sequence]:
                    return [("oc-inv-2-monotonic", f"position {i}: start {span[0]} after "
                                                   f"{last[sequence]}")]
                last[sequence] = span[0]
            if enc.type_ids[i] != slot.type_id:
                return [("type-ids", f"position {i}: type id {enc.type_ids[i]} where the "
                                     f"template gives {slot.type_id}")]
        return []


def _kind(outcome: object) -> str:
    if isinstance(outcome, Refused):
        return f"refused ({outcome.rule} at {outcome.path})"
    return type(outcome).__name__.lower()


def check_case(case: Case, observations: Sequence[Observation], replay: Replayer
               ) -> list[Divergence]:
    """Everything the reference's outcomes in ``observations`` break."""
    oracle = Specification(case, replay)
    return [d for obs in observations for d in oracle.check(obs)]

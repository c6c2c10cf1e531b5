"""``features(case)``: labels naming what a case exercises, read from the case itself.

Used to measure the shares the generator reaches (tests, ``measure``) and usable by
reports for coverage.  Labels are ``dimension:option`` strings.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from typing import Any

from harness.core.case import Case
from harness.documents import llama_decoder, llama_normalizer
from harness.strategies import alphabet as chars
from harness.strategies.byte_vocabulary import is_byte_level_vocabulary
from harness.strategies.components import (
    REAL_BYTE_LEVEL_PIPELINES,
    REGEX_REFUSED,
    real_byte_level_pipeline,
)
from harness.strategies.decoders import byte_fallback
from harness.strategies.malformed import malformation_of
from harness.strategies.regex_probes import (
    ONIGURUMA_BROKEN,
    ONIGURUMA_PROBES,
    ONIGURUMA_READ,
    REPLACE_PROBES,
    REPLACE_READ,
    SPLIT_MALFORMED,
)
from harness.strategies.split_family import REAL_PATTERNS, REAL_SEQUENCES, alternatives
from harness.strategies.texts import STRESS, added_ids, inventory
from harness.strategies.vocabulary import (
    UnsafeMergeError,
    merge_result,
    model_decoration,
    parse_byte_piece,
    parsed_merges,
)

UNICODE_NORMALIZERS = ("NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Strip")
REAL_PATTERN_NAMES = {source: name for name, source in REAL_PATTERNS.items()}
#: Split-family objects upstream's deserializer refuses, by their JSON.
MALFORMED_NAMES = {json.dumps(obj, sort_keys=True): name for name, obj in SPLIT_MALFORMED}


def _byte_labels(vocab: Mapping[str, int]) -> set[str]:
    values: set[int] = set()
    upper_letters = lower_letters = 0
    for piece in vocab:
        value = parse_byte_piece(piece)
        if value is None:
            continue
        values.add(value)
        hexpart = piece[3:5]
        if any(c in "abcdef" for c in hexpart):
            lower_letters += 1
        elif any(c in "ABCDEF" for c in hexpart):
            upper_letters += 1
    labels: set[str] = set()
    if not values:
        labels.add("bytes:absent")
    elif lower_letters:
        labels.add("bytes:lowercase" if not upper_letters else "bytes:mixed-case")
    elif len(values) == 256:
        labels.add("bytes:complete")
    elif len(values) >= 200:
        labels.add("bytes:missing-some")
    else:
        labels.add("bytes:sparse")
    if values == {0x58}:
        labels.add("bytes:only-0x58")
    if 0xC3 in values and 0xA9 not in values:
        labels.add("bytes:C3-without-A9")
    return labels


def _merge_labels(model: Mapping[str, Any]) -> set[str]:
    vocab: Mapping[str, int] = model.get("vocab") or {}
    raw = model.get("merges") or []
    merges = parsed_merges(model)
    labels = {"merges:legacy" if raw and isinstance(raw[0], str) else "merges:pair"}
    if not merges:
        labels.add("merges:none")
    if any(isinstance(m, str) and m.startswith("#version") for m in raw):
        labels.add("merges:version-line")
    if len(set(merges)) < len(merges):
        labels.add("merges:duplicate")
    prefix = model.get("continuing_subword_prefix") or None
    max_len = max((len(p.encode()) for p in vocab), default=0)
    results: dict[str, int] = {}
    for rank, (a, b) in enumerate(merges):
        if _is_bytes(a) and _is_bytes(b):
            labels.add("merges:byte-pieces")
        if prefix and b in vocab and not b.startswith(prefix):
            labels.add("merges:undecorated-right")
        if a not in vocab or b not in vocab:
            labels.add("merges:hazard:part-missing")
            break
        try:
            result = merge_result(a, b, prefix)
        except UnsafeMergeError:
            labels.add("merges:hazard:prefix-underflow")
            break
        if result not in vocab:
            longer = len(result.encode()) > max_len
            labels.add("merges:hazard:result-longer-than-vocab" if longer
                       else "merges:hazard:result-missing")
            break
        results.setdefault(result, rank)
    for rank, (a, b) in enumerate(merges):
        if results.get(a, -1) > rank or results.get(b, -1) > rank:
            labels.add("merges:inconsistent-ranks")
            break
    return labels


def _is_bytes(piece: str) -> bool:
    return piece.startswith("<0x") and piece.endswith(">")


def _steps(component: Any, key: str) -> list[dict[str, Any]]:
    """The steps of a component, nested Sequences flattened (a non-Sequence is its own)."""
    if not isinstance(component, dict):
        return []
    if component.get("type") == "Sequence" and isinstance(component.get(key), list):
        return [step for inner in component[key] for step in _steps(inner, key)]
    return [component]


def _flags(step: Mapping[str, Any]) -> str:
    return (f"prefix={step['add_prefix_space']}:trim={step['trim_offsets']}"
            f":regex={step.get('use_regex', True)}")


def _replace_regex_labels(regex: Any) -> set[str]:
    """A Replace regex Oniguruma refuses (a hazard), or a syntax probe of ``regex_probes``."""
    if regex in REGEX_REFUSED:
        return {"normalizer:regex-hazard"}
    if regex == REPLACE_READ or regex in REPLACE_PROBES:
        return {"normalizer:regex-probe"}
    return set()


def _normalizer_labels(normalizer: Any) -> set[str]:
    if normalizer is None:
        return {"normalizer:none"}
    if normalizer == llama_normalizer():
        return {"normalizer:llama"}
    if normalizer["type"] == "Replace":
        regex = normalizer["pattern"].get("Regex")
        return ({"normalizer:replace-string"} if regex is None else {"normalizer:replace-regex"}
                | _replace_regex_labels(regex))
    labels = {f"normalizer:{normalizer['type'].lower()}"}
    for step in _steps(normalizer, "normalizers"):
        if step["type"] == "Replace":
            labels |= _replace_regex_labels(step["pattern"].get("Regex"))
        if step["type"] in UNICODE_NORMALIZERS:
            labels.add(f"unicode:{step['type']}")
            if normalizer["type"] == "Sequence":
                labels.add("normalizer:unicode-in-sequence")
        if step["type"] == "Strip":
            labels.add(f"unicode:Strip:left={step['strip_left']}:right={step['strip_right']}")
    return labels


def _regex_labels(source: str) -> set[str]:
    """The kind of a Split Regex: real, mutated (and holding read constructs), or a probe."""
    if source in ONIGURUMA_PROBES:
        return {"split:pattern:probe"}
    if source in ONIGURUMA_BROKEN:
        return {"split:pattern:broken"}
    name = REAL_PATTERN_NAMES.get(source)
    if name:
        return {f"split:pattern:{name}"}
    labels = {"split:pattern:mutated"}
    if any(part in ONIGURUMA_READ for part in alternatives(source)):
        labels.add("split:mutation:add-alternative")
    return labels


def _split_labels(step: Mapping[str, Any]) -> set[str]:
    malformed = MALFORMED_NAMES.get(json.dumps(step, sort_keys=True))
    if malformed:
        return {"split:malformed", f"split:malformed:{malformed}"}
    kind = step["type"]
    if kind == "Metaspace":
        return {f"metaspace:{step['prepend_scheme']}:split={step['split']}"}
    if kind == "ByteLevel":
        return {f"byte_level:pre:{_flags(step)}"} | (
            set() if "use_regex" in step else {"byte_level:use_regex-absent"})
    if kind == "Digits":
        return {f"digits:individual={step['individual_digits']}"}
    if kind == "Punctuation":
        behavior = step.get("behavior", "absent")
        if isinstance(behavior, dict):
            return {f"punctuation:behavior:{next(iter(behavior))}", "split:behavior-map-form"}
        return {f"punctuation:behavior:{behavior}"}
    if kind in ("Whitespace", "WhitespaceSplit"):
        return {f"pre:{kind.lower()}"}
    if kind != "Split":
        return {"pre:unknown-type"}  # the declared probes' unknown types with a known body
    pattern = step["pattern"]
    labels = {"split:pattern:string"} if "String" in pattern else _regex_labels(
        pattern["Regex"])
    behavior = step["behavior"]
    if isinstance(behavior, dict):
        labels.add("split:behavior-map-form")
        behavior = next(iter(behavior))
    labels.add(f"split:behavior:{behavior}")
    if step["invert"]:
        labels.add("split:invert")
    return labels


def _pre_tokenizer_labels(pre: Any) -> set[str]:
    if pre is None:
        return {"pre_tokenizer:none"}
    labels = {f"pre_tokenizer:{pre['type'].lower()}"}
    for name in REAL_BYTE_LEVEL_PIPELINES:
        if pre == real_byte_level_pipeline(name):
            labels.add(f"pre_tokenizer:real:{name}")
    steps = _steps(pre, "pretokenizers")
    for step in steps:
        labels |= _split_labels(step)
    regexes = tuple(s["pattern"].get("Regex") for s in steps if s["type"] == "Split")
    for name, patterns in REAL_SEQUENCES.items():
        if regexes == patterns:
            labels.add(f"split:sequence:{name}")
    kinds = [s["type"] for s in steps]
    if "ByteLevel" in kinds and kinds[-1] == "ByteLevel" and "Split" in kinds:
        labels.add("pre_tokenizer:split-then-byte-level")
    return labels


def _decoder_labels(decoder: Any) -> set[str]:
    if decoder is None:
        return {"decoder:none"}
    if decoder == byte_fallback():
        return {"decoder:byte-fallback"}
    if decoder == llama_decoder():
        return {"decoder:llama"}
    if decoder["type"] == "Metaspace":
        return {"decoder:metaspace"}
    if decoder["type"] == "ByteLevel":
        return {"decoder:byte-level"}
    labels = {"decoder:perturbed"}
    steps = decoder.get("decoders", [decoder])  # a bare step (the declared probes have one)
    if any(s.get("type") == "Strip" and s.get("stop", 0) >= 1 for s in steps):
        labels.add("decoder:strip-hazard")
    return labels


def _post_processor_labels(post: Any) -> set[str]:
    if post is None:
        return {"post_processor:none"}
    labels: set[str] = set()
    steps = _steps(post, "processors")
    if post["type"] == "Sequence":
        labels.add("post_processor:sequence")
        kinds = [s["type"] for s in steps]
        if kinds and kinds[0] == "TemplateProcessing" and "ByteLevel" in kinds:
            labels.add("post_processor:sequence:template-first")
    templates = 0
    for step in steps:
        if step["type"] == "ByteLevel":
            labels.add(f"post_processor:byte-level:trim={step['trim_offsets']}")
            continue
        if step["type"] != "TemplateProcessing":  # a type the reference does not reproduce
            labels.add("post_processor:unreproduced")
            continue
        templates += 1
        if templates == 2:
            labels.add("post_processor:template-after-template")
        names = step["special_tokens"]
        labels.add("template:" + ("plain" if not names else "bos" if len(names) == 1
                                  and len(step["single"]) == 2 else "bos-eos"))
        if _template_malformed(step):
            labels.add("template:hazard")
    return labels


def _family_labels(document: Mapping[str, Any]) -> set[str]:
    """The byte-level family: the coherent pipeline (byte-level vocabulary, a ByteLevel
    pre-tokenizer step, a ByteLevel decoder) or a perturbation of it (some of the three; a
    ByteLevel post-processor alone is no perturbation)."""
    vocab = document["model"].get("vocab") or {}
    byte_vocab = is_byte_level_vocabulary(vocab)
    pre = any(s["type"] == "ByteLevel" for s in _steps(document.get("pre_tokenizer"),
                                                         "pretokenizers"))
    decoder = (document.get("decoder") or {}).get("type") == "ByteLevel"
    labels = {"vocab:byte-level"} if byte_vocab else set()
    if byte_vocab and pre and decoder:
        labels.add("pipeline:byte-level")
        labels.add(f"pipeline:byte-level:ignore_merges={document['model']['ignore_merges']}")
    elif byte_vocab or pre or decoder:
        labels.add("pipeline:byte-level-perturbed")
    return labels


def _pipeline_labels(document: Mapping[str, Any]) -> set[str]:
    return (_normalizer_labels(document.get("normalizer"))
            | _pre_tokenizer_labels(document.get("pre_tokenizer"))
            | _decoder_labels(document.get("decoder"))
            | _post_processor_labels(document.get("post_processor"))
            | _family_labels(document))


def _template_malformed(post: Mapping[str, Any]) -> bool:
    """A template upstream's deserializer refuses (strategies' TEMPLATE_HAZARDS): a
    string template, a piece with two keys, a sequence other than A/B, a negative type id."""
    for name in ("single", "pair"):
        pieces = post.get(name)
        if not isinstance(pieces, list):
            return True
        for piece in pieces:
            if not isinstance(piece, dict) or len(piece) != 1:
                return True
            (kind, body), = piece.items()
            if body.get("type_id", 0) < 0 or (kind == "Sequence" and body.get("id")
                                               not in ("A", "B")):
                return True
    return False


def _added_labels(document: Mapping[str, Any]) -> set[str]:
    entries = document.get("added_tokens") or []
    vocab = document["model"].get("vocab") or {}
    contents = {e["content"] for e in entries}
    labels: set[str] = set() if entries else {"added:none"}
    labels |= _added_oddity_labels(entries)
    entries = [e for e in entries if e["content"]]  # an empty content: skipped upstream
    if {"<unk>", "<s>", "</s>"} <= contents:
        labels.add("added:llama")
    for e in entries:
        if e["content"] in ("<unk>", "<s>", "</s>"):
            if e["normalized"]:
                labels.add("added:llama-normalized")
            continue
        labels.add("added:special-extra" if e["special"] else "added:plain")
        for flag in ("lstrip", "rstrip", "single_word", "normalized"):
            if e[flag]:
                labels.add(f"added:{flag}")
    if any(e["content"] not in vocab for e in entries):
        labels.add("added:outside-model")
    ids = added_ids(document)
    if any(e["id"] != ids[e["content"]] for e in entries):
        labels.add("added:id-mismatch")  # never expected from our generator
    return labels


def _added_oddity_labels(entries: list[dict[str, Any]]) -> set[str]:
    """An entry with an empty content; a content listed twice (``profile.ADDED_ODDITY``)."""
    contents = [e["content"] for e in entries]
    labels = {"added:empty-content"} if "" in contents else set()
    if len(set(contents)) < len(contents):
        labels.add("added:duplicate-content")
    return labels


def _input_labels(case: Case) -> set[str]:
    labels: set[str] = set()
    inv = inventory(case.document)
    uncovered = {c: w for w, cs in inv.uncovered.items() for c in cs}
    for text in case.texts:
        if not text:
            labels.add("text:empty")
        if "  " in text:
            labels.add("text:space-run")
        if any(c in chars.CONTROLS for c in text):
            labels.add("text:control")
        for c in text:
            if c in uncovered:
                labels.add(f"text:uncovered-width-{uncovered[c]}")
        if any(a in text for a in inv.added):
            labels.add("text:added-literal")
    for text in [*case.texts, *(t for pair in case.pairs for t in pair)]:
        for name, items in STRESS.items():
            if any(item in text for item in items):
                labels.add(f"text:{name}")
    if case.pairs:
        labels.add("text:pairs")
    byte_of = {i: b for b, i in inv.byte_ids.items()}
    specials = set(inv.special_ids)
    named = set(inv.ids)
    for run in case.id_runs:
        if not run:
            labels.add("ids:empty-run")
        if any(i not in named for i in run):
            labels.add("ids:unknown")
        if any(i in specials for i in run):
            labels.add("ids:special")
        for k in range(1, len(run) - 1):
            if run[k] in specials and run[k - 1] in byte_of and run[k + 1] in byte_of:
                labels.add("ids:special-inside-bytes")
        chunk: list[int] = []
        for i in [*run, -1]:
            if i in byte_of:
                chunk.append(byte_of[i])
                continue
            if chunk:
                try:
                    bytes(chunk).decode("utf-8")
                    labels.add("ids:utf8-run")
                except UnicodeDecodeError:
                    labels.add("ids:invalid-byte-run")
            chunk = []
    return labels


def features(case: Case) -> frozenset[str]:
    """Every label that applies to ``case``; a malformed document (which both sides
    refuse at load) only its malformation's."""
    document = case.document
    broken = malformation_of(document)
    if broken is not None:
        return frozenset({"malformed", f"malformed:{broken}"})
    model = document["model"]
    vocab: Mapping[str, int] = model.get("vocab") or {}
    labels: set[str] = set()
    covered = inventory(document).covered
    widths = {chars.utf8_width(c) for c in covered}
    labels |= {f"alphabet:width-{w}" for w in widths}
    if widths >= {1, 2, 3, 4}:
        labels.add("alphabet:all-widths")
    if any(c in chars.CONTROLS for c in covered):
        labels.add("alphabet:control")
    if any(unicodedata.combining(c) for c in covered):
        labels.add("alphabet:combining")
    if " " in covered:
        labels.add("alphabet:space")
    if chars.METASPACE in covered:
        labels.add("alphabet:metaspace")
    labels |= _byte_labels(vocab)
    for flag in ("byte_fallback", "fuse_unk", "ignore_merges"):
        if model.get(flag):
            labels.add(flag)
    dropout = model.get("dropout")
    labels.add("dropout:" + ("null" if dropout is None else "zero" if dropout == 0
                             else "one" if dropout == 1 else "other"))
    unk = model.get("unk_token")
    labels.add("unk:" + ("absent" if unk is None else "present" if unk in vocab else "dangling"))
    decoration = model_decoration(model)
    if decoration.prefix:
        labels.add("prefix")
        if len(decoration.prefix.encode()) != len(decoration.prefix):
            labels.add("prefix:multibyte")
    if decoration.suffix:
        labels.add("suffix")
    labels |= _merge_labels(model)
    ids = list(vocab.values())
    if ids and max(ids) + 1 != len(ids):
        labels.add("ids:holes")
    if ids != sorted(ids):
        labels.add("ids:shuffled")
    labels |= _pipeline_labels(document)
    labels |= _added_labels(document)
    labels |= _input_labels(case)
    return frozenset(labels)

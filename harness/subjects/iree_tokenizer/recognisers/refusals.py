"""iree-tokenizer's refusals, recognised by its IREE status (``program.py`` reads it
without its source position) and a document that really has what it names: a component
or regex construct it does not implement, a value it reads otherwise."""

from __future__ import annotations

import json
import re
from typing import Any, Final

from ....core.outcome import Crashed, Decoded, Encoded, Loaded, Refused
from ....judge.compare import Divergence
from ....judge.predicates import NONE, Context
from ...fastokens.recognisers import (
    component_types,
)
from ...transformers_js.recognisers.replay import (
    yes,
)
from .readings import _BYTE_TOKEN, _INT32_MAX


def _refused_load(div: Divergence) -> str | None:
    """The rule of the subject's refused load where upstream loaded (or panicked: its own
    finding, judged by our intended classes), else None."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Refused):
        return None
    upstream = obs.upstream
    loaded = isinstance(upstream, Loaded) or (isinstance(upstream, Crashed)
                                              and upstream.kind == "panic")
    return obs.subject.rule if loaded else None


_PREFIX: Final = re.compile(r"^UNIMPLEMENTED; BPE continuing_subword_prefix is not "
                            r"supported \(value: (.*)\)$", re.DOTALL)


def continuing_subword_prefix_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE with a ``continuing_subword_prefix``: refused as UNIMPLEMENTED, naming the
    value. Checked: the value named (digits read as N by the adapter's rule) is the
    model's prefix."""
    rule = _refused_load(div)
    named = _PREFIX.match(rule) if rule is not None else None
    prefix = ctx.doc.continuing_subword_prefix
    return yes(named is not None and isinstance(prefix, str) and prefix != ""
               and named.group(1) == re.sub(r"\d+", "N", prefix))


_UNSUPPORTED_TYPE: Final = re.compile(r"^UNIMPLEMENTED; (\w+) type not (?:yet )?supported: "
                                      r"'(\w+)'$")
_UNSUPPORTED_MODEL: Final = re.compile(r"^UNIMPLEMENTED; unsupported model type: '(\w+)'$")
_SLOTS: Final = {"decoder": "decoder", "normalizer": "normalizer",
                 "pre_tokenizer": "pre_tokenizer", "post_processor": "post_processor",
                 "pre-tokenizer": "pre_tokenizer", "post-processor": "post_processor"}


def component_type_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A component or model type the library does not implement: refused as
    UNIMPLEMENTED ("decoder type not supported: 'BPEDecoder'", "unsupported model type:
    'WordLevel'"). Checked: the slot the rule names (or a Sequence in it) really holds a
    component of that type, or the model is of that type."""
    rule = _refused_load(div)
    if rule is None:
        return NONE
    model = _UNSUPPORTED_MODEL.match(rule)
    if model is not None:
        return yes(ctx.doc.model.get("type") == model.group(1))
    named = _UNSUPPORTED_TYPE.match(rule)
    if named is None or named.group(1) not in _SLOTS:
        return NONE
    return yes(named.group(2) in component_types(ctx.doc.raw.get(_SLOTS[named.group(1)])))


_UNK_MISSING: Final = re.compile(r"^NOT_FOUND; unk_token '(.*)' not found in vocabulary$",
                                 re.DOTALL)


def unk_token_missing_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A model whose ``unk_token`` is not in its vocabulary: refused (NOT_FOUND), where
    upstream loads it (an unknown piece then fails at encode). Checked: the token named
    is the model's unk token and the vocabulary has no such entry."""
    rule = _refused_load(div)
    named = _UNK_MISSING.match(rule) if rule is not None else None
    unk = ctx.doc.unk_token
    return yes(named is not None and unk is not None and unk not in ctx.doc.vocab
               and named.group(1) == re.sub(r"\d+", "N", unk))


_UNKNOWN_MERGE_TOKEN: Final = re.compile(r"^NOT_FOUND; merge at index N references unknown "
                                         r"left token '(.*)'$", re.DOTALL)
_MERGE_INDEX: Final = re.compile(r"NOT_FOUND; merge at index (\d+) references")


def version_header_merge_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A merges list holding the ``#version: 0.2`` header line of a merges.txt: upstream
    skips every merge line starting with "#version" (wherever it stands), the library
    reads it as a merge of "#version:" and "0.2" and refuses the file for the unknown
    token. Checked: the token named is "#version:", upstream loaded, and the merge at the
    index the message names is a string starting with "#version"."""
    rule = _refused_load(div)
    named = _UNKNOWN_MERGE_TOKEN.match(rule) if rule is not None else None
    subject = div.observation.subject
    index = _MERGE_INDEX.search(subject.message) if isinstance(subject, Refused) else None
    merges = ctx.doc.merges
    at = int(index.group(1)) if index is not None else -1
    merge = merges[at] if isinstance(merges, list) and 0 <= at < len(merges) else None
    return yes(named is not None and named.group(1) == "#version:"
               and isinstance(div.observation.upstream, Loaded)
               and isinstance(merge, str) and merge.startswith("#version"))


_BYTE_SPAN: Final = re.compile(r"^INVALID_ARGUMENT; byte token ID range too wide: ")


def byte_token_span_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """Byte-fallback tokens (``<0x00>`` ... ``<0xFF>``) whose ids do not lie within one
    run of 256: the library keeps them as one id range and refuses a file where they
    spread wider ("byte token ID range too wide"); upstream looks each one up by name.
    Checked: that rule, and the ids of the document's byte tokens span more than 256."""
    rule = _refused_load(div)
    if rule is None or not _BYTE_SPAN.match(rule):
        return NONE
    ids = [v for k, v in ctx.doc.vocab.items() if _BYTE_TOKEN.match(k) and isinstance(v, int)]
    return yes(bool(ids) and max(ids) - min(ids) + 1 > 256)


_BUFFER_FULL: Final = "RESOURCE_EXHAUSTED; decode output buffer full"
#: Decoder steps that change no text, measured (FINDINGS.md): a chain of only these, or
#: none at all, leaves the library's decode with no output stage.
_PASSTHROUGH: Final = frozenset({"Fuse"})


def passthrough_decode_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A document with no decoder, or one of only Fuse steps (an empty Sequence too):
    every decode is refused as "decode output buffer full", whatever the ids. Checked:
    that rule, upstream decoded, and the decoder's steps are all passthrough ones."""
    obs = div.observation
    if not (obs.operation == "decode" and isinstance(obs.subject, Refused)
            and obs.subject.rule == _BUFFER_FULL and isinstance(obs.upstream, Decoded)):
        return NONE
    return yes(all(kind in _PASSTHROUGH for kind in ctx.doc.step_types("decoder")))



#: The output buffer the bindings' ``decode`` gives the C decode, in bytes: 8 per id plus
#: 128, measured (FINDINGS.md); there is no retry with a larger one.
_DECODE_BYTES_PER_ID: Final = 8
_DECODE_BYTES_EXTRA: Final = 128


def long_decode_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A decode whose text is longer than the bindings' output buffer (8 bytes per id
    plus 128): refused as "decode output buffer full" (long tokens: runs of spaces, of
    "=", of newlines). Checked: that rule, a decoder that is not only passthrough steps
    (those are ``passthrough_decode_refused``), and upstream's text longer than the buffer
    in UTF-8."""
    obs = div.observation
    if not (obs.operation == "decode" and isinstance(obs.subject, Refused)
            and obs.subject.rule == _BUFFER_FULL and isinstance(obs.upstream, Decoded)
            and isinstance(obs.input, tuple)):
        return NONE
    if all(kind in _PASSTHROUGH for kind in ctx.doc.step_types("decoder")):
        return NONE
    size = _DECODE_BYTES_PER_ID * len(obs.input) + _DECODE_BYTES_EXTRA
    return yes(len(obs.upstream.text.encode("utf-8", "surrogatepass")) > size)


_DEADLOCK: Final = re.compile(r"^INTERNAL; encode deadlock: no progress despite partial "
                              r"segment handling \(")
#: Byte tokens upstream gives the text before the added token, at least: the fewest in
#: any deadlock measured was 25 (a corpus text on Mistral), 36 in the reproducer.
_DEADLOCK_BYTE_TOKENS: Final = 24


def _added_ids(ctx: Context) -> frozenset[int]:
    return ctx.doc.memo("iree-added-ids", lambda: frozenset(
        e["id"] for e in ctx.doc.added_tokens if isinstance(e.get("id"), int)))


def byte_fallback_before_added_token_deadlock(ctx: Context, div: Divergence) -> frozenset[int]:
    """Byte fallback over a run of characters the vocabulary lacks, then an added token
    with more text after it: the encode fails as INTERNAL "encode deadlock: no progress
    despite partial segment handling" (the long run alone loses tokens instead,
    ``byte_tokens_dropped``). Checked: that rule, a byte-fallback model, and upstream's
    tokens holding an added token found in the text with a token after it that is not an
    added token, and at least 24 byte tokens since the previous added token."""
    obs = div.observation
    if not (obs.operation == "encode" and isinstance(obs.subject, Refused)
            and _DEADLOCK.match(obs.subject.rule) and isinstance(obs.upstream, Encoded)
            and ctx.doc.byte_fallback):
        return NONE
    added = _added_ids(ctx)
    ids, tokens = obs.upstream.ids, obs.upstream.tokens
    run = 0
    for index, (token_id, token) in enumerate(zip(ids, tokens, strict=True)):
        if token_id in added:
            after = index + 1 < len(ids) and ids[index + 1] not in added
            if after and run >= _DEADLOCK_BYTE_TOKENS:
                return yes(True)
            run = 0
        elif _BYTE_TOKEN.match(token):
            run += 1
    return NONE

_ZERO_ALLOCATION: Final = "INVALID_ARGUMENT; allocations must be >N bytes"


def no_token_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A document that gives no token at all (an empty vocabulary and no added token):
    the library allocates its token table of zero bytes and its allocator refuses
    ("allocations must be >0 bytes"); upstream loads it. Checked: that rule, and the
    model's vocabulary and the added tokens are both empty."""
    rule = _refused_load(div)
    vocab = ctx.doc.model.get("vocab")
    return yes(rule == _ZERO_ALLOCATION and isinstance(vocab, dict | list) and not vocab
               and not ctx.doc.added_tokens)


_SPLIT_BEHAVIOR: Final = re.compile(r"^INVALID_ARGUMENT; unknown Split behavior: '(.*)'$",
                                    re.DOTALL)


def _split_steps(value: Any) -> list[dict[str, Any]]:
    """The Split pre-tokenizers of ``value`` (nested Sequences too)."""
    if not isinstance(value, dict):
        return []
    if value.get("type") == "Sequence" and isinstance(value.get("pretokenizers"), list):
        return [s for step in value["pretokenizers"] for s in _split_steps(step)]
    return [value] if value.get("type") == "Split" else []


def split_behavior_object_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split whose ``behavior`` is written as an object (``{"Isolated": null}``, the
    externally tagged form of the enum, which upstream reads like "Isolated"): the
    library reads only a string and refuses the file, quoting the value. Checked: that
    rule, upstream loaded, and a Split of the pre-tokenizer has a behavior that is not a
    string and equals the value quoted."""
    rule = _refused_load(div)
    named = _SPLIT_BEHAVIOR.match(rule) if rule is not None else None
    if named is None or not isinstance(div.observation.upstream, Loaded):
        return NONE
    try:
        quoted = json.loads(named.group(1))
    except ValueError:
        return NONE
    return yes(any(not isinstance(s.get("behavior"), str) and s.get("behavior") == quoted
                   for s in _split_steps(ctx.doc.raw.get("pre_tokenizer"))))


_SPLIT_REGEX: Final = re.compile(r"failed to compile Split regex at position (\d+): "
                                 r"unexpected token$")
_QUANTIFIERS: Final = frozenset("*+?")


def stacked_quantifier_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split regex with a quantifier right after another (``a**``, ``a+?*``; Oniguruma,
    upstream's engine, reads the second as applying to the first): the library's regex
    compiler refuses it ("unexpected token at position N; failed to compile Split regex
    at position N"). Checked: that rule, upstream loaded, and a Split regex of the
    pre-tokenizer has a quantifier at the position the message names with a quantifier
    (or a closing ``}``) just before it."""
    rule = _refused_load(div)
    subject = div.observation.subject
    named = _SPLIT_REGEX.search(subject.message) if isinstance(subject, Refused) else None
    if rule is None or named is None or not rule.startswith("INVALID_ARGUMENT; unexpected "
                                                            "token at position N"):
        return NONE
    at = int(named.group(1))
    patterns = [s["pattern"]["Regex"] for s in _split_steps(ctx.doc.raw.get("pre_tokenizer"))
                if isinstance(s.get("pattern"), dict)
                and isinstance(s["pattern"].get("Regex"), str)]
    return yes(any(0 < at < len(p) and p[at] in _QUANTIFIERS
                   and (p[at - 1] in _QUANTIFIERS or p[at - 1] == "}") for p in patterns))


_CLASS_RANGES: Final = "character class has too many Unicode ranges"
#: The most items outside ASCII (characters or ranges) a bracket class of the library's
#: regex compiler holds, measured (FINDINGS.md).
_CLASS_ITEMS: Final = 10


def class_items_outside_ascii(pattern: str) -> list[int]:
    """For each bracket class of ``pattern`` (``[...]``, escapes skipped), how many of
    its items (a character, an escape or a range) reach outside ASCII."""
    counts: list[int] = []
    at = 0
    while at < len(pattern):
        if pattern[at] == "\\":
            at += 2
            continue
        if pattern[at] != "[":
            at += 1
            continue
        at += 1
        if at < len(pattern) and pattern[at] == "^":
            at += 1
        count, first = 0, True
        while at < len(pattern) and (pattern[at] != "]" or first):
            first = False
            item = pattern[at:at + 2] if pattern[at] == "\\" else pattern[at]
            at += len(item)
            if at + 1 < len(pattern) and pattern[at] == "-" and pattern[at + 1] != "]":
                end = pattern[at + 1:at + 3] if pattern[at + 1] == "\\" else pattern[at + 1]
                item += end
                at += 1 + len(end)
            count += not item.isascii()
        counts.append(count)
        at += 1
    return counts


def regex_class_too_wide_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split regex with a bracket class of more than ten items outside ASCII
    (characters or ranges): the library's regex compiler refuses it ("character class
    has too many Unicode ranges; use \\p{L} for broad matching"); upstream compiles it.
    Checked: that rule, upstream loaded, and a Split regex of the pre-tokenizer has a
    bracket class of more than ten such items."""
    rule = _refused_load(div)
    if rule is None or _CLASS_RANGES not in rule \
            or not isinstance(div.observation.upstream, Loaded):
        return NONE
    patterns = [s["pattern"]["Regex"] for s in _split_steps(ctx.doc.raw.get("pre_tokenizer"))
                if isinstance(s.get("pattern"), dict)
                and isinstance(s["pattern"].get("Regex"), str)]
    return yes(any(n > _CLASS_ITEMS for p in patterns for n in class_items_outside_ascii(p)))


_GROUP_TYPE: Final = re.compile(r"parse error at position (\d+): unknown group type \(\?;")
#: The group kinds after "(?" the library's regex compiler lacks, measured (FINDINGS.md):
#: look-behind and look-ahead, atomic, named and comment groups.
_UNKNOWN_GROUPS: Final = frozenset("<>=!P#")


def _at_position(pattern: str, position: int) -> list[int]:
    """The character indices ``position`` may name in ``pattern``: a character index,
    or a UTF-8 byte offset."""
    head = pattern.encode("utf-8", "surrogatepass")[:position]
    return sorted({position, len(head.decode("utf-8", "ignore"))})


def regex_group_kind_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split regex with a group kind the library's regex compiler lacks (look-behind
    ``(?<=``, look-ahead ``(?=``, atomic ``(?>``, named ``(?<n>``/``(?P<n>``, comment
    ``(?#``): refused ("unknown group type (?"); upstream's Oniguruma compiles them.
    Checked: that rule, upstream loaded, and a Split regex of the pre-tokenizer has
    "(?" and one of those kinds at the position the message names."""
    rule = _refused_load(div)
    subject = div.observation.subject
    named = _GROUP_TYPE.search(subject.message) if isinstance(subject, Refused) else None
    if rule is None or named is None or not isinstance(div.observation.upstream, Loaded):
        return NONE
    position = int(named.group(1))
    return yes(any(p[at:at + 2] == "(?" and p[at + 2:at + 3] in _UNKNOWN_GROUPS
                   and p[at + 2:at + 3] != "" for p in ctx.doc.split_patterns("Regex")
                   for at in _at_position(p, position)))


_CLASS_ESCAPE: Final = re.compile(r"parse error at position (\d+): unknown escape sequence "
                                  r"in character class;")
#: The escapes the library's regex compiler reads in a bracket class, measured
#: (FINDINGS.md); any other letter after a backslash there is refused.
_CLASS_ESCAPES: Final = frozenset("rntfvpdDsSwWu")


def regex_class_escape_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A bracket class of a Split regex holding an escape the library's regex compiler
    does not read there (``[\\x41-\\x43]``): refused ("unknown escape sequence in
    character class"); upstream's Oniguruma compiles it. Checked: that rule, upstream
    loaded, and a Split regex has, at the position the message names, a backslash and
    a letter outside the escapes the library reads."""
    rule = _refused_load(div)
    subject = div.observation.subject
    named = _CLASS_ESCAPE.search(subject.message) if isinstance(subject, Refused) else None
    if rule is None or named is None or not isinstance(div.observation.upstream, Loaded):
        return NONE
    position = int(named.group(1))
    return yes(any(p[at:at + 1] == "\\" and p[at + 1:at + 2].isalpha()
                   and p[at + 1:at + 2] not in _CLASS_ESCAPES
                   for p in ctx.doc.split_patterns("Regex") for at in _at_position(p, position)))


_INLINE_FLAG: Final = re.compile(r"parse error at position (\d+): expected ':' after \(\?i;")


def _regexes(value: Any) -> list[str]:
    """Every ``{"Regex": ...}`` pattern in ``value`` (a component, nested Sequences too)."""
    if isinstance(value, dict):
        pattern = value.get("pattern")
        found = [pattern["Regex"]] if isinstance(pattern, dict) \
            and isinstance(pattern.get("Regex"), str) else []
        return found + [r for key, v in value.items() if key != "pattern"
                        for r in _regexes(v)]
    if isinstance(value, list):
        return [r for v in value for r in _regexes(v)]
    return []


def inline_flag_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A regex (of a Split, a Replace normalizer or decoder) with the inline flag
    ``(?i)`` setting case-insensitivity for the rest of the pattern: the library's
    regex compiler knows only the group form ``(?i:...)`` and refuses the file
    ("expected ':' after (?i"); upstream's Oniguruma compiles it. Checked: that rule,
    upstream loaded, and a regex of the document has "(?i)" at the position the message
    names."""
    rule = _refused_load(div)
    subject = div.observation.subject
    named = _INLINE_FLAG.search(subject.message) if isinstance(subject, Refused) else None
    if rule is None or named is None or not isinstance(div.observation.upstream, Loaded):
        return NONE
    position = int(named.group(1))
    patterns = [r for key in ("normalizer", "pre_tokenizer", "decoder")
                for r in _regexes(ctx.doc.raw.get(key))]
    return yes(any(p[at:at + 4] == "(?i)" for p in patterns
                   for at in _at_position(p, position)))


_DROPOUT_RANGE: Final = "Dropout should be between 0 and 1, inclusive"


def dropout_out_of_range_loaded(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE dropout outside [0, 1] (``1e300``): upstream refuses the file ("Dropout
    should be between 0 and 1, inclusive"); the library reads no dropout
    (``dropout_ignored``) and loads it. Checked: the subject loaded, upstream refused
    with that rule, and the model's dropout is a number outside [0, 1]."""
    obs = div.observation
    dropout = ctx.doc.dropout
    return yes(obs.operation == "load" and isinstance(obs.subject, Loaded)
               and isinstance(obs.upstream, Refused) and obs.upstream.rule == _DROPOUT_RANGE
               and isinstance(dropout, int | float) and not isinstance(dropout, bool)
               and not 0.0 <= float(dropout) <= 1.0)


_STRIP_STOP: Final = re.compile(r"^UNIMPLEMENTED; Strip decoder with stop_count > N not "
                                 r"supported")


def strip_decoder_stop_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Strip decoder that takes characters off the end (``stop`` above 0): the library
    refuses the file ("Strip decoder with stop_count > 0 not supported (requires
    buffering)"); upstream loads it. Checked: that rule, and a Strip step of the
    decoder (a Sequence's too) has a ``stop`` above 0."""
    rule = _refused_load(div)
    if rule is None or not _STRIP_STOP.match(rule):
        return NONE
    return yes(any(isinstance(s, dict) and s.get("type") == "Strip"
                   and isinstance(s.get("stop"), int) and s["stop"] > 0
                   for s in ctx.doc.steps("decoder")))


_MERGE_RESULT: Final = re.compile(r"^Token `(.*)` out of vocabulary$", re.DOTALL)


def merge_result_missing_loaded(ctx: Context, div: Divergence) -> frozenset[int]:
    """A merge whose result is not in the vocabulary ("Ī v" with no "Īv"): upstream
    refuses the file ("Token `Īv` out of vocabulary"); the library loads it. Checked:
    the subject loaded, upstream refused with that rule, and a merge of the document
    joins two vocabulary entries into the token named, which the vocabulary lacks."""
    obs = div.observation
    upstream = obs.upstream
    named = _MERGE_RESULT.match(upstream.rule) if isinstance(upstream, Refused) else None
    if not (obs.operation == "load" and isinstance(obs.subject, Loaded) and named):
        return NONE
    vocab = ctx.doc.vocab
    result = named.group(1)
    for merge in ctx.doc.merges or ():
        sides = merge.split(" ", 1) if isinstance(merge, str) else merge
        if isinstance(sides, list) and len(sides) == 2 and all(
                isinstance(s, str) and s in vocab for s in sides) \
                and sides[0] + sides[1] == result and result not in vocab:
            return yes(True)
    return NONE


_ARGUMENTS: Final = "TypeError; decode(): incompatible function arguments"


def decode_id_beyond_int32_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A decode of an id above 2**31 - 1: the bindings take the ids as 32-bit signed
    ints and refuse the call (``TypeError: decode(): incompatible function
    arguments``); upstream takes any u32 and skips an id that names no token. Checked:
    that rule, upstream decoded, and the ids hold one above 2**31 - 1 (and none above
    upstream's u32, which it refuses too)."""
    obs = div.observation
    ids = obs.input
    return yes(obs.operation == "decode" and isinstance(obs.subject, Refused)
               and obs.subject.rule == _ARGUMENTS and isinstance(obs.upstream, Decoded)
               and isinstance(ids, tuple) and any(i > _INT32_MAX for i in ids))

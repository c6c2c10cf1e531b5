"""Load recognisers: files the subject loads where upstream refuses them (or panics),
and the one it refuses where upstream loads it, each checked against the document (and
our lenient reference's or upstream's own refusal of the same mechanism).
"""

from __future__ import annotations

import re
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Crashed, Loaded, Refused
from ....judge.compare import Divergence
from ....judge.predicates import NONE, Context
from ....judge.predicates import REGISTRY as PREDICATES
from .replay import normalized_by, upstream_handle, yes

# -- load ------------------------------------------------------------------------------
_OUT_OF_VOCABULARY: Final = re.compile(r"Token `(.*)` out of vocabulary( at line.*)?", re.S)


def _merge_pairs(merges: Any) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for merge in merges if isinstance(merges, list) else ():
        if isinstance(merge, str) and merge.count(" ") == 1:
            left, right = merge.split(" ")
            pairs.append((left, right))
        elif isinstance(merge, list) and len(merge) == 2:
            pairs.append((str(merge[0]), str(merge[1])))
    return pairs


def merge_result_unchecked(ctx: Context, div: Divergence) -> frozenset[int]:
    """A merge naming a token that is not in the vocabulary (a side, or the result):
    upstream refuses the file, the subject loads it. Checked: the token upstream names is
    a side or the result (the right side without the continuing-subword prefix) of one of
    the file's merges, and is absent from the vocabulary."""
    obs = div.observation
    upstream = obs.upstream
    if obs.operation != "load" or not isinstance(obs.subject, Loaded):
        return NONE
    if not isinstance(upstream, Refused):
        return NONE
    named = _OUT_OF_VOCABULARY.fullmatch(upstream.message)
    if named is None or named.group(1) in ctx.vocab:
        return NONE
    prefix = ctx.model.get("continuing_subword_prefix") or ""
    tokens: set[str] = set()
    for left, right in _merge_pairs(ctx.model.get("merges")):
        cut = right[len(prefix):] if prefix else right
        tokens |= {left, right, left + cut}
    return yes(named.group(1) in tokens)


def upstream_load_panic(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream panics while building the model (a merge result longer than every entry,
    a prefix that underflows a merge side); the subject loads the file. Recognised by our
    own registry's mechanism: our strict reference refuses this file naming the very
    merge upstream panics on (``upstream-panic-refused``)."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Loaded):
        return NONE
    ours = ctx.strict if isinstance(ctx.strict, Refused | Crashed) else Loaded()
    mirrored = Observation("strict", "load", None, (), ours, obs.upstream)
    return PREDICATES["upstream_panic_refused"](ctx, Divergence("load", "", mirrored))


_MALFORMED_POST_PROCESSOR: Final = re.compile(r"untagged enum PostProcessorWrapper")


def post_processor_unchecked(ctx: Context, div: Divergence) -> frozenset[int]:
    """A post-processor upstream cannot read (it names no variant it knows): upstream
    refuses the file, the subject loads it. Checked: our lenient reference (which keeps
    only the rules both modes share) refuses the same file at the post-processor."""
    obs = div.observation
    upstream = obs.upstream
    if obs.operation != "load" or not isinstance(obs.subject, Loaded):
        return NONE
    if not (isinstance(upstream, Refused)
            and _MALFORMED_POST_PROCESSOR.search(upstream.message)):
        return NONE
    ours = ctx.lenient
    return yes(isinstance(ours, Refused) and ours.path.startswith("$.post_processor"))


_EMPTY_PATTERN: Final = re.compile(r"pattern\.len\(\) must be >= 1")


def empty_normalized_added_token_accepted(ctx: Context, div: Divergence) -> frozenset[int]:
    """A normalized added token whose content the normalizer turns into the empty string:
    upstream refuses the file (its matcher gets an empty pattern), the subject loads it.
    Checked: our lenient reference refuses the same file at that added token's content,
    naming the empty normalized form."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Loaded):
        return NONE
    if not (isinstance(obs.upstream, Refused) and _EMPTY_PATTERN.search(obs.upstream.message)):
        return NONE
    ours = ctx.lenient
    return yes(isinstance(ours, Refused) and ours.path.startswith("$.added_tokens[")
                and "normalized to the empty" in ours.message)


_INVALID_REGEX: Final = re.compile(r"^SyntaxError: Invalid regular expression: /(.*)/[a-z]*: ",
                                   re.S)


def _regex_patterns(value: Any) -> list[str]:
    """Every ``{"Regex": ...}`` pattern anywhere in the document."""
    if isinstance(value, dict):
        found = [value["Regex"]] if isinstance(value.get("Regex"), str) else []
        return found + [p for v in value.values() for p in _regex_patterns(v)]
    if isinstance(value, list):
        return [p for v in value for p in _regex_patterns(v)]
    return []


_ONIGURUMA_ERROR: Final = re.compile(r"Oniguruma error")
_DUPLICATE_PATTERN: Final = re.compile(r"DuplicatePatternError")


def _loaded_where_upstream_refuses(obs: Observation, error: re.Pattern[str]) -> bool:
    """A load the subject made where upstream refused the file with ``error``."""
    return (obs.operation == "load" and isinstance(obs.subject, Loaded)
            and isinstance(obs.upstream, Refused) and error.search(obs.upstream.message)
            is not None)


def oniguruma_refusal_unchecked(ctx: Context, div: Divergence) -> frozenset[int]:
    """A regular expression Oniguruma refuses (a repeat count above its limit, say):
    upstream refuses the file, the subject's JavaScript RegExp takes it and loads the
    file. Checked: our lenient reference refuses the same file at a ``Regex`` pattern."""
    if not _loaded_where_upstream_refuses(div.observation, _ONIGURUMA_ERROR):
        return NONE
    ours = ctx.lenient
    return yes(isinstance(ours, Refused) and ours.path.endswith(".Regex"))


def duplicate_normalized_added_tokens_accepted(ctx: Context, div: Divergence
                                               ) -> frozenset[int]:
    """Two normalized added tokens whose normalized forms coincide: upstream refuses the
    file (its matcher holds one pattern twice), the subject loads it. Checked by replay:
    upstream's own normalizer (the file without its added tokens) gives two of the
    normalized contents one form."""
    if not _loaded_where_upstream_refuses(div.observation, _DUPLICATE_PATTERN):
        return NONE
    handle = upstream_handle({**ctx.document, "added_tokens": []})
    if isinstance(handle, Refused | Crashed):
        return NONE
    contents = [entry.get("content") for entry in ctx.document.get("added_tokens") or ()
                if isinstance(entry, dict) and entry.get("normalized") is True]
    forms = [normalized_by(handle, content) for content in set(contents)
             if isinstance(content, str)]
    known = [form for form in forms if form is not None]
    return yes(len(known) != len(set(known)))


def regex_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A regular expression Oniguruma (upstream) compiles and the subject's translation to
    JavaScript refuses: the subject refuses the file with a SyntaxError quoting a pattern
    of the document; upstream loads it."""
    obs = div.observation
    subject = obs.subject
    if obs.operation != "load" or not isinstance(obs.upstream, Loaded):
        return NONE
    if not isinstance(subject, Refused):
        return NONE
    quoted = _INVALID_REGEX.match(subject.message)
    return yes(quoted is not None and quoted.group(1) in _regex_patterns(ctx.document))

"""The subject's readings of a document (``READINGS``) and the recogniser of each
(``reads``): a divergence is recognised as reading R when upstream, replaying it on the
document read every applicable way, answers exactly what the subject answered, and R is
needed for that (without R the replay does not match) or is the first applicable one.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ....core.case import Case
from ....core.observation import Observation
from ....core.outcome import Crashed, Encoded, Outcome, Refused
from ....judge.compare import Divergence
from ....judge.predicates import ALL, NONE, Context, Predicate
from ....judge.predicates import REGISTRY as PREDICATES
from ....judge.replay import NothingReplayed
from ...reference import LENIENT
from .javascript import (
    byte_runs_as_text,
    marks_restored,
    prepends,
    sectionable,
    sectioned,
    text_sections,
)
from .replay import (
    model_of,
    normalized_by,
    replay_on,
    same_tiers,
    strip_panic_as_nothing,
    unmarked,
    upstream_handle,
    with_input,
    with_model,
    yes,
)
from .rewrites import (
    Answer,
    Change,
    Input,
    added_by_string,
    byte_fallback_kept,
    byte_merges_dropped,
    content_as_token,
    distinct_ids,
    empty_pair,
    every_document,
    first_scheme,
    first_scheme_as_subject,
    first_scheme_replaced,
    first_sections,
    first_space_removed,
    first_spliced,
    fuse_unk_runs,
    fusing,
    ghosts_fallen_back,
    ids_by_string,
    last_string_per_id,
    marking_dropped,
    metaspace_as_replace,
    normalized_added_plain,
    pair_dropped,
    picked_answer,
    shared_ids_folded,
    spacing_suffix,
    stripping,
    suffix_spaced,
    unknown_as_empty,
    unknown_as_unk,
    unknown_ids,
    unknown_ids_empty,
    without_dropout,
    without_metaspace_split,
    without_prefix,
    without_single_word,
)

# -- the subject's own added-token sections ------------------------------------------------
#: The reading under which a replay runs section by section (``sectioned``).
_SECTIONS: Final = "added_token_sections"


#: The reading under which the section replay normalizes as the subject does, Prepend
#: steps applied to an empty text too.
_PREPEND_ON_EMPTY: Final = "prepend_on_empty"


@dataclass(frozen=True)
class Reading:
    """One way the subject reads a document differently: a change of the document for
    the replay (None where it does not apply), optionally a rewrite of the observation's
    input and of the replayed answer; for the operations listed."""

    document: Change
    answer: Answer | None = None
    operations: frozenset[str] = frozenset({"encode", "decode"})
    input: Input | None = None
    #: A change of the document and the observation together (after ``document``).
    prepare: Callable[[dict[str, Any], Observation],
                      tuple[dict[str, Any], Observation]] | None = None
    #: Where the reading applies to some observations only.
    when: Callable[[dict[str, Any], Observation], bool] | None = None


_ENCODE: Final = frozenset({"encode"})
_DECODE: Final = frozenset({"decode"})
READINGS: Final[dict[str, Reading]] = {
    # The model's own strings as tokens, whatever id they share: first, so that its fresh
    # ids are folded back before any other reading reads the answer (a fresh id is no
    # ghost of the prefix reading).
    "model_strings_for_shared_ids": Reading(distinct_ids, shared_ids_folded, _ENCODE),
    "dropout": Reading(without_dropout, operations=_ENCODE),
    "continuing_subword_prefix": Reading(without_prefix, ghosts_fallen_back, _ENCODE),
    "metaspace_split": Reading(without_metaspace_split, operations=_ENCODE),
    "metaspace_first_per_section": Reading(
        first_scheme, operations=_ENCODE, prepare=first_scheme_replaced,
        when=lambda document, obs: (first_scheme_as_subject(document, obs) is not None
                                    or first_sections(document, obs) is not None)),
    "single_word": Reading(without_single_word, operations=_ENCODE),
    "byte_pieces_unmerged": Reading(byte_merges_dropped, operations=_ENCODE),
    "dropped_characters": Reading(marking_dropped,
                                  picked_answer(lambda _, outcome: unmarked(outcome)),
                                  _ENCODE),
    "unk_fused_across_words": Reading(fusing, fuse_unk_runs, _ENCODE),
    "stripped_added_token_string": Reading(stripping, picked_answer(content_as_token),
                                           _ENCODE),
    "normalized_added_tokens_in_decode": Reading(normalized_added_plain,
                                                 operations=_DECODE),
    "last_string_per_id": Reading(last_string_per_id, operations=_DECODE),
    "unknown_ids_as_unk": Reading(unknown_ids, operations=_DECODE, input=unknown_as_unk),
    "unknown_ids_as_empty_pieces": Reading(unknown_ids_empty, operations=_DECODE,
                                           input=unknown_as_empty),
    # Replays run section by section where nothing else explains the answer (``reads``).
    _SECTIONS: Reading(sectionable, operations=_ENCODE, when=text_sections),
    # Inside the section replay only: Prepend applied to a text normalized to nothing.
    _PREPEND_ON_EMPTY: Reading(prepends, operations=_ENCODE, when=text_sections),
    # Last among encode readings: ids looked up by token string, added tokens first.
    "added_ids_by_string": Reading(added_by_string, ids_by_string, _ENCODE),
    "empty_pair_as_none": Reading(every_document, operations=_ENCODE, input=pair_dropped,
                                  when=empty_pair),
    # After the byte pieces are decoded: the subject replaces the suffix in the text its
    # decoder gave, bytes decoded included.
    "byte_fallback_decoded_leniently": Reading(byte_fallback_kept, marks_restored,
                                               _DECODE, prepare=byte_runs_as_text),
    "metaspace_decoder_first_space": Reading(metaspace_as_replace, first_space_removed,
                                             _DECODE),
    # After the decoder chain (the first space removed inside it): the suffix replaced.
    "end_of_word_suffix_spaced": Reading(spacing_suffix, suffix_spaced, _DECODE),
}


def _applicable(document: dict[str, Any], obs: Observation) -> list[str]:
    return [name for name, reading in READINGS.items()
            if obs.operation in reading.operations and reading.document(document) is not None
            and (reading.when is None or reading.when(document, obs))]


def _as_subject_reads(document: dict[str, Any], names: Sequence[str], obs: Observation,
                      *, fixed: bool = False, empty_strip: bool = True) -> Outcome | None:
    """``obs`` replayed by upstream on ``document`` read the ways ``names`` say. With
    ``fixed``, upstream's answer with its unk/byte-fallback misordering put right: our
    lenient reference's answer on the changed document, taken only where our registry's
    class ``unk-byte-fallback-ordering`` explains every way it differs from upstream's
    (the upstream bug is all that separates them)."""
    changed, replayed = document, obs
    if _SECTIONS in names:
        # The section replay prepends per section itself: "first" must reach it as is.
        names = [name for name in names if name != "metaspace_first_per_section"]
    for name in names:
        reading = READINGS[name]
        changed = reading.document(changed) or changed
        if reading.input is not None:
            replayed = reading.input(document, replayed)
    for name in names:
        prepare = READINGS[name].prepare
        if prepare is not None:
            changed, replayed = prepare(changed, replayed)
    changed = _added_ids_pinned(document, changed)
    moved = _moved_added_ids(document, changed)
    if moved:
        changed = {**changed, "post_processor": _template_ids_moved(
            changed.get("post_processor"), moved)}
        if isinstance(replayed.input, tuple):
            replayed = with_input(replayed, tuple(moved.get(i, i) for i in replayed.input))
    if _SECTIONS in names:
        outcome = sectioned(changed, replayed, _PREPEND_ON_EMPTY in names)
    elif "metaspace_first_per_section" in names and first_sections(changed, replayed):
        outcome = first_spliced(changed, replayed)
    else:
        outcome = replay_on(changed, replayed)
        if empty_strip:
            outcome = strip_panic_as_nothing(changed, outcome)
    if fixed:
        outcome = _ordering_fixed(changed, replayed, outcome)
    if moved and isinstance(outcome, Encoded):
        back = {new: old for old, new in moved.items()}
        outcome = dataclasses.replace(outcome, ids=tuple(back.get(i, i) for i in outcome.ids))
    for name in names:
        rewrite = READINGS[name].answer
        if rewrite is not None:
            outcome = rewrite(document, obs, outcome)
    return outcome


def _ordering_fixed(document: dict[str, Any], obs: Observation, upstream: Outcome | None
                    ) -> Outcome | None:
    if not isinstance(upstream, Encoded) or not isinstance(obs.input, str):
        return None
    handle = LENIENT.load(json.dumps(document, ensure_ascii=False))
    if isinstance(handle, Refused):
        handle = _without_idle_step(document, handle, obs)
    if isinstance(handle, Refused | Crashed):
        return None
    ours = LENIENT.encode(handle, obs.input, obs.option("pair"),
                          add_special_tokens=bool(obs.option("add_special_tokens")))
    if not isinstance(ours, Encoded):
        return None
    ctx = Context(Case(document=document, texts=(), id_runs=(), pairs=()), NothingReplayed())
    mirrored = Observation("lenient", obs.operation, obs.input, obs.options, ours, upstream)
    for tier in ("ids", "tokens", "special_mask", "type_ids", "attention_mask"):
        if getattr(ours, tier) != getattr(upstream, tier) and not PREDICATES[
                "unk_byte_fallback_ordering"](ctx, Divergence(tier, "", mirrored)):
            return None
    return ours  # (upstream's answer where nothing was misordered)


_NORMALIZER_STEP: Final = re.compile(r"\$\.normalizer((?:\.normalizers\[\d+\])*)")


def _without_idle_step(document: dict[str, Any], refused: Refused, obs: Observation
                       ) -> Any:
    """Our reference loaded without the normalizer step it refuses (a Replace regex it
    cannot bound, say), where that step changes nothing in this observation's texts
    (upstream normalizes them alike with and without it); else ``refused``."""
    found = _NORMALIZER_STEP.match(refused.path)
    if found is None:
        return refused
    indices = [int(i) for i in re.findall(r"\d+", found.group(1))]

    def without(step: Any, path: list[int]) -> Any:
        if not path:
            return {"type": "Sequence", "normalizers": []}
        if not isinstance(step, dict) or not isinstance(step.get("normalizers"), list):
            return step
        steps = list(step["normalizers"])
        if path[0] >= len(steps):
            return step
        steps[path[0]] = without(steps[path[0]], path[1:])
        return {**step, "normalizers": steps}

    changed = {**document, "normalizer": without(document.get("normalizer"), indices)}
    before, after = upstream_handle(document), upstream_handle(changed)
    if isinstance(before, Refused | Crashed) or isinstance(after, Refused | Crashed):
        return refused
    for text in (obs.input, obs.option("pair")):
        if isinstance(text, str):
            alike = normalized_by(before, text)
            if alike is None or alike != normalized_by(after, text):
                return refused
    return LENIENT.load(json.dumps(changed, ensure_ascii=False))


def _added_ids_pinned(document: dict[str, Any], changed: dict[str, Any]) -> dict[str, Any]:
    """Where the replay's vocabulary grew, upstream would number the added tokens it does
    not find there after it (moving them, even onto ids of the vocabulary where that has
    holes): such tokens enter the replay's vocabulary with their own ids instead, as the
    subject's model knows them too."""
    vocab = model_of(changed).get("vocab")
    if not isinstance(vocab, dict) or len(vocab) == len(model_of(document).get("vocab") or {}):
        return changed
    pinned = {str(e["content"]): e["id"] for e in document.get("added_tokens") or ()
              if isinstance(e, dict) and isinstance(e.get("id"), int)
              and str(e.get("content")) not in vocab}
    return with_model(changed, vocab={**vocab, **pinned}) if pinned else changed


def _moved_added_ids(document: dict[str, Any], changed: dict[str, Any]) -> dict[int, int]:
    """Upstream numbers added tokens it does not find in the model's vocabulary after
    that vocabulary when it loads a file, so a replay whose vocabulary grew, or whose
    added tokens changed content, moves them: each original added id -> its replay id
    (entries matched by position)."""
    before = [e for e in document.get("added_tokens") or () if isinstance(e, dict)]
    after = [e for e in changed.get("added_tokens") or () if isinstance(e, dict)]
    same_vocab = (len(model_of(changed).get("vocab") or {})
                  == len(model_of(document).get("vocab") or {}))
    if same_vocab and before == after:
        return {}
    handle = upstream_handle(changed)
    if isinstance(handle, Refused | Crashed) or len(before) != len(after):
        return {}
    moved: dict[int, int] = {}
    for old, new in zip(before, after, strict=True):
        if isinstance(old.get("id"), int):
            now = handle.tokenizer.token_to_id(str(new.get("content")))
            if isinstance(now, int) and now != old["id"]:
                moved[old["id"]] = now
    return moved


def _template_ids_moved(value: Any, moved: dict[int, int]) -> Any:
    """The post-processor with every id list of its special tokens moved as the added
    tokens were, so its template emits ids that map back like the rest."""
    if isinstance(value, dict):
        return {key: ([moved.get(i, i) if isinstance(i, int) else i for i in item]
                      if key == "ids" and isinstance(item, list)
                      else _template_ids_moved(item, moved))
                for key, item in value.items()}
    if isinstance(value, list):
        return [_template_ids_moved(item, moved) for item in value]
    return value


def _replays_match(ctx: Context, obs: Observation, names: Sequence[str]) -> bool | None:
    """Whether upstream's replay under ``names`` answers the subject's answer: False
    (as is), True (with upstream's misordering put right, where that entry is in
    force), None (it does not)."""
    if same_tiers(obs.subject, _replayed(ctx, obs, names)):
        return False
    ordering = "like_reference_unk_byte_fallback_ordering"
    if ctx.in_force is not None and ordering not in ctx.in_force:
        return None
    if obs.operation == "encode" and same_tiers(
            obs.subject, _replayed(ctx, obs, names, fixed=True)):
        return True
    return None


def _replayed(ctx: Context, obs: Observation, names: Sequence[str], *, fixed: bool = False
              ) -> Outcome | None:
    """``_as_subject_reads`` with the upstream bugs put right only where their entries
    are in force."""
    empty_strip = ctx.in_force is None or "strip_panic_on_nothing" in ctx.in_force
    return _as_subject_reads(ctx.document, names, obs, fixed=fixed, empty_strip=empty_strip)


def reads(name: str) -> Predicate:
    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        obs = div.observation
        # Only readings whose entries are in force compose (a deleted entry explains
        # nothing, not even as another reading's helper).
        applicable = [other for other in _applicable(ctx.document, obs)
                      if ctx.in_force is None or f"reads_{other}" in ctx.in_force]
        if name not in applicable:
            return NONE
        # Section by section only where the whole-text replay does not explain it.
        used = [other for other in applicable if other != _SECTIONS]
        fixed = _replays_match(ctx, obs, used)
        if fixed is None and _SECTIONS in applicable:
            used = applicable
            fixed = _replays_match(ctx, obs, used)
        if fixed is None or name not in used:
            return NONE
        if fixed and same_tiers(obs.subject, _replayed(ctx, obs, [], fixed=True)):
            return NONE  # upstream's misordering is all there is: not a reading's
        # (Without the fix, the replay with no reading is upstream's own answer, which
        # differs; re-running it would only compare against a fresh draw where upstream
        # is random, i.e. under dropout.)
        others = [other for other in used if other != name]
        if not same_tiers(obs.subject, _replayed(ctx, obs, others, fixed=fixed)):
            return ALL  # this reading is needed
        # Not needed: credited only where no reading is (then the first one is).
        for other in others:
            rest = [o for o in used if o != other]
            if not same_tiers(obs.subject, _replayed(ctx, obs, rest, fixed=fixed)):
                return NONE
        return yes(used[0] == name)

    recognise.__name__ = f"reads_{name}"
    recognise.__doc__ = (f"The subject's reading {name!r}: upstream replaying the "
                         "observation on the document as the subject reads it answers "
                         "exactly the subject's answer, and this reading is needed for it.")
    return recognise

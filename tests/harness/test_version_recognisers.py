"""The upgrade preview's replaying recognisers (harness/subjects/tokenizers_version/
recognisers.py) on the minimal reproducers of its FINDINGS.md: each subject answer is what
tokenizers 0.22.2 or 1.0.0rc3 gave (tests/data/tokenizers-versions/answers.json, written by
record_versions.py beside it; no network, no other version installed), the pinned side what 0.23.1
gives, and the recogniser replays the pinned 0.23.1 itself. Each is shown answering yes on
its mechanism and no once the mechanism is taken away."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from harness.core.case import Case
from harness.core.observation import Observation
from harness.core.outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused
from harness.judge.compare import Divergence
from harness.judge.context import Context
from harness.judge.predicates import Predicate
from harness.runs.replay import CaseReplayer
from harness.subjects import upstream
from harness.subjects.tokenizers_version import recognisers

DATA = json.loads((Path(__file__).parents[1] / "data" / "tokenizers-versions" /
                   "answers.json").read_text(encoding="utf-8"))
PINNED = "0.23.1"


def _outcome(answer: dict[str, Any]) -> Outcome:
    kind = answer["outcome"]
    if kind == "encoded":
        ids = tuple(answer["ids"])
        return Encoded(ids, tuple(answer["tokens"]), (), (), type_ids=(0,) * len(ids),
                       attention_mask=(1,) * len(ids))
    if kind == "decoded":
        return Decoded(answer["text"])
    if kind == "refused":
        return Refused(answer["message"], answer["message"])
    if kind == "crashed":
        return Crashed("panic", answer["message"])
    return Loaded()


def _divergence(name: str, version: str, document: dict[str, Any] | None = None,
                subject: Outcome | None = None) -> tuple[Context, Divergence]:
    """The divergence of ``version`` from the pinned one on the recorded case ``name``;
    ``document`` and ``subject`` replace the recorded ones (to take a mechanism away)."""
    case = DATA["cases"][name]
    doc = case["document"] if document is None else document
    given = case["input"]
    given = tuple(given) if isinstance(given, list) else given
    ours = _outcome(DATA["answers"][version][name]) if subject is None else subject
    theirs = _outcome(DATA["answers"][PINNED][name])
    tier = {"encode": "ids", "decode": "decode", "load": "load"}[case["operation"]]
    observation = Observation("strict", case["operation"], given,
                              tuple(case["options"].items()), ours, theirs)
    texts = (given,) if isinstance(given, str) else ()
    return (Context(Case(doc, texts), CaseReplayer()),
            Divergence(tier, "", observation, "subject"))


def test_the_pinned_answers_were_recorded_from_the_installed_pin() -> None:
    assert upstream.version() == PINNED and set(DATA["answers"]) >= {"0.22.2", "1.0.0rc3"}


def _says(recogniser: Predicate, ctx: Context, div: Divergence) -> bool:
    return bool(recogniser(ctx, div))


@pytest.mark.parametrize("name", ["unfused-prefix", "unfused-suffix"])
def test_1x_unfused_unknowns_are_recognised_by_replaying_fuse_unk_false(name: str) -> None:
    recogniser = recognisers.unknowns_not_fused_with_affixes
    assert _says(recogniser, *_divergence(name, "1.0.0rc3"))
    # the mechanism taken away: without the affix, fuse_unk false is not what 1.x gave
    plain = copy.deepcopy(DATA["cases"][name]["document"])
    plain["model"].update(continuing_subword_prefix=None, end_of_word_suffix=None)
    assert not _says(recogniser, *_divergence(name, "1.0.0rc3", document=plain))
    # an answer that is not the unfused one (another segmentation) is not explained
    other = Encoded((1, 0, 1), ("a", "<unk>", "a"), (), (), type_ids=(0, 0, 0),
                    attention_mask=(1, 1, 1))
    assert not _says(recogniser, *_divergence(name, "1.0.0rc3", subject=other))
    assert DATA["answers"]["1.0.0rc3"]["fused-no-affix"] == DATA["answers"][PINNED][
        "fused-no-affix"]  # without an affix 1.x fuses: no divergence to explain


def test_1x_skipping_normalized_specials_is_recognised_on_both_sides() -> None:
    recogniser = recognisers.normalized_specials_skipped
    assert _says(recogniser, *_divergence("normalized-special-skip", "1.0.0rc3"))
    # the special made normalized false: the pinned version skips it too, nothing to explain
    document = copy.deepcopy(DATA["cases"]["normalized-special-skip"]["document"])
    document["added_tokens"][0]["normalized"] = False
    assert not _says(recogniser, *_divergence("normalized-special-skip", "1.0.0rc3",
                                              document=document))
    # kept specials (0.22.2's content form) are not a skipping
    assert not _says(recogniser, *_divergence("normalized-special-keep", "0.22.2"))


@pytest.mark.parametrize("name", ["normalized-special-keep", "normalized-special-skip"])
def test_before_0_23_added_tokens_decode_by_content(name: str) -> None:
    recogniser = recognisers.added_tokens_decoded_by_content
    assert _says(recogniser, *_divergence(name, "0.22.2"))
    wrong = Decoded("a <x>b")
    assert not _says(recogniser, *_divergence(name, "0.22.2", subject=wrong))


def test_before_0_23_a_merge_out_of_vocabulary_is_refused_where_0_23_1_panics() -> None:
    recogniser = recognisers.merge_out_of_vocabulary_refused
    name = "merge-result-out-of-vocabulary"
    assert _says(recogniser, *_divergence(name, "0.22.2"))
    document = copy.deepcopy(DATA["cases"][name]["document"])
    document["model"]["vocab"]["ab</w>"] = 3  # the named token in the vocabulary
    assert not _says(recogniser, *_divergence(name, "0.22.2", document=document))
    assert DATA["answers"]["1.0.0rc3"][name] == DATA["answers"][PINNED][name]  # 1.x panics


def test_1x_loads_a_split_regex_oniguruma_refuses() -> None:
    recogniser = recognisers.split_regex_checked_at_encode
    name = "split-not-oniguruma"
    assert _says(recogniser, *_divergence(name, "1.0.0rc3"))
    # the same bad pattern in a Replace normalizer (no Split): 0.23.1's refusal is not the
    # Split pattern's, and replaying without Split regexes still refuses
    document = copy.deepcopy(DATA["cases"][name]["document"])
    document["normalizer"] = {"type": "Replace", "pattern": {"Regex": "a)"}, "content": "b"}
    assert not _says(recogniser, *_divergence(name, "1.0.0rc3", document=document))


@pytest.mark.parametrize("run", ["prefix-byte-fallback-run"])
def test_1x_byte_runs_hold_no_prefix_between_pieces(run: str) -> None:
    # two unknown characters, one byte run: 0.23.1 puts the prefix's bytes between them
    assert _says(recognisers.prefix_not_byte_fallen, *_divergence(run, "1.0.0rc3"))
    other = Encoded((196, 170, 196, 170), ("<0xC3>", "<0xA9>", "<0xC3>", "<0xA9>")[::-1],
                    (), (), type_ids=(0,) * 4, attention_mask=(1,) * 4)
    assert not _says(recognisers.prefix_not_byte_fallen,
                     *_divergence(run, "1.0.0rc3", subject=other))


def test_1x_falls_back_to_the_bytes_of_the_piece_not_of_its_prefix() -> None:
    recogniser = recognisers.prefix_not_byte_fallen
    name = "prefix-byte-fallback"
    assert _says(recogniser, *_divergence(name, "1.0.0rc3"))
    # other bytes than the piece's: not explained
    other = Encoded((257, 34), ("a", "<0x21>"), (), (), type_ids=(0, 0),
                    attention_mask=(1, 1))
    assert not _says(recogniser, *_divergence(name, "1.0.0rc3", subject=other))
    document = copy.deepcopy(DATA["cases"][name]["document"])
    document["model"]["continuing_subword_prefix"] = None  # no prefix: not this mechanism
    assert not _says(recogniser, *_divergence(name, "1.0.0rc3", document=document))
    assert DATA["answers"]["0.22.2"][name] == DATA["answers"][PINNED][name]


def test_1x_names_an_added_token_by_its_content_without_the_stripped_space() -> None:
    recogniser = recognisers.stripped_whitespace_not_in_tokens
    name = "rstrip-added-token"
    ctx, div = _divergence(name, "1.0.0rc3")
    assert _says(recogniser, ctx, div)
    document = copy.deepcopy(DATA["cases"][name]["document"])
    document["added_tokens"][0]["rstrip"] = False  # the space is not the token's to take
    assert not _says(recogniser, *_divergence(name, "1.0.0rc3", document=document))


# -- every family's file: parsed with its recognisers, written up, witnessed ---------------

FOLDER = Path(__file__).parents[2] / "harness" / "subjects" / "tokenizers_version"
#: Entries with no pinned witness, each said so in FINDINGS.md ("no pinned witness").
UNWITNESSED = {"dropout-sampled-differently"}


@pytest.mark.parametrize("family", ["0.x", "0.20-0.22", "1.x"])
def test_each_family_is_parsed_written_up_and_witnessed(family: str) -> None:
    from harness.runs import third_party
    from harness.subjects.tokenizers_version import generations

    assert family in generations.FAMILIES
    path = f"harness/subjects/tokenizers_version/expectations-{family}.yaml"
    expectations = third_party.expectations_at(path)
    assert expectations.subject == f"tokenizers-{family}" and expectations.entries
    assert third_party.witnesses_beside(path) == (
        f"harness/subjects/tokenizers_version/witnesses-{family}.json")
    findings = " ".join((FOLDER / "FINDINGS.md").read_text(encoding="utf-8").split())
    witnesses = json.loads((FOLDER / f"witnesses-{family}.json").read_text(encoding="utf-8"))
    pinned = {row["class"] for row in witnesses["cases"]}
    assert witnesses["subject"] == expectations.subject
    for entry in expectations.entries:
        assert f"`{entry.id}`" in findings, entry.id
        if entry.id in UNWITNESSED:
            assert f"`{entry.id}` has no pinned witness" in findings
        else:
            assert entry.id in pinned, f"{family}: {entry.id} has no pinned witness"
    assert pinned <= {entry.id for entry in expectations.entries}


def test_1x_gives_a_one_character_word_bare_beside_its_suffixed_form() -> None:
    recogniser = recognisers.word_end_without_suffix
    name = "word-end-bare-beside-suffixed"
    assert _says(recogniser, *_divergence(name, "1.0.0rc3"))
    # another vocabulary string than the bare form of 0.23.1's suffixed token
    other = Encoded((1,), ("a",), (), (), type_ids=(0,), attention_mask=(1,))
    assert not _says(recogniser, *_divergence(name, "1.0.0rc3", subject=other))
    # no suffix in the model: not this mechanism
    document = copy.deepcopy(DATA["cases"][name]["document"])
    document["model"]["end_of_word_suffix"] = None
    assert not _says(recogniser, *_divergence(name, "1.0.0rc3", document=document))


def test_1x_keeps_a_word_end_bare_where_its_suffixed_form_is_missing() -> None:
    recogniser = recognisers.word_end_without_suffix
    assert _says(recogniser, *_divergence("word-end-bare", "1.0.0rc3"))
    # an unk token 0.23.1 did not give for a missing suffixed form (the form is there):
    # the replay with it added is not what 0.23.1 said
    document = copy.deepcopy(DATA["cases"]["word-end-bare"]["document"])
    document["model"]["vocab"]["b</w>"] = 3
    assert not _says(recogniser, *_divergence("word-end-bare", "1.0.0rc3",
                                              document=document))
    # an answer that is not the bare piece is not explained
    other = Encoded((1,), ("a",), (), (), type_ids=(0,), attention_mask=(1,))
    assert not _says(recogniser, *_divergence("word-end-bare", "1.0.0rc3", subject=other))
    assert DATA["answers"]["0.22.2"]["word-end-bare"] == DATA["answers"][PINNED][
        "word-end-bare"]  # before 1.x the same unk
    # a word of two pieces: 1.x gives the unk too (only a one-piece word is kept bare)
    assert DATA["answers"]["1.0.0rc3"]["word-end-bare-longer"] == DATA["answers"][PINNED][
        "word-end-bare-longer"]

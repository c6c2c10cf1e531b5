"""Sampled inputs of generated cases (``harness.strategies.sampled_inputs``, decision
0054): a seed gives the same inputs, texts are distinct and never repeat a drawn one, id
runs are made of the kinds ``texts.id_segments`` draws at its shares, and only a run's
exploration gets them (its witness searches and the tests' ``cases()`` do not)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings

from harness.core.profiles import PROFILES
from harness.documents import llama_like_document, metaspace_document
from harness.runs.generated import default_strategy
from harness.runs.workers import Workers, exploration_sampled, strategy_of
from harness.strategies import cases, inventory
from harness.strategies import profile as shares
from harness.strategies.sampled_inputs import IdRunSampler, sampled_inputs

INVENTORY = inventory(metaspace_document())


def test_a_seed_gives_the_same_inputs_and_another_seed_others() -> None:
    first = sampled_inputs(INVENTORY, 7, texts=12, id_runs=6)
    assert first == sampled_inputs(INVENTORY, 7, texts=12, id_runs=6)
    assert first != sampled_inputs(INVENTORY, 8, texts=12, id_runs=6)
    texts, runs = first
    assert len(texts) == len(set(texts)) == 12 and len(runs) == 6


def test_sampled_texts_never_repeat_a_drawn_one() -> None:
    drawn_everything, _ = sampled_inputs(INVENTORY, 3, texts=30, id_runs=0)
    drawn = drawn_everything[::2]
    texts, runs = sampled_inputs(INVENTORY, 3, texts=30, id_runs=0, drawn_texts=drawn)
    assert not set(texts) & set(drawn) and runs == ()
    assert len(texts) == 30


def test_id_runs_hold_only_ids_of_the_kinds_offered() -> None:
    known = {*INVENTORY.ids, *INVENTORY.unknown_ids, *INVENTORY.special_ids,
             *INVENTORY.byte_ids.values()}
    _, runs = sampled_inputs(INVENTORY, 11, texts=0, id_runs=400)
    assert all(i in known for run in runs for i in run)
    empty = sum(not run for run in runs)
    assert 0 < empty < 400 * 3 * shares.EMPTY_ID_RUN / 1000  # about EMPTY_ID_RUN per mille
    assert max(map(len, runs)) > 1


def test_every_id_segment_kind_is_drawn_at_its_share() -> None:
    sampler = IdRunSampler(inventory(llama_like_document()))  # it offers every kind
    rng = random.Random(0)
    drawn = Counter(sampler.kind(rng) for _ in range(20000))
    offered = dict(shares.ID_SEGMENT)
    assert set(drawn) == set(offered)
    assert set(IdRunSampler(INVENTORY)._kinds) == {"valid", "special", "unknown"}
    total = sum(offered.values())
    for kind, weight in offered.items():
        assert abs(drawn[kind] / 20000 - weight / total) < 0.1 * weight / total + 0.005


@settings(max_examples=15, deadline=None)
@given(cases(sampled_texts=5, sampled_id_runs=3))
def test_cases_get_the_sampled_inputs_besides_the_drawn_ones(case: object) -> None:
    assert len(case.id_runs) >= shares.ID_RUNS_MIN + 3  # type: ignore[attr-defined]


def test_only_the_exploration_gets_the_profiles_sampled_inputs() -> None:
    ci = PROFILES["ci"]
    assert exploration_sampled(ci) == (ci.sampled_texts, ci.sampled_id_runs) != (0, 0)
    assert exploration_sampled(PROFILES["matrix"]) == (0, 0)
    assert strategy_of(None) is default_strategy()  # what witness searches draw from
    workers = Workers(1, ci, 0)
    assert workers.strategy is default_strategy()
    assert workers.exploration is not default_strategy()
    drawn: list[object] = []

    @settings(max_examples=5, deadline=None, database=None)
    @given(workers.exploration)
    def explored(case: object) -> None:
        drawn.append(case)

    explored()
    assert all(len(c.id_runs) >= ci.sampled_id_runs + 1 for c in drawn)  # type: ignore[attr-defined]

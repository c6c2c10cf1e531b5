"""The generated-vocabulary run: whole tokenizer.json documents and their inputs drawn by
``harness.strategies.cases()``, each loaded and run by the reference (strict, and lenient
where a strict refusal hides inputs) and by upstream. Besides the comparison, every
reference outcome is checked against the specification oracle
(``harness.judge.specification``): what the document alone says the reference must do."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ..core.case import Case
from ..core.observation import Observation
from ..judge.classify import Judgement, Verdict
from ..judge.coverage import rules_exercised
from ..judge.specification import check_case
from ..subjects.upstream import UPSTREAM
from .engine import Engine
from .observe import observe_case


def observe(case: Case) -> list[Observation]:
    return observe_case(case, UPSTREAM)


@dataclass(frozen=True)
class SpecifiedEngine(Engine):
    """The engine, with every finding of the specification oracle a failure verdict."""

    def evaluate(self, case: Case) -> tuple[list[Observation], Judgement]:
        observations, judgement = super().evaluate(case)
        judgement.verdicts.extend(Verdict(d, ()) for d in check_case(case, observations))
        return observations, judgement


def case_features(case: Case) -> frozenset[str]:
    """What the case exercises (``harness.strategies.describe``), for the report's coverage."""
    from ..strategies.describe import features

    return features(case)


ENGINE = SpecifiedEngine(observe=observe, rules=rules_exercised, features=case_features)


def evaluate(case: Case) -> tuple[list[Observation], Judgement]:
    """One generated case, end to end: its observations and the verdicts on them."""
    return ENGINE.evaluate(case)


@cache
def default_strategy() -> Any:
    from ..strategies import cases

    return cases()

"""The generated-vocabulary run: whole tokenizer.json documents and their inputs drawn by
``harness.strategies.cases()``, each loaded and run by the reference (strict, and lenient
where a strict refusal hides inputs) and by upstream. Besides the comparison, the verdict
checks every reference outcome against the specification oracle
(``harness.judge.specification``): what the document alone says the reference must do."""

from __future__ import annotations

from functools import cache
from typing import Any

from ..core.case import Case
from ..core.observation import Observation
from ..judge.classify import Judgement
from ..judge.coverage import rules_exercised
from ..subjects.upstream import UPSTREAM
from .engine import Engine
from .observe import observe_case


def observe(case: Case) -> list[Observation]:
    return observe_case(case, UPSTREAM)


def case_features(case: Case) -> frozenset[str]:
    """What the case exercises (``harness.strategies.describe``), for the report's coverage."""
    from ..strategies.describe import features

    return features(case)


ENGINE = Engine(observe=observe, rules=rules_exercised, features=case_features,
                specification=True)


def evaluate(case: Case) -> tuple[list[Observation], Judgement]:
    """One generated case, end to end: its observations and the verdicts on them."""
    return ENGINE.evaluate(case)


@cache
def default_strategy() -> Any:
    from ..strategies import cases

    return cases()

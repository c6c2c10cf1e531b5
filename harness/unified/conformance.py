"""The morph-track differential: the unified tokenizer's morph track against its upstream
expression (``upstream_json.py``) run by ``tokenizers`` 0.23.1, spans compared, every
divergence classified through the same registry (``harness/divergences.yaml``).

For every text (a deterministic corpus sample, then Hypothesis texts):

1. the unified tokenizer encodes the whole text (images/videos supplied for its
   placeholders) without specials;
2. the harness finds the Mongolian runs with its own statement of the rule
   (``MONGOLIAN_RUN``) and checks the segmentation: every morph token lies inside a run
   and no other token with a span touches one (else a ``segmentation`` failure);
3. each run is encoded by upstream on its own; the unified morph tokens of that run,
   spans moved to the run's start, are compared with it (ids, tokens, spans, special
   mask); upstream's ids are decoded by both sides, with and without specials;
4. a text that is exactly one run is also compared whole, with specials: the unified
   BOS/EOS at ``-1, -1`` against upstream's template at ``(0, 0)``, which the registry's
   ``template-special-spans`` class explains.

Run by ``harness.conformance.run`` (``nox -s conformance``); the report's
``unified_morph_track`` section holds the figures.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings

from implementation import TokenizerError
from implementation.unified import DualTrackTokenizer, load_dual_track

from ..case import Case
from ..classify import classify
from ..compare import Divergence, Observation, compare
from ..outcome import Crashed, Decoded, Encoded, Outcome, Refused
from ..subjects import upstream
from . import corpus
from .strategies import morph_texts
from .upstream_json import (
    CONFIG,
    MONGOLIAN_RUN,
    UPSTREAM_DOCUMENT,
    document_text,
    morph_model_json,
    morph_track_document,
)

#: The deterministic sample encoded before the Hypothesis texts (a seed the fixture was
#: not trained on): single words (compared whole too) and sentences.
CORPUS_SEED = 2024
CORPUS_WORDS = 300
CORPUS_SENTENCES = 200


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class MorphTrackResult:
    config: str
    document_sha256: str = ""
    committed_document_current: bool = False
    corpus_texts: int = 0
    generated_texts: int = 0
    runs: int = 0
    whole_texts: int = 0
    comparisons: int = 0
    agreed: int = 0
    by_operation: dict[str, Counter[str]] = field(default_factory=dict)
    by_class: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    failure_witness: dict[str, dict[str, Any]] = field(default_factory=dict)
    class_witness: dict[str, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None

    @property
    def failure_count(self) -> int:
        return sum(self.failures.values()) + (1 if self.error else 0)

    @property
    def failed(self) -> bool:
        return self.failure_count > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "what": "the unified tokenizer's morph track (MorphBPE) against its upstream "
                    "expression, a tokenizer.json run by tokenizers; per Mongolian run, "
                    "and whole texts that are one run (with specials)",
            "config": self.config,
            "upstream_document": {"path": _relative(UPSTREAM_DOCUMENT),
                                  "sha256": self.document_sha256,
                                  "committed_copy_current": self.committed_document_current},
            "corpus_texts": self.corpus_texts,
            "generated_texts": self.generated_texts,
            "runs_compared": self.runs,
            "whole_texts_compared": self.whole_texts,
            "comparisons": self.comparisons,
            "agreed": self.agreed,
            "by_operation": {op: dict(sorted(c.items()))
                             for op, c in sorted(self.by_operation.items())},
            "divergences_by_class": dict(sorted(self.by_class.items())),
            "failures": self.failure_count,
            "failure_signatures": [
                {"signature": sig, "count": n, "witness": self.failure_witness.get(sig)}
                for sig, n in sorted(self.failures.items())],
            "class_witnesses": dict(sorted(self.class_witness.items())),
            "error": self.error,
            "seconds": round(self.seconds, 1),
        }


def _relative(path: Path) -> str:
    try:
        return path.relative_to(CONFIG.parents[2]).as_posix()
    except ValueError:
        return str(path)


class _Subjects:
    """The unified tokenizer and the upstream morph-track tokenizer, loaded once."""

    def __init__(self, config: Path) -> None:
        self.tok: DualTrackTokenizer = load_dual_track(config)
        self.document = morph_track_document(self.tok, morph_model_json(config))
        self.document_json = json.dumps(self.document, ensure_ascii=False)
        loaded = upstream.load(self.document_json)
        if isinstance(loaded, Refused | Crashed):
            raise RuntimeError(f"upstream refused the morph-track document: {loaded}")
        self.upstream = loaded
        self.case = Case(self.document)
        image = self.tok.config.image
        video = self.tok.config.video
        self.image_placeholder = image.placeholder if image is not None else None
        self.video_placeholder = video.placeholder if video is not None else None

    def encode_unified(self, text: str, add_special_tokens: bool) -> Any:
        segments = self.tok.segments(text)
        images = [1] * sum(1 for s in segments if s.kind == "image")
        videos = [(1, 1)] * sum(1 for s in segments if s.kind == "video")
        return self.tok.encode_with_spans(text, images or None, videos or None,
                                          add_special_tokens)

    def decode_unified(self, ids: tuple[int, ...], skip: bool) -> Outcome:
        try:
            return Decoded(self.tok.decode(list(ids), skip_special_tokens=skip))
        except TokenizerError as exc:
            return Refused(exc.rule, exc.message, exc.path)
        except Exception as exc:
            return Crashed("exception", f"{type(exc).__name__}: {exc}")


def _encoded(tokens: list[Any], shift: int) -> Encoded:
    return Encoded(
        ids=tuple(t.id for t in tokens),
        tokens=tuple(t.token for t in tokens),
        spans=tuple((t.start - shift, t.end - shift) if t.start >= 0 else (t.start, t.end)
                    for t in tokens),
        special_mask=tuple(1 if t.track == "special" else 0 for t in tokens),
        word_ids=tuple(t.metadata.get("word") for t in tokens),
    )


class _Recorder:
    def __init__(self, subjects: _Subjects, result: MorphTrackResult) -> None:
        self.s = subjects
        self.result = result

    def text(self, text: str) -> None:
        try:
            seq = self.s.encode_unified(text, add_special_tokens=False)
        except Exception as exc:  # any refusal here is ours: the text is valid input
            self._failure(f"encode/unified: reference raised {type(exc).__name__}",
                          {"input": text, "detail": str(exc)}, text)
            return
        runs = [(m.start(), m.end()) for m in MONGOLIAN_RUN.finditer(text)
                if not self._inside_surface(text, m.start())]
        self._check_segmentation(text, seq.tokens, runs)
        for start, end in runs:
            self.result.runs += 1
            tokens = [t for t in seq.tokens if t.track == "morph" and start <= t.start < end]
            self._compare(text[start:end], _encoded(tokens, start), add_special_tokens=False)
        if runs == [(0, len(text))]:
            self.result.whole_texts += 1
            whole = self.s.encode_unified(text, add_special_tokens=True)
            self._compare(text, _encoded(list(whole.tokens), 0), add_special_tokens=True)

    def _inside_surface(self, text: str, position: int) -> bool:
        """A run the reference rightly leaves to a special string or placeholder (none
        of the fixture's contain Mongolian script; kept for other configs)."""
        return any(s.kind not in ("general", "morph") and s.start <= position < s.end
                   for s in self.s.tok.segments(text))

    def _check_segmentation(self, text: str, tokens: tuple[Any, ...],
                            runs: list[tuple[int, int]]) -> None:
        def in_run(t: Any) -> bool:
            return any(a <= t.start and t.end <= b for a, b in runs)

        def touches_run(t: Any) -> bool:
            return any(t.start < b and a < t.end for a, b in runs)

        for t in tokens:
            if t.track == "morph" and not in_run(t):
                self._failure("segmentation: a morph token outside every Mongolian run",
                              {"input": text, "token": [t.token, t.start, t.end]}, text)
            elif t.track != "morph" and t.start >= 0 and touches_run(t):
                self._failure("segmentation: a non-morph token inside a Mongolian run",
                              {"input": text, "token": [t.token, t.track, t.start, t.end]},
                              text)

    def _compare(self, text: str, ref: Encoded, *, add_special_tokens: bool) -> None:
        up = upstream.encode(self.s.upstream, text, add_special_tokens=add_special_tokens)
        observations = [Observation("strict", "encode", text,
                                    (("add_special_tokens", add_special_tokens),), ref, up)]
        if isinstance(up, Encoded):
            for skip in (True, False):
                observations.append(Observation(
                    "strict", "decode", up.ids, (("skip_special_tokens", skip),),
                    self.s.decode_unified(up.ids, skip),
                    upstream.decode(self.s.upstream, up.ids, skip_special_tokens=skip)))
        self._record(text, observations)

    def _record(self, text: str, observations: list[Observation]) -> None:
        from ..conformance import failure_signature

        divergences: list[Divergence] = [d for d in map(compare, observations) if d is not None]
        diverged = {id(d.observation): d for d in divergences}
        case = Case(self.s.document, texts=(text,))
        verdicts = classify(case, divergences) if divergences else []
        result = self.result
        result.comparisons += len(observations)
        result.agreed += len(observations) - len(divergences)
        for obs in observations:
            counts = result.by_operation.setdefault(obs.operation, Counter())
            counts["compared"] += 1
            div = diverged.get(id(obs))
            counts["agreed" if div is None else f"diverged:{div.tier}"] += 1
        for verdict in verdicts:
            div = verdict.divergence
            witness = {"input": text, "tier": div.tier, "detail": div.detail,
                       "observation": div.observation.to_json()}
            if verdict.is_failure:
                self._failure(failure_signature(div), witness, text)
            for cls in verdict.classes:
                result.by_class[cls] += 1
                _keep_shorter(result.class_witness, cls, witness, text)

    def _failure(self, signature: str, witness: dict[str, Any], text: str) -> None:
        self.result.failures[signature] += 1
        _keep_shorter(self.result.failure_witness, signature, witness, text)


def _keep_shorter(store: dict[str, dict[str, Any]], key: str, witness: dict[str, Any],
                  text: str) -> None:
    current = store.get(key)
    if current is None or len(text) < len(str(current.get("input", ""))):
        store[key] = witness


def corpus_texts() -> list[str]:
    return (corpus.words(CORPUS_SEED, CORPUS_WORDS)
            + corpus.sentences(CORPUS_SEED + 1, CORPUS_SENTENCES))


def run(*, examples: int, seed_value: int, config: Path = CONFIG,
        progress: Callable[[MorphTrackResult], None] | None = None) -> MorphTrackResult:
    started = time.perf_counter()
    result = MorphTrackResult(_relative(config))
    subjects = _Subjects(config)
    result.document_sha256 = _sha256(document_text(subjects.document))
    result.committed_document_current = (
        UPSTREAM_DOCUMENT.is_file() and config == CONFIG
        and UPSTREAM_DOCUMENT.read_text(encoding="utf-8") == document_text(subjects.document))
    if config == CONFIG and not result.committed_document_current:
        result.failures["fixture: fixtures/unified/morph_upstream.tokenizer.json is stale "
                        "(python -m harness.unified.train)"] += 1
    recorder = _Recorder(subjects, result)
    for text in corpus_texts():
        recorder.text(text)
        result.corpus_texts += 1

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(morph_texts())
    def explore(text: str) -> None:
        recorder.text(text)
        result.generated_texts += 1
        if progress is not None:
            progress(result)

    if examples > 0:
        explore()
    result.seconds = time.perf_counter() - started
    return result


def run_guarded(*, examples: int, seed_value: int) -> MorphTrackResult:
    """``run``, but an unexpected exception becomes the result's ``error`` (a failure of
    the run) instead of ending the whole conformance job before its report is written."""
    started = time.perf_counter()
    try:
        return run(examples=examples, seed_value=seed_value)
    except Exception as exc:
        result = MorphTrackResult(_relative(CONFIG))
        result.error = "".join(traceback.format_exception_only(exc)).strip() + "\n" + \
            "".join(traceback.format_tb(exc.__traceback__)[-3:])
        result.seconds = time.perf_counter() - started
        return result

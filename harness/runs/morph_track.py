"""The morph-track run: the unified tokenizer's morph track against its upstream
expression (``harness.fixture_builders.morph_track``) run by ``tokenizers``, through the same
engine and registry as every other run.

For every text (a deterministic corpus sample, then Hypothesis texts):

1. the unified tokenizer encodes the whole text without specials, and the harness checks
   the segmentation with its own statement of the rule (``MONGOLIAN_RUN``): every morph
   token lies inside a Mongolian run and no other token with a span touches one (else a
   ``segmentation`` failure);
2. each run is encoded by both sides on its own, without specials, and upstream's ids are
   decoded by both sides with and without specials;
3. a text that is exactly one run is also compared whole, with specials: the unified
   BOS/EOS at ``-1, -1`` against upstream's template at ``(0, 0)``, which the registry's
   ``template-special-spans`` class explains.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from implementation.unified import DualTrackTokenizer

from ..core.case import Case
from ..core.observation import Observation
from ..core.outcome import Encoded
from ..core.resources import repository_path
from ..fixture_builders.morph_track import (
    CONFIG,
    MONGOLIAN_RUN,
    UPSTREAM_DOCUMENT,
    document_text,
    morph_model_json,
    morph_track_document,
)
from ..strategies import mongolian_corpus as corpus
from ..strategies.mongolian import morph_texts
from ..subjects.protocol import failed
from ..subjects.unified import UNIFIED
from ..subjects.upstream import UPSTREAM
from .engine import Engine, describe_error
from .observe import Side, observe_decode, observe_text
from .real_models import text_size
from .tally import Tally, Witness

FIXTURE = "unified-morph-track"
#: The deterministic sample encoded before the Hypothesis texts (a seed the fixture was
#: not trained on): single words (compared whole too) and sentences.
CORPUS_SEED = 2024
CORPUS_WORDS = 300
CORPUS_SENTENCES = 200


@dataclass
class MorphTrackRun:
    config: str
    tally: Tally = field(default_factory=Tally)
    document_sha256: str = ""
    committed_document_current: bool = False
    corpus_texts: int = 0
    generated_texts: int = 0
    runs: int = 0
    whole_texts: int = 0
    seconds: float = 0.0


def corpus_texts() -> list[str]:
    return (corpus.words(CORPUS_SEED, CORPUS_WORDS)
            + corpus.sentences(CORPUS_SEED + 1, CORPUS_SENTENCES))


class _Observer:
    """Observes one text; segmentation failures wait in ``pending`` for the tally."""

    def __init__(self, result: MorphTrackRun, tok: DualTrackTokenizer,
                 upstream_handle: Any, document: dict[str, Any]) -> None:
        self.result = result
        self.tok = tok
        self.ours = Side(UNIFIED, tok)
        self.theirs = Side(UPSTREAM, upstream_handle)
        self.document = document
        self.document_case = Case(document)
        self.pending: list[tuple[str, Witness]] = []

    def case(self, text: str) -> Case:
        return dataclasses.replace(self.document_case, texts=(text,))

    def __call__(self, case: Case) -> list[Observation]:
        text = case.texts[0]
        try:
            whole = self.tok.encode_with_spans(text, *self._items(text),
                                               add_special_tokens=False)
        except Exception as exc:  # any refusal here is ours: the text is valid input
            self._fail(case, f"encode/unified: the unified tokenizer raised "
                       f"{type(exc).__name__}", str(exc)[:200])
            return []
        runs = [(m.start(), m.end()) for m in MONGOLIAN_RUN.finditer(text)
                if not self._inside_surface(text, m.start())]
        self._check_segmentation(case, whole.tokens, runs)
        observations: list[Observation] = []
        for start, end in runs:
            self.result.runs += 1
            encoded = list(observe_text("strict", self.ours, self.theirs, text[start:end],
                                        add_special_tokens=False))
            observations.extend(encoded)
            if isinstance(encoded[0].upstream, Encoded):
                observations.extend(observe_decode("strict", self.ours, self.theirs,
                                                   encoded[0].upstream.ids))
        if runs == [(0, len(text))]:
            self.result.whole_texts += 1
            observations.extend(observe_text("strict", self.ours, self.theirs, text))
        return observations

    def _inside_surface(self, text: str, position: int) -> bool:
        """A run the reference rightly leaves to a special string or placeholder (none
        of the fixture's contain Mongolian script; kept for other configs)."""
        return any(s.kind not in ("general", "morph") and s.start <= position < s.end
                   for s in self.tok.segments(text))

    def _check_segmentation(self, case: Case, tokens: tuple[Any, ...],
                            runs: list[tuple[int, int]]) -> None:
        for t in tokens:
            inside = any(a <= t.start and t.end <= b for a, b in runs)
            touches = any(t.start < b and a < t.end for a, b in runs)
            if t.track == "morph" and not inside:
                self._fail(case, "segmentation: a morph token outside every Mongolian run",
                           f"{t.token!r} at {t.start}:{t.end}")
            elif t.track != "morph" and t.start >= 0 and touches:
                self._fail(case, "segmentation: a non-morph token inside a Mongolian run",
                           f"{t.token!r} ({t.track}) at {t.start}:{t.end}")

    def _items(self, text: str) -> tuple[list[int] | None, list[tuple[int, int]] | None]:
        segments = self.tok.segments(text)
        images = [1] * sum(1 for s in segments if s.kind == "image")
        videos = [(1, 1)] * sum(1 for s in segments if s.kind == "video")
        return images or None, videos or None

    def _fail(self, case: Case, signature: str, detail: str = "") -> None:
        self.pending.append((signature, Witness(case, None, (), text_size(case),
                                                fixture=FIXTURE, detail=detail)))

    def drain(self, tally: Tally) -> None:
        for signature, witness in self.pending:
            tally.record_failure(signature, witness)
        self.pending.clear()


def run(*, examples: int, seed_value: int, config: Path = CONFIG,
        progress: Callable[[Tally], None] | None = None) -> MorphTrackRun:
    """The whole morph-track run. An unexpected exception becomes a harness error of the
    result (a failure of the run), so the rest of the report is still written."""
    started = time.perf_counter()
    result = MorphTrackRun(repository_path("unified", config.name))
    try:
        _run(result, examples=examples, seed_value=seed_value, config=config,
             progress=progress)
    except Exception as exc:
        result.tally.errors.append(describe_error(exc))
    result.seconds = time.perf_counter() - started
    return result


def _run(result: MorphTrackRun, *, examples: int, seed_value: int, config: Path,
         progress: Callable[[Tally], None] | None) -> None:
    tok = UNIFIED.load(str(config))
    if failed(tok):
        raise RuntimeError(f"the unified config does not load: {tok}")
    assert isinstance(tok, DualTrackTokenizer)
    document = morph_track_document(tok, morph_model_json(config))
    text = document_text(document)
    result.document_sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
    result.committed_document_current = (
        config == CONFIG and UPSTREAM_DOCUMENT.is_file()
        and UPSTREAM_DOCUMENT.read_text(encoding="utf-8") == text)
    observer_doc = json.loads(text)
    handle = UPSTREAM.load(json.dumps(observer_doc, ensure_ascii=False))
    if failed(handle):
        raise RuntimeError(f"upstream refused the morph-track document: {handle}")
    observer = _Observer(result, tok, handle, observer_doc)
    if config == CONFIG and not result.committed_document_current:
        observer._fail(observer.case(""), "fixture: fixtures/unified/"
                       "morph_upstream.tokenizer.json is stale (python -m "
                       "harness.fixture_builders.train_morph)")
    engine = Engine(observe=observer, size=text_size, fixture=FIXTURE)

    def after_each(tally: Tally) -> None:
        observer.drain(tally)
        if progress is not None:
            progress(tally)

    engine.run_items((observer.case(t) for t in corpus_texts()), result.tally, after_each)
    result.corpus_texts = result.tally.examples
    engine.explore(morph_texts().map(observer.case), budget=examples,
                   seed_value=seed_value, tally=result.tally, progress=after_each)
    result.generated_texts = result.tally.examples - result.corpus_texts
    observer.drain(result.tally)

"""What the benchmark sections load: both sides of one tokenizer.json (``Pair``), the texts
of the real-model corpus, and the real Mistral v0.1 file (a built fixture)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .environment import REPO_ROOT
from .scales import REAL_MODEL


@dataclass
class Pair:
    """One tokenizer.json loaded by both sides."""

    reference: Any
    upstream: Any
    reference_load_seconds: float
    upstream_load_seconds: float


def load_pair(document_json: str) -> Pair:
    import tokenizers

    import implementation

    started = time.perf_counter()
    reference = implementation.load_tokenizer(document_json, strict=True)
    middle = time.perf_counter()
    upstream = tokenizers.Tokenizer.from_str(document_json)
    return Pair(reference, upstream, middle - started, time.perf_counter() - middle)


def corpus_texts(limit: int | None) -> list[str]:
    from ..runs.real_models import load_corpus

    texts = [entry["text"] for entry in load_corpus()]
    return texts if limit is None else texts[:limit]


def real_model_json() -> tuple[str | None, str]:
    """The Mistral v0.1 tokenizer.json text, or None and why it could not be built."""
    from ..fixture_builders.real_models import FixtureError, build_fixture

    try:
        path = build_fixture(REAL_MODEL)
    except FixtureError as exc:
        return None, f"fixture {REAL_MODEL} cannot be built here: {exc}"
    return path.read_text(encoding="utf-8"), shown_path(path)


def shown_path(path: Path) -> str:
    """Where a file is, as a report may say it: inside the repository, or inside the cache
    folder (``<cache>/...``); never this machine's absolute path."""
    from ..core.resources import cache_dir

    if path.is_relative_to(REPO_ROOT):
        return str(path.relative_to(REPO_ROOT))
    cache = cache_dir()
    if path.is_relative_to(cache):
        return f"<cache>/{path.relative_to(cache)}"
    return path.name

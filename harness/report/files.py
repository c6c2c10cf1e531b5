"""The report as a file: canonical YAML written atomically, read back into the model.

The top-level order is the model's (verdict and summary first, witnesses after); every
mapping below it has sorted keys. Reading checks ``report_version`` and the shape, so a
truncated or foreign file is refused with a message that says what is wrong.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..core.canonical import canonical_yaml, write_atomic
from .model import REPORT_VERSION, Report
from .serde import ShapeError, from_data, to_data

PREAMBLE = """\
Conformance report: a subject (by default the reference tokenizer, implementation/)
against HuggingFace tokenizers, over generated tokenizer.json files and texts.
How to read it:
  verdict      pass, or fail when any divergence is unexplained, a pinned witness is stale
               or the harness met an error of its own
  summary      how many cases and comparisons ran, what agreed, what diverged at which tier
  header       the command, profile, seed, subject and versions
  failures     every divergence no class explains, with a minimal witness and the command
               that reproduces it
  classes      every INTENDED divergence class: why it is intended (decision record), how
               often it was seen, and one minimal witness (tokenizer.json, input, outcomes)
  real_models  the real tokenizer files the run includes (harness/fixture_builders/real_models.py):
               corpus + generated texts, compared the same way (and the reference's encode
               time against upstream's on the corpus)
  unified_morph_track
               the unified tokenizer's MorphBPE track against its upstream tokenizer.json
               (per Mongolian run; whole one-run texts with specials), same registry
  coverage     how many comparisons exercised each rule of the byte-fallback decision
Tiers, in order: load, encode, ids, tokens, spans, special_mask, type_ids, attention_mask,
word_ids, decode. Tracks: strict = the subject as users load it; lenient = the same inputs through
the reference's lenient mode, run only where a strict refusal would otherwise hide them.
Schema: harness/report/conformance.schema.json (report_version below).
"""


class ReportError(Exception):
    """A file that is not a complete conformance report."""


def report_text(report: Report) -> str:
    data = to_data(report)
    body = "".join(canonical_yaml({key: value}) for key, value in data.items())
    return "\n".join(f"# {line}".rstrip() for line in PREAMBLE.strip().splitlines()) + "\n" \
        + body


def write_report(report: Report, path: Path) -> None:
    write_atomic(path, report_text(report))


def parse_report(data: Any, where: str = "the report") -> Report:
    if not isinstance(data, dict) or "verdict" not in data:
        raise ReportError(f"{where} is not a conformance report (no verdict)")
    version = data.get("report_version")
    if version != REPORT_VERSION:
        raise ReportError(f"{where} has report_version {version!r}; this harness reads "
                          f"version {REPORT_VERSION} (regenerate it with nox -s conformance)")
    try:
        return from_data(Report, data)
    except ShapeError as exc:
        raise ReportError(f"{where} is not a complete conformance report: {exc}") from None


def read_report(path: Path) -> Report:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot be read ({exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ReportError(f"{path} is not YAML: {str(exc).splitlines()[0]}") from None
    return parse_report(data, str(path))

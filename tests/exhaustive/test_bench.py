"""Smoke test of the benchmarks (``python -m harness bench``) at the tiny scale.

Benchmarks are not tests: nothing here looks at a time. It checks that every section runs
and that the report has its structure: an environment header, every figure as
min / median / max over the repeats, the acceptance block; and that the vocabularies the
bench trains for itself are what its figures rely on (deterministic, encoded alike by both
sides, long words keep merging).

Everything runs in child processes: Hypothesis mixes constants from every loaded module of
this repository into the cases it generates, so importing ``harness.bench`` here would
change what the other tests of this session draw from their seeds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tokenizers")

from harness.bench.runner import SECTIONS
from harness.bench.stages import SUBJECT_STAGES
from harness.core.canonical import read_yaml

pytestmark = pytest.mark.upstream

REPO_ROOT = Path(__file__).resolve().parents[2]
STAGES = {"generation", "upstream", "reference", "reference_for_classification",
          "execute_glue", "compare", "classify", "record", "engine_and_rest"}
SUMMARY_KEYS = {"min", "median", "max", "repeats"}
#: The tiny scale (harness/bench/scales.py SCALES["tiny"]).
TINY_REPEATS = 2
TINY_GROWTH_SIZES = ("64", "128", "256", "512")
TINY_LONG_WORDS = ("latin_300", "latin_1000", "cjk_300", "cjk_1000")
TINY_HARNESS_EXAMPLES = 6
TINY_DECODE_IDS = 2 * 512
TINY_REAL_MODEL_TEXTS = 32


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=600, check=False)


def _figures(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every min/median/max figure in the report, with its path."""
    if isinstance(node, dict):
        if set(node) >= SUMMARY_KEYS:
            return [(path, node)]
        return [f for key, value in node.items() for f in _figures(value, f"{path}.{key}")]
    if isinstance(node, list):
        return [f for i, value in enumerate(node) for f in _figures(value, f"{path}[{i}]")]
    return []


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    output = tmp_path_factory.mktemp("bench") / "bench.yaml"
    done = _python("-m", "harness", "bench", "--scale", "tiny", "--output", str(output))
    assert done.returncode == 0, done.stderr
    assert "growth_exponent:" in done.stdout
    assert output.read_text(encoding="utf-8").startswith("# Benchmarks:")
    data = read_yaml(output)
    assert isinstance(data, dict)
    return data


def test_every_section_and_the_environment_header(report: dict[str, Any]) -> None:
    assert set(report) == {*SECTIONS, "environment", "acceptance", "notes"}
    env = report["environment"]
    for key in ("tokenizers", "python", "platform", "cpu", "cpus", "commit", "date",
                "command", "scale", "load_average_1_5_15_min"):
        assert key in env, key
    assert env["tokenizers"] == "0.23.1"
    assert env["scale"] == "tiny"
    assert {"start", "end", *SECTIONS} <= set(env["load_average_1_5_15_min"])


def test_every_figure_is_min_median_max_over_the_repeats(report: dict[str, Any]) -> None:
    figures = _figures({k: v for k, v in report.items() if k != "environment"})
    assert len(figures) > 40
    for path, figure in figures:
        assert figure["min"] <= figure["median"] <= figure["max"], path
        assert figure["repeats"] >= 1, path


def test_section_contents(report: dict[str, Any]) -> None:
    for vocabulary in ("mistral-v0.1", "small_vocabulary"):
        entry = report["encode"][vocabulary]
        if "skipped" in entry:  # the Mistral fixture cannot be built on this machine
            continue
        for mode in ("warm", "cold"):
            for figure in ("reference_chars_per_second", "upstream_chars_per_second", "ratio"):
                assert entry[mode][figure]["repeats"] == TINY_REPEATS
        assert entry["ids_agree"] == f"{entry['texts']}/{entry['texts']}"
    fixtures = report["encode"]["fixtures"]  # the tiny scale times Mistral v0.1's file only
    assert set(fixtures) == {"mistral-v0.1"}
    for entry in fixtures.values():
        if "skipped" not in entry:
            assert entry["load_seconds"]["ratio"]["repeats"] == TINY_REPEATS
            assert entry["corpus_encode_seconds"]["ratio"]["repeats"] == TINY_REPEATS

    growth = report["growth"]
    assert set(growth["sizes"]) == set(TINY_GROWTH_SIZES)
    assert all(size["ids_agree"] for size in growth["sizes"].values())
    assert all(size["merges_applied"] > 0 for size in growth["sizes"].values())
    exponent = growth[f"exponent_{TINY_GROWTH_SIZES[-2]}_to_{TINY_GROWTH_SIZES[-1]}"]
    assert set(exponent) == {"reference", "upstream"}

    long_words = report["long_words"]
    assert set(long_words["texts"]) == {"source", "latin", "cjk"}
    for vocabulary in ("mistral-v0.1", "small_vocabulary"):
        entry = long_words[vocabulary]
        if "skipped" in entry:
            continue
        for key in TINY_LONG_WORDS:
            figures = entry[key]
            assert figures["ids_agree"] == f"{TINY_REPEATS}/{TINY_REPEATS}"
            assert figures["words_seen_by_the_model"] == [1]  # the whole text is one word
            assert figures["warm"]["ratio"]["repeats"] == TINY_REPEATS
            assert figures["cold"]["ratio"]["repeats"] == TINY_REPEATS

    harness = report["harness"]
    assert harness["examples"] == TINY_HARNESS_EXAMPLES
    assert harness["comparisons"] > 0
    assert set(harness["split"]) == STAGES
    shares = sum(harness["split"][stage]["share"]["median"] for stage in STAGES)
    assert shares == pytest.approx(1.0, abs=0.05)  # medians of shares summing to ~1
    assert {"generation", "upstream_subject", "reference_subject",
            "classification"} <= set(harness["split_summary"])
    subjects = (harness["split_summary"]["upstream_subject"]["median"]
                + harness["split_summary"]["reference_subject"]["median"])
    assert 0 < harness["subjects_share"]["median"] < 1
    assert harness["subjects_share"]["median"] == pytest.approx(subjects, abs=0.05)

    for name, entry in report["real_models"]["fixtures"].items():
        if "skipped" in entry:  # the fixture cannot be built on this machine
            continue
        assert entry["texts"] == TINY_REAL_MODEL_TEXTS, name
        assert entry["comparisons"] > 4 * TINY_REAL_MODEL_TEXTS, name
        assert set(entry["split"]) == STAGES
        own = sum(entry["split"][stage]["share"]["median"] for stage in SUBJECT_STAGES)
        assert 0 < entry["subjects_share"]["median"] == pytest.approx(own, abs=0.05)
        assert sum(entry["split"][stage]["share"]["median"]
                   for stage in STAGES) == pytest.approx(1.0, abs=0.05)

    smoke = report["jobs"]["smoke"]
    assert smoke["verdict"] in ("pass", "incomplete"), smoke
    assert smoke["cases"] == 20 and smoke["comparisons"] > 0
    assert set(smoke["by_phase"]) == {"explore", "witness_search", "pinned", "real_models",
                                      "morph_track"}
    assert sum(p["median"] for p in smoke["by_phase"].values()) <= smoke["seconds"]["max"]

    if "skipped" not in report["decode"]:
        assert report["decode"]["ids"] == TINY_DECODE_IDS
        assert 0 < report["decode"]["byte_piece_share"] < 1
    memory = report["memory"]
    assert memory["peak_rss_mib"]["min"] > 0
    assert "after_exploration" in memory["peak_rss_mib_by_phase"]

    assert set(report["acceptance"]) >= {"growth_exponent", "comparisons_per_second",
                                         "long_word_ratio"}
    for entry in report["acceptance"].values():
        assert {"figure", "value", "limit", "met"} <= set(entry)


BUILT_VOCABULARIES = """
import json
import tokenizers
import implementation
from harness.bench.figures import summary
from harness.bench.growth import exponent, fitted_exponent
from harness.bench.long_words import long_text, long_word_pools
from harness.bench.vocabularies import growth_vocabulary, lcg_text, small_vocabulary, train_merges

out = {}
merges = train_merges({"abab": 3, "ab": 1, "ba": 1}, 10)
out["merges"] = merges
out["nothing_seen_twice"] = train_merges({"abc": 1}, 10)

growth = growth_vocabulary(60, 2048)
out["growth_deterministic"] = growth == growth_vocabulary(60, 2048)
out["growth_merges"] = len(growth["model"]["merges"])
word = lcg_text(600, seed=2)
document = json.dumps(growth)
ids = implementation.load_tokenizer(document).encode(word)
out["growth_agree"] = ids == tokenizers.Tokenizer.from_str(document).encode(word).ids
out["growth_tokens_per_char"] = len(ids) / len(word)

entries = [{"text": "Zażółć gęślą jaźń.", "tags": ["prose"]},
           {"text": "你好，世界！ 안녕", "tags": ["prose"]},
           {"text": "<s> not prose", "tags": ["special-literal"]}]
pools = long_word_pools(entries)
out["pools"] = pools
out["latin_text"] = long_text(pools["latin"], "latin", 40, seed=2)
out["cjk_text"] = long_text(pools["cjk"], "cjk", 12, seed=2)
out["texts_deterministic"] = out["latin_text"] == long_text(pools["latin"], "latin", 40, 2)

corpus = ["the cat sat on the mat", "the hat", "ünïcödé cat"]
small = small_vocabulary(corpus, 10)
out["small_deterministic"] = small == small_vocabulary(corpus, 10)
document = json.dumps(small, ensure_ascii=False)
reference = implementation.load_tokenizer(document)
upstream = tokenizers.Tokenizer.from_str(document)
out["small_agree"] = all(reference.encode(t) == upstream.encode(t).ids
                         for t in [*corpus, "thé 🦜 mat"])

out["summary"] = summary([3.0, 1.0, 2.0])
out["exponent"] = exponent(16, 1.0, 64, 4.0)
out["fitted"] = fitted_exponent([1, 2, 4], [1.0, 4.0, 16.0])
print(json.dumps(out))
"""


def test_the_built_vocabularies_and_the_figure_helpers() -> None:
    done = _python("-c", BUILT_VOCABULARIES)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    # ("a","b") is seen 7 times; then ("ab","ab") 3 times, ("b","a") once (not merged)
    assert out["merges"] == [["a", "b"], ["ab", "ab"]]
    assert out["nothing_seen_twice"] == []
    assert out["growth_deterministic"] and out["small_deterministic"]
    assert out["growth_merges"] == 60
    assert out["growth_agree"] and out["small_agree"]
    assert out["growth_tokens_per_char"] < 0.7  # a long word keeps merging
    assert out["pools"] == {"latin": ["Zażółć", "gęślą", "jaźń."],
                            "cjk": ["你", "好", "，", "世", "界", "！", "안", "녕"]}
    assert len(out["latin_text"]) == 40 and set(out["latin_text"]) <= set("Zażółć gęślą jaźń.")
    assert len(out["cjk_text"]) == 12 and set(out["cjk_text"]) <= set(out["pools"]["cjk"])
    assert out["texts_deterministic"]
    assert out["summary"] == {"min": 1.0, "median": 2.0, "max": 3.0, "repeats": 3}
    assert out["exponent"] == pytest.approx(1.0)
    assert out["fitted"] == pytest.approx(2.0)


def test_the_committed_figures_are_written_only_when_asked() -> None:
    committed = REPO_ROOT / "reports" / "bench.yaml"
    before = committed.read_bytes()
    refused = _python("-m", "harness", "bench", "--scale", "tiny", "--write")
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "--write rewrites the committed reports/bench.yaml: only with the full scale, every "
        "section and no --output"]
    printed = _python("-m", "harness", "bench", "--scale", "tiny", "--only", "growth")
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.startswith("# Benchmarks:") and "growth:" in printed.stdout
    assert committed.read_bytes() == before

"""The ``acceptance`` block of a benchmark report: the limits of the issue that asked for
the benchmarks, beside the values reached (for the reader; never asserted)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .scales import REAL_MODEL

#: The issue's limits, reported beside the values reached (never asserted).
GROWTH_EXPONENT_LIMIT = 1.2
FIXTURE_ENCODE_RATIO_LIMIT = 3.0
FIXTURE_LOAD_RATIO_LIMIT = 2.0
MISTRAL_RATIO_LIMIT = 15.0
LONG_WORD_RATIO_LIMIT = 10.0
COMPARISONS_PER_SECOND_FLOOR = 500.0
#: The subjects' own work as a share of the wall time, in each phase.
HARNESS_EFFICIENCY_FLOOR = 0.5


def acceptance(report: Mapping[str, Any]) -> dict[str, Any]:
    """The issue's limits beside the values reached (for the reader; never asserted)."""
    out: dict[str, Any] = {}
    growth = report.get("growth")
    if growth:
        key = next(k for k in growth if k.startswith("exponent_") and "_to_" in k)
        value = growth[key]["reference"]
        out["growth_exponent"] = {"figure": f"growth.{key}.reference", "value": value,
                                  "limit": f"<= {GROWTH_EXPONENT_LIMIT}",
                                  "met": value <= GROWTH_EXPONENT_LIMIT}
    mistral = (report.get("encode") or {}).get(REAL_MODEL) or {}
    if "warm" in mistral:
        value = mistral["warm"]["ratio"]["min"]
        out["mistral_encode_ratio"] = {
            "figure": f"encode.{REAL_MODEL}.warm.ratio.min", "value": value,
            "warm_ratio_median": mistral["warm"]["ratio"]["median"],
            "cold_ratio_min": mistral["cold"]["ratio"]["min"],
            "bounded_by": "the reference's pure-Python work per character and per token "
                          "(see reference_profile_warm: building tokens and spans, the "
                          "merges of the corpus texts too long for either word cache)",
            "limit": f"<= {MISTRAL_RATIO_LIMIT}", "met": value <= MISTRAL_RATIO_LIMIT}
    fixtures = {name: entry for name, entry in
                ((report.get("encode") or {}).get("fixtures") or {}).items()
                if "skipped" not in entry}
    for figure, limit, key in (("corpus_encode_seconds", FIXTURE_ENCODE_RATIO_LIMIT,
                                "fixture_encode_ratio"),
                               ("load_seconds", FIXTURE_LOAD_RATIO_LIMIT, "fixture_load_ratio")):
        if not fixtures:
            break
        by_fixture = {name: entry[figure]["ratio"]["min"] for name, entry in fixtures.items()}
        worst = max(by_fixture, key=by_fixture.__getitem__)
        out[key] = {"figure": f"encode.fixtures.<each>.{figure}.ratio.min (the largest: "
                              f"{worst})", "value": by_fixture[worst], "by_fixture": by_fixture,
                    "limit": f"<= {limit}", "met": by_fixture[worst] <= limit}
    long_words = report.get("long_words") or {}
    model = next((m for m in (REAL_MODEL, "small_vocabulary")
                  if "skipped" not in long_words.get(m, {"skipped": True})), None)
    if model is not None:
        figures = {key: entry for key, entry in long_words[model].items()
                   if isinstance(entry, dict) and "warm" in entry}
        worst = max(figures, key=lambda key: figures[key]["warm"]["ratio"]["median"])
        value = figures[worst]["warm"]["ratio"]["median"]
        out["long_word_ratio"] = {
            "figure": f"long_words.{model}.{worst}.warm.ratio.median (the largest of "
                      f"{', '.join(figures)})",
            "value": value,
            "by_size": {key: entry["warm"]["ratio"]["median"]
                        for key, entry in figures.items()},
            "cold_by_size": {key: entry["cold"]["ratio"]["median"]
                             for key, entry in figures.items()},
            "limit": f"<= {LONG_WORD_RATIO_LIMIT}", "met": value <= LONG_WORD_RATIO_LIMIT}
    harness = report.get("harness")
    if harness:
        value = harness["comparisons_per_second"]["max"]
        out["comparisons_per_second"] = {
            "figure": "harness.comparisons_per_second.max (the fastest repeat: least "
                      "disturbed by other load)", "value": value,
            "limit": f">= {COMPARISONS_PER_SECOND_FLOOR}",
            "met": value >= COMPARISONS_PER_SECOND_FLOOR}
    jobs = report.get("jobs") or {}
    for profile, entry in jobs.items():
        if isinstance(entry, dict) and entry.get("limit_seconds") is not None \
                and "seconds" in entry:
            value = entry["seconds"]["min"]
            out[f"job_seconds_{profile}"] = {
                "figure": f"jobs.{profile}.seconds.min", "value": value,
                "limit": f"<= {entry['limit_seconds']}",
                "met": value <= entry["limit_seconds"]}
    efficiency: dict[str, float] = {}
    if harness and "subjects_share" in harness:
        efficiency["exploration"] = harness["subjects_share"]["median"]
    real = report.get("real_models") or {}
    if "subjects_share_min" in real:
        efficiency["real_models"] = real["subjects_share_min"]
    if efficiency:
        worst = min(efficiency, key=efficiency.__getitem__)
        out["harness_efficiency"] = {
            "figure": "the subjects' own time as a share of the wall: harness.subjects_share"
                      ".median and real_models.subjects_share_min (the smaller: "
                      f"{worst})", "value": efficiency[worst], "by_phase": efficiency,
            "limit": f">= {HARNESS_EFFICIENCY_FLOOR}",
            "met": efficiency[worst] >= HARNESS_EFFICIENCY_FLOOR}
    return out

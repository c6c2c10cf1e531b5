"""Measure the generator: speed, feature shares, and what upstream makes of the documents.

    python -m harness.strategies.measure [--examples 2000] [--seed 0] [--no-upstream]
                                         [--strategy cases|llama|metaspace]

Draws cases through ``@given`` (as the conformance job does), then loads every document
with tokenizers (a fresh ``from_str`` each), encodes every text and decodes every id
run, and prints: cases/s of generation, upstream load ok / refused / panic shares,
encode and decode outcome shares, the share of each feature label, and any added token
whose id upstream assigned differently from the document (expected: none).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from harness.core.case import Case
from harness.strategies.cases import cases, llama_like_cases, metaspace_cases
from harness.strategies.describe import features

STRATEGIES = {"cases": cases, "llama": llama_like_cases, "metaspace": metaspace_cases}


def draw_cases(strategy: st.SearchStrategy[Case], examples: int, seed_value: int
               ) -> tuple[list[Case], float]:
    """``examples`` cases drawn through ``@given`` under ``seed_value``; and the CPU seconds."""
    drawn: list[Case] = []

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(case: Case) -> None:
        drawn.append(case)

    started = time.process_time()  # CPU time: other processes on the machine do not count
    collect()
    return drawn, time.process_time() - started


def upstream_shares(drawn: Sequence[Case]) -> dict[str, Counter[str]]:
    from harness.subjects import upstream

    counts: dict[str, Counter[str]] = {"load": Counter(), "encode": Counter(),
                                       "decode": Counter(), "added-id": Counter()}
    for case in drawn:
        handle = upstream.load(case.document_json())
        if not isinstance(handle, upstream.Handle):
            counts["load"][f"{type(handle).__name__.lower()}"] += 1
            counts["load"][f"  {_short(handle)}"] += 1
            continue
        counts["load"]["ok"] += 1
        for entry in case.document["added_tokens"]:
            got = handle.tokenizer.token_to_id(entry["content"])
            counts["added-id"]["agree" if got == entry["id"] else "DISAGREE"] += 1
        for text in case.texts:
            counts["encode"][_kind(upstream.encode(handle, text))] += 1
        for run in case.id_runs:
            for skip in (True, False):
                counts["decode"][_kind(upstream.decode(handle, run,
                                                       skip_special_tokens=skip))] += 1
    return counts


def _kind(outcome: Any) -> str:
    name = type(outcome).__name__.lower()
    if name in ("refused", "crashed"):
        return f"{name}: {_short(outcome)}"
    return name


def _short(outcome: Any) -> str:
    message = str(getattr(outcome, "rule", None) or getattr(outcome, "message", ""))
    for needle, label in (("out of vocabulary", "token out of vocabulary"),
                          ("out of range for slice", "merge result longer than vocab"),
                          ("slice index starts", "prefix underflow"),
                          ("not found in the vocabulary", "unk token not in vocabulary")):
        if needle in message:
            return label
    return message[:60]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-upstream", action="store_true")
    parser.add_argument("--strategy", choices=sorted(STRATEGIES), default="cases")
    args = parser.parse_args(argv)

    drawn, seconds = draw_cases(STRATEGIES[args.strategy](), args.examples, args.seed)
    print(f"generated {len(drawn)} cases in {seconds:.1f} CPU s: "
          f"{len(drawn) / seconds:.0f} cases per CPU second")
    texts = sum(len(c.texts) + len(c.pairs) for c in drawn)
    runs = sum(len(c.id_runs) for c in drawn)
    print(f"  {texts / len(drawn):.1f} texts and {runs / len(drawn):.1f} id runs per case")
    sizes = sorted(len(c.document["model"]["vocab"]) for c in drawn)
    merges = sorted(len(c.document["model"]["merges"]) for c in drawn)
    print(f"  vocab size median {sizes[len(sizes) // 2]} max {sizes[-1]}; "
          f"merges median {merges[len(merges) // 2]} max {merges[-1]}")

    labels: Counter[str] = Counter()
    for case in drawn:
        labels.update(features(case))
    print("\nfeature shares:")
    for label in sorted(labels):
        print(f"  {label:<44} {100 * labels[label] / len(drawn):6.1f}%")

    if args.no_upstream:
        return
    started = time.perf_counter()
    counts = upstream_shares(drawn)
    elapsed = time.perf_counter() - started
    for name, counter in counts.items():
        total = sum(v for k, v in counter.items() if not k.startswith("  "))
        print(f"\nupstream {name} ({total}):")
        for key, value in sorted(counter.items(), key=lambda kv: (kv[0].startswith("  "),
                                                                  -kv[1])):
            print(f"  {key:<60} {value:6d}  {100 * value / max(total, 1):5.1f}%")
    print(f"\nupstream time: {elapsed:.1f}s for {len(drawn)} cases")


if __name__ == "__main__":
    main()

"""Generator reachability: every rare shape of the case generator is found by a search
under the constraint that makes it likely (moved from tests/harness/test_strategies.py,
whose sample checks the common shares).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, settings

from harness.strategies import cases, features
from harness.strategies.malformed import MALFORMATIONS

#: Shapes too rare for the sample: each is found under the constraint that makes it likely.
RARE_SHAPES: list[tuple[dict[str, Any], str]] = [
    ({"byte_alphabet": "sparse"}, "bytes:only-0x58"),
    ({"byte_alphabet": "sparse"}, "bytes:C3-without-A9"),
    ({"byte_alphabet": "mixed-case"}, "bytes:mixed-case"),
    ({"dropout": "other"}, "dropout:other"),
    ({"merge_hazard": "result-missing"}, "merges:hazard:result-missing"),
    ({"merge_hazard": "result-longer-than-vocab"}, "merges:hazard:result-longer-than-vocab"),
    ({"merge_hazard": "part-missing"}, "merges:hazard:part-missing"),
    ({"merge_hazard": "prefix-underflow", "prefix": "##"}, "merges:hazard:prefix-underflow"),
    ({"decoder": "perturbed", "strip_hazard": 1000}, "decoder:strip-hazard"),
    ({"added_tokens": "llama"}, "added:llama-normalized"),
    # every ByteLevel flag combination, every real byte-level pre-tokenizer
    *(({"byte_level_pre_tokenizer": "byte-level"},
       f"byte_level:pre:prefix={a}:trim={t}:regex={r}")
      for a in (False, True) for t in (False, True) for r in (False, True)),
    *(({"byte_level_pre_tokenizer": "byte-level-real"}, f"pre_tokenizer:real:{name}")
      for name in ("llama3", "qwen2", "gpt4o", "deepseek-v3")),
    ({"post_processor": "sequence"}, "post_processor:sequence:template-first"),
    # every Split behaviour, invert, every pattern kind and real pattern, real sequences
    *(({"pre_tokenizer": "split"}, f"split:behavior:{b}")
      for b in ("Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous")),
    ({"pre_tokenizer": "split"}, "split:invert"),
    ({"pre_tokenizer": "split"}, "split:pattern:string"),
    ({"pre_tokenizer": "split"}, "split:pattern:mutated"),
    *(({"pre_tokenizer": "split", "split_pattern": "real", "real_pattern": name},
       f"split:pattern:{name}")
      for name in ("gpt2", "llama3", "qwen2", "gpt4o", "tiktoken-possessive", "deepseek-v3",
                   "deepseek-digits", "deepseek-cjk", "tekken", "tiktoken-cl100k")),
    ({"pre_tokenizer": "split"}, "split:behavior-map-form"),
    ({"byte_level_pre_tokenizer": "byte-level"}, "byte_level:use_regex-absent"),
    ({"pre_tokenizer": "split-sequence"}, "split:sequence:deepseek-v3"),
    ({"pre_tokenizer": "split-sequence"}, "split:sequence:deepseek-llm"),
    # Digits both ways, Punctuation with every behaviour (or none), Whitespace(Split)
    ({"pre_tokenizer": "split-family"}, "digits:individual=True"),
    ({"pre_tokenizer": "split-family"}, "digits:individual=False"),
    *(({"pre_tokenizer": "split-family", "split_family": "punctuation"},
       f"punctuation:behavior:{b}")
      for b in ("absent", "Isolated", "Removed", "MergedWithPrevious", "MergedWithNext",
                "Contiguous")),
    ({"pre_tokenizer": "split-family"}, "pre:whitespace"),
    ({"pre_tokenizer": "split-family"}, "pre:whitespacesplit"),
    # every Unicode normalizer, Strip on each side, Replace regexes Oniguruma refuses
    *(({"normalizer": "unicode"}, f"unicode:{kind}")
      for kind in ("NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Strip")),
    *(({"normalizer": "unicode", "unicode_normalizer": "Strip"},
       f"unicode:Strip:left={left}:right={right}")
      for left in (False, True) for right in (False, True)),
    ({"normalizer": "replace-regex"}, "normalizer:regex-hazard"),
    # every malformation; the odd added-token entries
    *(({"malformed": "malformed"}, f"malformed:{name}") for name in MALFORMATIONS),
    ({"added_oddity": "empty-content"}, "added:empty-content"),
    ({"added_oddity": "duplicate-content", "added_tokens": "llama"}, "added:duplicate-content"),
    # regex syntax probes (harness/strategies/regex_probes.py) and malformed Splits
    ({"pre_tokenizer": "split", "split_pattern": "probe"}, "split:pattern:probe"),
    ({"pre_tokenizer": "split", "split_pattern": "broken"}, "split:pattern:broken"),
    ({"pre_tokenizer": "split", "split_pattern": "malformed"}, "split:malformed"),
    ({"pre_tokenizer": "split", "split_pattern": "mutated"}, "split:mutation:add-alternative"),
    ({"normalizer": "replace-regex", "replace_regex": "probe"}, "normalizer:regex-probe"),
]
GENERATE_ONLY = settings(max_examples=500, database=None, deadline=None, derandomize=True,
                         phases=[Phase.generate], suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize(("constraints", "label"), RARE_SHAPES,
                         ids=[label for _, label in RARE_SHAPES])
def test_rare_shapes_are_reachable(constraints: dict[str, Any], label: str) -> None:
    found = find(cases(**constraints), lambda case: label in features(case),
                 settings=GENERATE_ONLY)
    assert label in features(found)

"""The killer of a mutation campaign: one short harness run against the mutated reference.

``python -m harness.mutation.killer --module M`` runs the conformance job on the
``dev`` profile's judge with a fixed seed, a small example count, no real models, no
shrinking and no example database, the generator narrowed to the features of module M
(``NARROWING``), then the pinned witnesses and the declared probes as every run does (and
the morph track for the modules of ``MORPH_TRACK``). It
exits 1 when the run fails (a divergence no class explains, a finding of the
specification oracle, a stale pinned witness) or crashes, 0 when it passes: the exit
status is the test outcome the mutation tool reads. The first line it prints names the
``implementation/`` it imported, so a campaign can check that the copy under mutation is
the one run (docs/decisions/0046-mutation-campaign.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any, Final

#: Module of implementation/ -> the ``cases()`` narrowing that reaches its features
#: (empty: the default mix, for the modules every document runs through).
NARROWING: Final[Mapping[str, Mapping[str, Any]]] = {
    "bpe": {},
    "bpe_loader": {},
    "tokenizer": {},
    "encoding": {},
    "loader": {},
    "added_vocabulary": {"added_tokens": ("llama+extras", "extras")},
    "normalizers": {"normalizer": ("prepend", "replace-string", "replace-regex", "sequence",
                                   "unicode", "unicode-sequence")},
    "unicode_forms": {"normalizer": ("unicode", "unicode-sequence")},
    "alignment": {"normalizer": ("llama", "prepend", "replace-string", "replace-regex",
                                 "sequence", "unicode", "unicode-sequence")},
    "pre_tokenizers": {"pre_tokenizer": ("metaspace", "sequence", "split", "split-family",
                                         "split-sequence", "byte-level")},
    "split": {"pre_tokenizer": ("split", "split-family", "split-sequence")},
    "oniguruma": {"pre_tokenizer": ("split", "split-sequence")},
    "regex_safety": {"pre_tokenizer": ("split", "split-sequence")},
    "patterns": {"pre_tokenizer": ("split", "split-sequence")},
    "byte_level": {"family": "byte-level"},
    "decoders": {"decoder": ("byte-fallback", "llama", "metaspace", "perturbed",
                             "byte-level"), "strip_hazard": 500},
    "post_processors": {"post_processor": ("template", "byte-level", "sequence"),
                        "pairs": 800},
    "metaspace": {"pre_tokenizer": ("metaspace", "sequence")},
}
#: The modules whose killer also runs the unified tokenizer's morph track (a few seconds):
#: ``encoding``'s defaults (type ids of a sequence built without them) are read by the
#: unified tokenizer only, whose encodings the morph track compares with upstream's.
MORPH_TRACK: Final = frozenset({"encoding"})
#: The judge's profile, the seed and the generated examples of one killer run.
PROFILE: Final = "dev"
SEED: Final = 0
EXAMPLES: Final = 150


def killed(module: str, examples: int = EXAMPLES, seed: int = SEED) -> bool:
    """Whether one short run narrowed to ``module`` fails."""
    from harness.job import run
    from harness.strategies import cases

    narrowing = NARROWING[module]
    result = run(profile_name=PROFILE, seed_value=seed, examples=examples,
                 command="mutation-campaign killer",
                 strategy=cases(**narrowing) if narrowing else None, real_examples=-1,
                 shrink=False, with_morph_track=module in MORPH_TRACK)
    morph = result.morph_track.tally.failures if result.morph_track is not None else {}
    for failure in [*sorted(result.tally.failures), *sorted(morph)][:3]:
        print(f"failure: {failure[:200]}")
    for stale in result.stale[:3]:
        print(f"stale pinned witness: {stale.id}")
    return bool(result.tally.failures) or bool(morph) or bool(result.stale)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.mutation.killer",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", required=True, choices=sorted(NARROWING))
    parser.add_argument("--examples", type=int, default=EXAMPLES)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    from harness.core import interrupts

    interrupts.watch_parent()
    import implementation

    print(f"implementation: {implementation.__file__}", flush=True)
    return 1 if killed(args.module, args.examples, args.seed) else 0


if __name__ == "__main__":
    sys.exit(main())

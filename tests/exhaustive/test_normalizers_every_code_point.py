"""The Unicode normalizers over every code point against tokenizers 0.23.1 run live: the
normalized text of every code point, the alignments of every affected one, and the
committed tables' freshness (moved from tests/differential/test_unicode_normalizers.py).
docs/decisions/0025-unicode-normalizers.md.
"""

from __future__ import annotations

import pytest
from normalizer_sides import (
    AFFECTED,
    ALL,
    FORMS,
    PROBES,
    batches,
    ours_str,
    reference_alignments,
    reference_of,
    upstream_alignments,
)

from harness.fixture_builders import unicode_tables as generator

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.upstream


@pytest.mark.parametrize("kind", [*FORMS, "Lowercase"])
def test_every_code_point_normalizes_alike(kind: str) -> None:
    """The normalized text of every code point, a chunk of code points (between spaces)
    per call on each side."""
    upstream = getattr(tokenizers.normalizers, kind)().normalize_str
    ours = ours_str(reference_of(kind))
    for batch in generator.chunks(ALL):
        text = " ".join(batch)
        if upstream(text) != ours(text):
            bad = [t for t in batch if upstream(t) != ours(t)]
            pytest.fail(f"{kind}: {len(bad)} differ, first {[ascii(t) for t in bad[:5]]}")


@pytest.mark.parametrize("kind", [*FORMS, "Lowercase"])
def test_every_affected_code_point_aligns_alike(kind: str) -> None:
    """The normalized text and per-character alignments of every code point a normalizer
    changes, reorders or composes, alone and in the probes."""
    upstream = getattr(tokenizers.normalizers, kind)()
    ours = reference_of(kind)
    assert len(AFFECTED) > 5000
    for before, after in PROBES:
        for batch in batches([before + c + after for c in AFFECTED]):
            text = " ".join(batch)
            assert reference_alignments(ours, text) == upstream_alignments(upstream, text)


def test_tables_are_up_to_date() -> None:
    """The committed tables are what measuring this tokenizers and Python gives now."""
    assert generator.main(["--check"]) == 0

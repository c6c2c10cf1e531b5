"""Judging observations: tiered comparison, the registry of intended divergence classes,
their predicates, the verdicts, and which founding rules a comparison exercised."""

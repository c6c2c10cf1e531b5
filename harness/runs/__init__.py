"""Runs: observing cases on two subjects, the one engine that explores, judges, tallies
and shrinks, and the runs built on it (generated vocabularies, real models, the morph
track), with the example database and the worker processes."""

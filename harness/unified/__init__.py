"""The harness side of the unified dual-track tokenizer: the synthetic Mongolian corpus,
the MorphBPE fixture trainer, the morph track as an upstream tokenizer.json, and the
morph-track differential run by ``nox -s conformance``."""

"""Differential conformance harness: the reference (implementation/) against tokenizers."""

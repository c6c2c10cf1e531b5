"""The conformance matrix: every registered subject run side by side (``python -m harness
matrix``, ``nox -s matrix``), each an ordinary conformance run in its own process, and
every pinned witness replayed against every subject (the transplant). See
docs/decisions/0037-matrix.md."""

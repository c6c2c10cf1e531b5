"""The static site (``python -m harness site``): the matrix and a page per finding,
subject and real file, from conformance reports (and, later, matrix reports).

model (view-model) ← build (reports → model) ← finding, pages, charts, html (HTML) ←
writer (files, atomic swap); changes compares two report sets. docs/decisions/0032-site.md.
"""

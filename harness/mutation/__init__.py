"""The mutation campaign (decision 0046): Cosmic Ray's mutants of implementation/, sampled per
module and killed by a short harness run (``python -m harness.mutation``).
"""

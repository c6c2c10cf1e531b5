"""Shared pytest configuration: the Hypothesis profiles.

``HYPOTHESIS_PROFILE`` picks one (``dev``, ``ci``, ``nightly``); without it, ``ci`` when
``CI`` is set, else ``dev``. Tests never raise ``max_examples`` themselves, so the
profile alone bounds a run.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev", max_examples=50)
settings.register_profile(
    "ci", max_examples=100, derandomize=True, deadline=None, print_blob=True
)
settings.register_profile("nightly", max_examples=2000, deadline=None)


def _profile_name() -> str:
    return os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")


settings.load_profile(_profile_name())

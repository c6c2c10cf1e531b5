"""The pinned oracle files (``oracles/*.json``): their hand-chosen inputs (``cases``), and
their generation from upstream, replay against the reference, ``--check`` and drift
(``files``)."""

from .files import oracle_files, replay_file

__all__ = ["oracle_files", "replay_file"]

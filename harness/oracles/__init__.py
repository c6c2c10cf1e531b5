"""The pinned oracle files (``oracles/*.json``, format in ``oracles/README.md``): their
declarations (``spec``) and hand-chosen inputs (``cases``, ``shapes``), generation from
upstream (``generation``, ``witnesses``), replay against the reference (``replay``), the
packed outcome spelling (``packing``), paths and headers (``layout``), ``--check`` and drift
(``drift``), and the subjects' pinned witnesses (``subjects``)."""

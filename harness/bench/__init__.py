"""``python -m harness bench``: the reference against ``tokenizers``, side by side. One
module per section (``encode``, ``growth``, ``long_words``, ``stages`` for the harness
section, ``decode``, ``memory``), what they share (``scales``, ``figures``, ``environment``,
``vocabularies``, ``inputs``), the ``acceptance`` block, and the ``runner``."""

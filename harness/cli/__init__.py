"""The commands of ``python -m harness``: one module per command, each with one function
``run(args) -> int`` (the exit status), and what they share (``arguments``: the usage
error, argument types; ``subject``: starting the subject a command judges). The parser and
the dispatch are ``harness/__main__.py``. Decision
[0020](../../docs/decisions/0020-harness-layers-and-report-v2.md)."""

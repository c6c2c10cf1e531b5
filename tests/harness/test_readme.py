"""Every command of the README works as written, in the environment the README sets up.

- The ``python`` blocks run as written from the root of a fresh git copy of the repository
  (the library example reads ``fixtures/llama_like.tokenizer.json``; what its comments
  promise holds), and leave that copy clean.
- The block that sets up "the harness from your own environment" runs literally in a fresh
  virtual environment: tests/exhaustive/test_readme_venv.py (the exhaustive tier).
- ``nox -s`` commands: each names a session of ``noxfile.py``, and what follows ``--`` is
  parsed by the harness' own parser; ``nox -s tests``, ``nox -s lint`` and
  ``nox -s oracles -- --check`` are run literally by ``.ci/run`` (checked here), and the
  conformance, oracle-upgrade and bench commands are long runs whose short forms the tests
  cover (``tests/harness/test_interrupts.py``, ``tests/harness/test_oracles.py``,
  ``tests/exhaustive/test_bench.py``).
"""

from __future__ import annotations

import ast
import os
import shlex
import subprocess
import sys
from pathlib import Path

from readme_commands import ROOT, blocks, commands, fresh_copy, untracked_or_changed


def nox_sessions() -> set[str]:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and any("session" in ast.unparse(d) for d in node.decorator_list)}


def test_the_readme_has_the_quick_start() -> None:
    assert commands()[:3] == ["pip install nox", "nox -s tests", "nox -s conformance"]


def test_every_nox_command_names_a_session_and_parses() -> None:
    from harness.__main__ import _parser
    from harness.bench.runner import add_arguments

    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    sessions = nox_sessions()
    seen = 0
    for command in commands():
        if not command.startswith("nox "):
            continue
        seen += 1
        words = shlex.split(command.replace('"$(nproc)"', "2"))
        session = words[2]
        assert session in sessions, command
        rest = words[words.index("--") + 1:] if "--" in words else []
        if session in ("tests", "exhaustive", "lint") or rest == ["--check"]:
            assert f"nox -s {' '.join(words[2:])}" in ci, f".ci/run does not run {command}"
        elif session in ("conformance", "oracles"):
            _parser().parse_args([session, *rest])
        elif session == "bench":
            import argparse

            parser = argparse.ArgumentParser()
            add_arguments(parser)
            parser.parse_args(rest)
    assert seen >= 7


def test_the_python_blocks_run(tmp_path: Path) -> None:
    repo = fresh_copy(tmp_path / "repo")
    env = {**os.environ, "PYTHONPATH": str(repo)}
    for block in blocks("python"):
        done = subprocess.run([sys.executable, "-c", block + "\nprint(repr(tok.decode("
                               "seq.input_ids)))" if "ref.load_tokenizer" in block else block],
                              cwd=repo, env=env, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, (block, done.stderr[-2000:])
        if "ref.load_tokenizer" in block:
            lines = done.stdout.splitlines()
            assert lines[0].split()[2:] == ["-1", "-1", "special"]  # <s> is -1,-1
            assert lines[-1] == "'Hello world'"
    assert untracked_or_changed(repo) == set()

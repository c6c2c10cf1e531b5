"""Every command of the README works as written, in the environment the README sets up.

- The ``python`` blocks run as written (the first one in a folder holding a
  ``tokenizer.json``: the Llama-like fixture).
- The block that sets up "the harness from your own environment" runs literally, line by
  line, in a copy of the repository: a virtual environment, ``pip install -e
  '.[harness]'``, then every ``python -m harness`` command of the README in it (with the
  README's placeholders ``OLD.yaml`` and ``FILE`` given real names).
- ``nox -s`` commands: each names a session of ``noxfile.py``, and what follows ``--`` is
  parsed by the harness' own parser; ``nox -s tests``, ``nox -s lint`` and
  ``nox -s oracles -- --check`` are run literally by ``.ci/run`` (checked here), and the
  conformance, oracle-upgrade and bench commands are long runs whose short forms the tests
  cover (``tests/test_interrupts.py``, ``tests/test_oracles.py``, ``tests/test_bench.py``).
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PLACEHOLDERS = {"OLD.yaml": "reports/conformance.yaml", "FILE": "summary-against.md"}


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def commands() -> list[str]:
    """Every shell command of the README (comments and continuation lines joined)."""
    out: list[str] = []
    for block in blocks("sh"):
        for raw in block.splitlines():
            line = raw.split("  #", 1)[0].strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def nox_sessions() -> set[str]:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and any("session" in ast.unparse(d) for d in node.decorator_list)}


def test_the_readme_has_the_quick_start() -> None:
    assert commands()[:3] == ["pip install nox", "nox -s tests", "nox -s conformance"]


def test_every_nox_command_names_a_session_and_parses() -> None:
    from harness.__main__ import _parser
    from harness.bench.bench import add_arguments

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
        if session in ("tests", "lint") or rest == ["--check"]:
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
    shutil.copy(ROOT / "fixtures" / "llama_like.tokenizer.json", tmp_path / "tokenizer.json")
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for block in blocks("python"):
        done = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, (block, done.stderr[-2000:])


@pytest.mark.upstream
def test_the_own_environment_block_runs_literally(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    repo = tmp_path / "repo"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    setup = next(b for b in blocks("sh") if "pip install -e '.[harness]'" in b)
    script = [line.split("  #", 1)[0].strip() for line in setup.splitlines()]
    script += [c for c in commands() if c.startswith("python -m harness") and c not in script]
    for placeholder, name in PLACEHOLDERS.items():
        script = [c.replace(placeholder, name) for c in script]
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "HYPOTHESIS_REDIS_URL")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["TOKENIZER_CONFORMANCE_BUILD"] = str(ROOT / ".build")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(script)], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=1500, check=False)
    if done.returncode != 0 and "Could not find a version" in done.stderr:
        pytest.skip("no package index here")
    assert done.returncode == 0, (script, done.stdout[-3000:], done.stderr[-3000:])
    assert (repo / "smoke.yaml").is_file()
    assert (repo / "summary.md").read_text(encoding="utf-8").startswith("## ")
    assert (repo / "summary-against.md").read_text(encoding="utf-8").startswith("## ")
    assert "[template-special-spans]" in done.stdout  # reproduce showed the class

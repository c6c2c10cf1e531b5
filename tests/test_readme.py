"""Every command of the README works as written, in the environment the README sets up.

- The ``python`` blocks run as written, from the root of a fresh copy of the repository
  (the library example reads ``fixtures/llama_like.tokenizer.json``), and what the first
  one's comments promise holds.
- The block that sets up "the harness from your own environment" runs literally, line by
  line, in a fresh copy of the repository (a git work tree of the tracked files): a virtual
  environment, ``pip install -e '.[harness]'``, then every ``python -m harness`` command
  of the README in it (with the README's placeholders ``OLD.yaml``, ``FILE`` and ``DIR``
  given real names: DIR a folder of the pinned downloads, from this machine's cache).
  Afterwards ``git status`` finds the work tree clean but for the files the commands name
  (``--output``/``--report``). Without network (the package index, the registries) the
  test skips, naming what could not be had. It is slow (minutes): exhaustive tier.
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
PLACEHOLDERS = {"OLD.yaml": "reports/conformance.yaml", "FILE": "summary-against.md",
                "DIR": "../downloads"}


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


def fresh_copy(target: Path) -> Path:
    """The tracked files of this checkout, committed in a new git work tree at ``target``."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    git = ["git", "-c", "user.name=readme", "-c", "user.email=readme@invalid"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "copy"]):
        subprocess.run([*git, *command], cwd=target, check=True, capture_output=True)
    return target


def untracked_or_changed(repo: Path) -> set[str]:
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=repo, capture_output=True, text=True, check=True).stdout
    return {line[3:] for line in status.splitlines() if line}


def named_outputs(script: list[str]) -> set[str]:
    """The files the README's commands name as what they write."""
    named: set[str] = set()
    for command in script:
        words = shlex.split(command)
        named |= {words[i + 1] for i, word in enumerate(words[:-1])
                  if word in ("--output", "--report")}
    return named


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


def _downloads(folder: Path) -> None:
    """The pinned wheel and tarballs the builders keep in this machine's cache, for the
    README's ``fetch --from DIR``."""
    from harness.fixtures.sources import fixtures_dir

    folder.mkdir()
    for kept in [*(fixtures_dir() / "wheels").glob("*.whl"),
                 *(fixtures_dir() / "npm").glob("*.tgz")]:
        shutil.copyfile(kept, folder / kept.name)


@pytest.mark.upstream
def test_the_own_environment_block_runs_literally(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    repo = fresh_copy(tmp_path / "repo")
    _downloads(tmp_path / "downloads")
    setup = next(b for b in blocks("sh") if "pip install -e '.[harness]'" in b)
    script = [line.split("  #", 1)[0].strip() for line in setup.splitlines()]
    script += [c for c in commands() if c.startswith("python -m harness") and c not in script]
    for placeholder, name in PLACEHOLDERS.items():
        script = [re.sub(rf"(?<![\w.]){re.escape(placeholder)}(?![\w.])", name, c)
                  for c in script]
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "HYPOTHESIS_REDIS_URL")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    lines = "\n".join(f"echo {shlex.quote('README$ ' + c)} >&2\n{c}" for c in script)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", lines], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=2400, check=False)
    if done.returncode != 0 and "Could not find a version" in done.stderr:
        pytest.skip("no package index here")
    if done.returncode == 3 and "is not in the cache" in done.stdout + done.stderr:
        pytest.skip("the pinned fixtures cannot be had here (no network, nothing cached)")
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    assert (repo / "reports" / "conformance-smoke.yaml").is_file()
    assert (repo / "reports" / "smoke.md").read_text(encoding="utf-8").startswith("## ")
    assert (repo / "summary-against.md").read_text(encoding="utf-8").startswith("## ")
    assert "[template-special-spans]" in done.stdout  # reproduce showed the class
    assert untracked_or_changed(repo) <= named_outputs(script) - {
        "reports/smoke.md", "reports/conformance-smoke.yaml"}  # those are ignored by git

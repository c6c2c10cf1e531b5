"""Subjects from outside the repository (decision 0034), as a user packages one: one judged
with ``--subject cmd:... --expectations PATH``, one installed as a package (a ``.dist-info``
with the entry point ``tokenizer_conformance.subjects`` on the path, as pip leaves it) with
its own expectations and recognisers, both written into a temporary folder. Both run green,
and no file of this repository changes. Packaging, so the exhaustive tier (decision 0028):
each is two harness processes of a smoke run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("tokenizers")

ROOT = Path(__file__).resolve().parents[2]

#: A protocol speaker outside the repository: our reference behind the protocol (the
#: example subject's answers), except that it refuses to decode with the specials kept.
PROGRAM = """
import json
import sys

import implementation as ref
from harness.subjects import example


class Picky(example.Subject):
    def answer(self, request):
        if request["op"] == "decode" and not request["skip_special_tokens"]:
            raise ref.DecodeError("keep-specials", "$", "keeping specials is not supported")
        return super().answer(request)


def main():
    subject = Picky(strict=True)
    print(json.dumps({{"hello": {{"protocol": 1, "name": "{name}", "version": "1.0",
                                "capabilities": example.CAPABILITIES}}}}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = {{"id": request["id"], "ok": subject.answer(request)}}
        except ref.TokenizerError as exc:
            answer = {{"id": request["id"], "refused": {{"rule": exc.rule, "path": exc.path,
                                                       "message": exc.message}}}}
        print(json.dumps(answer), flush=True)
    return 0


raise SystemExit(main())
"""

EXPECTATIONS = """
subject: {name}
inherit: [reference]
expectations:
  - id: keeps-no-specials
    title: decoding with the specials kept is refused
    side: subject-bug
    explains: [decode]
    recogniser: {recogniser}
"""
SIGNATURE = ("{signature: {operation: decode, tier: decode, subject: 'refused[keep-specials]', "
             "upstream: decoded, message: keeping specials}}")


def _env(*paths: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "HYPOTHESIS_REDIS_URL"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *map(str, paths)])
    return env


def _harness(*arguments: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *arguments], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def _tree_state() -> str:
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else ""


def _green(report: Path, entry: str) -> dict[str, Any]:
    data = yaml.safe_load(report.read_text(encoding="utf-8"))
    assert data["verdict"] == "pass", data["failures"]
    assert data["summary"]["by_class"][entry] > 0
    return dict(data)


def test_a_subject_outside_the_repository_runs_green_with_its_own_expectations(
        tmp_path: Path) -> None:
    before = _tree_state()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "picky.py").write_text(PROGRAM.format(name="picky-cmd"), encoding="utf-8")
    expectations = outside / "expectations.yaml"
    expectations.write_text(EXPECTATIONS.format(name="picky-cmd", recogniser=SIGNATURE),
                            encoding="utf-8")
    spec = f"cmd:{sys.executable} {outside / 'picky.py'}"
    report = tmp_path / "report.yaml"
    done = _harness("conformance", "--subject", spec, "--expectations", str(expectations),
                    "--profile", "smoke", "--examples", "15", "--real-examples", "-1",
                    "--report", str(report), cwd=tmp_path, env=_env())
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    data = _green(report, "keeps-no-specials")
    assert data["subject"]["expectations"] == str(expectations)
    assert f"--expectations {expectations}" in data["header"]["command"]
    # Without its expectations the same subject fails: they are what made it green.
    bare = _harness("conformance", "--subject", spec, "--profile", "smoke", "--examples",
                    "15", "--real-examples", "-1", "--report", str(tmp_path / "bare.yaml"),
                    cwd=tmp_path, env=_env())
    assert bare.returncode == 1, bare.stdout[-2000:]
    assert _tree_state() == before


def _installed_package(site: Path) -> None:
    """A package ``picky_subject`` with the entry point, as ``pip install`` leaves it."""
    package = site / "picky_subject"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent('''
        import sys


        def command() -> list[str]:
            return [sys.executable, "-m", "picky_subject.program"]
        '''), encoding="utf-8")
    (package / "program.py").write_text(PROGRAM.format(name="picky"), encoding="utf-8")
    (package / "recognisers.py").write_text(textwrap.dedent('''
        from harness.core.outcome import Decoded, Refused
        from harness.judge.predicates import ALL, NONE


        def refuses_keeping_specials(ctx, div):
            obs = div.observation
            subject = getattr(obs, "subject", None) or obs.subject
            return ALL if (obs.operation == "decode"
                           and obs.option("skip_special_tokens") is False
                           and isinstance(subject, Refused)
                           and subject.rule == "keep-specials"
                           and isinstance(obs.upstream, Decoded)) else NONE


        RECOGNISERS = {"refuses_keeping_specials": refuses_keeping_specials}
        '''), encoding="utf-8")
    (package / "expectations.yaml").write_text(
        EXPECTATIONS.format(name="picky", recogniser="refuses_keeping_specials"),
        encoding="utf-8")
    info = site / "picky_subject-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: picky-subject\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[tokenizer_conformance.subjects]\n"
                                           "picky = picky_subject\n", encoding="utf-8")


def test_an_installed_package_registers_a_subject_by_its_entry_point(tmp_path: Path) -> None:
    before = _tree_state()
    site = tmp_path / "site"
    _installed_package(site)
    env = _env(site)
    report = tmp_path / "report.yaml"
    done = _harness("conformance", "--subject", "picky", "--profile", "smoke", "--examples",
                    "15", "--real-examples", "-1", "--report", str(report), cwd=tmp_path,
                    env=env)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    data = _green(report, "keeps-no-specials")
    assert data["subject"]["expectations"] == f"{site / 'picky_subject'}/expectations.yaml"
    listed = subprocess.run([sys.executable, "-c", "from harness.subjects import registry; "
                             "e = registry.lookup('picky'); print(e.origin, e.display_folder)"],
                            env=env, capture_output=True, text=True, check=True)
    assert listed.stdout.startswith("picky-subject "), listed.stdout
    checked = _harness("check-subject", "picky", cwd=tmp_path, env=env)
    assert checked.returncode == 1, checked.stdout  # it refuses to keep specials: said so
    assert "decode skip_special_tokens" in checked.stdout
    assert _tree_state() == before

"""Replay: every row of every committed oracle (``oracles/*.json``) against the reference,
with ``tokenizers`` BLOCKED.

The replay runs in a child interpreter where ``sys.modules["tokenizers"] = None``, so any
import of tokenizers there fails: the reference side provably never needs it (the
upstream outcomes come from the files). A difference between the reference and a pinned
upstream outcome passes only when a divergence class named in the row's ``flags``
explains it (``harness/judge/divergences.yaml``), and every class a row names must still show.
Each row is its own test, named by file and case id.

Built fixtures (the real Mistral v0.1 tokenizer.json of ``mistral_v0_1.json``) are built
in THIS process first (it may have tokenizers and network); the child only reads the
verified build from the cache. When one cannot be built here, its rows skip with the
reason; when it was built but the child still cannot read it, they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ORACLES = sorted((ROOT / "oracles").glob("*.json"))

#: Runs in the child: blocks tokenizers, replays every oracle file under argv[1].
REPLAY_SCRIPT = r"""
import json, sys
sys.modules["tokenizers"] = None          # any `import tokenizers` now raises ImportError
try:
    import tokenizers  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("tokenizers was importable despite the block")
from pathlib import Path
import implementation
from harness.oracles.layout import oracle_files
from harness.oracles.replay import replay_file

root = Path(sys.argv[1])
problems = []
unavailable = []
rows = []
for path in oracle_files(root):
    rel = path.relative_to(root).as_posix()
    data = json.loads(path.read_text(encoding="utf-8"))
    rows += [[rel, row["id"]] for row in data["cases"]]
    for p in replay_file(data, root, rel):
        (unavailable if p.kind == "unavailable" else problems).append([rel, p.case_id, str(p)])
print(json.dumps({
    "rows": rows,
    "problems": problems,
    "unavailable": unavailable,
    "tokenizers_blocked": sys.modules.get("tokenizers", "absent") is None,
    "upstream_subject_imported": "harness.subjects.upstream" in sys.modules,
    "implementation": implementation.__name__,
}))
"""


@cache
def built_fixture_skip_reason() -> str | None:
    """Build every built fixture the committed oracles name (in this process); None when
    all are there, else why not (their rows skip with it)."""
    from harness.oracles.layout import build_fixtures, built_fixtures_of

    return build_fixtures(n for path in ORACLES
                          for n in built_fixtures_of(json.loads(path.read_text(encoding="utf-8"))))


def needs_built_fixtures() -> None:
    reason = built_fixture_skip_reason()
    if reason is not None:
        pytest.skip(reason)


def run_replay(root: Path) -> dict[str, Any]:
    built_fixture_skip_reason()  # the child reads them from the cache, never builds
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", REPLAY_SCRIPT, str(root)], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False, timeout=1800)
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


@cache
def committed_replay() -> dict[str, Any]:
    return run_replay(ROOT)


def _row_ids() -> list[tuple[str, str]]:
    out = []
    for path in ORACLES:
        data = json.loads(path.read_text(encoding="utf-8"))
        out += [(f"oracles/{path.name}", str(row["id"])) for row in data["cases"]]
    return out


ROW_IDS = _row_ids()


def test_there_are_oracles_to_replay() -> None:
    names = {p.name for p in ORACLES}
    assert {"bpe_byte_fallback.json", "llama_pipeline.json",
            "metaspace_pipeline.json"} <= names
    assert len(ROW_IDS) > 100


def test_replay_ran_without_tokenizers() -> None:
    result = committed_replay()
    assert result["tokenizers_blocked"] is True
    assert result["upstream_subject_imported"] is False
    assert sorted(map(tuple, result["rows"])) == sorted(ROW_IDS)


def test_implementation_imports_without_tokenizers() -> None:
    code = ("import sys; sys.modules['tokenizers'] = None\n"
            "import implementation as ref\n"
            "tok = ref.load_tokenizer({'version': '1.0', 'added_tokens': [], 'normalizer': None,"
            " 'pre_tokenizer': None, 'post_processor': None, 'decoder': None, 'model': {"
            "'type': 'BPE', 'vocab': {'a': 0, 'b': 1, 'ab': 2}, 'merges': [['a', 'b']]}})\n"
            "assert tok.encode('ab') == [2]\n"
            "assert not [m for m in sys.modules if m.startswith('tokenizers.')]\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("file", "case_id"), ROW_IDS, ids=[f"{f[8:-5]}:{i}" for f, i in ROW_IDS])
def test_oracle_row_replays(file: str, case_id: str) -> None:
    result = committed_replay()
    unavailable = [message for f, i, message in result["unavailable"]
                   if (f, i) == (file, case_id)]
    if unavailable:
        needs_built_fixtures()
        pytest.fail("built here, yet the replay could not read it: " + unavailable[0])
    problems = [message for f, i, message in result["problems"]
                if (f, i) == (file, case_id)]
    assert not problems, "\n".join(problems)


def test_the_mistral_oracle_replays_every_corpus_text() -> None:
    needs_built_fixtures()
    rows = [i for f, i in ROW_IDS if f == "oracles/mistral_v0_1.json"]
    assert len(rows) == 1 + len(json.loads(
        (ROOT / "fixtures/corpus/real_model_corpus.json").read_text(encoding="utf-8")))
    result = committed_replay()
    assert not [u for u in result["unavailable"] if u[0] == "oracles/mistral_v0_1.json"]
    assert not [p for p in result["problems"] if p[0] == "oracles/mistral_v0_1.json"]


def _copy_repo_oracles(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "oracles", root / "oracles")
    shutil.copytree(ROOT / "fixtures", root / "fixtures",
                    ignore=shutil.ignore_patterns("corpus"))
    return root


def _first_row(data: dict[str, Any], kind: str, flag: str | None = None) -> dict[str, Any]:
    return next(row for row in data["cases"] if row["kind"] == kind
                and (flag is None or flag in row["flags"]))


def test_hand_edited_upstream_value_fails_naming_the_case(tmp_path: Path) -> None:
    root = _copy_repo_oracles(tmp_path)
    path = root / "oracles" / "bpe_byte_fallback.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    row = _first_row(data, "encode")
    row["upstream"]["encode"]["ids"][0] += 1
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                    encoding="utf-8")
    result = run_replay(root)
    named = [m for _, i, m in result["problems"] if i == row["id"]]
    assert named and all(row["id"] in m for m in named)
    assert "no intended class explains it" in named[0]
    assert {i for _, i, _ in result["problems"]} == {row["id"]}


def test_edits_an_intended_class_would_hide_still_fail(tmp_path: Path) -> None:
    """Template specials may differ in span ((-1,-1) vs (0,0)), but only that way: a
    hand-edited BOS span is not what template-special-spans explains."""
    root = _copy_repo_oracles(tmp_path)
    path = root / "oracles" / "llama_pipeline.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    row = _first_row(data, "encode", "template-special-spans")
    assert row["upstream"]["encode"]["spans"][0] == [0, 0]
    row["upstream"]["encode"]["spans"][0] = [0, 1]
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                    encoding="utf-8")
    result = run_replay(root)
    assert {i for _, i, _ in result["problems"]} == {row["id"]}


def test_a_flagged_class_that_no_longer_shows_fails(tmp_path: Path) -> None:
    root = _copy_repo_oracles(tmp_path)
    path = root / "oracles" / "llama_pipeline.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    row = _first_row(data, "encode", "template-special-spans")
    row["upstream"]["encode"]["spans"][0] = [-1, -1]  # as if upstream adopted the contract
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                    encoding="utf-8")
    messages = [m for _, i, m in run_replay(root)["problems"] if i == row["id"]]
    assert any("template-special-spans" in m and "no longer shows" in m for m in messages)


def test_hand_edited_mistral_values_fail_naming_the_row(tmp_path: Path) -> None:
    """A changed id, decode text or span in the packed rows of mistral_v0_1.json, and a
    malformed packed value: each fails naming its row (corpus entry id), nothing else."""
    needs_built_fixtures()
    root = _copy_repo_oracles(tmp_path)
    path = root / "oracles" / "mistral_v0_1.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = {row["id"]: row for row in data["cases"] if row["kind"] == "encode"}
    id_edit, decode_edit, span_edit, malformed = sorted(rows)[:4]
    ids = rows[id_edit]["upstream"]["encode"]["ids"].split()
    ids[1] = str(int(ids[1]) + 1)
    rows[id_edit]["upstream"]["encode"]["ids"] = " ".join(ids)
    rows[decode_edit]["upstream"]["decode_keep_special"]["text"] += " "
    spans = rows[span_edit]["upstream"]["encode"]["spans"].split()
    end = int(spans[-1].split(":")[1])
    spans[-1] = f"{spans[-1].split(':')[0]}:{end + 1}"
    rows[span_edit]["upstream"]["encode"]["spans"] = " ".join(spans)
    rows[malformed]["upstream"]["encode"]["special_mask"] += "0"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                    encoding="utf-8")
    result = run_replay(root)
    assert not result["unavailable"]
    by_row: dict[str, list[str]] = {}
    for _, case_id, message in result["problems"]:
        by_row.setdefault(case_id, []).append(message)
    assert set(by_row) == {id_edit, decode_edit, span_edit, malformed}
    for case_id, messages in by_row.items():
        assert all(f"oracles/mistral_v0_1.json: case {case_id}: " in m for m in messages)
    assert any("encode" in m and "no intended class explains it" in m for m in by_row[id_edit])
    assert any("decode_keep_special" in m and "no intended class explains it" in m
               for m in by_row[decode_edit])
    assert any("tier spans" in m for m in by_row[span_edit])
    assert any("malformed packed outcome" in m for m in by_row[malformed])


def test_a_changed_fixture_fails_the_rows_using_it(tmp_path: Path) -> None:
    root = _copy_repo_oracles(tmp_path)
    fixture = root / "fixtures" / "llama_like.tokenizer.json"
    fixture.write_text(fixture.read_text(encoding="utf-8").replace('"fuse_unk": true',
                                                                   '"fuse_unk": false'),
                       encoding="utf-8")
    problems = run_replay(root)["problems"]
    assert problems
    assert all("sha256 differs" in m for f, _, m in problems if f.endswith("llama_pipeline.json"))

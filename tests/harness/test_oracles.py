"""The oracle files' format, and the regeneration workflow (``python -m harness oracles``).

Format checks (schema, canonical serialization, flags, fixtures, packed outcomes) need no
tokenizers. The workflow tests regenerate with the installed tokenizers (marked
``upstream``) on a temporary copy of the repository's oracles, never on the committed
files; a regeneration builds the real-model fixtures (mistral_v0_1.json), so they skip,
saying why, when those cannot be built here (no network for pip download).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from builders import llama_like_document, metaspace_document

from harness.core.canonical import canonical_json
from harness.core.case import Case
from harness.fixture_builders import real_models
from harness.judge.registry import load_registry
from harness.oracles import cases as oracle_cases
from harness.oracles import spec as oracle_spec
from harness.oracles.layout import PINNED_VERSION, build_fixtures, built_fixtures_of, oracle_files
from harness.oracles.packing import pack_encoded, unpack_encoded
from harness.oracles.replay import replay_file
from harness.oracles.shapes import SHAPES

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "oracles/schema/oracle.schema.json").read_text(encoding="utf-8"))
ORACLES = oracle_files(ROOT)
CLASS_IDS = {cls.id for cls in load_registry()}


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def names(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


# ---------------------------------------------------------------------------
# Format (no tokenizers)
# ---------------------------------------------------------------------------


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", ORACLES, ids=names(ORACLES))
def test_oracle_validates_against_the_schema(path: Path) -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = [f"{list(e.absolute_path)}: {e.message[:300]}"
              for e in validator.iter_errors(load(path))]
    assert not errors, "\n".join(errors[:10])


def test_the_schema_rejects_a_malformed_row() -> None:
    data = load(ROOT / "oracles/llama_pipeline.json")
    row = next(r for r in data["cases"] if r["kind"] == "encode")
    row["upstream"]["encode"]["ids"][0] = "1"
    row["extra"] = True
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(data)


@pytest.mark.parametrize("path", ORACLES, ids=names(ORACLES))
def test_oracle_is_canonical_json(path: Path) -> None:
    raw = path.read_bytes()
    assert raw.decode("utf-8") == canonical_json(json.loads(raw)), (
        f"{path.name} is not canonical (sorted keys, 2-space indent, LF, trailing newline)")
    assert b"\r" not in raw


@pytest.mark.parametrize("path", ORACLES, ids=names(ORACLES))
def test_oracle_header_stamps_the_environment(path: Path) -> None:
    data = load(path)
    header = data["header"]
    assert header["tokenizers"] == PINNED_VERSION
    assert re.fullmatch(r"3\.\d+\.\d+.*", header["python"])
    assert re.fullmatch(r"\d+\.\d+\.\d+", header["unicode"])
    assert header["generator"] == f"nox -s oracles -- --reference {PINNED_VERSION} --accept"
    used = {e["fixture"]: e["sha256"] for e in data["tokenizers"].values() if "fixture" in e}
    assert header["fixtures"] == used
    for fixture, sha in used.items():
        assert hashlib.sha256((ROOT / fixture).read_bytes()).hexdigest() == sha, fixture
    built = {e["built_fixture"]: e["sha256"] for e in data["tokenizers"].values()
             if "built_fixture" in e}
    assert header.get("built_fixtures", {}) == built
    # the hash harness/fixture_builders/real_models.py verifies builds by
    for name, sha in built.items():
        assert real_models.SPECS[name].output_sha256 == sha, name


@pytest.mark.parametrize("path", ORACLES, ids=names(ORACLES))
def test_case_ids_are_unique_and_flags_declared_once(path: Path) -> None:
    data = load(path)
    ids = [row["id"] for row in data["cases"]]
    assert len(ids) == len(set(ids))
    used = {flag for row in data["cases"] for flag in row["flags"]}
    assert used == set(data["flags"]), "every flag used is declared, every declared one used"
    for row in data["cases"]:
        if row["kind"] == "witness":
            assert row["class"] in row["flags"], row["id"]
            assert set(row["flags"]) <= CLASS_IDS, row["id"]
        else:
            assert row["tokenizer"] in data["tokenizers"], row["id"]


@pytest.mark.parametrize("path", ORACLES, ids=names(ORACLES))
def test_every_tokenizer_has_one_load_row(path: Path) -> None:
    data = load(path)
    loads = [row["tokenizer"] for row in data["cases"] if row["kind"] == "load"]
    assert sorted(loads) == sorted(data["tokenizers"])


def test_class_flags_are_registry_classes() -> None:
    assert set(oracle_spec.CLASS_FLAGS) <= CLASS_IDS
    assert not set(oracle_spec.RULE_FLAGS) & CLASS_IDS


def test_pinned_version_is_the_projects_pin() -> None:
    """The pin is declared once (pyproject's harness extra); noxfile.py reads it there."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = [r for r in pyproject["project"]["optional-dependencies"]["harness"]
            if r.startswith("tokenizers")]
    assert pins == [f"tokenizers=={PINNED_VERSION}"]
    declared = re.compile(r"tokenizers\s*==\s*[0-9]|[\"']" + re.escape(PINNED_VERSION) + r"[\"']")
    readers = {ROOT / "harness" / "core" / "pins.py"}  # reads the pin from pyproject.toml
    for path in {ROOT / "noxfile.py", *(ROOT / "harness").rglob("*.py")} - readers:
        assert not declared.search(path.read_text(encoding="utf-8")), path


@pytest.mark.parametrize("fixture", sorted(oracle_cases.FIXTURES))
def test_fixture_file_is_its_builders_output(fixture: str) -> None:
    text = (ROOT / fixture).read_text(encoding="utf-8")
    assert text == canonical_json(oracle_cases.FIXTURES[fixture]())


def test_llama_fixture_is_the_a1_probe() -> None:
    assert load(ROOT / oracle_cases.LLAMA_FIXTURE) == json.loads(
        json.dumps(llama_like_document()))


@pytest.mark.parametrize("scheme", oracle_cases.SCHEMES)
@pytest.mark.parametrize("split", oracle_cases.SPLITS)
def test_metaspace_fixtures_cover_every_scheme_and_split(scheme: str, split: bool) -> None:
    fixture = load(ROOT / oracle_cases.metaspace_fixture(scheme, split))
    assert fixture["pre_tokenizer"] == {"type": "Metaspace", "replacement": "▁",
                                        "prepend_scheme": scheme, "split": split}
    assert fixture == json.loads(json.dumps(metaspace_document(scheme, split)))


def test_mistral_oracle_has_one_row_per_corpus_text() -> None:
    data = load(ROOT / "oracles/mistral_v0_1.json")
    assert data["tokenizers"] == {"mistral-v0.1": {
        "built_fixture": "mistral-v0.1", "sha256": real_models.SPECS["mistral-v0.1"].output_sha256,
        "comment": "python -m harness.fixture_builders.real_models mistral-v0.1 builds it"}}
    assert data["header"]["inputs"] == oracle_cases.REAL_CORPUS
    load_row, *rows = data["cases"]
    assert load_row["id"] == "mistral-v0.1-load"
    assert load_row["upstream"] == {"load": {"outcome": "loaded"}}
    corpus = json.loads((ROOT / oracle_cases.REAL_CORPUS).read_text(encoding="utf-8"))
    assert [(r["id"], r["input"]["text"]) for r in rows] == [
        (e["id"], e["text"]) for e in corpus]
    for row in rows:
        assert row["kind"] == "encode"
        assert row["input"]["add_special_tokens"] is True and row["input"]["pair"] is None
        assert row["flags"] == ["real-model-corpus", "template-special-spans"]
        encode = row["upstream"]["encode"]
        assert encode["outcome"] == "encoded" and isinstance(encode["ids"], str)
        assert "tokens" not in encode  # every token is the vocabulary string of its id
        assert encode["ids"].split()[0] == "1" and encode["special_mask"][0] == "1"  # BOS
        assert {"decode_skip_special", "decode_keep_special"} <= set(row["upstream"])


TOKENS_OF = {1: "<s>", 5: "▁a", 6: "b", 7: "<0x0A>"}
PLAIN: dict[str, Any] = {"outcome": "encoded", "ids": [1, 5, 6, 7],
                         "tokens": ["<s>", "▁a", "b", "<0x0A>"],
                         "spans": [[0, 0], [0, 1], [1, 2], [2, 3]], "special_mask": [1, 0, 0, 0]}


def test_packed_outcomes_round_trip_and_derive_tokens() -> None:
    packed = pack_encoded(PLAIN, TOKENS_OF)
    assert packed == {"outcome": "encoded", "ids": "1 5 6 7", "spans": "0:0 0:1 1:2 2:3",
                      "special_mask": "1000"}
    assert unpack_encoded(packed, TOKENS_OF) == PLAIN
    # Tokens that are not the vocabulary strings of the ids are kept, whole.
    odd = {**PLAIN, "tokens": ["<s>", "a", "b", "<0x0A>"]}
    assert pack_encoded(odd, TOKENS_OF)["tokens"] == odd["tokens"]
    assert unpack_encoded(pack_encoded(odd, TOKENS_OF), TOKENS_OF) == odd
    empty = {"outcome": "encoded", "ids": [], "tokens": [], "spans": [], "special_mask": []}
    assert unpack_encoded(pack_encoded(empty, {}), {}) == empty
    refused = {"outcome": "refused", "rule": "r", "message": "m", "path": ""}
    assert pack_encoded(refused, {}) == refused == unpack_encoded(refused, {})
    outcome_schema = {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/encodeOutcome"}
    assert jsonschema.Draft202012Validator(outcome_schema).is_valid(packed)
    assert not jsonschema.Draft202012Validator(outcome_schema).is_valid(
        {**packed, "ids": "1 5  6 7"})


@pytest.mark.parametrize(("change", "message"), [
    ({"ids": "1 5 6"}, "3 ids, 4 spans and 4 special-mask entries"),
    ({"ids": "1 5  6 7"}, "ids is not a packed ids string"),
    ({"ids": "1 05 6 7"}, "ids is not a packed ids string"),
    ({"spans": "0:0 0:1 1:2 2-3"}, "spans is not a packed spans string"),
    ({"special_mask": "1002"}, "special_mask is not a packed special_mask string"),
    ({"ids": "1 5 6 8"}, "id 8 names no token"),
    ({"tokens": ["<s>", "▁a", "b", "<0x0A>"]}, "not in the canonical packed form"),
    ({"extra": 1}, "unknown keys ['extra']"),
])
def test_malformed_packed_outcomes_are_refused(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        unpack_encoded({**pack_encoded(PLAIN, TOKENS_OF), **change}, TOKENS_OF)


def test_byte_fallback_oracle_pins_what_the_decision_lists() -> None:
    data = load(ROOT / "oracles/bpe_byte_fallback.json")
    flags = {flag for row in data["cases"] for flag in row["flags"]}
    for fact in ("bf-fact-1-code-point", "bf-fact-2-all-or-nothing", "bf-fact-3-uppercase",
                 "bf-fact-4-before-merges", "bf-fact-5-decorated", "bf-fact-6-no-fuse"):
        assert fact in flags
    ids = {row["id"] for row in data["cases"]}
    for width in ("ascii", "e-acute", "cjk", "emoji", "control"):
        assert {f"bf-width-{width}-fuse-off", f"bf-width-{width}-fuse-on"} <= ids
    encodes = [row for row in data["cases"] if row["kind"] == "encode"]
    assert all("decode_skip_special" in row["upstream"] for row in encodes)
    runs = [row for row in data["cases"] if row["kind"] == "decode"]
    cut = [row for row in runs if "bf-decode-cut-mid-character" in row["flags"]]
    assert cut and all(
        "\ufffd" in row["upstream"]["decode_skip_special"]["text"] for row in cut)
    # one U+FFFD per byte of a run cut mid-character: <0xF0> <0x9F> gives two
    emoji_cut = next(row for row in runs if row["id"] == "bf-run-bytefallback-f0-9f-cut-emoji")
    assert emoji_cut["upstream"]["decode_skip_special"]["text"] == "\ufffd\ufffd"


# ---------------------------------------------------------------------------
# The workflow (needs tokenizers)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def built_fixtures() -> None:
    """Every built fixture the committed oracles name (a regeneration builds them):
    skip, saying why, when one cannot be built here."""
    names = [n for path in ORACLES for n in built_fixtures_of(load(path))]
    reason = build_fixtures(names)
    if reason is not None:
        pytest.skip(reason)


def copy_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "oracles", root / "oracles")
    shutil.copytree(ROOT / "fixtures", root / "fixtures", ignore=shutil.ignore_patterns("corpus"))
    return root


def run_cli(*args: str) -> int:
    from harness.__main__ import main

    return main(["oracles", *args])


def edit_json(path: Path, change: Any) -> None:
    data = load(path)
    change(data)
    path.write_text(canonical_json(data), encoding="utf-8")


def installed_is_pinned() -> bool:
    try:
        from harness.subjects import upstream
    except ImportError:
        return False
    return upstream.version() == PINNED_VERSION


pinned = pytest.mark.skipif("not installed_is_pinned()",
                            reason=f"needs tokenizers=={PINNED_VERSION}")


@pytest.mark.upstream
@pinned
def test_regeneration_is_byte_identical_and_check_passes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], built_fixtures: None) -> None:
    from harness.oracles.generation import generate_all

    first, second = generate_all(ROOT), generate_all(ROOT)
    assert first.files == second.files
    for rel, text in first.files.items():
        assert (ROOT / rel).read_text(encoding="utf-8") == text, f"{rel} is stale"
    root = copy_repo(tmp_path)
    assert run_cli("--check", "--root", str(root)) == 0
    assert "up to date" in capsys.readouterr().out


@pytest.mark.upstream
@pinned
def test_check_names_the_case_id_of_a_hand_changed_value(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], built_fixtures: None) -> None:
    root = copy_repo(tmp_path)
    path = root / "oracles/bpe_byte_fallback.json"

    def change(data: dict[str, Any]) -> None:
        row = next(r for r in data["cases"] if r["id"] == "bf-fact-2-all-or-nothing-e-acute")
        row["upstream"]["encode"]["spans"] = [[0, 2]]

    edit_json(path, change)
    assert run_cli("--check", "--root", str(root)) == 1
    out = capsys.readouterr().out
    assert "case bf-fact-2-all-or-nothing-e-acute: differs in upstream" in out
    assert out.count("STALE") == 1


@pytest.mark.upstream
@pinned
def test_check_names_the_row_id_of_a_hand_changed_mistral_value(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], built_fixtures: None) -> None:
    root = copy_repo(tmp_path)
    path = root / "oracles/mistral_v0_1.json"
    row_id = "code-015e25cd76ae"

    def change(data: dict[str, Any]) -> None:
        row = next(r for r in data["cases"] if r["id"] == row_id)
        row["upstream"]["decode_skip_special"]["text"] += "!"

    edit_json(path, change)
    assert run_cli("--check", "--root", str(root)) == 1
    out = capsys.readouterr().out
    assert f"oracles/mistral_v0_1.json: case {row_id}: differs in upstream" in out
    assert out.count("STALE") == 1


@pytest.mark.upstream
@pinned
def test_check_fails_on_a_non_canonical_or_missing_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], built_fixtures: None) -> None:
    root = copy_repo(tmp_path)
    path = root / "oracles/llama_pipeline.json"
    path.write_text(json.dumps(load(path), ensure_ascii=False), encoding="utf-8")
    (root / "oracles/metaspace_pipeline.json").unlink()
    assert run_cli("--check", "--root", str(root)) == 1
    out = capsys.readouterr().out
    assert "llama_pipeline.json: same content, not in canonical form" in out
    assert "metaspace_pipeline.json: missing" in out


@pytest.mark.upstream
def test_reference_must_be_the_installed_version(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.subjects.tokenizers_version import index

    # a published version (the package index mocked: no network in tests) that is not
    # the installed one: one line saying how to run it
    monkeypatch.setattr(index, "check", lambda version: version)
    assert run_cli("--reference", "0.0.1", "--check") == 2
    assert "nox -s oracles -- --reference 0.0.1" in capsys.readouterr().err
    # one the index does not have: its one line, exit 2

    def unpublished(version: str) -> str:
        raise index.VersionError(f"tokenizers {version} is not on the package index "
                                 "(nearest: 0.23.3)")

    monkeypatch.setattr(index, "check", unpublished)
    assert run_cli("--reference", "9.9.9") == 2
    assert capsys.readouterr().err.strip() == ("tokenizers 9.9.9 is not on the package "
                                               "index (nearest: 0.23.3)")


@pytest.mark.upstream
@pinned
def test_drift_is_reported_and_nothing_is_written_without_accept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], built_fixtures: None) -> None:
    """Simulate an upstream change: the committed copy holds values an 'older' library
    gave; a regeneration finds the row changed, the acceptance changed and the class
    that stopped diverging, and leaves the oracles alone unless --accept."""
    from harness.core.canonical import read_yaml

    root = copy_repo(tmp_path)
    llama = root / "oracles/llama_pipeline.json"
    panics = root / "oracles/upstream_panics.json"

    def older_llama(data: dict[str, Any]) -> None:
        data["header"]["tokenizers"] = "0.0.9"
        row = next(r for r in data["cases"] if r["id"] == "llama-hello-world")
        row["upstream"]["decode_skip_special"]["text"] = "Hello  world"

    def older_panics(data: dict[str, Any]) -> None:
        data["header"]["tokenizers"] = "0.0.9"
        row = next(r for r in data["cases"] if r["id"] == "panic-merge-result-too-long-load")
        row["upstream"]["load"] = {"outcome": "loaded"}

    edit_json(llama, older_llama)
    edit_json(panics, older_panics)
    for path in sorted((root / "oracles").glob("*.json")):
        if path not in (llama, panics):
            edit_json(path, lambda d: d["header"].update(tokenizers="0.0.9"))
    before = {p: p.read_bytes() for p in (root / "oracles").glob("*.json")}

    assert run_cli("--root", str(root)) == 1
    out = capsys.readouterr().out
    assert f"tokenizers 0.0.9 -> {PINNED_VERSION}: drift" in out
    assert {p: p.read_bytes() for p in (root / "oracles").glob("*.json")} == before
    report = read_yaml(root / f"reports/oracle-drift-0.0.9-to-{PINNED_VERSION}.yaml")
    assert report["verdict"] == "drift"
    changed = {row["id"]: row for row in report["rows_changed"]}
    assert set(changed) == {"llama-hello-world"}
    assert changed["llama-hello-world"]["changes"]["decode_skip_special"] == {
        "before": {"outcome": "decoded", "text": "Hello  world"},
        "after": {"outcome": "decoded", "text": "Hello world"}}
    assert [a["id"] for a in report["acceptance_changed"]] == [
        "panic-merge-result-too-long-load"]
    assert report["acceptance_changed"][0]["change"] == "loaded -> crashed"
    assert report["stale_intended_classes"] == []
    assert report["new_divergences"] == []
    assert (root / f"reports/oracle-drift-0.0.9-to-{PINNED_VERSION}.yaml").read_text(
        encoding="utf-8").startswith("# Oracle drift report")

    assert run_cli("--root", str(root), "--accept") == 0
    assert run_cli("--check", "--root", str(root)) == 0


@pytest.mark.upstream
@pinned
def test_drift_names_a_class_that_stopped_diverging(tmp_path: Path,
                                                    built_fixtures: None) -> None:
    """A committed row that (as if generated by an older library) already agreed with the
    reference where its class says it should not, against a regeneration that diverges:
    the reverse direction is a new divergence; here the committed side is edited so the
    *regenerated* row is compared with a reference that no longer shows the class."""
    from harness.oracles.drift import drift
    from harness.oracles.generation import Generated, generate_all

    root = copy_repo(tmp_path)
    generated = generate_all(root)
    rel = "oracles/llama_pipeline.json"
    data = json.loads(generated.files[rel])
    row = next(r for r in data["cases"] if r["id"] == "llama-hello-world")
    row["upstream"]["encode"]["spans"][0] = [-1, -1]  # "upstream adopted the contract"
    regenerated = Generated(generated.version, {**generated.files, rel: canonical_json(data)})
    report = drift(root, regenerated)
    assert report.verdict == "drift"
    assert [(s.id, s.class_id) for s in report.stale_intended_classes] == [
        ("llama-hello-world", "template-special-spans")]
    assert [c.id for c in report.rows_changed] == ["llama-hello-world"]


# ---------------------------------------------------------------------------
# Witness adoption (divergences.json) from a small synthetic conformance report
# ---------------------------------------------------------------------------


def synthetic_report(path: Path) -> None:
    """A complete report (the Markdown tests' passing one) with hand-made class witnesses."""
    from harness.report.files import read_report, write_report
    from harness.report.model import ClassEntry, WitnessRecord

    llama = llama_like_document()
    partial = json.loads(json.dumps(llama))
    del partial["model"]["vocab"]["<0x00>"]

    def entry(class_id: str, witness: WitnessRecord | None) -> ClassEntry:
        return ClassEntry(id=class_id, kind="contract", title="", decision="", upstream=[],
                          why="", observed=1 if witness else 0, reproduce="",
                          witness=witness)

    report = read_report(ROOT / "tests" / "data" / "markdown" / "without-failure.yaml")
    report.header.command = "python -m harness conformance --profile dev --seed 7"
    report.classes = [
        entry("template-special-spans", WitnessRecord(
            shrunk=True, classes=["template-special-spans"], tier="spans",
            detail="position 0", track="strict", operation="encode", case_size=0,
            input="Hello world", options={"add_special_tokens": True},
            reference={}, upstream={},
            case=Case(llama, texts=("é", "Hello world"), id_runs=((1, 2),)).to_json())),
        entry("strict-byte-alphabet-incomplete", WitnessRecord(
            shrunk=False, classes=["strict-byte-alphabet-incomplete"], tier="load",
            detail="", track="strict", operation="load", input=None, case_size=0,
            options={}, reference={}, upstream={},
            case=Case(partial, texts=("Hello",)).to_json())),
        entry("not-a-registered-class", WitnessRecord(
            shrunk=False, classes=[], tier="load", detail="", track="strict", case_size=0,
            operation="load", input=None, options={}, reference={}, upstream={},
            case=Case(llama).to_json())),
        entry("strict-duplicate-id", None),
    ]
    write_report(report, path)


@pytest.mark.upstream
@pinned
def test_adopted_witnesses_are_minimal_deterministic_and_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], built_fixtures: None) -> None:
    from harness.oracles.generation import generate_all
    from harness.oracles.witnesses import regenerate_witnesses
    from harness.runs.pinned import check_pinned_witnesses

    root = copy_repo(tmp_path)
    (root / "oracles/divergences.json").unlink(missing_ok=True)
    report = tmp_path / "conformance.yaml"
    synthetic_report(report)
    assert run_cli("--adopt-witnesses", str(report), "--root", str(root)) == 0
    out = capsys.readouterr().out
    assert "adopted template-special-spans" in out
    assert "skipped not-a-registered-class" in out

    target = root / "oracles/divergences.json"
    data = load(target)
    rows = {row["class"]: row for row in data["cases"] if "shape" not in row}
    assert set(rows) == {"template-special-spans", "strict-byte-alphabet-incomplete"}
    assert {row["id"] for row in data["cases"] if "shape" in row} == {
        shape.row_id for shape in SHAPES}
    spans = rows["template-special-spans"]
    assert spans["id"] == "div-template-special-spans"
    assert spans["case"]["texts"] == ["Hello world"]  # cut down to the witness input
    assert spans["case"]["id_runs"] == []
    assert spans["tier"] == "spans"
    assert spans["upstream"]["spans"][0] == [0, 0]
    assert spans["reference"]["spans"][0] == [-1, -1]
    assert spans["source"] == {"report": str(report), "shrunk": True,
                               "command": "python -m harness conformance --profile dev --seed 7"}
    load_row = rows["strict-byte-alphabet-incomplete"]
    assert load_row["case"]["texts"] == []
    assert load_row["reference"]["rule"] == "byte-alphabet-incomplete"
    assert load_row["upstream"] == {"outcome": "loaded"}

    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert target.read_text(encoding="utf-8") == canonical_json(data)
    # Regeneration re-runs the pinned cases only: byte-identical, twice.
    assert regenerate_witnesses(data, PINNED_VERSION) == data
    assert generate_all(root).files["oracles/divergences.json"] == target.read_text(
        encoding="utf-8")
    assert replay_file(data, root) == []
    assert check_pinned_witnesses(target) == []

    # A hand-edited upstream value: the replay names the witness.
    spans["upstream"]["spans"][0] = [0, 3]
    problems = replay_file(data, root)
    assert {p.case_id for p in problems} == {"div-template-special-spans"}
    assert all("div-template-special-spans" in str(p) for p in problems)


@pytest.mark.upstream
@pinned
def test_a_witness_that_stops_diverging_is_stale_everywhere(
        tmp_path: Path, built_fixtures: None) -> None:
    """A pinned witness whose case no longer shows its class is kept (with the outcomes
    seen now and no class): the replay, every conformance run (check_pinned_witnesses)
    and the drift report name it."""
    from harness.oracles.drift import drift
    from harness.oracles.generation import Generated, generate_all
    from harness.oracles.witnesses import regenerate_witnesses
    from harness.runs.pinned import Stale, check_pinned_witnesses

    root = copy_repo(tmp_path)
    (root / "oracles/divergences.json").unlink(missing_ok=True)
    report = tmp_path / "conformance.yaml"
    synthetic_report(report)
    assert run_cli("--adopt-witnesses", str(report), "--root", str(root)) == 0
    target = root / "oracles/divergences.json"
    sound = load(target)
    sound_text = target.read_text(encoding="utf-8")
    witness = "div-template-special-spans"

    # 1. Regeneration: a case that no longer diverges (no BOS left) is kept, stale.
    broken = json.loads(sound_text)
    row = next(r for r in broken["cases"] if r["id"] == witness)
    row["case"]["document"]["post_processor"] = None
    stale = regenerate_witnesses(broken, PINNED_VERSION)
    stale_row = next(r for r in stale["cases"] if r["id"] == witness)
    assert stale_row["classes"] == [] and stale_row["tier"] is None
    assert stale_row["upstream"]["outcome"] == "encoded"
    assert [(p.case_id, p.kind) for p in replay_file(stale, root)] == [
        (witness, "not-observed")]
    target.write_text(canonical_json(broken), encoding="utf-8")
    assert check_pinned_witnesses(target) == [
        Stale(id=witness, class_id="template-special-spans", now=())]
    assert json.loads(generate_all(root).files["oracles/divergences.json"]) == stale

    # 2. Drift: the committed witness is sound; "a new upstream" agrees with the reference.
    target.write_text(sound_text, encoding="utf-8")
    generated = generate_all(root)
    assert generated.files["oracles/divergences.json"] == sound_text
    fixed = json.loads(sound_text)
    fixed_row = next(r for r in fixed["cases"] if r["id"] == witness)
    fixed_row.update(upstream=fixed_row["reference"], classes=[], tier=None)
    assert sound != fixed
    regenerated = Generated(generated.version, {
        **generated.files, "oracles/divergences.json": canonical_json(fixed)})
    result = drift(root, regenerated)
    assert [s.id for s in result.stale_intended_classes] == [witness]
    assert [c.id for c in result.rows_changed] == [witness]
    assert result.verdict == "drift"


# ---------------------------------------------------------------------------
# Shapes: one pinned witness per distinct way a class shows
# ---------------------------------------------------------------------------


def test_every_declared_shape_is_pinned_and_names_a_class() -> None:
    rows = {row["id"]: row for row in load(ROOT / "oracles/divergences.json")["cases"]}
    for shape in SHAPES:
        row = rows[shape.row_id]
        assert shape.class_id in CLASS_IDS
        assert (row["class"], row["shape"], row["why"]) == (shape.class_id, shape.name, shape.why)
        assert shape.class_id in row["classes"], f"{shape.row_id} no longer shows its class"
    assert len({s.row_id for s in SHAPES}) == len(SHAPES)


@pytest.mark.upstream
@pinned
def test_a_reference_accepting_a_step_after_strip_stales_that_shape(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The adopted decoder-shape witness has no decoder at all; the shape rows pin the
    other ways the founding rule refuses, so relaxing one of them is seen."""
    from harness.runs.pinned import check_pinned_witnesses
    from implementation import decoders

    assert check_pinned_witnesses() == []
    strict_check = decoders.check_byte_fallback_shape

    def accepts_extra_steps(node: Any) -> None:
        if not node.is_null and node.type_tag() == "Sequence":
            tags = [step.type_tag() for step in node.field("decoders").elements()]
            if tuple(tags[:4]) == decoders.BYTE_FALLBACK_CHAIN:
                return
        strict_check(node)

    monkeypatch.setattr(decoders, "check_byte_fallback_shape", accepts_extra_steps)
    stale = check_pinned_witnesses()
    assert [s.id for s in stale] == ["div-strict-decoder-shape.extra-step-after-strip"]

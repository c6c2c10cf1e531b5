"""A small reader for SentencePiece ``.model`` files (protobuf wire format).

Only the parts of ``sentencepiece_model.proto`` the fixture build needs are decoded:

* ``ModelProto``: ``pieces`` (1, repeated ``SentencePiece``), ``trainer_spec`` (2),
  ``normalizer_spec`` (3). ``self_test_data`` (4) and ``denormalizer_spec`` (5) are skipped.
* ``SentencePiece``: ``piece`` (1, string), ``score`` (2, float), ``type`` (3, enum,
  default ``NORMAL``).
* ``TrainerSpec``: ``model_type`` (3), ``vocab_size`` (4), ``split_digits`` (25),
  ``byte_fallback`` (35), ``unk_id``/``bos_id``/``eos_id``/``pad_id`` (40..43) and
  ``unk_piece``/``bos_piece``/``eos_piece``/``pad_piece`` (45..48).
* ``NormalizerSpec``: ``name`` (1), ``precompiled_charsmap`` (2), ``add_dummy_prefix`` (3),
  ``remove_extra_whitespaces`` (4), ``escape_whitespaces`` (5).

Defaults follow the proto2 declarations of sentencepiece. Unknown fields are skipped
(including groups). Malformed input raises :class:`ProtobufError`.

This module depends on the standard library only: it does not use the ``sentencepiece`` or
``protobuf`` packages.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "ModelProto",
    "ModelType",
    "NormalizerSpec",
    "PieceType",
    "ProtobufError",
    "SentencePiece",
    "TrainerSpec",
    "WireType",
    "iter_fields",
    "load_model",
    "parse_model",
    "read_varint",
]


class ProtobufError(ValueError):
    """The bytes are not a well-formed protobuf message of the expected shape."""


class WireType(enum.IntEnum):
    VARINT = 0
    I64 = 1
    LEN = 2
    SGROUP = 3
    EGROUP = 4
    I32 = 5


class PieceType(enum.IntEnum):
    """``SentencePiece.Type`` from sentencepiece_model.proto."""

    NORMAL = 1
    UNKNOWN = 2
    CONTROL = 3
    USER_DEFINED = 4
    UNUSED = 5
    BYTE = 6


class ModelType(enum.IntEnum):
    """``TrainerSpec.ModelType`` from sentencepiece_model.proto."""

    UNIGRAM = 1
    BPE = 2
    WORD = 3
    CHAR = 4


FieldValue = int | bytes


@dataclass(frozen=True, slots=True)
class SentencePiece:
    piece: str
    score: float = 0.0
    type: int = int(PieceType.NORMAL)


@dataclass(frozen=True, slots=True)
class TrainerSpec:
    model_type: int = int(ModelType.UNIGRAM)
    vocab_size: int = 8000
    split_digits: bool = False
    byte_fallback: bool = False
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1
    unk_piece: str = "<unk>"
    bos_piece: str = "<s>"
    eos_piece: str = "</s>"
    pad_piece: str = "<pad>"


@dataclass(frozen=True, slots=True)
class NormalizerSpec:
    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True


@dataclass(frozen=True, slots=True)
class ModelProto:
    pieces: tuple[SentencePiece, ...] = ()
    trainer_spec: TrainerSpec = field(default_factory=TrainerSpec)
    normalizer_spec: NormalizerSpec = field(default_factory=NormalizerSpec)
    has_trainer_spec: bool = False
    has_normalizer_spec: bool = False


# ---------------------------------------------------------------------------
# Wire format
# ---------------------------------------------------------------------------

_MAX_VARINT_BYTES = 10
_U64 = 1 << 64


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """Decode a base-128 varint at ``pos``; return ``(value, next_pos)`` (value unsigned)."""
    result = 0
    shift = 0
    for i in range(_MAX_VARINT_BYTES):
        if pos + i >= len(data):
            raise ProtobufError(f"truncated varint at offset {pos}")
        byte = data[pos + i]
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            if result >= _U64:
                raise ProtobufError(f"varint at offset {pos} exceeds 64 bits")
            return result, pos + i + 1
        shift += 7
    raise ProtobufError(f"varint at offset {pos} is longer than {_MAX_VARINT_BYTES} bytes")


def _skip_group(data: bytes, pos: int, field_number: int) -> int:
    """Skip a (deprecated) group whose start tag has been consumed; return the next pos."""
    while True:
        if pos >= len(data):
            raise ProtobufError(f"unterminated group for field {field_number}")
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == WireType.EGROUP:
            if number != field_number:
                raise ProtobufError(
                    f"group end for field {number} does not match start field {field_number}"
                )
            return pos
        _, pos = _read_value(data, pos, number, wire)


def _read_value(data: bytes, pos: int, number: int, wire: int) -> tuple[FieldValue, int]:
    if wire == WireType.VARINT:
        return read_varint(data, pos)
    if wire == WireType.I64:
        if pos + 8 > len(data):
            raise ProtobufError(f"truncated 64-bit value for field {number} at offset {pos}")
        return int.from_bytes(data[pos : pos + 8], "little"), pos + 8
    if wire == WireType.I32:
        if pos + 4 > len(data):
            raise ProtobufError(f"truncated 32-bit value for field {number} at offset {pos}")
        return int.from_bytes(data[pos : pos + 4], "little"), pos + 4
    if wire == WireType.LEN:
        length, pos = read_varint(data, pos)
        end = pos + length
        if end > len(data):
            raise ProtobufError(
                f"length-delimited field {number} at offset {pos} runs past the end "
                f"({length} bytes, {len(data) - pos} available)"
            )
        return data[pos:end], end
    if wire == WireType.SGROUP:
        end = _skip_group(data, pos, number)
        return data[pos:end], end
    raise ProtobufError(f"unexpected wire type {wire} for field {number} at offset {pos}")


def iter_fields(data: bytes) -> Iterator[tuple[int, int, FieldValue]]:
    """Yield ``(field_number, wire_type, value)`` for each field of one message.

    Varint, 32-bit and 64-bit values are yielded as unsigned ints (raw bits for the fixed
    sizes); length-delimited values as bytes; groups as their raw bytes.
    """
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ProtobufError(f"field number 0 at offset {pos}")
        if wire == WireType.EGROUP:
            raise ProtobufError(f"unmatched group end for field {number} at offset {pos}")
        value, pos = _read_value(data, pos, number, wire)
        yield number, wire, value


# ---------------------------------------------------------------------------
# Typed accessors
# ---------------------------------------------------------------------------


def _expect(number: int, wire: int, expected: WireType, what: str) -> None:
    if wire != expected:
        raise ProtobufError(
            f"{what} (field {number}) has wire type {wire}, expected {expected.name}"
        )


def _as_int(value: FieldValue) -> int:
    assert isinstance(value, int)
    return value


def _as_bytes(value: FieldValue) -> bytes:
    assert isinstance(value, bytes)
    return value


def _int32(value: FieldValue) -> int:
    """Interpret a varint as a protobuf int32/enum (negative values use 10 bytes)."""
    v = _as_int(value) & 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def _string(value: FieldValue, what: str) -> str:
    try:
        return _as_bytes(value).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtobufError(f"{what} is not valid UTF-8: {exc}") from exc


def _float32(value: FieldValue) -> float:
    (result,) = struct.unpack("<f", _as_int(value).to_bytes(4, "little"))
    return float(result)


def _parse_piece(data: bytes) -> SentencePiece:
    piece: str | None = None
    score = 0.0
    ptype: int = int(PieceType.NORMAL)
    for number, wire, value in iter_fields(data):
        if number == 1:
            _expect(number, wire, WireType.LEN, "SentencePiece.piece")
            piece = _string(value, "SentencePiece.piece")
        elif number == 2:
            _expect(number, wire, WireType.I32, "SentencePiece.score")
            score = _float32(value)
        elif number == 3:
            _expect(number, wire, WireType.VARINT, "SentencePiece.type")
            ptype = _int32(value)
    if piece is None:
        raise ProtobufError("SentencePiece without a piece string")
    return SentencePiece(piece=piece, score=score, type=ptype)


def _parse_trainer_spec(data: bytes) -> TrainerSpec:
    ints: dict[str, int] = {}
    bools: dict[str, bool] = {}
    strs: dict[str, str] = {}
    int_fields = {
        3: "model_type",
        4: "vocab_size",
        40: "unk_id",
        41: "bos_id",
        42: "eos_id",
        43: "pad_id",
    }
    bool_fields = {25: "split_digits", 35: "byte_fallback"}
    str_fields = {45: "unk_piece", 46: "bos_piece", 47: "eos_piece", 48: "pad_piece"}
    for number, wire, value in iter_fields(data):
        if number in int_fields:
            name = int_fields[number]
            _expect(number, wire, WireType.VARINT, f"TrainerSpec.{name}")
            ints[name] = _int32(value)
        elif number in bool_fields:
            name = bool_fields[number]
            _expect(number, wire, WireType.VARINT, f"TrainerSpec.{name}")
            bools[name] = _as_int(value) != 0
        elif number in str_fields:
            name = str_fields[number]
            _expect(number, wire, WireType.LEN, f"TrainerSpec.{name}")
            strs[name] = _string(value, f"TrainerSpec.{name}")
    defaults = TrainerSpec()
    return TrainerSpec(
        model_type=ints.get("model_type", defaults.model_type),
        vocab_size=ints.get("vocab_size", defaults.vocab_size),
        split_digits=bools.get("split_digits", defaults.split_digits),
        byte_fallback=bools.get("byte_fallback", defaults.byte_fallback),
        unk_id=ints.get("unk_id", defaults.unk_id),
        bos_id=ints.get("bos_id", defaults.bos_id),
        eos_id=ints.get("eos_id", defaults.eos_id),
        pad_id=ints.get("pad_id", defaults.pad_id),
        unk_piece=strs.get("unk_piece", defaults.unk_piece),
        bos_piece=strs.get("bos_piece", defaults.bos_piece),
        eos_piece=strs.get("eos_piece", defaults.eos_piece),
        pad_piece=strs.get("pad_piece", defaults.pad_piece),
    )


def _parse_normalizer_spec(data: bytes) -> NormalizerSpec:
    defaults = NormalizerSpec()
    name = defaults.name
    charsmap = defaults.precompiled_charsmap
    flags = {
        "add_dummy_prefix": defaults.add_dummy_prefix,
        "remove_extra_whitespaces": defaults.remove_extra_whitespaces,
        "escape_whitespaces": defaults.escape_whitespaces,
    }
    flag_fields = {3: "add_dummy_prefix", 4: "remove_extra_whitespaces", 5: "escape_whitespaces"}
    for number, wire, value in iter_fields(data):
        if number == 1:
            _expect(number, wire, WireType.LEN, "NormalizerSpec.name")
            name = _string(value, "NormalizerSpec.name")
        elif number == 2:
            _expect(number, wire, WireType.LEN, "NormalizerSpec.precompiled_charsmap")
            charsmap = _as_bytes(value)
        elif number in flag_fields:
            flag = flag_fields[number]
            _expect(number, wire, WireType.VARINT, f"NormalizerSpec.{flag}")
            flags[flag] = _as_int(value) != 0
    return NormalizerSpec(
        name=name,
        precompiled_charsmap=charsmap,
        add_dummy_prefix=flags["add_dummy_prefix"],
        remove_extra_whitespaces=flags["remove_extra_whitespaces"],
        escape_whitespaces=flags["escape_whitespaces"],
    )


def parse_model(data: bytes) -> ModelProto:
    """Parse the bytes of a SentencePiece ``.model`` file (a serialized ``ModelProto``).

    Embedded messages that occur more than once are merged field by field, as protobuf
    specifies, by concatenating their bytes before decoding.
    """
    pieces: list[SentencePiece] = []
    trainer_chunks: list[bytes] = []
    normalizer_chunks: list[bytes] = []
    for number, wire, value in iter_fields(data):
        if number == 1:
            _expect(number, wire, WireType.LEN, "ModelProto.pieces")
            pieces.append(_parse_piece(_as_bytes(value)))
        elif number == 2:
            _expect(number, wire, WireType.LEN, "ModelProto.trainer_spec")
            trainer_chunks.append(_as_bytes(value))
        elif number == 3:
            _expect(number, wire, WireType.LEN, "ModelProto.normalizer_spec")
            normalizer_chunks.append(_as_bytes(value))
    return ModelProto(
        pieces=tuple(pieces),
        trainer_spec=_parse_trainer_spec(b"".join(trainer_chunks)),
        normalizer_spec=_parse_normalizer_spec(b"".join(normalizer_chunks)),
        has_trainer_spec=bool(trainer_chunks),
        has_normalizer_spec=bool(normalizer_chunks),
    )


def load_model(path: str | Path) -> ModelProto:
    """Read and parse a SentencePiece ``.model`` file."""
    return parse_model(Path(path).read_bytes())

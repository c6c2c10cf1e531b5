"""Benchmark section ``decode``: decode throughput (ids/s) on long id sequences of the
Mistral tokenizer, with byte-fallback runs (valid UTF-8 and cut characters) between corpus
encodings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .figures import profile_top, rates, ratios, round_figure, timed
from .inputs import corpus_texts, load_pair, real_model_json
from .scales import Scale

#: Byte runs put between corpus encodings: whole characters of 2, 3 and 4 bytes, and
#: cut ones (ByteFallback turns an invalid run into one U+FFFD per byte).
DECODE_BYTE_RUNS: tuple[tuple[str, bytes], ...] = (
    ("valid", "🦜".encode()), ("valid", "ꙮ".encode()), ("valid", "ǅ".encode()),
    ("cut", "🦜".encode()[:3]), ("valid", "𝔘𝔫𝔦".encode()), ("cut", "ꙮ".encode()[1:]),
)


def decode_sequences(upstream: Any, texts: Sequence[str], count: int, length: int
                     ) -> tuple[list[list[int]], int]:
    """``count`` sequences of ``length`` ids: corpus encodings with byte runs between them
    (cycling through the corpus as often as needed); and how many ids are byte pieces."""
    byte_ids = [upstream.token_to_id(f"<0x{b:02X}>") for b in range(256)]
    stream: list[int] = []
    runs = 0
    needed = count * length
    while len(stream) < needed:
        for text in texts:
            stream.extend(upstream.encode(text, add_special_tokens=False).ids)
            _, raw = DECODE_BYTE_RUNS[runs % len(DECODE_BYTE_RUNS)]
            stream.extend(byte_ids[b] for b in raw)
            runs += 1
            if len(stream) >= needed:
                break
    sequences = [stream[i * length:(i + 1) * length] for i in range(count)]
    byte_set = set(byte_ids)
    pieces = sum(1 for seq in sequences for i in seq if i in byte_set)
    return sequences, pieces


def section_decode(scale: Scale, notes: list[str]) -> dict[str, Any]:
    document, where = real_model_json()
    if document is None:
        notes.append(f"decode: {where}")
        return {"skipped": where}
    pair = load_pair(document)
    texts = corpus_texts(scale.corpus_texts)
    sequences, pieces = decode_sequences(pair.upstream, texts, scale.decode_sequences,
                                         scale.decode_length)
    total = sum(len(s) for s in sequences)
    agree = sum(pair.reference.decode(s) == pair.upstream.decode(s) for s in sequences)
    ref_s: list[float] = []
    up_s: list[float] = []
    for _ in range(scale.repeats):
        ref_s.append(timed(lambda: [pair.reference.decode(s) for s in sequences]))
        up_s.append(timed(lambda: [pair.upstream.decode(s) for s in sequences]))
    return {
        "fixture": where,
        "what": f"{len(sequences)} sequences of {scale.decode_length} ids: the corpus' "
                "encodings (no specials) with a byte run after each text (whole 2-, 3- and "
                "4-byte characters, and cut ones); decode(ids), skip_special_tokens=True",
        "ids": total,
        "byte_piece_share": round_figure(pieces / max(total, 1), 3),
        "sequences_agree": f"{agree}/{len(sequences)}",
        "reference_ids_per_second": rates(total, ref_s),
        "upstream_ids_per_second": rates(total, up_s),
        "ratio": ratios(ref_s, up_s),
        "reference_profile": profile_top(
            lambda: [pair.reference.decode(s) for s in sequences], top=6),
    }

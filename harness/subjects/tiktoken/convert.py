"""A byte-level tokenizer.json as the parts of a ``tiktoken.Encoding`` (its Split pattern,
mergeable ranks and special tokens), or ``NotExpressibleError`` naming the rule it breaks.
Which documents convert is decision 0040 (and this folder's FINDINGS.md); the program
loads this file by path in the subject's own environment, the tests import it as
``harness.subjects.tiktoken.convert``. Standard library only.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Final

try:
    from .. import lineage
except ImportError:  # loaded by path in the subject's environment (program.py)
    import lineage  # type: ignore[no-redef,import-not-found]

require = lineage.require
NotExpressibleError = lineage.NotExpressibleError

#: The pattern of ``ByteLevel(use_regex=true)`` (GPT-2's), as upstream writes it.
GPT2_PATTERN: Final = (r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+"
                       r"|\s+(?!\S)|\s+")
#: ``ByteLevel(use_regex=false)`` alone: the whole text is one word.
WHOLE_TEXT: Final = r"[\s\S]+"
#: Split patterns that match every character of every text (tiktoken encodes the matches
#: only and drops what lies between them; upstream's Isolated keeps it): each has an
#: alternative for letters, numbers, everything else and whitespace. GPT-2's, cl100k's
#: (Llama 3's), Qwen 2's and o200k's (GPT-4o's), verbatim: fancy-regex reads them as
#: Oniguruma does (the tests check these are the generator's own spellings).
COVERING: Final = frozenset({
    GPT2_PATTERN,
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+"
    r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+"
    r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+"
    r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+"
    r"[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
})


def _byte_symbols() -> dict[str, int]:
    """GPT-2's ``bytes_to_unicode``, inverted."""
    printable = {*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)}
    others = [byte for byte in range(256) if byte not in printable]
    symbols = {chr(byte): byte for byte in printable}
    symbols.update({chr(0x100 + n): byte for n, byte in enumerate(others)})
    return symbols


SYMBOL_BYTES: Final = _byte_symbols()


@dataclass(frozen=True)
class Converted:
    pattern: str
    ranks: dict[bytes, int]
    specials: dict[str, int]
    bos: int | None
    eos: int | None
    #: ids upstream's decode skips with ``skip_special_tokens``.
    skipped: frozenset[int]
    decode_not_expressible: str | None


def _bytes_of(piece: str, where: str) -> bytes:
    try:
        return bytes([SYMBOL_BYTES[c] for c in piece])
    except KeyError:
        raise NotExpressibleError(f"{where}: {piece!r} is not over the 256 byte symbols"
                                  ) from None


def _byte_level(step: Any, *, regex: bool) -> bool:
    return (isinstance(step, dict) and step.get("type") == "ByteLevel"
            and step.get("add_prefix_space") is False and step.get("use_regex") is regex)


def _pattern(pre_tokenizer: Any) -> str:
    if _byte_level(pre_tokenizer, regex=True) or (
            isinstance(pre_tokenizer, dict) and pre_tokenizer.get("type") == "ByteLevel"
            and pre_tokenizer.get("add_prefix_space") is False
            and "use_regex" not in pre_tokenizer):
        return GPT2_PATTERN
    if _byte_level(pre_tokenizer, regex=False):
        return WHOLE_TEXT
    steps = pre_tokenizer.get("pretokenizers") if isinstance(pre_tokenizer, dict) else None
    require(isinstance(steps, list) and len(steps) == 2
            and _byte_level(steps[1], regex=False),
            "pre_tokenizer: not ByteLevel(regex, no prefix space) nor "
            "[Split, ByteLevel(no regex, no prefix space)]")
    split: Any = steps[0] if isinstance(steps, list) else None
    pattern = (split.get("pattern") or {}).get("Regex") if isinstance(split, dict) else None
    require(isinstance(split, dict) and split.get("type") == "Split"
            and split.get("behavior") == "Isolated"
            and split.get("invert") is False and pattern in COVERING,
            "pre_tokenizer: a Split other than Isolated over a pattern that covers every "
            "character (GPT-2's, cl100k's)")
    return str(pattern)


def convert(document: dict[str, Any]) -> Converted:
    """The ``Encoding`` parts of ``document``, or ``NotExpressibleError``."""
    found = document.get("model")
    require(isinstance(found, dict), "model: not an object")
    model: dict[str, Any] = found if isinstance(found, dict) else {}
    require(document.get("normalizer") is None, "normalizer: tiktoken has none")
    pattern = _pattern(document.get("pre_tokenizer"))
    ignore = bool(model.get("ignore_merges"))
    lineage.plain_bpe({**model, "ignore_merges": False})
    vocab: dict[str, int] = model.get("vocab") or {}
    require(len(set(vocab.values())) == len(vocab), "model.vocab: two pieces on one id")
    # A piece that is an added token and not over the byte symbols is never made by BPE:
    # it is a special token only.
    contents = {e.get("content") for e in document.get("added_tokens") or []}
    mergeable = {p: i for p, i in vocab.items()
                 if p not in contents or all(c in SYMBOL_BYTES for c in p)}
    spelled = {p: _bytes_of(p, "model.vocab") for p in mergeable}
    ranks = {spelled[p]: i for p, i in mergeable.items()}
    require(len(ranks) == len(mergeable), "model.vocab: two pieces of the same bytes")
    require(all(bytes([b]) in ranks for b in range(256)), "model.vocab: not every byte "
            "(tiktoken starts every word from its bytes)")
    merges: list[tuple[bytes, bytes]] = []
    for a, b in lineage.merges_of(model):
        left, right = spelled.get(a), spelled.get(b)
        if left is None or right is None or left + right not in ranks:
            raise NotExpressibleError(f"model.merges: {a!r} {b!r} is not over the "
                                      "vocabulary")
        merges.append((left, right))
    made = lineage.greedy_equivalent(merges, ranks)
    require(all(len(p) == 1 or p in made for p in ranks), "model.vocab: a piece no merge "
            "makes (tiktoken merges into every piece)")
    order = sorted(made, key=made.__getitem__)
    require(all(ranks[a] < ranks[b] for a, b in itertools.pairwise(order)),
            "model.vocab: the ids of the merges' results are not in merge order (tiktoken's "
            "rank is the id)")
    if not ignore:  # tiktoken takes a whole word that is a piece: BPE must make it too
        for piece in order:
            require(lineage.merge_word([bytes([b]) for b in piece], made,
                                       lambda a, b: a + b) == [piece],
                    f"model.vocab: BPE does not make {piece!r} of its own bytes (tiktoken "
                    "takes a whole word that is a piece)")
    specials: dict[str, int] = {}
    for i, entry in enumerate(document.get("added_tokens") or []):
        content, number = entry.get("content"), entry.get("id")
        require(isinstance(content, str) and bool(content) and isinstance(number, int),
                f"added_tokens[{i}]: no content or id")
        require(not any(entry.get(f) for f in ("lstrip", "rstrip", "single_word")),
                f"added_tokens[{i}]: lstrip/rstrip/single_word")
        require(all("\x21" <= c <= "\x7e" for c in content)
                or not all(c in SYMBOL_BYTES for c in content), f"added_tokens[{i}]: "
                "over the byte symbols but not printable ASCII (upstream decodes it "
                "through the byte map, tiktoken as UTF-8)")
        require(content not in specials and number not in specials.values(),
                f"added_tokens[{i}]: a second token of that content or id")
        require(vocab.get(content, number) == number and (
            number not in vocab.values() or vocab.get(content) == number),
            f"added_tokens[{i}]: its id or content is another piece's")
        specials[content] = number
    bos, eos = lineage.template(document.get("post_processor"), specials)
    decoder = document.get("decoder")
    decodable = isinstance(decoder, dict) and decoder.get("type") == "ByteLevel"
    skipped = frozenset(int(e["id"]) for e in document.get("added_tokens") or []
                        if e.get("special"))
    return Converted(pattern, ranks, specials, bos, eos, skipped,
                     None if decodable else "decoder: not ByteLevel")

"""Inputs for one document: texts to encode, pairs, and raw id runs to decode.

Everything is read back from the document itself (``inventory``), so these strategies
serve any tokenizer.json, not only generated ones.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import strategies as st

from harness.strategies import alphabet as chars
from harness.strategies import profile as shares
from harness.strategies._weights import (
    chance,
    one_of_weighted,
    uniform_index,
    weighted_items,
)
from harness.strategies.byte_vocabulary import is_byte_level_vocabulary
from harness.strategies.vocabulary import model_decoration, parse_byte_piece
from implementation.byte_level import SYMBOL_BYTES
from implementation.unicode_tables import NORMALIZATION_INERT

SPACES: Final = (" ", "  ", "   ", " " * 5, chars.METASPACE)
CONTROLS: Final = tuple(chars.CONTROLS)
BYTE_LITERALS: Final = ("<0x41>", "<0xC3>", "<0xc3>", "<0x58>")



def _after_unicode_9() -> tuple[str, ...]:
    """The first and last code point of each range upstream's Unicode 9.0 tables do not know
    (``unicode_tables.NORMALIZATION_INERT``; Python's 14.0 does): one with a decomposition
    alone, a combining mark between two marks of other classes (``a`` U+0301 X U+0323: upstream
    reads X as a starter, so nothing is reordered across it)."""
    items: list[str] = []
    for first, last in NORMALIZATION_INERT:
        for char in map(chr, dict.fromkeys((first, last))):
            items.append(char if unicodedata.decomposition(char) else f"a\u0301{char}\u0323")
    return tuple(items)


#: Alphabets of text fragments the newer components are sensitive to (the "stress" share of
#: ``profile.FRAGMENT``, split by ``profile.STRESS``), each item one fragment:
STRESS: Final[Mapping[str, tuple[str, ...]]] = {
    # base + combining marks out of canonical order (U+0301 is ccc 230, U+0323 220, U+0334
    # 1), decomposed letters, Hangul jamo (L V T) that NFC composes, a precomposed syllable
    "composition": ("a\u0301\u0323", "e\u0301", "o\u0308\u0304", "x\u0334\u0301",
                    "\u1100\u1161\u11a8", "\u1112\u1161\u11ab", "\uac01", "A\u030a",
                    "\u212b", "n\u0303"),
    # compatibility forms NFKC/NFKD expand or fold
    "compatibility": ("\ufb01", "\ufb02", "\u2460", "\u2026", "\uff21\uff42", "\u338f",
                      "\u00bd", "\u2122", "\uff76", "\u01c6", "\u00b2", "\u1d2c"),
    # case mappings that change length or depend on context
    "case": ("\u0130", "\u00df", "\u01c5", "\u03a3", "\u03a3\u0391\u03a3 ", "\u03c2",
             "\u1e9e", "\u212a", "\u0131", "\u1f88", "\u0587"),
    # Unicode whitespace: NBSP, ideographic space, line separator, em space, narrow NBSP,
    # NEL, vertical tab, form feed
    "unicode-space": ("\u00a0", "\u3000", "\u2028", "\u2003", "\u202f", "\u0085", "\x0b",
                      "\x0c", " \u00a0 "),
    # digit runs past three, other scripts' digits, fullwidth digits
    "digits": ("1234", "12345678", "2024", "007", "\u0663\u0664\u0665\u0666",
               "\uff10\uff11\uff12\uff13", "9 99 999 9999"),
    "punctuation": ("...", "!?", "\u2014", "\u00ab\u00bb", "\u201c\u201d", "\u00bf",
                    "#include", "->", "a/b", "$1,234.56", "(x)", "\u3002"),
    "crlf": ("\r\n", "\r\n\r\n", "\n\n\n", "\r\r", " \n", "\t\n "),
    # contractions, lower and upper case
    "contraction": ("'s", "'S", "'re", "'RE", "'ll", "'LL", "'ve", "'VE", "'d", "'D", "'m",
                    "'M", "'t", "don't", "I'M", "we'll"),
    # emoji (4-byte, with skin tone, flags, ZWJ sequences, variation selector)
    "emoji": ("\U0001f600", "\U0001f44d\U0001f3fd", "\U0001f1eb\U0001f1f7",
              "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u2764\ufe0f"),
    "cjk": ("\u65e5\u672c\u8a9e", "\u4e2d\u6587", "\ud55c\uad6d\uc5b4",
            "\u30ab\u30bf\u30ab\u30ca", "\u3002", "\u9f8d"),
    # Hangul (Unicode 3.12, algorithmic): conjoining jamo L+V and L+V+T with the first and
    # the last of each range, a syllable + T, the block's first and last syllables; near
    # misses: jamo just outside each range (U+10FF, U+1113 around L; U+1160, U+1176 around V;
    # U+11A7, U+11C3 around T), a syllable with its T + another T, a mark between L and V,
    # U+D7A4 (just past the block) and U+D7C0 (past it at a multiple of 28) + T; compatibility
    # jamo NFKC maps to conjoining ones that then compose
    "hangul": ("\u1100\u1161", "\u1112\u1175\u11c2", "\u1100\u1161\u11a8", "\uac00\u11a8",
               "\uac00", "\ud7a3", "\u10ff\u1161", "\u1113\u1161", "\u1100\u1160",
               "\u1100\u1176", "\uac00\u11a7", "\uac00\u11c3", "\uac01\u11a8",
               "\u1100\u0301\u1161", "\ud7a4\u11a8", "\ud7c0\u11a8", "\u3131\u314f"),
    # code points Unicode 9.0 does not know (upstream's normalization tables): see above
    "after-unicode-9": _after_unicode_9(),
}


@dataclass(frozen=True)
class Inventory:
    """What a document offers its inputs."""

    covered: tuple[str, ...]                     # characters the model's pieces spell
    pieces: tuple[str, ...]                      # multi-character pieces, undecorated
    added: tuple[str, ...]                       # added token contents and the unk string
    uncovered: Mapping[int, tuple[str, ...]]     # characters no piece spells, by UTF-8 width
    ids: tuple[int, ...]                         # every id that names a token
    special_ids: tuple[int, ...]                 # ids of special added tokens
    byte_ids: Mapping[int, int]                  # byte value -> id of its piece (upper first)
    unknown_ids: tuple[int, ...]                 # ids naming no token: holes, past the end


def _is_byte_string(piece: str) -> bool:
    """A byte piece or a merge of byte pieces (``<0xC3><0xA9>``)."""
    return piece.startswith("<0x") and piece.endswith(">") and len(piece) >= 6


def added_ids(document: Mapping[str, Any]) -> dict[str, int]:
    """Added token content -> the id upstream gives it (the JSON id is ignored)."""
    vocab: Mapping[str, int] = (document.get("model") or {}).get("vocab") or {}
    next_id = len(vocab)
    out: dict[str, int] = {}
    for entry in document.get("added_tokens") or []:
        content = entry.get("content", "")
        if not content or content in out:
            continue
        if content in vocab:
            out[content] = vocab[content]
        else:
            out[content] = next_id
            next_id += 1
    return out


def _spelled(piece: str, byte_level: bool) -> str:
    """What a vocabulary string spells in a text: itself, or in a byte-level vocabulary the
    whole characters its byte symbols stand for (bytes of a cut character left out)."""
    if not byte_level or any(c not in SYMBOL_BYTES for c in piece):
        return piece
    return bytes(SYMBOL_BYTES[c] for c in piece).decode("utf-8", "ignore")


def inventory(document: Mapping[str, Any]) -> Inventory:
    """What the document offers: in a byte-level vocabulary (all 256 byte symbols), the
    characters and pieces its multi-symbol strings spell, and its byte symbols as the byte
    pieces of decode runs."""
    model = document.get("model") or {}
    vocab: Mapping[str, int] = model.get("vocab") or {}
    decoration = model_decoration(model)
    added = added_ids(document)
    specials = {e["content"] for e in document.get("added_tokens") or [] if e.get("special")}
    byte_level = is_byte_level_vocabulary(vocab)

    unk = model.get("unk_token")
    covered: dict[str, None] = {}
    pieces: dict[str, None] = {}
    for piece in vocab:
        if piece in added or piece == unk or _is_byte_string(piece):
            continue
        if byte_level and len(piece) == 1 and piece in SYMBOL_BYTES:
            continue  # a lone byte symbol spells no character of its own
        plain = decoration.undecorate(_spelled(piece, byte_level))
        covered.update(dict.fromkeys(plain))
        if len(plain) > 1:
            pieces[plain] = None
            if chars.METASPACE in plain:
                pieces[plain.replace(chars.METASPACE, " ")] = None
    uncovered: dict[int, tuple[str, ...]] = {}
    for char in chars.ALPHABET_POOL + chars.UNCOVERED_POOL:
        if char not in covered:
            width = chars.utf8_width(char)
            uncovered[width] = (*uncovered.get(width, ()), char)

    byte_ids: dict[int, int] = {}
    for piece, token_id in vocab.items():
        value = parse_byte_piece(piece)
        if value is not None and (value not in byte_ids or piece == f"<0x{value:02X}>"):
            byte_ids[value] = token_id
    if byte_level and not byte_ids:
        byte_ids = {SYMBOL_BYTES[symbol]: vocab[symbol] for symbol in SYMBOL_BYTES}
    ids = sorted({*vocab.values(), *added.values()})
    top = ids[-1] if ids else -1
    named = set(ids)
    holes = [i for i in range(top) if i not in named][:20]
    return Inventory(
        covered=tuple(covered),
        pieces=tuple(pieces),
        added=tuple(dict.fromkeys([*added, *([unk] if unk else [])])),
        uncovered=uncovered,
        ids=tuple(ids),
        special_ids=tuple(sorted({added[c] for c in specials if c in added})),
        byte_ids=byte_ids,
        unknown_ids=(*holes, top + 1, top + 7, 2**32 - 1),
    )


# --- texts --------------------------------------------------------------------------------


def fragment_kinds(inv: Inventory) -> list[tuple[int, Sequence[str]]]:
    """The kinds of text fragment the document offers, each with its weight (in units of
    the stress table, so its alphabets split their share exactly) and its items; a kind the
    vocabulary lacks is left out. One table for ``fragments`` and ``sampled_texts``."""
    unit = sum(shares.STRESS.values())
    w = {kind: weight * unit for kind, weight in shares.FRAGMENT.items()}
    widths = [chars_ for _, chars_ in sorted(inv.uncovered.items()) if chars_]
    kinds: list[tuple[int, Sequence[str]]] = [
        (w["char"], inv.covered),
        (w["piece"], inv.pieces),
        (w["space"], SPACES),
        # every UTF-8 width gets an equal part of the uncovered share
        *((w["uncovered"] // max(1, len(widths)), chars_) for chars_ in widths),
        (w["control"], CONTROLS),
        (w["added"], inv.added),
        (w["byte-literal"], BYTE_LITERALS),
        *((shares.FRAGMENT["stress"] * weight, STRESS[name])
          for name, weight in shares.STRESS.items()),
    ]
    return [(weight, items) for weight, items in kinds if weight > 0 and items]


def fragments(inv: Inventory) -> st.SearchStrategy[str]:
    """One piece of a text, weighted by ``profile.FRAGMENT`` (``fragment_kinds``).

    A generated vocabulary offers few enough fragments to flatten every kind into one
    weighted table (one draw per fragment); a large one (a real 32k vocabulary) picks the
    kind first, then an item of it uniformly.
    """
    kinds = fragment_kinds(inv)
    if sum(len(items) for _, items in kinds) <= _FLAT_TABLE_MAX:
        scale = math.lcm(*(len(items) for _, items in kinds))
        return weighted_items([(item, weight * scale // len(items))
                               for weight, items in kinds for item in items])
    pickers = [uniform_index(len(items)).map(tuple(items).__getitem__) for _, items in kinds]
    return weighted_items([(i, weight) for i, (weight, _) in enumerate(kinds)]).flatmap(
        lambda i: pickers[i])


#: Up to this many fragment choices, one flattened table (rescaled to 256 slots).
_FLAT_TABLE_MAX: Final = 128


@st.composite
def _texts(draw: st.DrawFn, fragment: st.SearchStrategy[str]) -> str:
    if draw(chance(shares.EMPTY_TEXT)):
        return ""
    parts = draw(st.lists(fragment, min_size=1, max_size=shares.FRAGMENTS_MAX))
    if draw(chance(shares.WILD_CHARACTER)):
        parts.insert(draw(st.integers(0, len(parts))), draw(chars.any_character()))
    return "".join(parts)


def texts_for(document: Mapping[str, Any] | Inventory) -> st.SearchStrategy[str]:
    """Texts drawn mostly from the document's alphabet and pieces (so merges fire), plus
    uncovered characters of each UTF-8 width, spaces and runs of them, control characters,
    literal added/special tokens, now and then any scalar value; occasionally empty."""
    return _texts(fragments(_inventory(document)))


def pairs_for(document: Mapping[str, Any] | Inventory) -> st.SearchStrategy[tuple[str, str]]:
    text = texts_for(document)
    return st.tuples(text, text)


def _inventory(document: Mapping[str, Any] | Inventory) -> Inventory:
    return document if isinstance(document, Inventory) else inventory(document)


# --- id runs ------------------------------------------------------------------------------


def char_bytes(inv: Inventory, min_width: int) -> list[tuple[int, ...]]:
    """Byte-piece ids of characters whose every byte has a piece, of at least ``min_width``."""
    pool = ["a", "\t", *inv.covered[:8], *chars.UNCOVERED_POOL, *chars.TWO_BYTE[:3]]
    out: list[tuple[int, ...]] = []
    for char in dict.fromkeys(pool):
        raw = char.encode()
        if len(raw) >= min_width and all(b in inv.byte_ids for b in raw):
            out.append(tuple(inv.byte_ids[b] for b in raw))
    return out


@st.composite
def _cut(draw: st.DrawFn, whole: list[tuple[int, ...]]) -> list[int]:
    ids = draw(st.sampled_from(whole))
    return list(ids[: draw(st.integers(1, len(ids) - 1))])


@st.composite
def _split(draw: st.DrawFn, whole: list[tuple[int, ...]], specials: tuple[int, ...]
           ) -> list[int]:
    ids = list(draw(st.sampled_from(whole)))
    ids.insert(draw(st.integers(1, len(ids) - 1)), draw(st.sampled_from(specials)))
    return ids


def id_segments(inv: Inventory) -> st.SearchStrategy[list[int]]:
    w = shares.ID_SEGMENT
    chars_ = char_bytes(inv, 1)
    multi = char_bytes(inv, 2)
    invalid = [tuple(inv.byte_ids[b] for b in run) for run in chars.INVALID_BYTE_RUNS
               if all(b in inv.byte_ids for b in run)]
    specials = inv.special_ids
    return one_of_weighted([
        (w["valid"] if inv.ids else 0,
         st.lists(st.sampled_from(inv.ids or (0,)), min_size=1, max_size=6)),
        (w["utf8"] if chars_ else 0,
         st.lists(st.sampled_from(chars_ or [(0,)]), min_size=1, max_size=3).map(
             lambda runs: [i for run in runs for i in run])),
        (w["cut"] if multi else 0, _cut(multi or [(0, 0)])),
        (w["invalid"] if invalid else 0, st.sampled_from(invalid or [(0,)]).map(list)),
        (w["special"] if specials else 0, st.sampled_from(specials or (0,)).map(lambda i: [i])),
        (w["split"] if multi and specials else 0, _split(multi or [(0, 0)], specials or (0,))),
        (w["unknown"], st.sampled_from(inv.unknown_ids).map(lambda i: [i])),
    ])


def id_runs_for(document: Mapping[str, Any] | Inventory
                ) -> st.SearchStrategy[tuple[int, ...]]:
    """Raw id sequences for decode: valid ids of every kind, byte runs forming valid UTF-8,
    runs cut mid-character, invalid byte runs, specials (also inside a byte run), and ids
    that name no token; occasionally empty."""
    return _id_runs(id_segments(_inventory(document)))


@st.composite
def _id_runs(draw: st.DrawFn, segment: st.SearchStrategy[list[int]]) -> tuple[int, ...]:
    if draw(chance(shares.EMPTY_ID_RUN)):
        return ()
    segments = draw(st.lists(segment, min_size=1, max_size=shares.ID_SEGMENTS_MAX))
    return tuple(i for s in segments for i in s)

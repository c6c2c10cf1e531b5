"""What the two lineage oracles (``sentencepiece/``, ``tiktoken/``) share: reading a BPE
document's merges and checking that a score- or rank-greedy BPE over the vocabulary
(SentencePiece merges the adjacent pair whose concatenation is the best-scored piece;
tiktoken the pair whose concatenation has the lowest rank) makes exactly the merges that
``tokenizers``' merge-list BPE makes. Standard library only: the subjects' programs load
it by path in their own environments. The rule is decision 0040.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Final

NOT_EXPRESSIBLE: Final = "not-expressible"


class NotExpressibleError(Exception):
    """The document cannot be converted faithfully (the message says which rule)."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise NotExpressibleError(message)


def merges_of(model: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The merges in rank order (legacy ``"a b"`` strings split at their one space;
    ``#version`` lines dropped, as upstream reads them)."""
    out: list[tuple[str, str]] = []
    for entry in model.get("merges") or []:
        if type(entry) is list and len(entry) == 2 and type(entry[0]) is str and type(
                entry[1]) is str:  # the common form first: real files have 10^5 merges
            out.append((entry[0], entry[1]))
        elif isinstance(entry, str):
            if entry.startswith("#version"):
                continue
            parts = entry.split(" ")
            require(len(parts) == 2, f"model.merges: {entry!r} is not two parts")
            out.append((parts[0], parts[1]))
        else:
            require(isinstance(entry, list) and len(entry) == 2
                    and all(isinstance(p, str) for p in entry),
                    f"model.merges: {entry!r} is not a pair of strings")
            out.append((entry[0], entry[1]))
    return out


def plain_bpe(model: Mapping[str, Any]) -> None:
    """The BPE options neither lineage has: dropout, affixes, ignore_merges."""
    require(model.get("type") == "BPE", "model.type: not BPE")
    require(model.get("dropout") in (None, 0, 0.0), "model.dropout: set")
    require(not model.get("continuing_subword_prefix"), "model.continuing_subword_prefix")
    require(not model.get("end_of_word_suffix"), "model.end_of_word_suffix")
    require(not model.get("ignore_merges"), "model.ignore_merges: true")


def greedy_equivalent(merges: Sequence[tuple[Any, Any]], symbols: Collection[Any]
                      ) -> dict[Any, int]:
    """The rank of each merge's result (its first merge's), checked so that a greedy BPE
    over *pieces* (merge the adjacent pair whose concatenation is a piece, best rank
    first) makes the merges of the merge list: the merges of one result are consecutive
    in the list (SentencePiece-derived files list every split of a piece together), no
    merge is repeated, no merge ``x y`` of a result has an earlier merge ``y z`` of the same
    result (on ``x y z`` upstream takes the right pair, a greedy over pieces the leftmost),
    and every split of a result into two ``symbols`` (every piece and unit that can stand
    in a word) is one of its merges. The parts are ``str`` (characters) or ``bytes``.
    Raises ``NotExpressibleError`` otherwise. Hot on real vocabularies (Llama 3: 280,147
    merges): plain loops, messages built only to raise."""
    ranks: dict[Any, int] = {}
    first: dict[Any, tuple[Any, Any]] = {}
    more: dict[Any, dict[tuple[Any, Any], int]] = {}
    previous: Any = None
    for rank, (left, right) in enumerate(merges):
        result = left + right
        if result != previous:
            if result in ranks:
                raise NotExpressibleError(f"model.merges[{rank}]: {result!r} is made by an "
                                          "earlier, not adjacent merge too")
            ranks[result] = rank
            first[result] = (left, right)
        elif (left, right) == first[result] or (left, right) in more.get(result, ()):
            raise NotExpressibleError(f"model.merges[{rank}]: {left!r} {right!r} is "
                                      "repeated")
        else:
            more.setdefault(result, {})[left, right] = rank
        previous = result
    for result, extra in more.items():  # x+y and y+z of one result, overlapping on y:
        rank_of = {first[result]: ranks[result], **extra}  # upstream takes the lower
        for (x, y), rank in rank_of.items():  # rank, a greedy over pieces the leftmost
            later = next((z for (u, z), other in rank_of.items() if u == y and other < rank),
                         None)
            if later is not None:
                raise NotExpressibleError(
                    f"model.merges[{rank}]: {x!r} {y!r} and the earlier {y!r} {later!r} "
                    f"both make {result!r}: on {x!r} {y!r} {later!r} upstream merges the "
                    "right pair first")
    for result, rank in ranks.items():
        for i in range(1, len(result)):
            left = result[:i]
            if left not in symbols:
                continue
            right = result[i:]
            if right in symbols and (left, right) != first[result] and (
                    left, right) not in more.get(result, ()):
                raise NotExpressibleError(f"model.merges[{rank}]: {result!r} can also be "
                                          f"made of {left!r} + {right!r}, which no merge "
                                          "makes")
    return ranks


def template(post_processor: Any, ids: dict[str, int]) -> tuple[int | None, int | None]:
    """(bos, eos) of a template ``[special] $A [special]`` (or no post-processor; a
    ByteLevel one, alone or in a Sequence, adds no id); ``ids``: the added tokens' ids."""
    if post_processor is None or post_processor.get("type") == "ByteLevel":
        return None, None
    if post_processor.get("type") == "Sequence":
        steps = [p for p in post_processor.get("processors") or []
                 if p.get("type") != "ByteLevel"]
        require(len(steps) <= 1, "post_processor: more than one template")
        return template(steps[0] if steps else None, ids)
    require(post_processor.get("type") == "TemplateProcessing",
            f"post_processor: {post_processor.get('type')} is not a template")
    single = post_processor.get("single") or []
    names = [next(iter(p)) for p in single]
    require(names.count("Sequence") == 1, "post_processor.single: not one $A")
    at = names.index("Sequence")
    require(at <= 1 and len(names) - at - 1 <= 1, "post_processor.single: more than one "
            "special on a side")
    specials = post_processor.get("special_tokens") or {}

    def one(piece: dict[str, Any]) -> int:
        name = piece["SpecialToken"]["id"]
        entry = specials.get(name) or {}
        found = entry.get("ids") or []
        require(len(found) == 1, f"post_processor.special_tokens.{name}: not one id")
        require(ids.get(name) == found[0], f"post_processor.special_tokens.{name}: its id "
                "is not the piece's")
        return int(found[0])

    bos = one(single[0]) if at == 1 else None
    eos = one(single[-1]) if at == len(names) - 2 else None
    return bos, eos


def merge_word(units: Sequence[Any], ranks: Mapping[Any, int],
               join: Callable[[Any, Any], Any]) -> list[Any]:
    """Rank-greedy BPE over ``units`` (lowest rank first, leftmost on ties)."""
    parts = list(units)
    while len(parts) > 1:
        best: tuple[int, int] | None = None
        for i in range(len(parts) - 1):
            rank = ranks.get(join(parts[i], parts[i + 1]))
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, i)
        if best is None:
            break
        i = best[1]
        parts[i:i + 2] = [join(parts[i], parts[i + 1])]
    return parts

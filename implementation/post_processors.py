"""Post-processors: ``TemplateProcessing`` (single and pair templates), ``ByteLevel`` and
``Sequence``.

Reproduces tokenizers 0.23.1 (``processors/{template,sequence}.rs``,
``pre_tokenizers/byte_level.rs``), measured in ``tests/unit/test_post_processors.py`` and
``tests/differential/test_byte_level.py``. As upstream, the steps pass a list of segments along (the
inputs, then, after a template, one segment per template piece) and the last step's
segments are laid end to end. Deliberate differences:

* Template special tokens are synthetic: ``track="special"``, span ``-1, -1``
  (upstream reports ``(0, 0)``), per the offset contract.
* Refused at load, where upstream loads and then misbehaves:
  a template naming a special token absent from ``special_tokens`` (upstream
  panics at encode with ``add_special_tokens``), a ``single`` template using
  ``$B`` (upstream panics at every single-sequence encode), and a special token
  whose ``ids`` and ``tokens`` differ in length (upstream silently misaligns
  the encoding): rule ``template-incoherent``, in both modes (decision 0047).
* A post-processor object without ``"type"`` is refused (``missing-field``);
  upstream's untagged fallback accepts it.
* ``ByteLevel`` does not trim spans (``trim_offsets``) and keeps each token's sequence
  id (decision 0024, :class:`ByteLevelProcessing`).
* A ``Sequence`` holding a ``TemplateProcessing`` after another one (nested Sequences
  flattened) is refused, ``unsupported-component`` at the second one's ``type``, in both
  modes: upstream applies the second template to the pieces the first one laid out (a
  single input with ``<s> $A`` becomes a pair of ``<s>`` and ``$A``) and panics
  (``todo!()``) where they are neither one nor two (decision 0024).

In ``tokenizer.json`` a template is always the list of pieces: the string form
(``"<s> $A"``) is refused by upstream's deserializer and here alike. It exists
only in upstream's constructor, reproduced by :meth:`TemplateProcessing.from_strings`. (That
path, marked "constructor only" for coverage, is reached by the tests of
this module, never by a tokenizer.json, so the harness' reach leaves it out.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from .byte_level import ByteLevelOptions, byte_level_from_json
from .encoding import NO_SPAN, EncodedToken
from .errors import LoadError, clip, excerpt, excerpt_keys
from .jsonfields import Node

SequenceId = Literal["A", "B"]
#: One encoding on its way through the post-processing steps (upstream passes a list of
#: them from step to step): its tokens and the type id of each.
Segment = tuple[list[EncodedToken], list[int]]

#: Post-processor types upstream 0.23.1 knows but this reference does not reproduce.
UPSTREAM_ONLY_TYPES = frozenset({"BertProcessing", "RobertaProcessing"})


@dataclass(frozen=True, slots=True)
class SequencePiece:
    """``{"Sequence": {"id": "A"|"B", "type_id": n}}``: one input sequence."""

    id: SequenceId
    type_id: int


@dataclass(frozen=True, slots=True)
class SpecialTokenPiece:
    """``{"SpecialToken": {"id": key, "type_id": n}}``: a key of ``special_tokens``."""

    id: str
    type_id: int


Piece = SequencePiece | SpecialTokenPiece


@dataclass(frozen=True, slots=True)
class SpecialToken:
    """A ``special_tokens`` entry: the ids and strings the key expands to."""

    id: str
    ids: tuple[int, ...]
    tokens: tuple[str, ...]


# ---------------------------------------------------------------------------
# JSON form
# ---------------------------------------------------------------------------


def _single_key(node: Node, allowed: tuple[str, ...]) -> tuple[str, Node]:
    """An externally tagged serde enum: an object with exactly one of ``allowed`` as key."""
    keys = list(node.obj())
    if len(keys) != 1 or keys[0] not in allowed:
        node.fail("invalid-value", f"expected exactly one of {', '.join(allowed)}; got keys "
                  f"{excerpt_keys(keys)}")
    return keys[0], node.field(keys[0])


def _parse_sequence_id(node: Node) -> SequenceId:
    value = node.str_()
    if value == "A":
        return "A"
    if value == "B":
        return "B"
    return node.fail("invalid-value", f"sequence id must be 'A' or 'B', got {excerpt(value)}")


def parse_piece(node: Node) -> Piece:
    kind, body = _single_key(node, ("Sequence", "SpecialToken"))
    type_id = body.field("type_id").u32()
    if kind == "Sequence":
        return SequencePiece(_parse_sequence_id(body.field("id")), type_id)
    return SpecialTokenPiece(body.field("id").str_(), type_id)


def parse_template(node: Node) -> tuple[Piece, ...]:
    if isinstance(node.value, str):
        node.fail(
            "invalid-type",
            f"a template is an array of pieces; the string form {excerpt(node.value)} is only "
            "accepted by the Python constructor, not in tokenizer.json (tokenizers 0.23.1 "
            "refuses it)",
        )
    return tuple(parse_piece(piece) for piece in node.elements())


def parse_special_token(node: Node) -> SpecialToken:
    ids = tuple(element.u32() for element in node.field("ids").elements())
    tokens = tuple(element.str_() for element in node.field("tokens").elements())
    # Upstream loads such a template and misaligns the encoding (decision 0047).
    if len(ids) != len(tokens):
        node.fail(
            "template-incoherent",
            f"ids ({len(ids)}) and tokens ({len(tokens)}) differ in length "
            "(upstream misaligns the encoding)",
        )
    return SpecialToken(node.field("id").str_(), ids, tokens)


def parse_special_tokens(node: Node) -> dict[str, SpecialToken]:
    """The ``special_tokens`` map; templates look entries up by the map's key."""
    return {key: parse_special_token(value) for key, value in node.items()}


def _piece_paths(template_node: Node) -> Iterable[tuple[Node, Piece]]:
    for piece_node in template_node.elements():
        yield piece_node, parse_piece(piece_node)


def _check_template(
    node: Node, specials: Mapping[str, SpecialToken], *, single: bool
) -> None:
    """Refuse what upstream loads and then panics on (decision 0047)."""
    for piece_node, piece in _piece_paths(node):
        if isinstance(piece, SpecialTokenPiece) and piece.id not in specials:
            piece_node.fail(
                "template-incoherent",
                f"template names special token {excerpt(piece.id)}, absent from special_tokens",
            )
        if single and isinstance(piece, SequencePiece) and piece.id == "B":
            piece_node.fail("template-incoherent", "the single template uses sequence B")


# ---------------------------------------------------------------------------
# String form (upstream's constructor only)
# ---------------------------------------------------------------------------

_RUST_U32 = re.compile(r"\+?[0-9]+")


def _rust_parse_u32(text: str) -> int | None:  # pragma: no cover - constructor only
    """``text.parse::<u32>()``: ASCII digits, one optional leading '+', no overflow."""
    if _RUST_U32.fullmatch(text) is None:
        return None
    value = int(text)
    return value if value < 2**32 else None


def _extract_id(text: str) -> Piece | None:  # pragma: no cover - constructor only
    """Upstream's ``Piece::extract_id``: ``$``, ``$A``, ``$B``, ``$<u32>``, a special."""
    if not text.startswith("$"):
        return SpecialTokenPiece(text, 0)
    rest = text[1:]
    if rest in ("", "A", "a"):
        return SequencePiece("A", 0)
    if rest in ("B", "b"):
        return SequencePiece("B", 0)
    type_id = _rust_parse_u32(rest)
    return None if type_id is None else SequencePiece("A", type_id)


def _with_type_id(piece: Piece, type_id: int) -> Piece:  # pragma: no cover - constructor only
    if isinstance(piece, SequencePiece):
        return SequencePiece(piece.id, type_id)
    return SpecialTokenPiece(piece.id, type_id)


def parse_piece_string(text: str) -> Piece | None:  # pragma: no cover - constructor only
    """Upstream's ``Piece::try_from(String)``: ``<id>`` or ``<id>:<type_id>``; None if invalid."""
    parts = text.split(":")
    if len(parts) == 1:
        return _extract_id(text)
    if len(parts) != 2:
        return None
    type_id = _rust_parse_u32(parts[1])
    piece = _extract_id(parts[0])
    if type_id is None or piece is None:
        return None
    return _with_type_id(piece, type_id)


def parse_template_string(text: str, path: str) -> tuple[Piece, ...]:  # pragma: no cover
    # (constructor only)
    """Upstream's ``Template::try_from(&str)``: pieces split on each single space."""
    pieces: list[Piece] = []
    for part in text.split(" "):
        piece = parse_piece_string(part)
        if piece is None:
            raise LoadError("invalid-value", path, f'Cannot build Piece from string "{clip(part)}"')
        pieces.append(piece)
    return tuple(pieces)


def _check_builder(  # pragma: no cover - constructor only
    single: tuple[Piece, ...], pair: tuple[Piece, ...], specials: Mapping[str, SpecialToken]
) -> None:
    """Upstream's ``TemplateProcessingBuilder::validate`` (constructor path only)."""
    used = {piece.id for piece in pair if isinstance(piece, SequencePiece)}
    if used != {"A", "B"}:
        raise LoadError("invalid-value", "$.pair", "Template for `pair` must use both sequences")
    missing = sorted(
        {p.id for p in single + pair if isinstance(p, SpecialTokenPiece) and p.id not in specials}
    )
    if missing:
        raise LoadError(
            "invalid-value", "$", f"Missing SpecialToken(s) with id(s) `{', '.join(missing)}`"
        )


# ---------------------------------------------------------------------------
# The processor
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TemplateProcessing:
    """Upstream's ``TemplateProcessing``: lays out specials and sequences per template."""

    single: tuple[Piece, ...]
    pair: tuple[Piece, ...]
    special_tokens: Mapping[str, SpecialToken]

    @classmethod
    def from_json(cls, node: Node) -> TemplateProcessing:
        """``$.post_processor``, a TemplateProcessing: single, pair, special_tokens required."""
        specials = parse_special_tokens(node.field("special_tokens"))
        single_node, pair_node = node.field("single"), node.field("pair")
        single, pair = parse_template(single_node), parse_template(pair_node)
        _check_template(single_node, specials, single=True)
        _check_template(pair_node, specials, single=False)
        return cls(single, pair, specials)

    @classmethod
    def from_strings(  # pragma: no cover - constructor only
        cls,
        single: str = "$0",
        pair: str = "$A:0 $B:1",
        special_tokens: Iterable[tuple[str, int]] = (),
    ) -> TemplateProcessing:
        """Upstream's constructor with string templates, defaults and validation.

        ``special_tokens`` as ``(token, id)`` pairs, each its own key and string.
        """
        specials = {t: SpecialToken(t, (i,), (t,)) for t, i in special_tokens}
        single_pieces = parse_template_string(single, "$.single")
        pair_pieces = parse_template_string(pair, "$.pair")
        _check_builder(single_pieces, pair_pieces, specials)
        if any(isinstance(p, SequencePiece) and p.id == "B" for p in single_pieces):
            raise LoadError("invalid-value", "$.single", "the single template uses sequence B")
        return cls(single_pieces, pair_pieces, specials)

    def added_tokens(self, *, is_pair: bool) -> int:  # pragma: no cover - API query
        """How many special tokens the template adds (upstream's ``added_tokens``; a query
        of the API that encode never makes)."""
        template = self.pair if is_pair else self.single
        return sum(
            len(self.special_tokens[p.id].ids) for p in template if isinstance(p, SpecialTokenPiece)
        )

    def process(self, segments: list[Segment], add_special_tokens: bool) -> list[Segment]:
        """Upstream's ``process_encodings``: one segment per template piece, in template
        order; the pair template for two segments, the single one for one.

        Sequence pieces keep their tokens' spans and tracks and take the piece's type id;
        without ``add_special_tokens`` the special pieces are left out.
        """
        if len(segments) not in (1, 2):  # pragma: no cover - refused at load: only a
            # template after another could be given another count (upstream: todo!())
            raise ValueError(f"a template over {len(segments)} encodings")
        out: list[Segment] = []
        for piece in self.pair if len(segments) == 2 else self.single:
            if isinstance(piece, SequencePiece):
                tokens = _sequence_tokens(piece, segments)
            elif add_special_tokens:
                tokens = self._special_tokens(piece)
            else:
                continue
            out.append((tokens, [piece.type_id] * len(tokens)))
        return out

    def apply(
        self, a: list[EncodedToken], b: list[EncodedToken] | None, add_special_tokens: bool
    ) -> tuple[list[EncodedToken], list[int]]:
        """The final tokens and the type id of each (the pair template iff ``b`` is given)."""
        return post_process(self, a, b, add_special_tokens)

    def _special_tokens(self, piece: SpecialTokenPiece) -> list[EncodedToken]:
        special = self.special_tokens[piece.id]
        return [
            EncodedToken(id=i, token=t, start=NO_SPAN, end=NO_SPAN, track="special")
            for i, t in zip(special.ids, special.tokens, strict=True)
        ]


def _sequence_tokens(piece: SequencePiece, segments: list[Segment]) -> list[EncodedToken]:
    if piece.id == "A":
        return segments[0][0]
    if len(segments) < 2:  # pragma: no cover - a single template using B is refused at load
        raise ValueError("the single template uses sequence B")
    return segments[1][0]


# ---------------------------------------------------------------------------
# ByteLevel and Sequence
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ByteLevelProcessing:
    """``{"type": "ByteLevel", ...}`` as a post-processor: loaded and validated like
    upstream (``byte_level.byte_level_from_json``), and it changes nothing.

    Upstream's does two things: with ``trim_offsets`` it moves each token's offsets past
    its leading and trailing space symbols, and it renumbers the sequence id of each
    encoding it is given. Decision 0024: spans stay on the characters each token came
    from (intended class ``byte-level-trimmed-offsets``), and a token's sequence is the
    input it came from, whatever a step after the template would renumber.
    """

    options: ByteLevelOptions

    def process(self, segments: list[Segment], add_special_tokens: bool) -> list[Segment]:
        return segments

    def apply(
        self, a: list[EncodedToken], b: list[EncodedToken] | None, add_special_tokens: bool
    ) -> tuple[list[EncodedToken], list[int]]:
        return post_process(self, a, b, add_special_tokens)


@dataclass(frozen=True, slots=True)
class PostProcessorSequence:
    """``{"type": "Sequence", "processors": [...]}``: the steps in declared order, each given
    the segments the previous one returned."""

    processors: tuple[PostProcessor, ...]

    def process(self, segments: list[Segment], add_special_tokens: bool) -> list[Segment]:
        for processor in self.processors:
            segments = processor.process(segments, add_special_tokens)
        return segments

    def apply(
        self, a: list[EncodedToken], b: list[EncodedToken] | None, add_special_tokens: bool
    ) -> tuple[list[EncodedToken], list[int]]:
        return post_process(self, a, b, add_special_tokens)


class PostProcessor(Protocol):
    """A post-processing step: segments in, segments out (``process``), and the whole
    post-processing of one or two encoded inputs (``apply``, see :func:`post_process`)."""

    def process(self, segments: list[Segment], add_special_tokens: bool) -> list[Segment]: ...

    def apply(
        self, a: list[EncodedToken], b: list[EncodedToken] | None, add_special_tokens: bool
    ) -> tuple[list[EncodedToken], list[int]]: ...


def post_process(
    processor: PostProcessor, a: list[EncodedToken], b: list[EncodedToken] | None,
    add_special_tokens: bool,
) -> tuple[list[EncodedToken], list[int]]:
    """Upstream's ``PostProcessor::process``: ``a`` (type id 0) and, when given, ``b``
    (type id 1) as a list of segments, the processor's ``process``, and the segments it
    returns laid end to end: the final tokens and the type id of each."""
    segments: list[Segment] = [(a, [0] * len(a))]
    if b is not None:
        segments.append((b, [1] * len(b)))
    tokens: list[EncodedToken] = []
    type_ids: list[int] = []
    for segment_tokens, segment_type_ids in processor.process(segments, add_special_tokens):
        tokens.extend(segment_tokens)
        type_ids.extend(segment_type_ids)
    return tokens, type_ids


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def post_processor_from_json(node: Node) -> PostProcessor | None:
    """``$.post_processor``: null gives None; TemplateProcessing, ByteLevel and Sequence
    (of those, recursively) are reproduced, other types refused by name."""
    if node.is_null:
        return None
    return _parse(node, [])


def _parse(node: Node, templates: list[str]) -> PostProcessor:
    """One post-processor object; ``templates`` collects the paths of the templates met so
    far, in upstream's order of application."""
    tag = node.type_tag()
    if tag == "TemplateProcessing":
        # Upstream loads a template after a template (class strict-unreproduced-component).
        if templates:
            node.fail("unsupported-component", "a TemplateProcessing after another one (at "
                      f"{templates[0]}) is not reproduced: upstream lays the first one's "
                      "pieces out again as if they were the inputs, and panics when there "
                      "are more than two", "type")
        templates.append(node.path)
        return TemplateProcessing.from_json(node)
    if tag == "ByteLevel":
        return ByteLevelProcessing(byte_level_from_json(node))
    if tag == "Sequence":
        return PostProcessorSequence(tuple(
            _parse(step, templates) for step in node.field("processors").elements()))
    # A type upstream applies and we do not (decision 0012; class strict-unreproduced-component).
    if tag in UPSTREAM_ONLY_TYPES:
        node.fail("unsupported-component",
                  f"post-processor type {excerpt(tag)} is not reproduced", "type")
    return node.fail("unsupported-component", f"unknown post-processor type {excerpt(tag)}", "type")

"""The pipeline: added tokens → normalizer → pre-tokenizer → BPE → template; and decode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .added_vocabulary import AddedVocabulary
from .alignment import NormalizedText
from .arguments import (
    require_bool,
    require_id,
    require_ids,
    require_optional_str,
    require_str,
)
from .encoding import EncodedSequence, EncodedToken, model_tokens, word_tokens
from .errors import DecodeError, EncodeError, excerpt

if TYPE_CHECKING:
    from .bpe import BpeModel
    from .decoders import Decoder
    from .normalizers import Normalizer
    from .post_processors import PostProcessor
    from .pre_tokenizers import PreTokenizer


#: A part of the input on its way through the pipeline: an added token already matched, or
#: a word of normalized text still to be tokenized by the model.
_Piece = EncodedToken | NormalizedText


class Tokenizer:
    """A loaded tokenizer.json. Build one with ``implementation.load_tokenizer``."""

    def __init__(
        self,
        *,
        model: BpeModel,
        normalizer: Normalizer | None,
        pre_tokenizer: PreTokenizer | None,
        added: AddedVocabulary,
        post_processor: PostProcessor | None,
        decoder: Decoder | None,
        strict: bool,
    ) -> None:
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.added = added
        self.post_processor = post_processor
        self.decoder = decoder
        self.strict = strict

    # -- public API ---------------------------------------------------------------------
    # Not reached by the run: the harness compares encode_with_spans, whose ids this returns.
    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:  # pragma: no cover
        require_str(text, "encode", "text")
        require_bool(add_special_tokens, "encode", "add_special_tokens")
        return self.encode_with_spans(text, add_special_tokens=add_special_tokens).input_ids

    def encode_with_spans(
        self, text: str, add_special_tokens: bool = True, *, pair: str | None = None
    ) -> EncodedSequence:
        """Encode ``text`` (and optionally a ``pair`` second sequence, whose spans are
        offsets into ``pair``). Raises ``EncodeError`` where the tokenizer cannot encode,
        ``TypeError`` for a text or pair that is not a str."""
        require_str(text, "encode_with_spans", "text")
        require_bool(add_special_tokens, "encode_with_spans", "add_special_tokens")
        require_optional_str(pair, "encode_with_spans", "pair")
        _check_unicode(text, "text")
        first = self._encode_sequence(text, 0)
        second = None
        if pair is not None:
            _check_unicode(pair, "pair")
            second = self._encode_sequence(pair, 1)
        if self.post_processor is not None:
            tokens, type_ids = self.post_processor.apply(first, second, add_special_tokens)
        else:
            tokens = first + (second or [])
            type_ids = [0] * len(first) + [1] * len(second or [])
        return EncodedSequence.of(tokens, type_ids)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Ids back to text. ``ids`` is a sequence of int (``TypeError`` otherwise, bool and
        float included); an id naming no token is ``DecodeError`` in strict mode and
        dropped in lenient mode, as upstream drops it."""
        require_ids(ids, "decode")
        require_bool(skip_special_tokens, "decode", "skip_special_tokens")
        pieces: list[str] = []
        for position, token_id in enumerate(ids):
            token = self._lookup(token_id)
            if token is None:
                if self.strict:
                    raise DecodeError(
                        "decode-unknown-id",
                        f"ids[{position}]",
                        f"id {excerpt(token_id)} names no token (upstream silently drops it)",
                    )
                continue
            if skip_special_tokens and self.added.is_special(token):
                continue
            pieces.append(token)
        if self.decoder is None:
            return " ".join(pieces)
        return "".join(self.decoder.decode_chain(pieces))

    def token_to_id(self, token: str) -> int | None:  # pragma: no cover - an API query
        # the conformance run never makes (unit tests and the strategies' self-checks do)
        require_str(token, "token_to_id", "token")
        found = self.added.content_to_id.get(token)
        return found if found is not None else self.model.token_to_id(token)

    def id_to_token(self, token_id: int) -> str | None:
        require_id(token_id, "id_to_token", "token_id")
        return self._lookup(token_id)

    def _lookup(self, token_id: int) -> str | None:
        found = self.added.id_to_token(token_id)
        return found if found is not None else self.model.id_to_token(token_id)

    def pre_tokenize(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """The words the model sees: each normalized word with its original span
        (added tokens left out), like upstream's ``pre_tokenize_str`` after normalization."""
        require_str(text, "pre_tokenize", "text")
        return [(p.text, p.original_span(0, len(p)))
                for p in self._pre_tokenized(text) if isinstance(p, NormalizedText)]

    def is_special(self, token: str) -> bool:
        """True for the content of a special added token (what decode skips)."""
        require_str(token, "is_special", "token")
        return self.added.is_special(token)

    def vocab_size(self) -> int:  # pragma: no cover - an API query the run never makes
        """Model strings plus added tokens not already in the model."""
        extra = sum(1 for t in self.added.content_to_id if self.model.token_to_id(t) is None)
        return self.model.vocab_size() + extra

    # -- the pipeline -------------------------------------------------------------------
    def _encode_sequence(self, text: str, sequence: int) -> list[EncodedToken]:
        """The tokens of one input (``sequence`` 0, or 1 for a pair's second text): each
        carries ``metadata["sequence"]`` and ``metadata["word"]``, the index of its piece
        among the input's pieces (words and added tokens alike, as upstream numbers its
        splits)."""
        out: list[EncodedToken] = []
        for word_index, word in enumerate(self._pre_tokenized(text)):
            metadata = {"word": word_index, "sequence": sequence}
            if type(word) is EncodedToken:
                out.append(EncodedToken(word.id, word.token, word.start, word.end, word.track,
                                        metadata))
                continue
            assert isinstance(word, NormalizedText)
            ids, values, starts, ends = self.model.word_columns(word.text)
            few = word_tokens(ids, values, starts, ends, alignments=word.alignments,
                              metadata=metadata)
            if few is not None:
                out += few
                continue
            starts, ends = word.original_spans(starts, ends)
            out += model_tokens(ids, values, starts, ends, metadata)
        return out

    def _pre_tokenized(self, text: str) -> list[_Piece]:
        pieces: list[_Piece] = []
        for match in self.added.split_raw(text):
            if match.token_id is not None:
                pieces.append(self._added_piece(match.token_id, text[match.start:match.end],
                                                (match.start, match.end)))
                continue
            if match.start == match.end:
                continue
            piece = NormalizedText.from_original(text[match.start:match.end], match.start)
            if self.normalizer is not None:
                self.normalizer.normalize(piece)
            if not piece.text:
                continue
            for sub in self.added.split_normalized(piece.text):
                if sub.token_id is not None:
                    pieces.append(self._added_piece(
                        sub.token_id, piece.text[sub.start:sub.end],
                        piece.original_span(sub.start, sub.end)))
                elif sub.start < sub.end:
                    pieces.extend(self._words(piece.slice(sub.start, sub.end)))
        return pieces

    def _words(self, piece: NormalizedText) -> list[NormalizedText]:
        words = [piece] if self.pre_tokenizer is None else self.pre_tokenizer.split([piece])
        return [word for word in words if word.text]

    @staticmethod
    def _added_piece(token_id: int, value: str, span: tuple[int, int]) -> _Piece:
        return EncodedToken(token_id, value, span[0], span[1], "added")


def _check_unicode(text: str, where: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    # Not reached by the run: a text with a lone surrogate cannot be handed to upstream (it is
    # no Unicode text to convert), so the generator draws none (unit-tested).
    except UnicodeEncodeError as exc:  # pragma: no cover
        raise EncodeError("text-not-unicode", where,
                          f"a lone surrogate at {exc.start} is not Unicode text") from None

"""A pure-Python reference tokenizer for HuggingFace BPE tokenizer.json files of the
SentencePiece-BPE lineage (Llama-2, Mistral v0.1, Gemma 3) and the byte-level lineage
(Llama 3), with exact character spans.

    import implementation as ref
    tok = ref.load_tokenizer("tokenizer.json")
    seq = tok.encode_with_spans("Hello world")
    [(t.token, t.start, t.end) for t in seq.tokens]
"""

from .encoding import EncodedSequence, EncodedToken, contract_violations
from .errors import DecodeError, EncodeError, LoadError, TokenizerError
from .loader import load_tokenizer
from .rules import DECODE_RULES, ENCODE_RULES, LOAD_RULES
from .tokenizer import Tokenizer

__all__ = [
    "DECODE_RULES",
    "ENCODE_RULES",
    "LOAD_RULES",
    "DecodeError",
    "EncodeError",
    "EncodedSequence",
    "EncodedToken",
    "LoadError",
    "Tokenizer",
    "TokenizerError",
    "contract_violations",
    "load_tokenizer",
]

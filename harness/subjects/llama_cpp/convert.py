"""A tokenizer.json as a vocabulary-only GGUF, written the way llama.cpp's own
``convert_hf_to_gguf.py`` writes a vocabulary (``tokenizer.ggml.*`` keys through the
``gguf`` package's ``GGUFWriter``), or ``NotExpressibleError`` naming what a GGUF
vocabulary cannot hold. Decision 0053 says which documents convert.

Two lineages:

- ``llama`` (SentencePiece-BPE: Mistral, Gemma): the pieces with a score each; llama.cpp
  merges the adjacent pair whose concatenation is the best-scored piece. A piece's score
  is minus the rank of the first merge that makes it (what the model's tokenizer.model
  carries: its pieces in merge order), a piece no merge makes scores below every merged
  piece. The normalizer must be ``Prepend(▁)+Replace(' ', ▁)`` (``add_space_prefix``
  true) or ``Replace(' ', ▁)`` (false), byte fallback on with all 256 ``<0xXX>`` pieces.
- ``gpt2`` (byte-level BPE: Llama 3): the pieces and the merge list; llama.cpp splits the
  text with the regular expressions of a named ``tokenizer.ggml.pre`` and merges by rank.
  Only the pre-tokenizers llama.cpp has a name for convert: GPT-2's ByteLevel regex
  (``gpt-2``) and Llama 3's Split then ByteLevel (``llama-bpe``, where llama.cpp always
  ignores merges for a whole piece: ``ignore_merges`` must be true).

Run as a program (``python convert.py OUT.gguf < tokenizer.json``) in the subject's own
environment, it writes the GGUF and prints one JSON line: ``{"ok": {...}}`` with what the
adapter needs (``add_bos``, ``bos``, ...) or ``{"refused": "<rule>"}``. The planning part
(``plan``) is standard library only; ``write`` imports ``gguf``.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

try:
    from .. import lineage
except ImportError:  # run by path in the subject's environment
    sys.path.append(str(Path(__file__).resolve().parent.parent))
    import lineage  # type: ignore[no-redef,import-not-found]

require = lineage.require
NotExpressibleError = lineage.NotExpressibleError

SPACE: Final = "\u2581"
BYTE_PIECES: Final = tuple(f"<0x{b:02X}>" for b in range(256))
# gguf.TokenType
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
#: The pre-tokenizer regular expressions llama.cpp names (``tokenizer.ggml.pre``), as
#: tokenizer.json files spell them.
GPT2_PATTERN: Final = (r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+"
                       r"|\s+(?!\S)|\s+")
LLAMA3_PATTERN: Final = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+"
                         r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
PRE_OF_PATTERN: Final = {LLAMA3_PATTERN: "llama-bpe"}
#: The decoders llama.cpp's detokenizer is, per lineage.
_REPLACE_SPACE: Final = {"type": "Replace", "pattern": {"String": SPACE}, "content": " "}
_STRIP: Final = {"type": "Strip", "content": " ", "start": 1, "stop": 0}


@dataclass
class Plan:
    """Everything the GGUF holds (and what the adapter needs of it)."""

    model: str
    pre: str | None
    tokens: list[str]
    scores: list[float]
    types: list[int]
    merges: list[str]
    bos: int | None
    eos: int | None
    unk: int | None
    pad: int | None
    add_bos: bool
    add_eos: bool
    add_space_prefix: bool | None
    #: None: the document's decoder is llama.cpp's detokenizer; else why not.
    decode_not_expressible: str | None
    #: The special added tokens (upstream's decode skips them).
    specials: list[int] = field(default_factory=list)


def _steps(component: Any, key: str) -> list[Any]:
    if component is None:
        return []
    require(isinstance(component, dict), f"{key}: not an object")
    if component.get("type") == "Sequence":
        inner = component.get(key)
        require(isinstance(inner, list), f"{key}: a Sequence without steps")
        return list(inner)
    return [component]


def _spm_normalizer(document: dict[str, Any]) -> bool:
    """``add_space_prefix`` of a SentencePiece-lineage document."""
    kinds = []
    for step in _steps(document.get("normalizer"), "normalizers"):
        if isinstance(step, dict) and step.get("type") == "Prepend" and step.get(
                "prepend") == SPACE:
            kinds.append("prepend")
        elif (isinstance(step, dict) and step.get("type") == "Replace"
              and step.get("pattern") == {"String": " "} and step.get("content") == SPACE):
            kinds.append("replace")
        else:
            kinds.append(str(step.get("type") if isinstance(step, dict) else step))
    require(kinds in (["prepend", "replace"], ["replace"]),
            f"normalizer: {kinds} is not Prepend(▁)+Replace(' ', ▁) or Replace(' ', ▁) "
            "(llama.cpp's SentencePiece tokenizer escapes spaces and has no other "
            "normalizer)")
    pre = document.get("pre_tokenizer")
    inert = (isinstance(pre, dict) and pre.get("type") == "Split"
             and pre.get("pattern") == {"String": " "} and pre.get("invert") is False)
    require(pre is None or inert, "pre_tokenizer: llama.cpp's SentencePiece tokenizer has "
            "none")
    return kinds[0] == "prepend"


def _byte_level(step: Any, use_regex: bool) -> bool:
    return (isinstance(step, dict) and step.get("type") == "ByteLevel"
            and step.get("add_prefix_space") is False
            and step.get("use_regex", True) is use_regex)


def _gpt2_pre(document: dict[str, Any]) -> str:
    """``tokenizer.ggml.pre`` of a byte-level document."""
    require(document.get("normalizer") is None, "normalizer: llama.cpp's byte-level BPE "
            "has none")
    steps = _steps(document.get("pre_tokenizer"), "pretokenizers")
    if len(steps) == 1 and _byte_level(steps[0], True):
        return "gpt-2"
    if len(steps) == 2 and _byte_level(steps[1], False):
        split = steps[0]
        ok = (isinstance(split, dict) and split.get("type") == "Split"
              and split.get("behavior") == "Isolated" and split.get("invert") is False)
        pattern = (split.get("pattern") or {}).get("Regex") if ok else None
        if pattern == GPT2_PATTERN:
            return "gpt-2"
        if isinstance(pattern, str) and pattern in PRE_OF_PATTERN:
            return PRE_OF_PATTERN[pattern]
    raise NotExpressibleError("pre_tokenizer: no tokenizer.ggml.pre of llama.cpp splits "
                              "the text this way (ByteLevel without prefix space with "
                              "GPT-2's regex, or Llama 3's Split then ByteLevel)")


def _template(post_processor: Any, ids: dict[str, int]) -> tuple[int | None, int | None]:
    return lineage.template(post_processor, ids)


def plan(document: dict[str, Any]) -> Plan:
    """What the GGUF of ``document`` holds, or ``NotExpressibleError``."""
    found = document.get("model")
    require(isinstance(found, dict), "model: not an object")
    model: dict[str, Any] = found if isinstance(found, dict) else {}
    ignore = bool(model.get("ignore_merges"))
    lineage.plain_bpe({**model, "ignore_merges": False})
    vocab: dict[str, int] = model.get("vocab") or {}
    require(isinstance(vocab, dict) and bool(vocab), "model.vocab: empty")
    require(len(set(vocab.values())) == len(vocab), "model.vocab: two pieces on one id")
    merges = lineage.merges_of(model)
    for left, right in merges:
        require(left in vocab and right in vocab and left + right in vocab,
                f"model.merges: {left!r} {right!r} is not over the vocabulary")
    byte_level = isinstance(document.get("pre_tokenizer"), dict) and any(
        isinstance(s, dict) and s.get("type") == "ByteLevel"
        for s in _steps(document.get("pre_tokenizer"), "pretokenizers"))
    added: dict[int, dict[str, Any]] = {}
    for i, entry in enumerate(document.get("added_tokens") or []):
        content, number = entry.get("content"), entry.get("id")
        require(isinstance(content, str) and bool(content) and isinstance(number, int),
                f"added_tokens[{i}]: no content or id")
        require(not any(entry.get(f) for f in ("lstrip", "rstrip", "single_word")),
                f"added_tokens[{i}]: lstrip/rstrip/single_word (a GGUF token has no such "
                "attribute)")
        require(not (entry.get("normalized") and document.get("normalizer") is not None),
                f"added_tokens[{i}]: normalized (upstream matches it in the normalized "
                "text; a GGUF token has no such attribute, llama.cpp matches the raw text)")
        require(number not in added, f"added_tokens[{i}]: a second token on id {number}")
        require(vocab.get(content, number) == number and all(
            a["content"] != content for a in added.values()),
            f"added_tokens[{i}]: its content names another id")
        added[number] = entry
    pieces: dict[int, str] = {i: p for p, i in vocab.items()}
    for number, entry in added.items():
        pieces[number] = entry["content"]
    size = max(pieces) + 1
    require(len(pieces) == size, "model.vocab: an id with no piece (a GGUF vocabulary is "
            "a list)")
    unk = model.get("unk_token")
    unk_id = vocab.get(unk) if isinstance(unk, str) else None
    require(unk is None or unk_id is not None, "model.unk_token: not in the vocabulary")
    bos, eos = _template(document.get("post_processor"),
                         {v["content"]: k for k, v in added.items()})
    specials = sorted(k for k, v in added.items() if v.get("special"))
    decoder = _steps(document.get("decoder"), "decoders")
    tokens = [pieces[i] for i in range(size)]
    types = [CONTROL if i in added and added[i].get("special") else
             USER_DEFINED if i in added else NORMAL for i in range(size)]
    if byte_level:
        # convert_hf_to_gguf's byte-level vocabulary: a token is NORMAL unless it is an
        # added token (its unk too); a SentencePiece one marks its unknown piece.
        pre = _gpt2_pre(document)
        require(ignore == (pre == "llama-bpe"), f"model.ignore_merges: {ignore} (llama.cpp "
                f"ignores merges for a whole piece exactly with {pre!r}: "
                f"{pre == 'llama-bpe'})")
        require(not model.get("byte_fallback"), "model.byte_fallback: with byte-level")
        symbols = {chr(c) for c in range(33, 127)} | {chr(c) for c in range(161, 173)} | {
            chr(c) for c in range(174, 256)} | {chr(256 + n) for n in range(68)}
        require(all(s in vocab for s in symbols), "model.vocab: not every byte-level "
                "symbol (llama.cpp takes an unknown symbol's bytes as pieces)")
        require(bool(merges), "model.merges: none (the gguf writer leaves an empty array "
                "out and llama.cpp's byte-level loader requires tokenizer.ggml.merges)")
        require(all(" " not in a and " " not in b for a, b in merges),
                "model.merges: a space in a part (GGUF merges are 'a b' strings)")
        return Plan("gpt2", pre, tokens, [0.0] * size, types,
                    [f"{a} {b}" for a, b in merges], bos, eos, unk_id, None,
                    bos is not None, eos is not None, None,
                    None if [d.get("type") for d in decoder] == ["ByteLevel"]
                    else "decoder: not ByteLevel", specials)
    require(not ignore, "model.ignore_merges: true (llama.cpp's SentencePiece tokenizer "
            "has no such option)")
    if unk_id is not None:
        types[unk_id] = UNKNOWN
    space_prefix = _spm_normalizer(document)
    require(bool(model.get("byte_fallback")) and all(b in vocab for b in BYTE_PIECES),
            "model.byte_fallback: off or without all 256 <0xXX> pieces (llama.cpp's "
            "SentencePiece tokenizer always falls back to bytes)")
    first: dict[str, int] = {}
    for rank, (left, right) in enumerate(merges):
        first.setdefault(left + right, rank)
    total = len(merges)
    scores: list[float] = []
    for i, piece in enumerate(tokens):
        if types[i] != NORMAL:
            scores.append(0.0)
        elif piece in BYTE_PIECES:
            types[i] = BYTE
            scores.append(0.0)
        elif piece in first:
            scores.append(float(-1 - first[piece]))
        else:  # a character, or a piece no merge makes: formed last
            scores.append(float(-1 - total - i))
    want: list[dict[str, Any]] = [_REPLACE_SPACE, {"type": "ByteFallback"},
                                   {"type": "Fuse"}]
    want += [_STRIP] if space_prefix else []
    return Plan("llama", None, tokens, scores, types, [], bos, eos, unk_id, None,
                bos is not None, eos is not None, space_prefix,
                None if decoder == want else f"decoder: not {[w['type'] for w in want]}",
                specials)


def write(built: Plan, path: Path) -> None:
    """The GGUF of ``built`` at ``path`` (written beside it, then renamed)."""
    import gguf  # type: ignore[import-not-found,unused-ignore]

    temporary = path.with_name(path.name + f".{os.getpid()}.tmp")
    writer = gguf.GGUFWriter(str(temporary), "llama")
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name("tokenizer-conformance vocabulary")
    writer.add_vocab_size(len(built.tokens))
    writer.add_tokenizer_model(built.model)
    if built.pre is not None:
        writer.add_tokenizer_pre(built.pre)
    writer.add_token_list([t.encode("utf-8", "surrogatepass") for t in built.tokens])
    writer.add_token_scores(built.scores)
    writer.add_token_types(built.types)
    if built.model == "gpt2":
        writer.add_token_merges(built.merges)
    for kind, value in (("bos", built.bos), ("eos", built.eos), ("unk", built.unk),
                        ("pad", built.pad)):
        if value is not None:
            getattr(writer, f"add_{kind}_token_id")(value)
    writer.add_add_bos_token(built.add_bos)
    writer.add_add_eos_token(built.add_eos)
    if built.add_space_prefix is not None:
        writer.add_add_space_prefix(built.add_space_prefix)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(temporary, path)


def main(argv: list[str]) -> int:
    """``convert.py OUT.gguf`` with the document on standard input."""
    out = Path(argv[1])
    try:
        built = plan(json.loads(sys.stdin.read()))
    except (NotExpressibleError, ValueError, TypeError, KeyError, AttributeError) as error:
        print(json.dumps({"refused": f"{type(error).__name__}: {error}"}))
        return 0
    write(built, out)
    summary = {k: v for k, v in asdict(built).items()
               if k not in ("tokens", "scores", "types", "merges")}
    print(json.dumps({"ok": summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Every rule id the reference can refuse with, declared once with its meaning.

Tools (the harness classifier, tests) match on these ids, never on messages.
"""

from __future__ import annotations

LOAD_RULES: dict[str, str] = {
    # Shape of the document.
    "malformed-json": "The source is not valid JSON text (or not a JSON object at the top).",
    "file-not-found": "The source is a path that names no file (missing, a path component "
    "that is not a folder, a name too long or holding NUL); the message gives the OS reason.",
    "file-unreadable": "The source is a path to something that cannot be read as a UTF-8 "
    "file: a folder, a device or pipe, permission denied, bytes that are not UTF-8...",
    "nesting-too-deep": "Arrays and objects nest more than 127 levels (the root object is "
    "level 1), or a mapping holds itself; upstream's serde_json refuses level 128 "
    "('recursion limit exceeded').",
    "invalid-type": "A field has the wrong JSON type (e.g. a list where an object is required).",
    "missing-field": "A required field is absent.",
    "invalid-value": "A field has a value outside what upstream accepts (bad version, bad id...).",
    "unsupported-component": "A component type this reference does not reproduce; refused by name.",
    "regex-syntax": "A Regex (Replace or Split) that is not valid Oniguruma (Ruby syntax): an "
    "unterminated class or property name, an unbalanced parenthesis, a trailing backslash, a "
    "quantifier without a target or on an anchor or look-around, a repeat count above "
    "100000, an empty or escape-bounded class range. Upstream refuses the file too "
    "(Oniguruma error); decision 0031.",
    "regex-backtracking": "A Regex on which the regex package could backtrack without bound, "
    "or longer than 10,000 characters: for Replace, two ways of reading the same text meet "
    "again before the end of the pattern (nested or overlapping repetition, decision 0017); "
    "for Split, the pattern is infinitely ambiguous (decision 0023). Upstream loads it and "
    "panics (Oniguruma retry-limit-in-match) on long enough inputs.",
    # BPE model.
    "merge-malformed": "A merge entry is not a pair of strings nor a legacy 'a b' string.",
    "merge-out-of-vocabulary": "A merge part, or the merged result, is not in the vocabulary.",
    "merge-prefix-underflow": "A merge's right part is shorter than continuing_subword_prefix "
    "(upstream panics).",
    "merge-prefix-splits-character": "Cutting continuing_subword_prefix's byte length off a "
    "merge's right part would split a UTF-8 character (upstream builds an invalid string).",
    "duplicate-id": "Two vocabulary strings share one id (upstream picks one at random).",
    "template-incoherent": "A TemplateProcessing upstream loads but cannot run as written: "
    "a template naming a special token absent from special_tokens, or a single template "
    "using sequence B (upstream panics at encode), or a special token whose ids and tokens "
    "differ in length (upstream misaligns the encoding). Refused in both modes; "
    "decision 0047.",
    "dropout-out-of-range": "dropout outside [0, 1].",
    "dropout-nondeterministic": "0 < dropout < 1: upstream draws from an unseeded RNG; "
    "not reproducible.",
    "unk-token-not-in-vocabulary": "unk_token names a string absent from the model vocabulary.",
    # The byte-fallback decision.
    "byte-alphabet-incomplete": "byte_fallback is declared but a <0xXX> piece is missing.",
    "byte-piece-lowercase": "byte_fallback is declared and a byte piece is spelled in lower case.",
    "decoder-shape": "byte_fallback is declared and the decoder is neither a bare ByteFallback "
    "nor exactly [Replace, ByteFallback, Fuse, Strip].",
}

ENCODE_RULES: dict[str, str] = {
    "text-not-unicode": "The text holds a lone surrogate, which no UTF-8 text can carry "
    "(upstream's Python binding raises TypeError).",
    "unk-token-missing-at-encode": "Lenient mode: an unknown character needs unk_token, which "
    "is not in the vocabulary (upstream raises at encode).",
    "character-dropped": "Strict mode: a character is neither in the vocabulary nor "
    "byte-resolvable and there is no unk_token; upstream silently drops it (and lets its "
    "neighbours merge).",
}

DECODE_RULES: dict[str, str] = {
    "decode-unknown-id": "An id that names no token (upstream silently drops it).",
}

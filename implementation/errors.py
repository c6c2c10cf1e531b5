"""Typed errors of the reference tokenizer.

Every refusal names a stable ``rule`` identifier (matched by tools, never the
message) and the JSON ``path`` of the offending value (``$.model.vocab``...).
"""

from __future__ import annotations


class TokenizerError(Exception):
    """Base class of every error the reference raises on purpose."""

    def __init__(self, rule: str, path: str, message: str) -> None:
        self.rule = rule
        self.path = path
        self.message = message
        super().__init__(f"[{rule}] at {path}: {message}")

    def __reduce__(self) -> tuple[type[TokenizerError], tuple[str, str, str]]:
        return (type(self), (self.rule, self.path, self.message))


class LoadError(TokenizerError):
    """A tokenizer.json the reference refuses to load.

    ``rule`` is one of the ids listed in ``implementation.rules.LOAD_RULES``.
    """


class EncodeError(TokenizerError):
    """An input the loaded tokenizer cannot encode, with the rule that stops it:
    ``character-dropped`` (strict mode: upstream would silently drop a character) or
    ``unk-token-missing-at-encode`` (lenient mode: upstream raises the same way)."""


class DecodeError(TokenizerError):
    """Ids the reference refuses to decode (an id outside the vocabulary)."""

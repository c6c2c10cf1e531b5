"""What a mutant's site is, read from the unmutated module's syntax tree.

``annotation``: the site lies inside a type annotation. Every module of implementation/
starts with ``from __future__ import annotations``, so no annotation is ever evaluated
and such a mutant is equivalent by construction: it is counted, never run.
``message``: the site lies inside the last argument of an ``...Error(...)`` call, the
message (the rule and JSON path come first): a survivor there changes only an error's
wording and is set apart. ``api_only``: the site lies inside a function whose
heading carries one of ``API_ONLY_MARKS`` (the coverage pragmas of upstream's Python
constructor path, of the API queries the run never makes and of the checkers only the
property tests call: code only an API call the subject protocol does not carry reaches,
never a ``tokenizer.json``, so the harness' reach leaves it out too) and which nothing
else in the module names; such a mutant is counted, never run (its killers are the
module's unit tests). Anything else is ``code``. Decisions 0046, 0050.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Literal

Site = Literal["annotation", "message", "api_only", "code"]
#: The marks in a function's heading (its ``def`` line, or a comment before its body) of
#: code only an API call outside the subject protocol reaches: upstream's Python
#: constructor path (string templates), the API queries (token_to_id, vocab_size...) and
#: the checkers the property tests call on encodings (contract_violations).
API_ONLY_MARKS = ("constructor only", "API query", "checker only")


@dataclass(frozen=True)
class _Span:
    start: tuple[int, int]
    end: tuple[int, int]

    def holds(self, at: tuple[int, int]) -> bool:
        return self.start <= at < self.end


class Sites:
    """The annotation and message spans of one module's source (character columns, as
    Cosmic Ray counts them)."""

    def __init__(self, source: str) -> None:
        self._lines = source.splitlines()
        tree = ast.parse(source)
        self.future_annotations = any(
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
            and any(alias.name == "annotations" for alias in node.names)
            for node in tree.body)
        self._annotations: list[_Span] = []
        self._messages: list[_Span] = []
        for node in ast.walk(tree):
            for annotation in _annotations_of(node):
                self._annotations.append(self._span(annotation))
            if (isinstance(node, ast.Call) and node.args
                    and _callee(node.func).endswith("Error")):
                self._messages.append(self._span(node.args[-1]))
        self._api_only = [self._function_span(f) for f in _api_only(tree, self._lines)]

    def _column(self, line: int, byte_offset: int) -> int:
        text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))

    def _span(self, node: ast.expr) -> _Span:
        end_line = node.end_lineno if node.end_lineno is not None else node.lineno
        end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return _Span((node.lineno, self._column(node.lineno, node.col_offset)),
                     (end_line, self._column(end_line, end_col)))

    def _function_span(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> _Span:
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end_line = node.end_lineno if node.end_lineno is not None else node.lineno
        return _Span((first, 0), (end_line + 1, 0))

    def kind(self, line: int, column: int) -> Site:
        at = (line, column)
        if self.future_annotations and any(s.holds(at) for s in self._annotations):
            return "annotation"
        if any(s.holds(at) for s in self._api_only):
            return "api_only"
        if any(s.holds(at) for s in self._messages):
            return "message"
        return "code"


def _annotations_of(node: ast.AST) -> list[ast.expr]:
    found: list[ast.expr] = []
    if isinstance(node, ast.arg) and node.annotation is not None:
        found.append(node.annotation)
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
        found.append(node.returns)
    elif isinstance(node, ast.AnnAssign):
        found.append(node.annotation)
    return found


def _callee(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _api_only(tree: ast.Module, lines: list[str]
              ) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions with one of ``API_ONLY_MARKS`` in their heading whose names nothing
    outside the marked functions uses (a marked function some other code calls is code)."""
    functions = [node for node in ast.walk(tree)
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    marked = {f for f in functions if any(
        mark in "\n".join(lines[f.lineno - 1:f.body[0].lineno - 1]) for mark in API_ONLY_MARKS)}
    while True:
        inside = {id(n) for f in marked for n in ast.walk(f)}
        used = {_name_of(n) for n in ast.walk(tree) if id(n) not in inside}
        kept = {f for f in marked if f.name not in used}
        if kept == marked:
            return sorted(marked, key=lambda f: f.lineno)
        marked = kept


def _name_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None

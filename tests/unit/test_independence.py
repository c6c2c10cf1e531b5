"""implementation/ is the independent side: it never imports tokenizers, and works
with tokenizers made unimportable. Besides the standard library it imports only the runtime
dependencies pyproject.toml declares (docs/decisions/0023-regex-dependency.md)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

IMPLEMENTATION = Path(__file__).resolve().parents[2] / "implementation"
PYPROJECT = IMPLEMENTATION.parent / "pyproject.toml"


def declared_dependencies() -> set[str]:
    """The import names of ``[project] dependencies`` (each pinned exactly)."""
    with PYPROJECT.open("rb") as handle:
        requirements = tomllib.load(handle)["project"]["dependencies"]
    names = set()
    for requirement in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==[0-9][0-9A-Za-z.]*", requirement)
        assert match, f"{requirement!r} is not pinned exactly"
        names.add(match.group(1).lower().replace("-", "_"))
    return names

SCRIPT = """
import sys
sys.modules["tokenizers"] = None  # any import of it now raises ImportError
import implementation as ref
doc = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}}
tok = ref.load_tokenizer(doc)
assert tok.encode("ab") == [2], tok.encode("ab")
assert "tokenizers" not in [m for m, v in sys.modules.items() if v is not None]
print("ok")
"""


def test_the_runtime_dependencies_are_regex_alone() -> None:
    assert declared_dependencies() == {"regex"}


def test_imports_only_the_standard_library_and_declared_dependencies() -> None:
    stdlib = set(sys.stdlib_module_names) | declared_dependencies()
    for path in sorted(IMPLEMENTATION.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in stdlib, (f"{path.name} imports {name!r}, outside the stdlib "
                                       "and the declared dependencies")


def test_works_with_tokenizers_blocked() -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                            check=False, cwd=IMPLEMENTATION.parent)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_a_lone_surrogate_in_the_text_is_an_encode_error() -> None:
    import pytest

    import implementation as ref

    tok = ref.load_tokenizer(
        {"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "unk_token": "a"}})
    with pytest.raises(ref.EncodeError) as info:
        tok.encode_with_spans("a\ud800")
    assert info.value.rule == "text-not-unicode"
    with pytest.raises(ref.EncodeError):
        tok.encode_with_spans("a", pair="\udfff")

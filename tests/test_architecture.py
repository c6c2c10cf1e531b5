"""The harness' imports point one way: down the layers, never up, never in a circle.

    core  <-  subjects  <-  judge  <-  subjects/*/recognisers  <-  runs  <-  report  <-  oracles
              strategies  <-  fixtures  (beside: read by runs and above)
    oracles  <-  job  <-  bench, __main__

Each package of ``harness/`` has a rank (``LAYERS``); a module may import a module of its
own package or of a package of strictly lower rank. Imports inside functions count as
much as those at the top. Within one package, the module import graph has no cycle. A
subject's recognisers (``subjects/<name>/recognisers``) are plugins of the judge: they
rank above it, the rest of ``subjects/`` below it (decision 0030).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parent.parent / "harness"

#: The unit of every subject's recognisers (``harness.subjects.<name>.recognisers...``).
SUBJECT_PLUGINS = "subjects/*/recognisers"
#: package (or top-level module) of harness/ -> its rank. Lower ranks never import higher.
LAYERS: dict[str, float] = {
    "core": 0,
    "documents": 1,
    "subjects": 1,
    "strategies": 2,
    "judge": 3,
    "fixtures": 3,
    SUBJECT_PLUGINS: 3.5,
    "runs": 4,
    "report": 5,
    "oracles": 6,
    "job": 7,
    "bench": 8,
    "__main__": 9,
    "__init__": 0,
}


def _unit(module: str) -> str:
    """``harness.judge.compare`` -> ``judge``; ``harness.job`` -> ``job``;
    ``harness.subjects.x.recognisers.readings`` -> ``SUBJECT_PLUGINS``."""
    parts = module.split(".")
    if len(parts) > 3 and parts[1] == "subjects" and parts[3] == "recognisers":
        return SUBJECT_PLUGINS
    return parts[1] if len(parts) > 1 else "__init__"


def _module_name(path: Path, root: Path = HARNESS) -> str:
    relative = path.relative_to(root.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__" and len(parts) > 1 and parts[:-1] != ["harness"]:
        parts = parts[:-1]
    return ".".join(parts)


def harness_imports(path: Path, root: Path = HARNESS) -> list[tuple[int, str]]:
    """(line, imported harness module) of every import in the file, at any depth."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("harness")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("harness"):
                continue
            if node.module is None or target == "harness" or _is_package(target, root):
                for alias in node.names:  # `from . import x` / `from .pkg import mod`
                    candidate = f"{target}.{alias.name}"
                    found.append((node.lineno,
                                  candidate if _exists(candidate, root) else target))
            else:
                found.append((node.lineno, target))
    return found


def _exists(module: str, root: Path) -> bool:
    path = root.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _is_package(module: str, root: Path) -> bool:
    return (root.parent.joinpath(*module.split(".")) / "__init__.py").is_file()


def violations(root: Path = HARNESS) -> list[str]:
    problems: list[str] = []
    for path in sorted(root.rglob("*.py")):
        here = _unit(_module_name(path, root))
        if here not in LAYERS:
            problems.append(f"{path.relative_to(root.parent)}: harness/{here} has no layer "
                            "in tests/test_architecture.py")
            continue
        for line, target in harness_imports(path, root):
            there = _unit(target)
            if there == here:
                continue
            if there not in LAYERS or LAYERS[there] >= LAYERS[here]:
                problems.append(f"{path.relative_to(root.parent)}:{line}: harness/{here} "
                                f"(layer {LAYERS.get(here)}) imports {target} "
                                f"(layer {LAYERS.get(there)})")
    return problems


def cycles(root: Path = HARNESS) -> list[list[str]]:
    graph: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        name = _module_name(path, root)
        graph.setdefault(name, set()).update(
            target for _, target in harness_imports(path, root)
            if _unit(target) == _unit(name) and target != name)
    found: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*stack[stack.index(nxt):], nxt] if nxt in stack else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_every_import_points_down() -> None:
    assert violations() == []


def test_no_import_cycle_inside_a_package() -> None:
    assert cycles() == []


def test_the_test_bites(tmp_path: Path) -> None:
    """An upward import (judge importing runs) and a cycle are both reported."""
    copy = tmp_path / "harness"
    for path in HARNESS.rglob("*.py"):
        target = copy / path.relative_to(HARNESS)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert violations(copy) == []
    compare = copy / "judge" / "compare.py"
    compare.write_text(compare.read_text(encoding="utf-8")
                       + "\n\ndef _late() -> None:\n    from ..runs import engine  # noqa\n",
                       encoding="utf-8")
    assert any("harness/judge (layer 3) imports harness.runs.engine (layer 4)" in v
               for v in violations(copy))
    adapter = copy / "subjects" / "transformers_js" / "__init__.py"
    adapter.write_text(adapter.read_text(encoding="utf-8")
                       + "\nfrom ...judge import compare  # noqa\n", encoding="utf-8")
    assert any("harness/subjects (layer 1) imports harness.judge.compare (layer 3)" in v
               for v in violations(copy))
    classify = copy / "judge" / "classify.py"
    classify.write_text(classify.read_text(encoding="utf-8")
                        + "\nfrom ..subjects.transformers_js import recognisers  # noqa\n",
                        encoding="utf-8")
    assert any("harness/judge (layer 3) imports harness.subjects.transformers_js.recognisers "
               "(layer 3.5)" in v for v in violations(copy))
    outcome = copy / "core" / "outcome.py"
    outcome.write_text(outcome.read_text(encoding="utf-8") + "\nfrom . import observation\n",
                       encoding="utf-8")
    assert cycles(copy), "core/outcome <-> core/observation is a cycle"


@pytest.mark.parametrize("package", sorted(p.name for p in HARNESS.iterdir()
                                           if (p / "__init__.py").is_file()))
def test_every_package_says_its_job(package: str) -> None:
    doc = ast.get_docstring(ast.parse((HARNESS / package / "__init__.py").read_text(
        encoding="utf-8")))
    assert doc, f"harness/{package}/__init__.py has no docstring"

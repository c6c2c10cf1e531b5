"""The harness' imports point one way: down the layers, never up, never in a circle.

    core  <-  subjects  <-  judge  <-  subjects/*/recognisers  <-  runs  <-  report  <-  oracles
              strategies  <-  fixture_builders  (beside: read by runs and above)
    oracles  <-  job  <-  bench, cli  <-  __main__
    report, site (severity)  <-  matrix  <-  cli, __main__   (the matrix runs each subject
                                                               in a child; it reads reports)

Each package of ``harness/`` has a rank (``LAYERS``); a module may import a module of its
own package or of a package of strictly lower rank. Imports inside functions count as
much as those at the top. Within one package, the module import graph has no cycle. A
subject's recognisers (``subjects/<name>/recognisers``) are plugins of the judge: they
rank above it, the rest of ``subjects/`` below it (decision 0034).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[2] / "harness"

#: The unit of every subject's recognisers (``harness.subjects.<name>.recognisers...``).
SUBJECT_PLUGINS = "subjects/*/recognisers"
#: package (or top-level module) of harness/ -> its rank. Lower ranks never import higher.
LAYERS: dict[str, float] = {
    "core": 0,
    "documents": 1,
    "subjects": 1,
    "strategies": 2,
    "judge": 3,
    "fixture_builders": 3,
    SUBJECT_PLUGINS: 3.5,
    "runs": 4,
    "report": 5,
    "oracles": 6,
    "job": 7,
    "site": 6,
    "matrix": 7,
    "bench": 8,
    "mutation": 8,
    "cli": 8.5,
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
                            "in tests/harness/test_architecture.py")
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


def every_import(path: Path, root: Path) -> list[tuple[int, str]]:
    """Each import of ``path`` at any depth, as (line, absolute module name), in order."""
    targets = harness_imports(path, root)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            targets.append((node.lineno, node.module))
    return sorted(set(targets))


def judge_reaches(root: Path = HARNESS) -> list[str]:
    """Imports by which the judge could run a subject: of ``harness/subjects/`` or of
    ``implementation/`` (the code it judges), at any depth. The judge has what it must
    run again run by the replayer it is handed (``harness/judge/replay.py``)."""
    problems: list[str] = []
    for path in sorted((root / "judge").rglob("*.py")):
        for line, target in every_import(path, root):
            if target.split(".")[0] == "implementation" or target.startswith(
                    "harness.subjects"):
                problems.append(f"{path.relative_to(root.parent)}:{line}: the judge imports "
                                f"{target}")
    return problems


def test_the_judge_runs_nothing() -> None:
    assert judge_reaches() == []


#: What a recogniser (a plugin of the judge) may not import: the subjects it would run.
RUNNABLE = ("harness.subjects.upstream", "harness.subjects.reference", "implementation")


def recogniser_reaches(root: Path = HARNESS) -> list[str]:
    """Imports by which a subject's recognisers could run a tokenizer themselves instead of
    asking the judge's replayer: of upstream, of our reference, of ``implementation/``."""
    problems: list[str] = []
    for path in sorted((root / "subjects").rglob("*.py")):
        if "recognisers" not in path.relative_to(root).parts[2:] \
                and path.stem != "recognisers":
            continue
        for line, target in every_import(path, root):
            if any(target == r or target.startswith(r + ".") for r in RUNNABLE):
                problems.append(f"{path.relative_to(root.parent)}:{line}: a recogniser "
                                f"imports {target}")
    return problems


def test_recognisers_run_nothing_themselves() -> None:
    found = recogniser_reaches()
    assert found == [], found
    assert any("recognisers" in p.parts for p in (HARNESS / "subjects").rglob("*.py"))


def test_the_judge_rule_bites(tmp_path: Path) -> None:
    """An import of the reference or of a subject by the judge, even inside a function."""
    copy = tmp_path / "harness"
    for path in HARNESS.rglob("*.py"):
        target = copy / path.relative_to(HARNESS)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert judge_reaches(copy) == []
    compare = copy / "judge" / "compare.py"
    compare.write_text(compare.read_text(encoding="utf-8")
                       + "\n\ndef _late() -> None:\n    from ..subjects import upstream  # noqa\n"
                       "    import implementation.decoders  # noqa\n", encoding="utf-8")
    found = judge_reaches(copy)
    assert any("imports harness.subjects.upstream" in v for v in found), found
    assert any("imports implementation.decoders" in v for v in found), found


@pytest.mark.parametrize("package", sorted(p.name for p in HARNESS.iterdir()
                                           if (p / "__init__.py").is_file()))
def test_every_package_says_its_job(package: str) -> None:
    doc = ast.get_docstring(ast.parse((HARNESS / package / "__init__.py").read_text(
        encoding="utf-8")))
    assert doc, f"harness/{package}/__init__.py has no docstring"


ARCHITECTURE = HARNESS.parent / "docs" / "architecture.md"


def test_the_architecture_document_names_what_exists() -> None:
    """Every ``harness/...`` path and every module of the implementation table that
    ``docs/architecture.md`` names exists."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    root = HARNESS.parent
    named = set(re.findall(r"(?<![\w/])harness/[\w/]+(?:\.py|\.yaml)?", text))
    missing = [name for name in sorted(named)
               if not (root / name).exists() and not (root / f"{name}.py").exists()]
    table = text[text.index("## implementation/"):]
    missing += [f"implementation/{name}" for name in re.findall(r"^\| `([\w/]+(?:\.py)?)`", table,
                                                               re.M)
                if not (root / "implementation" / name).exists()]
    assert missing == []


def test_every_harness_package_is_in_the_architecture_document() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    packages = sorted(p.name for p in HARNESS.iterdir() if (p / "__init__.py").is_file())
    assert [p for p in packages if f"`{p}/`" not in text] == []

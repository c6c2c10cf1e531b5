"""pyproject.toml lists every package of the tree, and its package data covers every file
a package folder holds besides Python: a new subject folder (its program, expectations,
witnesses, findings) is found missing here, in the fast tier, not after an install
(the install itself is tests/exhaustive/test_packaging.py)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
    "tool"]["setuptools"]
#: Files that live in a package folder and are not meant for the wheel.
NOT_SHIPPED = ("*.pyc",)


def _code_packages() -> set[str]:
    return {".".join(p.parent.relative_to(ROOT).parts)
            for top in ("harness", "implementation") for p in (ROOT / top).rglob("__init__.py")}


def test_every_package_is_listed_in_pyproject() -> None:
    listed = set(SETUPTOOLS["packages"])
    data = {name for name in listed if name.startswith("harness.data_")}
    assert listed - data == _code_packages()


def test_every_data_file_of_a_package_is_shipped() -> None:
    patterns: dict[str, list[str]] = SETUPTOOLS["package-data"]
    missing = []
    for package in sorted(_code_packages()):
        folder = ROOT.joinpath(*package.split("."))
        for path in sorted(folder.iterdir()):
            if not path.is_file() or path.suffix == ".py" \
                    or any(fnmatch.fnmatch(path.name, p) for p in NOT_SHIPPED):
                continue
            if not any(fnmatch.fnmatch(path.name, p) for p in patterns.get(package, [])):
                missing.append(path.relative_to(ROOT).as_posix())
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"

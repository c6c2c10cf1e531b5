"""No module of ``harness/`` is over 600 lines: small modules with one job (issue 20).

Generated tables are the only exception, each named in ``GENERATED`` with the reason;
none is needed today.
"""

from __future__ import annotations

from pathlib import Path

HARNESS = Path(__file__).resolve().parents[2] / "harness"
MAX_LINES = 600
#: Generated modules allowed past ``MAX_LINES`` (path from the repository root -> why).
GENERATED: dict[str, str] = {}


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def oversized(root: Path = HARNESS) -> list[str]:
    """``path: N lines`` of every module over the limit that is not an allowed table."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent).as_posix()
        lines = line_count(path)
        if lines > MAX_LINES and relative not in GENERATED:
            found.append(f"{relative}: {lines} lines")
    return found


def test_no_harness_module_is_over_the_limit() -> None:
    assert oversized() == [], (f"split these into modules of at most {MAX_LINES} lines "
                               "(or name a generated table in GENERATED)")


def test_allowed_tables_exist_and_need_the_exception() -> None:
    root = HARNESS.parent
    for relative in GENERATED:
        assert (root / relative).is_file(), f"{relative} is allowed but does not exist"
        assert line_count(root / relative) > MAX_LINES, f"{relative} needs no exception"


def test_the_check_bites(tmp_path: Path) -> None:
    package = tmp_path / "harness"
    package.mkdir()
    (package / "small.py").write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    (package / "big.py").write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    assert oversized(package) == [f"harness/big.py: {MAX_LINES + 1} lines"]

"""Where the oracle files live and what every one of them shares: paths, the header
(``environment``), fixture texts and their sha256, the canonical document text and the
flags' meanings. The file format is described in ``oracles/README.md`` (decision
[0013](../../docs/decisions/0013-tests-session-installs-tokenizers.md))."""

from __future__ import annotations

import hashlib
import json
import platform
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..core.pins import upstream_version
from ..core.resources import checkout_root
from ..fixtures import real_models
from ..judge.registry import load_registry
from .spec import FLAGS

#: The repository the oracle files are read from and written to, by default: the checkout
#: this harness runs from, else the working directory.
REPO_ROOT = checkout_root() or Path(".")
ORACLE_DIR = "oracles"
DIVERGENCES = "divergences"
SCHEMA = "oracles/schema/oracle.schema.json"
#: The tokenizers version the committed oracles are generated with (pyproject's pin).
PINNED_VERSION = upstream_version()

SKIP_LABELS = {True: "decode_skip_special", False: "decode_keep_special"}
Json = dict[str, Any]


def oracle_path(root: Path, name: str) -> Path:
    return root / ORACLE_DIR / f"{name}.json"


def generator_command(version: str) -> str:
    return f"nox -s oracles -- --reference {version} --accept"


def environment(version: str, fixtures: Mapping[str, str], *,
                inputs: str = "harness/oracles/cases.py",
                built_fixtures: Mapping[str, str] | None = None) -> Json:
    header: Json = {
        "tokenizers": version,
        "python": platform.python_version(),
        "unicode": unicodedata.unidata_version,
        "generator": generator_command(version),
        "inputs": inputs,
        "fixtures": dict(sorted(fixtures.items())),
    }
    if built_fixtures:
        header["built_fixtures"] = dict(sorted(built_fixtures.items()))
    return header


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def built_fixture_text(name: str, *, build: bool = False) -> str:
    """The text of built fixture ``name`` (``harness.fixtures.real_models``). ``build``: build it
    when it is not cached (needs network for pip and ``tokenizers``); otherwise only the
    cached, sha256-verified build is read. Raises ``real_models.FixtureError``."""
    if build:
        path = real_models.build_fixture(name)
    else:
        spec = real_models.SPECS.get(name)
        if spec is None:
            raise real_models.FixtureError(f"unknown built fixture {name!r}; known: "
                                           f"{', '.join(real_models.FIXTURES)}")
        path = real_models._output_path(real_models.fixtures_dir(), spec)
        if not path.is_file():
            raise real_models.FixtureError(
                f"built fixture {name} is not in {real_models.fixtures_dir()} "
                f"(python -m harness.fixtures.real_models {name} builds it)")
        real_models.verify_sha256(path, spec.output_sha256, what=f"built fixture {name}")
    return path.read_text(encoding="utf-8")


def build_fixtures(names: Iterable[str]) -> str | None:
    """Build (or find in the cache) every named built fixture: None when all are there,
    else why one cannot be built here (tests skip with it)."""
    for name in sorted(set(names)):
        try:
            real_models.build_fixture(name)
        except real_models.FixtureError as exc:
            return f"built fixture {name} cannot be built here: {exc}"
    return None


def built_fixtures_of(data: Mapping[str, Any]) -> list[str]:
    """The built fixtures an oracle file's tokenizers name."""
    return sorted({str(entry["built_fixture"])
                   for entry in (data.get("tokenizers") or {}).values()
                   if "built_fixture" in entry})


def document_json(document: Json) -> str:
    """The tokenizer.json text both subjects receive for an oracle row: compact, sorted
    keys. Fixed here, not borrowed, because upstream's load errors quote a serde position
    (`` at line 1 column N``) that the pinned messages keep."""
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def flag_meanings(flags: Iterable[str]) -> Json:
    registry = {cls.id: cls for cls in load_registry()}
    out: Json = {}
    for flag in sorted(set(flags)):
        meaning = FLAGS.get(flag)
        if meaning is None and flag in registry:
            meaning = f"Intended divergence class: {registry[flag].title}."
        if meaning is None:
            raise ValueError(f"flag {flag!r} has no declared meaning (harness/oracles/cases.py)")
        out[flag] = meaning
    return out


def committed_files(root: Path, paths: Iterable[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for rel in paths:
        path = root / rel
        out[rel] = path.read_text(encoding="utf-8") if path.is_file() else None
    return out


def oracle_files(root: Path) -> list[Path]:
    return sorted((root / ORACLE_DIR).glob("*.json"))

"""The unified tokenizer's JSON config: parsing and validation.

The schema is ``config.schema.json`` beside this module; ``docs/unified.md`` documents
every field. Every refusal is a ``LoadError(rule, path, message)`` naming the JSON path
in the config (``$.multimodal.image.placeholder``); an error inside the referenced
general tokenizer.json or morph model keeps the reference's rule, with the path continued
from the config key that references it (``$.general.tokenizer.model.vocab``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import LoadError, excerpt, excerpt_file
from ..jsonfields import Node
from ..loader import load_tokenizer
from ..sources import check_source_type, read_document
from ..tokenizer import Tokenizer
from .morph import MorphBPE

ConfigSource = str | bytes | bytearray | memoryview | os.PathLike[str] | Mapping[str, Any]
ModalityName = Literal["image", "video"]

SCHEMA_PATH = Path(__file__).with_name("config.schema.json")
CONFIG_VERSION = "1.0"

_TOP_KEYS = ("$schema", "version", "description", "general", "morph", "special_tokens",
             "add_bos", "add_eos", "multimodal")
_SPECIAL_NAMES = ("bos", "eos", "pad", "unk")


@dataclass(frozen=True, slots=True)
class SpecialTokens:
    """The unified tokenizer's own specials, in id order (bos, eos, pad, unk)."""

    bos: str
    eos: str
    pad: str
    unk: str

    def contents(self) -> tuple[str, str, str, str]:
        return (self.bos, self.eos, self.pad, self.unk)


@dataclass(frozen=True, slots=True)
class ModalityConfig:
    """``<image>`` / ``<video>``: the placeholder string found in texts, and the patch
    token each placeholder expands into (how many: per item of ``images=``/``videos=``)."""

    name: ModalityName
    placeholder: str
    patch_token: str


@dataclass(frozen=True, slots=True)
class DualTrackConfig:
    general: Tokenizer
    morph: MorphBPE
    specials: SpecialTokens
    add_bos: bool
    add_eos: bool
    image: ModalityConfig | None
    video: ModalityConfig | None
    #: Where the config came from (a path, or ``<dict>``/``<text>``), for messages.
    origin: str


def parse_config(source: ConfigSource, *, base_dir: str | os.PathLike[str] | None = None
                 ) -> DualTrackConfig:
    """Parse and validate a config given as a path, JSON text (str/bytes) or a dict.

    Relative paths inside the config are resolved against ``base_dir``, else the config
    file's folder, else the current folder (for a dict or JSON text). A str source is a
    path or a JSON text as for ``load_tokenizer`` (``implementation/sources.py``); a source
    or ``base_dir`` of another type is a ``TypeError``.
    """
    check_source_type(source, "parse_config")
    check_base_dir(base_dir, "parse_config")
    data, origin, folder = _read_source(source)
    base = Path(base_dir) if base_dir is not None else folder
    root = Node(data, "$")
    _check_keys(root, _TOP_KEYS)
    version = root.field("version")
    if version.str_() != CONFIG_VERSION:
        version.fail("invalid-value", f"unknown config version {excerpt(version.value)} "
                     f"(expected {CONFIG_VERSION!r})")
    general = _general(root.field("general"), base)
    morph = _morph(root.field("morph"), base)
    specials = _specials(root.field("special_tokens"))
    add_bos = root.optional_bool("add_bos", default=True)
    add_eos = root.optional_bool("add_eos", default=True)
    image, video = _multimodal(root.field("multimodal", required=False))
    _check_distinct(root, specials, image, video)
    return DualTrackConfig(general, morph, specials, add_bos, add_eos, image, video, origin)


# -- sections ---------------------------------------------------------------------------
def _general(node: Node, base: Path) -> Tokenizer:
    _check_keys(node, ("tokenizer",))
    ref = node.field("tokenizer")
    if isinstance(ref.value, dict):
        return _rethrow(ref, "<inline>", lambda: load_tokenizer(ref.value, strict=True))
    path = _resolve(ref, base)
    return _rethrow(ref, str(path), lambda: load_tokenizer(path, strict=True))


def _morph(node: Node, base: Path) -> MorphBPE:
    _check_keys(node, ("model",))
    ref = node.field("model")
    if isinstance(ref.value, dict):
        return MorphBPE.from_json(ref)
    path = _resolve(ref, base)
    value = _parse_json_file(path, ref.path)
    model_node = Node(value, ref.path)
    if isinstance(value, dict) and "model" in value and "vocab" not in value:
        model_node.fail("invalid-value",
                        f"{excerpt_file(str(path))} is a whole tokenizer.json; the morph model is "
                        "its 'model' object alone")
    try:
        return MorphBPE.from_json(model_node)
    except LoadError as exc:
        raise LoadError(exc.rule, exc.path, f"in {excerpt_file(str(path))}: {exc.message}") from exc


def _specials(node: Node) -> SpecialTokens:
    _check_keys(node, _SPECIAL_NAMES)
    return SpecialTokens(*(node.field(name).str_() for name in _SPECIAL_NAMES))


def _multimodal(node: Node) -> tuple[ModalityConfig | None, ModalityConfig | None]:
    if node.is_null:
        return None, None
    _check_keys(node, ("image", "video"))
    found: list[ModalityConfig | None] = []
    name: ModalityName
    for name in ("image", "video"):
        section = node.field(name, required=False)
        if section.is_null:
            found.append(None)
            continue
        _check_keys(section, ("placeholder", "patch_token"))
        found.append(ModalityConfig(name, section.field("placeholder").str_(),
                                    section.field("patch_token").str_()))
    return found[0], found[1]


def _check_distinct(root: Node, specials: SpecialTokens, image: ModalityConfig | None,
                    video: ModalityConfig | None) -> None:
    strings: list[tuple[str, str]] = [
        (f"$.special_tokens.{name}", content)
        for name, content in zip(_SPECIAL_NAMES, specials.contents(), strict=True)
    ]
    for modality in (image, video):
        if modality is not None:
            prefix = f"$.multimodal.{modality.name}"
            strings.append((f"{prefix}.placeholder", modality.placeholder))
            strings.append((f"{prefix}.patch_token", modality.patch_token))
    seen: dict[str, str] = {}
    for path, value in strings:
        if not value:
            raise LoadError("duplicate-surface-string", path, "the string is empty")
        other = seen.setdefault(value, path)
        if other != path:
            raise LoadError("duplicate-surface-string", path,
                            f"{excerpt(value)} is also {other}; every special string, placeholder "
                            "and patch token must be distinct")


# -- helpers ----------------------------------------------------------------------------
def _check_keys(node: Node, allowed: tuple[str, ...]) -> None:
    for key in node.obj():
        if key not in allowed:
            node.fail("unknown-field",
                      f"unknown key {excerpt(key)} (allowed: {', '.join(allowed)})", key)


def _resolve(ref: Node, base: Path) -> Path:
    path = Path(ref.str_())
    return path if path.is_absolute() else base / path


def _rethrow(ref: Node, origin: str, load: Callable[[], Tokenizer]) -> Tokenizer:
    try:
        tokenizer = load()
    except LoadError as exc:
        inner = exc.path[1:] if exc.path.startswith("$") else f".{exc.path}"
        raise LoadError(exc.rule, ref.path + inner,
                        f"in {excerpt_file(origin)}: {exc.message}") from exc
    return tokenizer


def check_base_dir(base_dir: object, function: str) -> None:
    if base_dir is not None and not isinstance(base_dir, str | os.PathLike):
        raise TypeError(f"{function}() argument 'base_dir' must be str, os.PathLike or None, "
                        f"not {type(base_dir).__name__}")


def _read_source(source: ConfigSource) -> tuple[Any, str, Path]:
    document = read_document(source)
    folder = document.file.resolve().parent if document.file is not None else Path.cwd()
    return document.data, document.origin, folder


def _parse_json_file(path: Path, json_path: str) -> Any:
    """A JSON file the config references: always a path, errors at ``json_path``."""
    return read_document(path, json_path).data

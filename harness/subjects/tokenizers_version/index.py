"""Is ``tokenizers==VERSION`` published? One line and well under 5 s to say it is not.

Asks the package index's simple API for the project's page, in its JSON form (PEP 691; the
HTML form of a mirror is read too): ``$PIP_INDEX_URL`` where it is set, else PyPI. One
request of a 3 s timeout, no retries, no pip start-up. The answer is kept in the cache
folder (``index/tokenizers.json``), so a version seen there is accepted without asking
again, and with no network a version the kept list lacks is still refused by name (the
line says the list is the kept one). Standard library only (and ``core.resources``, itself
standard library only): the noxfile calls ``check`` before nox builds anything, the
harness before it builds a venv. Decisions 0035, 0038; docs/upgrading.md.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Final

PACKAGE: Final = "tokenizers"
DEFAULT_INDEX: Final = "https://pypi.org/simple"
#: Seconds the index may take to answer (the whole check stays under 5 s).
TIMEOUT: Final = 3.0
#: A version pip could install: PEP 440's public form, loosely (1.0.0rc3, 0.23.1, 0.20.0.post1).
_SHAPE: Final = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")
_ACCEPT: Final = ("application/vnd.pypi.simple.v1+json, "
                  "text/html;q=0.1")
#: A distribution file of the project: its version is what follows the name.
_FILE: Final = re.compile(rf"^{PACKAGE}-([^-]+?)(?:\.tar\.gz|\.zip|-.*\.whl)$", re.I)

#: Fetches a URL's body within a timeout; raises ``OSError`` (``TimeoutError`` included).
Fetcher = Callable[[str, float], str]


class VersionError(Exception):
    """The version cannot be used (the message is one line)."""


def _fetch(url: str, timeout: float) -> str:
    request = urllib.request.Request(url, headers={"Accept": _ACCEPT})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body: bytes = answer.read()
    except urllib.error.URLError as exc:
        raise OSError(str(exc.reason)) from None
    return body.decode("utf-8", errors="replace")


class _Links(HTMLParser):
    """The link texts of a simple-API HTML page (the file names)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self._in_link = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_link = tag == "a"

    def handle_endtag(self, tag: str) -> None:
        self._in_link = False

    def handle_data(self, data: str) -> None:
        if self._in_link and data.strip():
            self.names.append(data.strip())


def _versions_of(body: str) -> list[str]:
    """The versions a simple-API page lists (JSON's ``versions``, else its files)."""
    names: list[str]
    try:
        data = json.loads(body)
    except ValueError:
        parser = _Links()
        parser.feed(body)
        names = parser.names
    else:
        if isinstance(data, dict) and isinstance(data.get("versions"), list):
            return [str(v) for v in data["versions"]]
        files = data.get("files", []) if isinstance(data, dict) else []
        names = [str(f.get("filename", "")) for f in files if isinstance(f, dict)]
    found = {m.group(1) for m in map(_FILE.match, names) if m is not None}
    return sorted(found, key=_order)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version)[:3])


def _order(version: str) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """Release numbers, then a pre-release or dev release before its final release."""
    release = re.match(r"\d+(?:\.\d+)*", version)
    numbers = tuple(int(n) for n in release.group(0).split(".")) if release else ()
    rest = version[release.end():] if release else version
    return numbers, 0 if re.search(r"(a|b|rc|dev)\d*", rest) else 1, _key(rest)


def index_url() -> str:
    return os.environ.get("PIP_INDEX_URL", "").strip().rstrip("/") or DEFAULT_INDEX


def kept_list() -> Path:
    """Where the last answer of the index is kept (the user's cache folder)."""
    from ...core.resources import cache_dir

    return cache_dir() / "index" / f"{PACKAGE}.json"


def _read_kept(path: Path | None) -> tuple[list[str], float] | None:
    if path is None or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [str(v) for v in data["versions"]], float(data["fetched"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _keep(path: Path | None, versions: list[str]) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps({"fetched": time.time(), "versions": versions}),
                             encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass  # a cache that cannot be written costs the next check one request


def published(fetch: Fetcher = _fetch) -> list[str]:
    """Every version of tokenizers on the index, newest first (pre-releases included);
    ``OSError`` where the index does not answer."""
    body = fetch(f"{index_url()}/{PACKAGE}/", TIMEOUT)
    versions = _versions_of(body)
    if not versions:
        raise OSError("the index lists no version")
    return sorted(versions, key=_order, reverse=True)


def nearest(version: str, versions: Sequence[str], count: int = 3) -> list[str]:
    """The published versions closest to ``version``: the longest run of equal release
    numbers first, then the smallest gap at the first number that differs; newest first
    among equals. For a string with no number, the newest ones."""
    target = _key(version)
    if not target:
        return list(versions[:count])

    def distance(candidate: str) -> tuple[int, int]:
        have = _key(candidate)
        same = 0
        while same < min(len(have), len(target)) and have[same] == target[same]:
            same += 1
        gap = (abs(have[same] - target[same])
               if same < min(len(have), len(target)) else 0)
        return -same, gap

    return sorted(versions, key=distance)[:count]


def check(version: str, fetch: Fetcher = _fetch, kept: Path | None = None) -> str:
    """``version`` itself when the index has it; else ``VersionError`` in one line naming
    the nearest published versions. ``kept``: the file of the kept answer (default
    ``kept_list()``); a version it lists is accepted without a request."""
    text = version.strip()
    if not text:
        raise VersionError("empty tokenizers version (give one, e.g. --reference 0.23.3)")
    path = kept_list() if kept is None else kept
    cached = _read_kept(path)
    if cached is not None and text in cached[0] and _SHAPE.match(text):
        return text
    if cached is not None and not _SHAPE.match(text):  # no request needed to say so
        raise VersionError(f"tokenizers version {version!r} is not a version number "
                           f"(newest published: {', '.join(cached[0][:3])})")
    source = ""
    try:
        versions = published(fetch)
    except OSError:
        if cached is None and not _SHAPE.match(text):
            raise VersionError(f"tokenizers version {version!r} is not a version number "
                               "(e.g. 0.23.3)") from None
        if cached is None:
            raise VersionError(f"the package index ({index_url()}) did not answer within "
                               f"{TIMEOUT:g} s (offline?): cannot check tokenizers version "
                               f"{text!r}") from None
        versions = cached[0]
        day = time.strftime("%Y-%m-%d", time.gmtime(cached[1]))
        source = f"; the index did not answer, list kept from {day}"
    else:
        _keep(path, versions)
    if not _SHAPE.match(text):
        raise VersionError(f"tokenizers version {version!r} is not a version number "
                           f"(newest published: {', '.join(versions[:3])}{source})")
    if text in versions:
        return text
    raise VersionError(f"tokenizers {text} is not on the package index (nearest: "
                       f"{', '.join(nearest(text, versions))}{source})")

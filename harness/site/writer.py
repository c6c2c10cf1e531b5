"""The site as files: every page rendered in memory, then written into a temporary folder
beside the output and swapped in, so an interrupted build (Ctrl-C, SIGTERM) leaves the
previous site as it was. The same reports give byte-identical files (nothing here reads a
clock or the machine).

A folder is replaced only when it is a site this writer made (it holds ``MARKER``), so
``--output`` never removes anything else.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path

from ..core import interrupts
from ..core.canonical import canonical_json
from .changes import Changes, snapshot
from .finding import document_file, finding_page
from .html import SCRIPT, STYLE
from .model import Site
from .pages import (
    changes_page,
    file_page,
    files_page,
    legend_page,
    matrix_page,
    subject_page,
    subjects_page,
)

MARKER = ".harness-site"


class OutputError(Exception):
    """An output folder the writer will not replace."""


def render(site: Site, *, changes: Changes | None = None, against: str = "",
           link_base: str = "") -> dict[str, str]:
    """Every file of the site: relative path → text."""
    files = {MARKER: "A site written by python -m harness site; replaced whole on rebuild.\n",
             "style.css": STYLE, "filter.js": SCRIPT, "index.html": matrix_page(site),
             "subjects.html": subjects_page(site), "files.html": files_page(site),
             "changes.html": changes_page(changes, against), "legend.html": legend_page(),
             "matrix.json": canonical_json(snapshot(site))}
    for finding in site.findings:
        interrupts.check()
        files[f"findings/{finding.key}.html"] = finding_page(site, finding, link_base)
        document = document_file(finding)
        if document is not None:
            files[f"findings/{finding.key}.tokenizer.json"] = document
    for subject in site.subjects:
        files[f"subjects/{subject.key}.html"] = subject_page(site, subject.key)
    for row in site.real_files:
        files[f"files/{row.fixture}.html"] = file_page(site, row.fixture)
    return files


def write_site(files: dict[str, str], output: Path) -> None:
    """Write ``files`` into ``output``, replacing a previous site there whole."""
    if output.exists() and not (output / MARKER).is_file() \
            and (not output.is_dir() or any(output.iterdir())):
        raise OutputError(f"{output} exists and is not a site written by this command "
                          f"(no {MARKER}); choose another --output")
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.new-", dir=output.parent))
    try:
        for relative in sorted(files):
            interrupts.check()
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(files[relative])
        for path in [staging, *staging.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        interrupts.check()
        _swap(staging, output)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _swap(staging: Path, output: Path) -> None:
    """Two renames with the stopping signals held back, so they happen both or neither."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    old = output.parent / f".{output.name}.old-{staging.name.rsplit('-', 1)[-1]}"
    try:
        if output.exists():
            os.replace(output, old)
        os.replace(staging, output)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    shutil.rmtree(old, ignore_errors=True)

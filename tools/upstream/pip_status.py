"""pip's own status lines that name a file or an index and state no version of anything installed: its download log
(network/download.py: logger.info("Downloading %s" / "Using cached %s" / "Resuming download %s", logged_url), the URL
or the file name, then " (size)" when pip knows it) and its search scope (models/search_scope.py: "Looking in indexes:
{}", "Looking in links: {}", the URLs joined by ", "). logscope/pipeline/parse/pip_status.py reads these lines as pip's
and nothing more (the prose readers paid ~100 µs a line for nothing on a pip log); tests/test_pip_status.py checks
that its heads are these wordings.

The question is the two modules and the calls; the answer, which wordings and in which releases, comes from the wheels."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from tools.upstream import sources
from tools.upstream.write import by_release, write_generated

PIP_VERSIONS = ("20.0", "23.0", "25.3")
MODULES = ("pip/_internal/network/download.py", "pip/_internal/models/search_scope.py")
# logger.info("Downloading %s", ...) and lines.append("Looking in indexes: {}".format(...)): the format string's head,
# up to its placeholder
_FORMAT = re.compile(
    r"""(?:logger\.info\(|lines\.append\(\s*)["']"""
    r"""((?:Downloading|Using cached|Resuming download|Looking in \w+:) ?)(?:%s|\{\})["']"""
)


def wordings(wheel: Path) -> dict[str, list[str]]:
    """Each module's status heads (the format string before its placeholder)."""
    out: dict[str, list[str]] = {}
    with zipfile.ZipFile(wheel) as zf:
        for name in MODULES:
            if name in zf.namelist():
                text = zf.read(name).decode("utf-8", errors="replace")
                out[name] = sorted({m.group(1) for m in _FORMAT.finditer(text)})
    return out


def extract() -> dict[str, Any]:
    found = {version: wordings(sources.download("pip", version)) for version in PIP_VERSIONS}
    return {"releases": list(PIP_VERSIONS), "heads": by_release(found)}


def write(path: Path) -> None:
    about = (
        "pip's status lines that name a file or an index URL (the head of each format string, before its placeholder),"
        " with the modules and releases that print them, read from the released pip wheels by tools/upstream/pip_status.py"
        " (python -m tools.upstream pip-status). Generated."
    )
    write_generated(path, about, extract())

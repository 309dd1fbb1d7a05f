"""NCCL WARN wordings that NCCL itself demoted to INFO, read from the NVIDIA/nccl git tags (`fetch github:NVIDIA/nccl`),
for catalog/nccl_demoted.json.

A WARN line of an older release is no failure when a later release prints the same format string as INFO and no longer
as WARN: NCCL judged the condition normal and goes on (`Failed to open libibverbs.so[.1]`: no IB verbs library, NCCL
uses its socket transport; WARN up to 2.18, INFO from 2.19). A format printed as WARN and INFO by the same release
(a shared prefix such as "Call to " at several call sites) is not demoted, nor one with no word of its own.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from tools.upstream.native_stages import NCCL_GIT

_TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)-1$")
_WARN = re.compile(r'\bWARN\(\s*"((?:[^"\\]|\\.)*)"')
_INFO = re.compile(r'\bINFO\(\s*[A-Z_|]+\s*,\s*"((?:[^"\\]|\\.)*)"')
# a format worth matching holds a word of its own (letters), not only conversions and punctuation
_WORDY = re.compile(r"[A-Za-z]{4,}.*[A-Za-z]{3,}")


def _git(*args: str) -> str:
    return subprocess.run(["git", f"--git-dir={NCCL_GIT}", *args], capture_output=True, text=True, check=True).stdout


def _tags() -> list[str]:
    found = [(tuple(map(int, m.groups())), t) for t in _git("tag").split() if (m := _TAG.match(t))]
    return [t for _, t in sorted(found)]


def _formats(tag: str) -> tuple[set[str], set[str]]:
    text = _git("grep", "-h", "-E", r"(WARN|INFO)\(", tag, "--", "src")
    return set(_WARN.findall(text)), set(_INFO.findall(text))


def extract() -> dict[str, Any]:
    tags = _tags()
    per_tag = {tag: _formats(tag) for tag in tags}
    demoted: list[dict[str, Any]] = []
    every = sorted(set().union(*(w for w, _ in per_tag.values())))
    for fmt in every:
        if not _WORDY.search(fmt):
            continue
        holding = [t for t in tags if fmt in per_tag[t][0] or fmt in per_tag[t][1]]
        newest_warn, newest_info = per_tag[holding[-1]]
        if fmt in newest_warn or fmt not in newest_info:
            continue
        warned = [t for t in holding if fmt in per_tag[t][0]]
        info_from = next(t for t in holding if t > warned[-1] and fmt in per_tag[t][1] and fmt not in per_tag[t][0])
        demoted.append({"format": fmt, "warn": [warned[0], warned[-1]], "info_from": info_from})
    demoted.sort(key=lambda d: d["format"])
    return {
        "doc": __doc__.strip().split("\n\n")[0].replace("\n", " "),
        "source": f"github:NVIDIA/nccl tags {tags[0]} .. {tags[-1]} ({len(tags)}), src/**: WARN(...) and INFO(...) formats",
        "demoted": demoted,
    }


def write(target: Path) -> None:
    target.write_text(json.dumps(extract(), indent=1) + "\n", encoding="utf-8")

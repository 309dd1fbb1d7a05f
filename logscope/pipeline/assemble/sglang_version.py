"""Which SGLang release wrote the input, and how logscope knows: stated (check_env's "sglang: X", a pip
list's "sglang==X") or a range inferred from the wordings its lines use, through the upstream catalogue
(each wording with the first and last release that prints it)."""

from __future__ import annotations

from typing import Any

from logscope.core import kinds, upstream
from logscope.core.events import Event
from logscope.pipeline.parse.parsers.base import strip_prefix

_STATED_BY = {
    "check_env": "stated by check_env (python3 -m sglang.check_env)",
    "collect_env": "stated by a pip list",
    "docker_image": "stated by the release tag of the launch command's docker image (lmsysorg/sglang:vX)",
    # parse/parsers/stated_env.py's forms
    "pip_pin": "stated by a pip pin (sglang==X)",
    "issue_template": "stated by the issue's environment field (SGLang: X)",
    "pip_show": "stated by pip show (Name / Version)",
    "version_print": "stated by the printed sglang.__version__",
    "section": "stated under a heading that names SGLang (### SGLang Version)",
    "image_tag": "stated by the release tag of an image the input names (lmsysorg/sglang:vX)",
    "bundled_image_tag": "stated by the tag of an image that bundles SGLang (runner:...-sglangX)",
    "bare_image_tag": "stated by an official image's release tag without the image's name (vX-cuNNN)",
    "sentence": "stated in a sentence of the input that names SGLang (SGLang vX)",
    "unowned_release": "stated in a sentence that names a release of SGLang's and no package (using vX)",
    "pip_install": "stated by a pip install command (pip install sglang==X)",
}
_MAX_LINES = 400  # distinct messages looked up (a long log repeats the same startup lines)
_MAX_EVIDENCE = 4


def _key(version: str) -> tuple:
    out: list[Any] = []
    for part in version.replace(".post", ".-1.").split("."):
        out.append(int(part) if part.lstrip("-").isdigit() else part)
    return tuple(out)


def _span(releases: frozenset[str]) -> list[str]:
    ordered = sorted(releases, key=_key)
    return [ordered[0], ordered[-1]]


def lines_of(events: list[Event], phase_lines: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """(source, line, text) of the SGLang lines a launch holds: its recognised events and its phase lines."""
    out = [
        (ev.source, ev.line, ev.data.get("full_text", ev.text))
        for ev in events
        if ev.grammar in (kinds.SGLANG, kinds.EXCEPTION_GRAMMAR, kinds.CATALOGUE_GRAMMAR) and not ev.data.get("quoted")
    ]
    return sorted(set(out + phase_lines))


def sglang_version(lines: list[tuple[str, int, str]], stated: str | None, stated_grammar: str | None) -> dict[str, Any]:
    """{version, range, how, evidence} for one launch. A stated version wins; otherwise the range of
    catalogued releases that print every telling wording seen."""
    if stated:
        # a stated version is the answer; the catalogue is not even loaded (the small-input fast path)
        return {
            "version": stated,
            "range": None,
            "how": _STATED_BY.get(stated_grammar or "", "stated by the input"),
            "evidence": [],
        }
    catalogued = upstream.catalogued_versions()
    narrowed: frozenset[str] = frozenset(catalogued)
    evidence: list[dict[str, Any]] = []
    seen: set[str] = set()
    conflicting = False
    for source, line, text in lines:
        message = strip_prefix(text).strip()
        if message in seen or len(seen) >= _MAX_LINES:
            continue
        seen.add(message)
        found = upstream.releases_printing(message)
        if found is None:
            continue
        releases, wordings = found
        if not releases & narrowed:
            conflicting = True
            continue
        if releases & narrowed != narrowed:
            narrowed = releases & narrowed
            evidence.append(
                {
                    "source": source,
                    "line": line,
                    "text": text[:160],
                    "printed_by": _span(releases),
                    "wording": wordings[0].template[:160],
                }
            )
    out: dict[str, Any] = {"version": stated, "range": None, "how": None, "evidence": evidence[-_MAX_EVIDENCE:]}
    if evidence and narrowed:
        out["range"] = _span(narrowed)
    if out["range"]:
        low, high = out["range"]
        out["how"] = f"inferred from {len(evidence)} wording(s) via the upstream catalogue, not stated"
        if low == high:
            out["version"] = None  # one catalogued release fits, but patch releases in between are not catalogued
    else:
        out["how"] = "unknown: no stated version, and no wording that tells releases apart"
    if conflicting:
        out["conflicting_wordings"] = True
    return out

"""Counts in the README, CONTRIBUTING.md and docs/ are the real ones: "N signatures", "N rules" and "N literals"
are checked against the signature files, the rule files and the prefilter's literal set. docs/performance.md
is a dated record of measurements (its counts are those of the day it names) and is not checked; the generated
references (docs/rules.md, docs/signatures.md, docs/upstream-coverage.md) are kept current by their own tests."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATED_OR_GENERATED = {"performance.md", "rules.md", "signatures.md", "upstream-coverage.md"}
PAGES = [p for p in (ROOT / "README.md", ROOT / "CONTRIBUTING.md") if p.exists()] + sorted(
    p for p in (ROOT / "docs").glob("*.md") if p.name not in DATED_OR_GENERATED
)


def _signatures() -> int:
    from logscope.pipeline.parse.signatures.loader import load_signature_file, signature_files

    return sum(len(load_signature_file(path)) for path in signature_files())


def _rules() -> int:
    from logscope.core.resources import rules_dir

    return len([p for p in rules_dir().glob("*.yaml") if not p.name.endswith(".cases.yaml")])


def _literals() -> int:
    from logscope.pipeline.parse.prefilter import all_literals

    return len(all_literals())


COUNTERS: dict[str, Callable[[], int]] = {"signatures": _signatures, "rules": _rules, "literals": _literals}
_COUNT = re.compile(r"\b(\d[\d,]*) (" + "|".join(COUNTERS) + r")\b")


def _stated() -> list[tuple[str, int, str]]:
    return [
        (page.name, int(number.replace(",", "")), noun)
        for page in PAGES
        for number, noun in _COUNT.findall(page.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize(("page", "number", "noun"), _stated() or [("none", 0, "")])
def test_a_count_in_the_docs_is_the_real_one(page: str, number: int, noun: str):
    if not noun:
        pytest.skip("no page states a count")
    assert number == COUNTERS[noun](), f"{page}: '{number} {noun}' is not the count now"


@pytest.mark.parametrize("noun", list(COUNTERS))
def test_each_counter_counts_something(noun: str):
    assert COUNTERS[noun]() > 10


def test_the_readme_stays_a_front_door():
    """At most 300 lines, none over 110 columns: the manual lives in docs/ and CONTRIBUTING.md."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
    assert [n for n, line in enumerate(lines, 1) if len(line) > 110] == []


# names in backticks that look like repository paths and are not: the schema id, where the wheel installs the
# data folders, a file the deployment guide has the reader write
NOT_REPO_PATHS = {"logscope/1", "logscope/_data/", "logscope/_data/catalog", "deploy/logscope-bot.env"}
# guides that the other issues of this round write (33 memory model, 34a verdicts, 34b readers, 35 run and watch,
# 36 fleet): linked from the README before they land
PENDING_GUIDES: set[str] = set()
_TOP = ("logscope/", "tests/", "fixtures/", "rules/", "grammars/", "docs/", "bench/", "tools/", "catalog/", "deploy/")


def test_every_path_and_link_the_pages_name_exists():
    broken = []
    for page in [*PAGES, ROOT / "docs" / "performance.md"]:
        text = page.read_text(encoding="utf-8")
        for name in re.findall(r"`([^`\s]+)`", text):
            name = name.rstrip(".,;:)").split(":")[0]
            if name.startswith(_TOP) and not set("*<>{}[]#") & set(name) and name not in NOT_REPO_PATHS:
                broken += [] if (ROOT / name).exists() else [f"{page.name}: {name}"]
        for link in re.findall(r"\]\(([^)#\s]+)", re.sub(r"`[^`\n]*`", "", text)):
            target = (page.parent / link).resolve()
            if not link.startswith("http") and not target.exists():
                broken.append(f"{page.name}: link {target.relative_to(ROOT).as_posix()}")
    assert {b for b in broken if b.split("link ")[-1] not in PENDING_GUIDES} == set()

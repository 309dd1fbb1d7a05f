"""Every `logscope ...` command the README, CONTRIBUTING.md and docs/ show is run or checked here.

- A sample (a fenced block whose lines start `$ logscope ...` or `$ printf ... | logscope ...`, each followed by
  its output) is run by a shell from the repository root, and its output must be what the page shows, line for
  line. `python -m pytest tests/test_doc_commands.py --update-goldens` rewrites the outputs in place (generated,
  never typed).
- Any other fenced line or code span that calls `logscope` (a usage line such as `logscope analyze --width 100
  ...`) names a command whose `--help` must list every `--option` the line shows; a fenced one whose arguments
  are all files of the repository is also run and must not answer with a usage error (exit 2).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATED = {"rules.md", "signatures.md", "upstream-coverage.md"}  # written by their own generators
PAGES = [p for p in (ROOT / "README.md", ROOT / "CONTRIBUTING.md") if p.exists()] + sorted(
    p for p in (ROOT / "docs").glob("*.md") if p.name not in GENERATED
)
# commands that start servers, need GPUs or write outside $OUT: their options are checked, never run here
NEVER_RUN = {"serve", "bot", "probe"}
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```$", re.M | re.S)
_SPAN = re.compile(r"`(logscope [^`]+)`")  # a command in prose
_CALL = re.compile(r"(?:^|[|;&]\s*|&&\s*|\$\s+)logscope\s+([^|#;&><]*)")


@dataclass(frozen=True)
class Sample:
    page: Path
    command: str  # as shown after "$ "
    output: str  # as shown under it


def _samples(page: Path) -> list[Sample]:
    found = []
    for block in _FENCE.findall(page.read_text(encoding="utf-8")):
        if not block.startswith("$ "):
            continue
        for chunk in re.split(r"^(?=\$ )", block, flags=re.M):
            if chunk:
                command, _, output = chunk[2:].partition("\n")
                found.append(Sample(page, command, output))
    return found


def _usage_lines(page: Path) -> list[tuple[str, str, bool]]:
    """(the line, the logscope call in it, whether it is fenced) for every fenced line that is no sample and no
    sample's output, and every code span of the prose that starts with `logscope `."""
    text = page.read_text(encoding="utf-8")
    found = []
    for block in _FENCE.findall(text):
        if block.startswith("$ "):
            continue
        for line in block.splitlines():
            line = line.split("  #", 1)[0].split(" # ", 1)[0]
            if re.match(r"\s*logscope [a-z-]+:", line):  # a message logscope printed, not a call
                continue
            found += [(line.strip(), call.strip(), True) for call in _CALL.findall(line)]
    for span in _SPAN.findall(_FENCE.sub("", text).replace("\n", " ")):
        found += [(span, call.strip(), False) for call in _CALL.findall(span)]
    return found


SAMPLES = [s for page in PAGES for s in _samples(page)]
USAGES = [(page, line, call, fenced) for page in PAGES for line, call, fenced in _usage_lines(page)]


def _shell(command: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["LOGSCOPE_PYTHON"] = sys.executable
    script = 'logscope() { "$LOGSCOPE_PYTHON" -m logscope "$@"; }\n' + command
    return subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, timeout=300)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


def _rewrite(sample: Sample, output: str) -> None:
    text = sample.page.read_text(encoding="utf-8")
    old = f"$ {sample.command}\n{sample.output}"
    assert text.count(old) == 1, f"{sample.page.name}: the sample {sample.command!r} is not unique"
    new_output = "\n".join(_lines(output)) + "\n"
    sample.page.write_text(text.replace(old, f"$ {sample.command}\n{new_output}"), encoding="utf-8")


def test_the_pages_show_samples_and_usage_lines():
    names = {s.page.name for s in SAMPLES}
    assert {"README.md", "reports.md", "compare-and-plan.md"} <= names
    assert len(USAGES) > 20


@pytest.mark.parametrize("sample", SAMPLES, ids=[f"{s.page.name}:{s.command[:60]}" for s in SAMPLES])
def test_a_sample_shows_what_its_command_prints(sample: Sample, update_goldens: bool):
    result = _shell(sample.command)
    assert result.returncode in (0, 1), result.stderr.decode()[-2000:]
    output = result.stdout.decode()
    if update_goldens:
        _rewrite(sample, output)
        pytest.skip("sample output regenerated")
    assert _lines(sample.output) == _lines(output), (
        f"{sample.page.name}: the output under `$ {sample.command}` is not what it prints now: "
        "run python -m pytest tests/test_doc_commands.py --update-goldens and review the diff"
    )


@cache
def _help(path: tuple[str, ...]) -> str:
    result = _shell("logscope " + " ".join(path) + " --help")
    return result.stdout.decode() if result.returncode == 0 else ""


def _command_path(words: list[str]) -> tuple[str, ...]:
    """The longest prefix of the words that names a command with a --help of its own."""
    path: tuple[str, ...] = ()
    for word in words:
        if not re.fullmatch(r"[a-z][a-z-]*", word) or not _help((*path, word)):
            break
        path = (*path, word)
    return path


@pytest.mark.parametrize(("page", "line", "call", "fenced"), USAGES, ids=[f"{p.name}:{c[:60]}" for p, _l, c, _f in USAGES])
def test_a_usage_line_names_a_command_and_its_options(page: Path, line: str, call: str, fenced: bool):
    words = call.replace("[", " ").replace("]", " ").split()
    path = _command_path(words)
    assert path, f"{page.name}: `{line}` names no logscope command"
    help_text = _help(path)
    for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", call):
        assert option in help_text, f"{page.name}: `{line}`: {option} is not an option of logscope {' '.join(path)}"
    arguments = words[len(path) :]
    if not fenced or path[0] in NEVER_RUN or not all((ROOT / a).exists() or a.startswith("--") for a in arguments):
        return
    result = _shell("logscope " + " ".join(shlex.quote(w) for w in words) + " > /dev/null")
    assert result.returncode in (0, 1), f"{page.name}: `{line}`: {result.stderr.decode()[-500:]}"

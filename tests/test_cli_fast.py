"""`logscope analyze` on a plain argument list runs without typer (logscope/cli_fast.py): it reads the same options
as the typer command, hands every other list to typer, and a paste through the entry point imports neither typer,
nor polars, nor the known cases' index."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
import typer.main
from typer.testing import CliRunner

from logscope import cli, cli_fast
from tests.helpers import ROOT

EXAMPLE = "fixtures/synthetic/full-startup-tp2-with-smi.log"
PASTE = "fixtures/real/h-001-sglang-11716.log"


def _typer_reading(argv: list[str], monkeypatch) -> tuple | None:
    """The arguments typer hands analyze's body for this list (None: typer refused it)."""
    seen: list[tuple] = []
    monkeypatch.setattr(cli, "analyze_command", lambda *args: seen.append(args))
    result = CliRunner().invoke(cli.app, argv)
    return seen[0] if seen else (None if result.exit_code else ())


def _fast_reading(argv: list[str]) -> tuple | None:
    args = cli_fast.plain_analyze(argv)
    return None if args is None else dataclasses.astuple(args)  # its fields in the order of the body's parameters


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "-"],
        ["analyze", "a.log", "b.log"],
        ["analyze", "-", "-f", "json"],
        ["analyze", "--format", "markdown", "a.log", "--width", "100"],
        ["analyze", "--format=html", "--width=80", "a.log"],
        ["analyze", "a.log", "-o", "out.json", "-f", "json", "--no-redact", "--no-cases"],
        ["analyze", "a.log", "--rules", "extra/", "--rules", "./more", "--model-config", "cfg.json"],
        ["analyze", "a.log", "--calibration", "calib.yaml", "--output=report.txt"],
        ["analyze", "--", "-dash.log", "--no-cases"],
        ["analyze", "rank 0.log", "--width", "007"],
    ],
)
def test_a_plain_list_is_read_as_typer_reads_it(argv, monkeypatch):
    fast = _fast_reading(argv)
    assert fast is not None
    assert fast == _typer_reading(argv, monkeypatch)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--version"],
        ["triage", "issue.md"],
        ["analyze"],  # typer's usage error
        ["analyze", "--help"],
        ["analyze", "a.log", "--no-such-option"],
        ["analyze", "a.log", "-fjson"],  # combined short option
        ["analyze", "a.log", "-f=json"],
        ["analyze", "a.log", "-f", "JSON"],  # typer says what it accepts
        ["analyze", "a.log", "--format", "yaml"],
        ["analyze", "a.log", "--format"],
        ["analyze", "a.log", "--format="],
        ["analyze", "a.log", "-f", "json", "-f", "text"],  # repeated single option
        ["analyze", "a.log", "--width", "-1"],
        ["analyze", "a.log", "--width", "1e3"],
        ["analyze", "a.log", "--width", "\u0661"],  # a digit typer's int() would read
        ["analyze", "a.log", "--no-cases=1"],
        ["analyze", "a.log", "-o", "-"],
        ["analyze", "-x.log"],
    ],
)
def test_any_other_list_goes_to_typer(argv):
    assert cli_fast.plain_analyze(argv) is None
    assert cli_fast.command(argv) is None


def test_the_table_holds_the_typer_commands_options():
    command = typer.main.get_command(cli.app).commands["analyze"]  # type: ignore[attr-defined]
    declared = {}
    for param in command.params:
        if param.param_type_name != "option":
            continue
        takes = cli_fast.FLAG if param.is_flag else cli_fast.REPEATED if param.multiple else cli_fast.VALUE
        for name in param.opts:
            declared[name] = (param.name, takes)
    assert declared == cli_fast.OPTIONS
    defaults = cli_fast.AnalyzeArgs()
    for param in command.params:
        if param.param_type_name == "option":
            expected = param.default
            expected = expected.value if hasattr(expected, "value") else expected
            assert getattr(defaults, param.name) == (expected or ([] if param.multiple else expected)), param.name


def _run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "logscope", *args], cwd=ROOT, input=stdin, capture_output=True, check=False)


def test_the_fast_path_gives_typers_output_and_exit_codes(tmp_path):
    for argv in (["analyze", EXAMPLE, "--width", "100"], ["analyze", EXAMPLE, "-f", "json"]):
        expected = CliRunner().invoke(cli.app, argv)
        done = _run(*argv)
        assert (done.returncode, done.stdout.decode()) == (expected.exit_code, expected.stdout)
    missing = _run("analyze", str(tmp_path / "missing.log"))
    assert missing.returncode == 2 and missing.stderr.decode().startswith("logscope: error: ")
    assert b"Traceback" not in missing.stderr
    out = tmp_path / "report.json"
    assert _run("analyze", EXAMPLE, "-f", "json", "-o", str(out)).returncode == 0
    assert json.loads(out.read_text())["schema"] == "logscope/1"
    unwritable = _run("analyze", EXAMPLE, "-o", str(tmp_path / "no-such-folder" / "r.txt"))
    assert unwritable.returncode == 2 and b"cannot write" in unwritable.stderr


def test_a_paste_without_a_failure_imports_neither_typer_nor_polars_nor_the_known_cases_index():
    paste = (ROOT / PASTE).read_bytes()[:2048]  # the bench's paste: it ends before any failure
    watched = ("typer", "click", "polars", "logscope.cases.index", "logscope.cases.match", "logscope.cases.key")
    probe = (
        # the entry point as the console script runs it; the list of modules is printed where it would exit
        "import os, sys\nfrom logscope import entry, lifetime\n"
        "def report(code):\n"
        f"    print('LOADED', sorted(m for m in {watched!r} if m in sys.modules), flush=True)\n"
        "    os._exit(code)\n"
        "lifetime.exit_now = report\nsys.argv = ['logscope', 'analyze', '-']\nentry.main()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, input=paste, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert b"Launch" in done.stdout or b"launch" in done.stdout
    assert done.stdout.rsplit(b"LOADED", 1)[1].strip() == b"[]"


def test_a_paste_with_a_failure_still_matches_known_cases(tmp_path):
    failing = tmp_path / "oom.log"
    failing.write_text(
        "[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=78.50 GB\ntorch.OutOfMemoryError: CUDA out of memory.\n"
    )
    fast = _run("analyze", str(failing), "-f", "json")
    assert fast.returncode == 1
    expected = CliRunner().invoke(cli.app, ["analyze", str(failing), "-f", "json"])
    assert json.loads(fast.stdout) == json.loads(expected.stdout)

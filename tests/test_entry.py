"""The command runs with the cyclic garbage collector off and ends without the interpreter's teardown, its output
whole and its exit code kept (entry.py says why); the servers and the probe turn both back on."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import types

import pytest
from typer.testing import CliRunner

from logscope import entry, lifetime
from logscope.cli import app
from tests.helpers import ROOT

EXAMPLE = "fixtures/synthetic/full-startup-tp2-with-smi.log"


@pytest.fixture
def restore_gc(monkeypatch):
    was = gc.isenabled()
    monkeypatch.setattr(lifetime, "_normal_exit", False)
    yield
    (gc.enable if was else gc.disable)()


def test_the_entry_point_turns_the_collector_off_and_exits_with_the_commands_code(monkeypatch, restore_gc):
    seen, exits = [], []
    monkeypatch.setattr("logscope.cli.main", lambda: seen.append(gc.isenabled()) or sys.exit(3))
    monkeypatch.setattr(lifetime.os, "_exit", exits.append)
    gc.enable()
    entry.main()
    assert seen == [False] and exits == [3]


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (1, 1), (2, 2), ("a message", 1)])
def test_an_exit_code_is_read_as_system_exit_reads_it(monkeypatch, capsys, code, status):
    exits = []
    monkeypatch.setattr(lifetime.os, "_exit", exits.append)
    lifetime.exit_now(code)
    assert exits == [status]
    assert capsys.readouterr().err == ("a message\n" if code == "a message" else "")


def _logscope(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "logscope", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_the_fast_exit_keeps_the_whole_output_and_the_code(tmp_path):
    expected = CliRunner().invoke(app, ["analyze", EXAMPLE, "--width", "100"])
    done = _logscope("analyze", EXAMPLE, "--width", "100")
    assert (done.returncode, done.stdout) == (expected.exit_code, expected.stdout)
    out = tmp_path / "report.json"
    done = _logscope("analyze", EXAMPLE, "-f", "json", "-o", str(out))
    assert done.returncode == 0 and json.loads(out.read_text())["schema"] == "logscope/1"
    failing = tmp_path / "oom.log"
    failing.write_text(
        "[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=78.50 GB\ntorch.OutOfMemoryError: CUDA out of memory.\n"
    )
    assert _logscope("analyze", str(failing)).returncode == 1
    assert _logscope("analyze", str(tmp_path / "missing.log")).returncode == 2


def test_python_dash_m_and_the_console_script_use_the_entry_point():
    assert 'logscope = "logscope.entry:main"' in (ROOT / "pyproject.toml").read_text()
    probe = (
        "import atexit, gc, runpy, sys; sys.argv = ['logscope', '--help']; "
        "atexit.register(lambda: print('teardown ran')); runpy.run_module('logscope', run_name='__main__')"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout and "teardown ran" not in done.stdout  # help printed, no interpreter teardown


@pytest.mark.parametrize("command", [["serve"], ["bot", "serve", "--dry-run"]])
def test_the_servers_turn_the_collector_and_the_normal_exit_back_on(monkeypatch, restore_gc, command, tmp_path):
    pytest.importorskip("uvicorn")
    seen = []
    monkeypatch.setitem(sys.modules, "uvicorn", types.SimpleNamespace(run=lambda *a, **k: seen.append(gc.isenabled())))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOGSCOPE_WEBHOOK_SECRET", "s3cret-for-the-test")
    gc.disable()
    done = CliRunner().invoke(app, command)
    assert done.exit_code == 0, done.output
    assert seen == [True] and lifetime.normal_exit()

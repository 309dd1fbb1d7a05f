"""The command runs with the cyclic garbage collector off (entry.py says why); the servers turn it back on."""

from __future__ import annotations

import gc
import subprocess
import sys
import types

import pytest
from typer.testing import CliRunner

from logscope import entry
from logscope.cli import app
from tests.helpers import ROOT


@pytest.fixture
def restore_gc():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_entry_point_turns_the_collector_off_before_the_command_runs(monkeypatch, restore_gc):
    seen = []
    monkeypatch.setattr("logscope.cli.main", lambda: seen.append(gc.isenabled()))
    gc.enable()
    entry.main()
    assert seen == [False]


def test_python_dash_m_and_the_console_script_use_the_entry_point():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'logscope = "logscope.entry:main"' in pyproject
    code = "import gc, runpy, sys; sys.argv = ['logscope', '--help']; runpy.run_module('logscope', run_name='__main__')"
    probe = code.replace(
        "runpy.run_module", "import atexit; atexit.register(lambda: print('gc', gc.isenabled())); runpy.run_module"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("gc False")


@pytest.mark.parametrize("command", [["serve"], ["bot", "serve", "--dry-run"]])
def test_the_servers_turn_the_collector_back_on(monkeypatch, restore_gc, command, tmp_path):
    pytest.importorskip("uvicorn")
    seen = []
    monkeypatch.setitem(sys.modules, "uvicorn", types.SimpleNamespace(run=lambda *a, **k: seen.append(gc.isenabled())))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOGSCOPE_WEBHOOK_SECRET", "s3cret-for-the-test")
    gc.disable()
    done = CliRunner().invoke(app, command)
    assert done.exit_code == 0, done.output
    assert seen == [True]

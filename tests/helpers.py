from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from logscope.pipeline.analyze import analyze_model, analyze_sources
from logscope.pipeline.ingest.ingest import Source, expand_inputs

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "fixtures" / "real"
# the browser the HTML tests drive: .ci/run installs Debian's chromium; without it those tests skip, and
# conftest says so
CHROMIUM = os.environ.get("LOGSCOPE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_SKIP = "browser test not run: "  # the start of every browser test's skip reason: conftest counts them


def _browser_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright (a test extra) is not installed"
    return None if Path(CHROMIUM).exists() else f"no Chromium binary at {CHROMIUM}"


BROWSER_MISSING = _browser_missing()
# each browser test marked (not a module-level skip, which reports one skip for a whole module of them)
needs_browser = pytest.mark.skipif(BROWSER_MISSING is not None, reason=f"{BROWSER_SKIP}{BROWSER_MISSING}")


def analyze_paths(*paths: str) -> dict:
    return analyze_sources(expand_inputs(list(paths)))


def analyze_text(text: str, name: str = "paste.log") -> dict:
    return analyze_sources([Source(name=name, path=None, data=text.encode())])


def findings_of(text: str) -> list[tuple[str, str]]:
    """The (rule, phase) of each finding of a paste typed as `text` (its last line ended), known cases not looked up."""
    report = analyze_sources([Source(name="paste.log", path=None, data=(text + "\n").encode())], cases=False)
    return [(f["rule"], f["phase"]) for f in report["findings"]]


def failure_placed(text: str) -> tuple[str, str]:
    """The (finding, phase) of the one failure a paste holds."""
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    (failure,) = [f for fs in analysis.failures.values() for f in fs]
    return failure.finding, failure.phase


def versions_of(report: dict) -> dict:
    """The versions a report gives: its first launch's, or the input's where no launch was read."""
    return report["launches"][0]["versions"] if report["launches"] else report["versions"]


def stated_versions(text: str) -> dict:
    return versions_of(analyze_text(text))


def corpus_inputs() -> list[Path]:
    return sorted(p for p in REAL.iterdir() if p.suffix in (".log", ".txt"))


def dump_inputs() -> list[Path]:
    """The real H200 dumps (nvidia-smi and the torch OOM text)."""
    return sorted(p for p in (ROOT / "fixtures" / "h200").iterdir() if p.suffix in (".txt", ".csv"))


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def run(
    *args: str,
    input: bytes | None = None,  # noqa: A002 - as subprocess names it
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """`python -m logscope ARGS` as a user runs it, from the checkout (`env`: variables added to ours)."""
    return subprocess.run(
        [sys.executable, "-m", "logscope", *args],
        input=input,
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        env=None if env is None else {**os.environ, **env},
    )


def gpu_rows(report: dict) -> list[list]:
    """One row a GPU of the fields a fixtures/real expectation lists (`gpus`), as the report gives them."""
    return [
        [
            g["index"],
            g.get("name"),
            g.get("bus_id"),
            g.get("memory_used_mib"),
            g.get("memory_total_mib"),
            g.get("driver_reserved_mib"),
            g.get("card_total_gib"),
            [p.get("pid") for p in g["processes"]],
            [[m["gi"], m["memory_used_mib"], m["memory_total_mib"]] for m in g.get("mig", [])],
        ]
        for g in report["gpus"]
    ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(args: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """`python -m logscope ARGS --port P` on 127.0.0.1, once GET / answers: (the process, its URL)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "logscope", *args, "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            urllib.request.urlopen(url + "/", timeout=1).read()
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"{args} did not start: {proc.communicate()[1].decode()[-2000:]}")


def stop_server(proc: subprocess.Popen) -> tuple[str, str]:
    proc.terminate()
    out, err = proc.communicate(timeout=10)
    return out.decode(), err.decode()

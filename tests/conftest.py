import os
import signal
from pathlib import Path

import pytest

from tests.helpers import BROWSER_SKIP

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    # A suite started in the background by a non-interactive shell (`.ci/run &`) inherits SIGINT ignored, and CPython
    # then installs no KeyboardInterrupt handler: the Ctrl-C tests (ranges.sigint_held, logscope run's forwarding to
    # the launch group) would test the shell instead. Ctrl-C's usual disposition for the run.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", help="Regenerate fixtures/golden/*.json.")


@pytest.fixture(autouse=True)
def _run_from_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # Reports name inputs as given; goldens use paths relative to the repository root.
    monkeypatch.chdir(ROOT)


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """Say so when the browser tests, the Ray test or the container build did not run: a passing suite must not
    read as 'the HTML was tested', 'Ray was tested' or 'the image builds'."""
    _say_ray_skipped(terminalreporter)
    docker = [r for r in terminalreporter.stats.get("skipped", []) if "test_container.py" in str(r.nodeid or r.fspath)]
    if docker:
        longrepr = docker[0].longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        terminalreporter.write_sep("!", "container test SKIPPED: the image was NOT built (docker build)", yellow=True)
        terminalreporter.write_line(f"  why: {reason.removeprefix('Skipped: ')}")
        terminalreporter.write_line("  to run it: a host with a Docker daemon the test user can reach (docker info)")
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if BROWSER_SKIP in _reason(r)]
    if not skipped:
        return
    reason = _reason(skipped[0]).split(BROWSER_SKIP, 1)[1]
    terminalreporter.write_sep(
        "!", f"browser tests SKIPPED ({len(skipped)} not run): the HTML pages were NOT tested", yellow=True
    )
    terminalreporter.write_line(f"  why: {reason}")
    terminalreporter.write_line(
        "  to run them: pip install -e '.[test]' (Playwright), and a Chromium binary: "
        "apt-get install chromium (found at /usr/bin/chromium or on PATH), "
        "or LOGSCOPE_CHROMIUM=/path/to/chrome"
    )


def _reason(report) -> str:
    longrepr = report.longrepr
    return longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)


def _say_ray_skipped(terminalreporter) -> None:
    """Say so when `scan --engine ray` was not tested (ray is the `fleet` extra; .ci/run installs it)."""
    if any("test_ray_engine" in str(r.nodeid) for r in terminalreporter.stats.get("skipped", [])):
        terminalreporter.write_sep("!", "Ray test SKIPPED: `logscope scan --engine ray` was NOT tested", yellow=True)
        terminalreporter.write_line(
            "  to run it: pip install -e '.[test,fleet]' (LOGSCOPE_REQUIRE_RAY=1 makes its absence a failure)"
        )


os.environ.setdefault("LOGSCOPE_CACHE_DIR", str(ROOT / ".pytest_cache" / "lark"))

"""The test run's banner counts every browser test it did not run (each is marked, so a module of them reports
one skip per test, not one for the module)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.helpers import ROOT

BROWSER_MODULES = ["tests/test_html.py", "tests/test_csp_pages.py"]


def test_the_banner_counts_the_browser_tests_not_run():
    env = {**os.environ, "LOGSCOPE_CHROMIUM": "/no/such/chromium"}
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *BROWSER_MODULES],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    tests = [line for line in collected.stdout.splitlines() if "::" in line]
    assert len(tests) > 2
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *BROWSER_MODULES],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    found = re.search(r"browser tests SKIPPED \((\d+) not run\)", done.stdout)
    assert found is not None, done.stdout[-2000:]
    assert int(found.group(1)) == len(tests)
    assert "why: no Chromium binary at /no/such/chromium" in done.stdout

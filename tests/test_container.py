"""The container image built and run where a Docker daemon answers: `docker build` of the repository's
Dockerfile, the image started as compose starts it (read-only, no capabilities, the memory and CPU limits of
deploy/compose.yaml) in a dry run, its start line in the log, its health check passing. Where no daemon
answers the test is skipped, and conftest says so loudly at the end of the run (as for the browser tests)."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid

import pytest
import yaml

from tests.helpers import ROOT

DOCKER = shutil.which("docker")


def _no_daemon() -> str | None:
    """Why the image cannot be built here, or None when a daemon answers."""
    if DOCKER is None:
        return "no docker command on PATH"
    done = subprocess.run([DOCKER, "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True, timeout=60)
    if done.returncode:
        return f"no Docker daemon answers (docker info: {(done.stderr.strip().splitlines() or ['?'])[-1]})"
    return None


def _docker(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    assert DOCKER is not None
    return subprocess.run([DOCKER, *args], capture_output=True, text=True, timeout=timeout)


def test_the_image_builds_starts_with_its_line_and_passes_its_health_check():
    why = _no_daemon()
    if why:
        pytest.skip(why)
    tag = f"logscope-bot:test-{uuid.uuid4().hex[:8]}"
    built = _docker("build", "-t", tag, str(ROOT), timeout=1500)
    assert built.returncode == 0, built.stderr[-3000:]
    limits = yaml.safe_load((ROOT / "deploy/compose.yaml").read_text())["services"]["logscope-bot"]["deploy"]["resources"]
    name = f"logscope-test-{uuid.uuid4().hex[:8]}"
    started = _docker(
        "run", "-d", "--name", name, "--read-only", "--tmpfs", "/tmp", "--cap-drop", "ALL",
        "--security-opt", "no-new-privileges:true",
        "--memory", limits["limits"]["memory"], "--cpus", limits["limits"]["cpus"],
        "-e", "LOGSCOPE_WEBHOOK_SECRET=container-test", "-e", "LOGSCOPE_DRY_RUN=1", tag,
    )  # fmt: skip
    try:
        assert started.returncode == 0, started.stderr[-2000:]
        deadline = time.monotonic() + 120
        while True:
            health = _docker("inspect", "--format", "{{.State.Health.Status}}", name).stdout.strip()
            if health == "healthy":
                break
            assert health in ("starting", "") and time.monotonic() < deadline, (health, _docker("logs", name).stderr[-2000:])
            time.sleep(1)
        log = _docker("logs", name)
        first = (log.stderr + log.stdout).splitlines()[0]
        assert first.startswith("logscope bot serve: http://0.0.0.0:8080/webhook")
        assert "mode: dry run" in first and "data folder: /data" in first
    finally:
        _docker("rm", "-f", name)
        _docker("rmi", "-f", tag)

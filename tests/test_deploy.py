"""The Dockerfile followed without a container engine: its exec-form install step (deploy/install.sh) run as
a plain command into a fresh venv, then its start step (deploy/start.sh) with the Dockerfile's environment
(paths moved under tmp, the server on 127.0.0.1), its health check until it passes, one signed dry-run
delivery written as a comment file and one refused by the allowlist. The compose file and the systemd unit
are checked against the same names. Only the root-only image steps (useradd, the volume folder) are not run."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shlex
import signal
import subprocess
import time
import urllib.request

import pytest
import yaml

from tests.helpers import REAL, ROOT, free_port

SYSTEM_STEPS = {"useradd", "install"}  # need root and the image's file system: the container's business


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) per line of the Dockerfile, continuation lines joined."""
    steps: list[tuple[str, str]] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        if not pending and (not raw.strip() or raw.lstrip().startswith("#")):
            continue
        pending += raw.rstrip("\\").strip() + " "
        if raw.endswith("\\"):
            continue
        instruction, _, arguments = pending.strip().partition(" ")
        steps.append((instruction.upper(), arguments.strip()))
        pending = ""
    return steps


def _exec_form(arguments: str) -> list[str]:
    command = json.loads(arguments)
    assert isinstance(command, list) and all(isinstance(a, str) for a in command), arguments
    return command


def test_the_image_is_slim_runs_as_a_user_keeps_the_queue_on_a_volume_and_checks_its_health():
    steps = dockerfile()
    values = dict(steps)
    env = dict(shlex.split(kv)[0].split("=", 1) for kv in shlex.split(values["ENV"], posix=False))
    assert values["FROM"].endswith("-slim")
    assert values["USER"] not in ("root", "0") and [i for i, _ in steps].index("USER") > [i for i, _ in steps].index("RUN")
    assert _exec_form(values["VOLUME"]) == [env["LOGSCOPE_DATA_DIR"]]
    assert values["EXPOSE"] == env["LOGSCOPE_PORT"]
    assert _exec_form(values["HEALTHCHECK"].split(" CMD ", 1)[1]) == ["sh", "deploy/healthcheck.sh"]
    compose = yaml.safe_load((ROOT / "deploy/compose.yaml").read_text(encoding="utf-8"))
    service = compose["services"]["logscope-bot"]
    assert (ROOT / "deploy" / service["build"] / "Dockerfile").exists()
    assert service["volumes"] == [f"logscope-data:{env['LOGSCOPE_DATA_DIR']}"]
    assert service["ports"] == [f"127.0.0.1:{env['LOGSCOPE_PORT']}:{env['LOGSCOPE_PORT']}"]
    unit = (ROOT / "deploy/logscope-bot.service").read_text(encoding="utf-8")
    start = (ROOT / "deploy/start.sh").read_text(encoding="utf-8")
    assert f"ExecStart={env['LOGSCOPE_VENV']}/bin/logscope bot serve\n" in unit
    assert 'exec "${LOGSCOPE_VENV:-/opt/logscope}/bin/logscope" bot serve\n' in start
    assert "User=logscope" in unit and "LOGSCOPE_HOST=127.0.0.1" in unit
    # the same memory and CPU limits in both (docs/serving.md: a server, its forkserver, 3 analyses at once)
    assert {"MemoryMax=2G", "MemoryHigh=1536M", "CPUQuota=200%", "TasksMax=256"} <= set(unit.splitlines())
    assert service["deploy"]["resources"]["limits"] == {"cpus": "2.0", "memory": "2g"} and service["pids_limit"] == 256


@pytest.mark.slow
def test_dockerfile_install_and_start_steps_in_a_fresh_venv(tmp_path):
    steps = dockerfile()
    env_line = dict(steps)["ENV"]
    env = {k: v for k, v in (kv.split("=", 1) for kv in shlex.split(env_line)) if k != "PIP_NO_CACHE_DIR"}  # reuse pip's cache
    port = free_port()
    env.update(
        LOGSCOPE_VENV=str(tmp_path / "venv"),
        LOGSCOPE_DATA_DIR=str(tmp_path / "data"),
        LOGSCOPE_HOST="127.0.0.1",
        LOGSCOPE_PORT=str(port),
    )
    run_env = {**os.environ, **env}
    run_env.pop("VIRTUAL_ENV", None)
    ran = []
    for instruction, arguments in steps:
        if instruction != "RUN":
            continue
        command = _exec_form(arguments)
        if command[0] in SYSTEM_STEPS:
            continue
        done = subprocess.run(command, cwd=ROOT, env=run_env, capture_output=True, timeout=900)
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        ran.append(command)
    assert ran == [["sh", "deploy/install.sh"]]
    assert (tmp_path / "venv/bin/logscope").exists()
    secret = "deploy-test"
    service_env = {
        **run_env,
        "LOGSCOPE_WEBHOOK_SECRET": secret,
        "LOGSCOPE_DRY_RUN": "1",
        "LOGSCOPE_ALLOW_REPOS": "org/repo team/*",
    }
    service_env.pop("GITHUB_TOKEN", None)
    healthcheck = _exec_form(dict(steps)["HEALTHCHECK"].split(" CMD ", 1)[1])
    server = subprocess.Popen(
        _exec_form(dict(steps)["CMD"]), cwd=ROOT, env=service_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while subprocess.run(healthcheck, cwd=ROOT, env=service_env, capture_output=True, timeout=30).returncode:
            assert server.poll() is None, server.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the health check never passed"
            time.sleep(0.3)
        log = (REAL / "f-004-sglang-5285.log").read_text(encoding="utf-8")
        issue = {"number": 12, "title": "startup", "body": f"```\n{log}```\n", "user": {"login": "r", "type": "User"}}
        answers = []
        for repo in ("org/repo", "someone/else"):
            body = json.dumps({"action": "opened", "issue": issue, "repository": {"full_name": repo}}).encode()
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/webhook",
                data=body,
                method="POST",
                headers={
                    "Content-Type": "application/json",
                    "X-GitHub-Event": "issues",
                    "X-GitHub-Delivery": f"deploy-{repo}",
                    "X-Hub-Signature-256": "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest(),
                },
            )
            try:
                answers.append(urllib.request.urlopen(request, timeout=10).status)
            except urllib.error.HTTPError as exc:
                answers.append(exc.code)
        assert answers == [202, 403]
        comment = tmp_path / "data/dry-run/org/repo/12.md"
        deadline = time.monotonic() + 60
        while not comment.exists():
            assert time.monotonic() < deadline, "no dry-run comment written"
            time.sleep(0.2)
        assert comment.read_text(encoding="utf-8").startswith("<!-- logscope:report -->")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
    assert server.returncode in (0, -signal.SIGTERM)  # uvicorn shuts down, then re-raises the signal it got
    assert b"Traceback" not in server.stderr.read()

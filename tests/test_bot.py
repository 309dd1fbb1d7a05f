"""`logscope bot serve` as a real server on 127.0.0.1 against a stand-in GitHub API on 127.0.0.1: signed
deliveries, refusals, de-duplication, one comment per issue, a bounded load test, a kill and restart, and
the API failing for a while. Every request loop is bounded in count and time."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from logscope.report.comment import MARKER, render_comment
from logscope.triage.run import triage_text
from tests.github_standin import BOT, StandIn
from tests.helpers import REAL, ROOT

SECRET = "it's a secret to everybody"
REPO = {"full_name": "org/repo"}
LOG = (REAL / "f-004-sglang-5285.log").read_text(encoding="utf-8")
FENCE = "`" * 3


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Bot:
    def __init__(self, api: str, data_dir: Path, *extra: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "LOGSCOPE_WEBHOOK_SECRET": SECRET, "GITHUB_TOKEN": "test-token", "GITHUB_API_URL": api}
        self.proc = subprocess.Popen([sys.executable, "-m", "logscope", "bot", "serve", "--port", str(self.port),
                                      "--data-dir", str(data_dir), "--mutation-interval", "0.01", "--retry-wait",
                                      "0.5", *extra], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise AssertionError(f"the bot did not start: {self.proc.stderr.read().decode()[-2000:]}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def jobs(self) -> dict[str, int]:
        return json.loads(urllib.request.urlopen(self.url + "/healthz", timeout=5).read())["jobs"]

    def idle(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            jobs = self.jobs()
            if not jobs.get("pending") and not jobs.get("running"):
                return
            time.sleep(0.1)
        raise AssertionError(f"jobs still open: {self.jobs()}")


def deliver(bot: Bot, event: str, payload: dict, delivery: str | None = None, secret: str = SECRET,
            headers: dict[str, str] | None = None, body: bytes | None = None) -> tuple[int, float]:
    data = body if body is not None else json.dumps(payload).encode()
    sign = {"X-Hub-Signature-256": "sha256=" + hmac.new(secret.encode(), data, hashlib.sha256).hexdigest()}
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", bot.port, timeout=15)
    try:
        # the server may answer (413) and close before the whole body was sent
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.request("POST", "/webhook", body=data, headers={
                "Content-Type": "application/json", "X-GitHub-Event": event,
                "X-GitHub-Delivery": delivery or str(uuid.uuid4()), **(sign if headers is None else headers)})
        response = connection.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    finally:
        connection.close()


def issue_event(action: str, issue: dict) -> dict:
    return {"action": action, "issue": issue, "repository": REPO, "sender": {"login": "reporter", "type": "User"}}


def comment_event(issue: dict, comment: dict) -> dict:
    return {"action": "created", "issue": issue, "comment": comment, "repository": REPO, "sender": comment["user"]}


def expected_comment(standin: StandIn, number: int) -> str:
    people = [c for c in standin.comments[number] if c["user"]["login"] != BOT and c["user"]["type"] != "Bot"]
    return render_comment(triage_text(json.dumps([standin.issues[number], *people]), f"org/repo#{number}"))


@pytest.fixture
def standin():
    with StandIn() as api:
        yield api


@pytest.fixture
def bot(standin, tmp_path):
    running = Bot(standin.url, tmp_path / "data")
    yield running
    running.stop()


def test_opened_edited_and_commented_give_one_comment(standin, bot):
    issue = standin.add_issue(1, f"Startup fails.\n\n{FENCE}\n{LOG}{FENCE}\n")
    assert deliver(bot, "issues", issue_event("opened", issue))[0] == 202
    bot.idle()
    (comment,) = standin.bot_comments(1)
    assert comment["body"].startswith(MARKER) and "capture-oom" in comment["body"]
    assert comment["body"] == expected_comment(standin, 1)
    first_body = comment["body"]
    # an edit that changes the analysis updates the same comment
    issue["body"] += "\nLaunched with `python -m sglang.launch_server --tp 8 --mem-fraction-static 0.85`\n"
    assert deliver(bot, "issues", issue_event("edited", issue))[0] == 202
    bot.idle()
    (updated,) = standin.bot_comments(1)
    assert updated["id"] == comment["id"] and updated["body"] == expected_comment(standin, 1) != first_body
    # a new comment from a person: re-read; an unchanged report is not written again
    mutations = len(standin.mutations())
    person = standin.add_comment(1, "Same here on H100.")
    assert deliver(bot, "issue_comment", comment_event(issue, person))[0] == 202
    bot.idle()
    assert len(standin.mutations()) == mutations and len(standin.bot_comments(1)) == 1


def test_refusals_and_redeliveries(standin, bot):
    issue = standin.add_issue(2, f"{FENCE}\n{LOG}{FENCE}\n")
    payload = issue_event("opened", issue)
    body = json.dumps(payload).encode()
    assert deliver(bot, "issues", payload, headers={})[0] == 401  # unsigned
    sha1 = "sha1=" + hmac.new(SECRET.encode(), body, hashlib.sha1).hexdigest()
    assert deliver(bot, "issues", payload, headers={"X-Hub-Signature": sha1})[0] == 401  # sha1 only
    assert deliver(bot, "issues", payload, secret="wrong")[0] == 403
    big = json.dumps({**payload, "padding": "x" * (1 << 20)}).encode()
    assert deliver(bot, "issues", payload, body=big)[0] == 413
    assert bot.jobs() == {}
    delivery = str(uuid.uuid4())
    assert deliver(bot, "issues", payload, delivery)[0] == 202
    assert deliver(bot, "issues", payload, delivery)[0] == 200  # a redelivery keeps its id: not queued twice
    bot.idle()
    assert sum(bot.jobs().values()) == 1 and len(standin.bot_comments(2)) == 1
    # the bot's own comment and other bots' comments are no event to act on
    own = standin.bot_comments(2)[0]
    assert deliver(bot, "issue_comment", comment_event(issue, own))[0] == 202
    other = standin.add_comment(2, "stale", "dependabot[bot]", "Bot")
    assert deliver(bot, "issue_comment", comment_event(issue, other))[0] == 202
    assert sum(bot.jobs().values()) == 1


def test_an_issue_without_a_log_gets_no_comment(standin, bot):
    issue = standin.add_issue(3, "Feature request: support more GPUs in the docs, please.")
    assert deliver(bot, "issues", issue_event("opened", issue))[0] == 202
    bot.idle()
    assert standin.comments[3] == [] and bot.jobs() == {"done": 1}


def test_load_200_deliveries_for_50_issues(standin, bot):
    logs = sorted(REAL.glob("*.log"))
    issues = [standin.add_issue(100 + i, f"Run {i}:\n\n{FENCE}\n{logs[i % len(logs)].read_text()}{FENCE}\n")
              for i in range(50)]
    events = [issue_event("opened" if k == 0 else "edited", issue) for k in range(4) for issue in issues]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda payload: deliver(bot, "issues", payload), events))
    sent = time.monotonic() - started
    assert sent < 10
    assert all(200 <= status < 300 and seconds < 10 for status, seconds in answers)
    bot.idle(timeout=120)
    print(f"\nload: 200 deliveries sent in {sent:.2f} s, slowest answer {max(s for _, s in answers):.3f} s, "
          f"all comments written {time.monotonic() - started:.2f} s after the first delivery; jobs {bot.jobs()}")
    for issue in issues:
        comments = standin.bot_comments(issue["number"])
        expected = expected_comment(standin, issue["number"])
        analysed = json.loads(json.dumps(triage_text(json.dumps([issue]))))
        if analysed["coverage"]["recognized_lines"] == 0 and not analysed["findings"]:
            assert comments == []
        else:
            assert len(comments) == 1 and comments[0]["body"] == expected


def test_killed_with_jobs_queued_every_job_completes_once(standin, tmp_path):
    issues = [standin.add_issue(200 + i, f"{FENCE}\n{LOG}{FENCE}\n") for i in range(12)]
    first = Bot(standin.url, tmp_path / "data", "--mutation-interval", "0.3")
    for issue in issues:
        assert deliver(first, "issues", issue_event("opened", issue))[0] == 202
    deadline = time.monotonic() + 20
    while not standin.mutations() and time.monotonic() < deadline:
        time.sleep(0.05)
    first.stop(signal.SIGKILL)
    done_before = sum(len(standin.bot_comments(i["number"])) for i in issues)
    assert done_before < len(issues), "the kill came with jobs still queued"
    second = Bot(standin.url, tmp_path / "data")
    try:
        second.idle(timeout=60)
    finally:
        second.stop()
    assert [len(standin.bot_comments(i["number"])) for i in issues] == [1] * len(issues)


def test_api_failures_are_waited_out_without_duplicates(standin, bot):
    reset = str(int(time.time()) + 1)
    standin.faults = [(502, {}, "Bad Gateway"), (502, {}, "Bad Gateway"),
                      (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}, "API rate limit exceeded"),
                      (429, {"Retry-After": "1"}, "secondary rate limit")]
    issues = [standin.add_issue(300 + i, f"{FENCE}\n{LOG}{FENCE}\n") for i in range(3)]
    for issue in issues:
        assert deliver(bot, "issues", issue_event("opened", issue))[0] == 202
    bot.idle(timeout=60)
    assert standin.faults == []
    assert [len(standin.bot_comments(i["number"])) for i in issues] == [1, 1, 1]
    mutations = standin.mutations()
    gaps = [b[2] - a[2] for a, b in zip(mutations, mutations[1:])]
    assert min(gaps) >= 0.01 - 1e-3  # writes are serial and paced


def test_status_lists_parked_jobs(tmp_path):
    from logscope.bot.queue import JobQueue

    queue = JobQueue(tmp_path / "data")
    queue.enqueue("d-1", "issues", "opened", "org/repo", 7)
    job = queue.claim()
    queue.park(job, "RuntimeError: 404 from the API")
    done = subprocess.run([sys.executable, "-m", "logscope", "bot", "status", "--data-dir", str(tmp_path / "data")],
                          capture_output=True, cwd=ROOT, timeout=60)
    out = done.stdout.decode()
    assert "parked 1" in out and "org/repo#7 delivery d-1 after 1 attempts: RuntimeError: 404" in out


def test_dry_run_prints_the_comment_and_writes_nothing(standin, tmp_path):
    issue = standin.add_issue(400, f"{FENCE}\n{LOG}{FENCE}\n")
    dry = Bot(standin.url, tmp_path / "data", "--dry-run")
    try:
        assert deliver(dry, "issues", issue_event("opened", issue))[0] == 202
        dry.idle()
    finally:
        dry.stop()
    out = dry.proc.stdout.read().decode()
    assert "--- would create the comment on org/repo#400:" in out and MARKER in out
    assert standin.mutations() == [] and standin.comments[400] == []

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
from tests.helpers import REAL, ROOT, free_port

SECRET = "it's a secret to everybody"
REPO = {"full_name": "org/repo"}
LOG = (REAL / "f-004-sglang-5285.log").read_text(encoding="utf-8")
FENCE = "`" * 3


class Bot:
    def __init__(self, api: str, data_dir: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        env = {
            **os.environ,
            "LOGSCOPE_WEBHOOK_SECRET": SECRET,
            "GITHUB_TOKEN": "test-token",
            "GITHUB_API_URL": api,
            **(env or {}),
        }
        env = {k: v for k, v in env.items() if v}  # an empty value in `env` removes the variable
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "logscope",
                "bot",
                "serve",
                "--port",
                str(self.port),
                "--data-dir",
                str(data_dir),
                "--mutation-interval",
                "0.01",
                "--retry-wait",
                "0.5",
                *extra,
            ],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                assert urllib.request.urlopen(self.url + "/healthz", timeout=1).read() == b"ok"
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

    def metrics(self) -> dict[str, float]:
        """The /metrics samples by name with labels, e.g. 'logscope_jobs{state="done"}'."""
        text = urllib.request.urlopen(self.url + "/metrics", timeout=5).read().decode()
        return {
            line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line and not line.startswith("#")
        }

    def jobs(self) -> dict[str, int]:
        states = {
            k[len('logscope_jobs{state="') : -2]: int(v) for k, v in self.metrics().items() if k.startswith("logscope_jobs{")
        }
        return {state: n for state, n in states.items() if n}

    def idle(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            jobs = self.jobs()
            if not jobs.get("pending") and not jobs.get("running"):
                return
            time.sleep(0.1)
        raise AssertionError(f"jobs still open: {self.jobs()}")


def deliver(
    bot: Bot,
    event: str,
    payload: object,
    delivery: str | None = None,
    secret: str = SECRET,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    content_type: str = "application/json",
) -> tuple[int, float]:
    data = body if body is not None else json.dumps(payload).encode()
    sign = {"X-Hub-Signature-256": "sha256=" + hmac.new(secret.encode(), data, hashlib.sha256).hexdigest()}
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", bot.port, timeout=15)
    try:
        # the server may answer (413) and close before the whole body was sent
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.request(
                "POST",
                "/webhook",
                body=data,
                headers={
                    "Content-Type": content_type,
                    "X-GitHub-Event": event,
                    "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
                    **(sign if headers is None else headers),
                },
            )
        response = connection.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    finally:
        connection.close()


def issue_event(action: str, issue: dict, repo: dict = REPO, installation: int | None = None) -> dict:
    event = {"action": action, "issue": issue, "repository": repo, "sender": {"login": "reporter", "type": "User"}}
    return event if installation is None else {**event, "installation": {"id": installation}}


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
    issues = [standin.add_issue(100 + i, f"Run {i}:\n\n{FENCE}\n{logs[i % len(logs)].read_text()}{FENCE}\n") for i in range(50)]
    events = [issue_event("opened" if k == 0 else "edited", issue) for k in range(4) for issue in issues]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda payload: deliver(bot, "issues", payload), events))
    sent = time.monotonic() - started
    assert sent < 10
    assert all(200 <= status < 300 and seconds < 10 for status, seconds in answers)
    bot.idle(timeout=120)
    samples = bot.metrics()
    jobs = bot.jobs()
    assert samples['logscope_deliveries_total{result="queued"}'] == 200 == sum(jobs.values())
    assert samples["logscope_webhook_answer_seconds_count"] == 200
    assert samples['logscope_webhook_answer_seconds_bucket{le="+Inf"}'] == 200
    assert set(jobs) <= {"done", "superseded"} and jobs["done"] == samples['logscope_job_runs_total{outcome="done"}']
    assert samples["logscope_job_seconds_count"] == jobs["done"]
    assert samples["logscope_job_seconds_sum"] > 0
    print(
        f"\nload: 200 deliveries sent in {sent:.2f} s, slowest answer {max(s for _, s in answers):.3f} s, "
        f"all comments written {time.monotonic() - started:.2f} s after the first delivery; jobs {bot.jobs()}"
    )
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
    standin.faults = [
        (502, {}, "Bad Gateway"),
        (502, {}, "Bad Gateway"),
        (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}, "API rate limit exceeded"),
        (429, {"Retry-After": "1"}, "secondary rate limit"),
    ]
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
    done = subprocess.run(
        [sys.executable, "-m", "logscope", "bot", "status", "--data-dir", str(tmp_path / "data")],
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    out = done.stdout.decode()
    assert "parked 1" in out and "org/repo#7 delivery d-1 after 1 attempts: RuntimeError: 404" in out


def test_dry_run_needs_no_token_nor_network_and_writes_each_comment_to_a_folder(standin, tmp_path):
    """No token, no App, the API a stand-in that records every request: the comment is triaged from the
    delivery's own text and written under --dry-run-dir; the API is never asked."""
    issue = standin.add_issue(400, f"{FENCE}\n{LOG}{FENCE}\n")
    quiet = standin.add_issue(401, "Feature request: more docs, please.")
    folder = tmp_path / "would-post"
    dry = Bot(standin.url, tmp_path / "data", "--dry-run", "--dry-run-dir", str(folder), env={"GITHUB_TOKEN": ""})
    try:
        assert deliver(dry, "issues", issue_event("opened", issue))[0] == 202
        assert deliver(dry, "issues", issue_event("opened", quiet))[0] == 202
        person = {"id": 7, "body": f"Mine too:\n{FENCE}\n{LOG}{FENCE}\n", "user": {"login": "someone", "type": "User"}}
        assert deliver(dry, "issue_comment", comment_event(quiet, person))[0] == 202
        dry.idle()
    finally:
        dry.stop()
    assert standin.requests == [] and standin.comments[400] == []
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md")) == ["org/repo/400.md", "org/repo/401.md"]
    written = (folder / "org/repo/400.md").read_text(encoding="utf-8")
    assert written == render_comment(
        triage_text(json.dumps({"issue": {**issue, "user": issue["user"]}, "comments": []}), "org/repo#400")
    )
    assert written.startswith(MARKER) and "capture-oom" in written
    # the comment event's thread is the issue and that comment, as delivered
    assert "capture-oom" in (folder / "org/repo/401.md").read_text(encoding="utf-8")
    assert "dry run: the comment for org/repo#400 is in" in dry.proc.stdout.read().decode()


def test_healthz_says_only_ok_and_each_delivery_gets_an_access_log_line(standin, bot):
    assert urllib.request.urlopen(bot.url + "/healthz", timeout=5).read() == b"ok"
    assert b'<form method="post" action="/"' in urllib.request.urlopen(bot.url + "/", timeout=5).read()  # the paste page
    issue = standin.add_issue(500, f"{FENCE}\n{LOG}{FENCE}\n")
    assert deliver(bot, "issues", issue_event("opened", issue), delivery="d-access-1")[0] == 202
    assert deliver(bot, "issues", issue_event("opened", issue), secret="wrong", delivery="d-access-2")[0] == 403
    assert deliver(bot, "issues", [1, 2], delivery="d-access-3")[0] == 400
    bot.idle()
    bot.stop()
    lines = [line for line in bot.proc.stderr.read().decode().splitlines() if "delivery=" in line]
    assert len(lines) == 3
    assert "delivery=d-access-1 event=issues repo=org/repo issue=500 status=202 result=queued" in lines[0]
    assert "delivery=d-access-2 event=issues status=403 result=unauthorized" in lines[1]
    assert 'status=400 result=invalid reason="the payload is an array, not an object"' in lines[2]


def _jobs_in(data_dir: Path) -> dict[str, int]:
    from logscope.bot.queue import JobQueue

    return JobQueue(data_dir).counts()


ISSUE = {"number": 9, "title": "t", "body": "b", "user": {"login": "reporter", "type": "User"}}
# (name, payload, content type, status, what the answer says): every shape the bot cannot act on
BAD_PAYLOADS = [
    ("array", [ISSUE], "application/json", 400, "the payload is an array, not an object"),
    (
        "issue a string",
        {"action": "opened", "issue": "a string", "repository": REPO},
        "application/json",
        400,
        "issue is a string, not an object",
    ),
    (
        "number not an integer",
        {"action": "opened", "issue": {**ISSUE, "number": 9.5}, "repository": REPO},
        "application/json",
        400,
        "issue.number is a non-integer number, not a positive integer",
    ),
    (
        "number a string",
        {"action": "opened", "issue": {**ISSUE, "number": "9"}, "repository": REPO},
        "application/json",
        400,
        "issue.number is a string, not a positive integer",
    ),
    (
        "number a boolean",
        {"action": "opened", "issue": {**ISSUE, "number": True}, "repository": REPO},
        "application/json",
        400,
        "issue.number is a boolean, not a positive integer",
    ),
    (
        "number too large",
        {"action": "opened", "issue": {**ISSUE, "number": 1 << 70}, "repository": REPO},
        "application/json",
        400,
        "issue.number is an integer out of range, not a positive integer",
    ),
    (
        "number zero",
        {"action": "opened", "issue": {**ISSUE, "number": 0}, "repository": REPO},
        "application/json",
        400,
        "issue.number is the integer 0, not a positive integer",
    ),
    ("no repository", {"action": "opened", "issue": ISSUE}, "application/json", 400, "repository is null, not an object"),
    (
        "repository ../../etc",
        {"action": "opened", "issue": ISSUE, "repository": {"full_name": "../../etc"}},
        "application/json",
        400,
        "repository.full_name '../../etc' is not owner/name",
    ),
    (
        "repository owner/..",
        {"action": "opened", "issue": ISSUE, "repository": {"full_name": "org/.."}},
        "application/json",
        400,
        "repository.full_name 'org/..' is not owner/name",
    ),
    (
        "repository with three parts",
        {"action": "opened", "issue": ISSUE, "repository": {"full_name": "a/b/c"}},
        "application/json",
        400,
        "repository.full_name 'a/b/c' is not owner/name",
    ),
    (
        "repository a number",
        {"action": "opened", "issue": ISSUE, "repository": {"full_name": 5}},
        "application/json",
        400,
        "repository.full_name is the integer 5, not a string",
    ),
    (
        "labels an object",
        {"action": "opened", "issue": {**ISSUE, "labels": {}}, "repository": REPO},
        "application/json",
        400,
        "issue.labels is an object, not an array",
    ),
    (
        "body a number",
        {"action": "opened", "issue": {**ISSUE, "body": 3}, "repository": REPO},
        "application/json",
        400,
        "issue.body is the integer 3, not a string",
    ),
    (
        "comment missing",
        {"action": "created", "issue": ISSUE, "repository": REPO},
        "application/json",
        400,
        "comment is null, not an object",
    ),
    (
        "installation id a string",
        {"action": "opened", "issue": ISSUE, "repository": REPO, "installation": {"id": "1"}},
        "application/json",
        400,
        "installation.id is a string, not a positive integer",
    ),
    (
        "action a number",
        {"action": 1, "issue": ISSUE, "repository": REPO},
        "application/json",
        400,
        "action is the integer 1, not a string",
    ),
    ("NaN", None, "application/json", 400, "body is not JSON (NaN is not JSON"),
    ("not JSON", None, "application/json", 400, "body is not JSON"),
    ("deep nesting", None, "application/json", 400, "body is nested too deeply"),
    ("form without payload", None, "application/x-www-form-urlencoded", 400, "form body needs exactly one field, payload"),
    ("other content type", {"action": "opened"}, "text/plain", 400, "content type text/plain is neither"),
]
RAW = {
    "NaN": b'{"action": NaN}',
    "not JSON": b"{",
    "deep nesting": b"[" * 100000 + b"]" * 100000,
    "form without payload": b"other=1",
}


def test_each_bad_payload_is_a_400_with_its_reason_and_queues_nothing(standin, bot):
    for name, payload, content_type, status, reason in BAD_PAYLOADS:
        event = "issue_comment" if name == "comment missing" else "issues"
        data = RAW.get(name, json.dumps(payload).encode())
        sign = "sha256=" + hmac.new(SECRET.encode(), data, hashlib.sha256).hexdigest()
        connection = http.client.HTTPConnection("127.0.0.1", bot.port, timeout=15)
        connection.request(
            "POST",
            "/webhook",
            body=data,
            headers={
                "Content-Type": content_type,
                "X-GitHub-Event": event,
                "X-GitHub-Delivery": f"bad-{name}",
                "X-Hub-Signature-256": sign,
            },
        )
        response = connection.getresponse()
        answer = json.loads(response.read())
        connection.close()
        assert (name, response.status) == (name, status)
        assert reason in answer["error"], (name, answer)
    assert _jobs_in(bot.data_dir) == {} and [r for r in standin.requests if r[1].startswith("/repos/")] == []
    assert bot.metrics()['logscope_deliveries_total{result="invalid"}'] == len(BAD_PAYLOADS)


def test_form_encoded_delivery_is_accepted_with_the_signature_over_the_raw_body(standin, bot):
    import urllib.parse

    issue = standin.add_issue(600, f"{FENCE}\n{LOG}{FENCE}\n")
    body = urllib.parse.urlencode({"payload": json.dumps(issue_event("opened", issue))}).encode()
    status, _ = deliver(bot, "issues", None, body=body, content_type="application/x-www-form-urlencoded")
    assert status == 202
    bot.idle()
    (comment,) = standin.bot_comments(600)
    assert comment["body"] == expected_comment(standin, 600)
    # a signature over the decoded JSON instead of the raw form body does not match
    signed_json = (
        "sha256=" + hmac.new(SECRET.encode(), json.dumps(issue_event("opened", issue)).encode(), hashlib.sha256).hexdigest()
    )
    assert (
        deliver(
            bot,
            "issues",
            None,
            body=body,
            content_type="application/x-www-form-urlencoded",
            headers={"X-Hub-Signature-256": signed_json},
        )[0]
        == 403
    )


def test_answers_that_will_not_change_are_parked_at_once(standin, bot):
    missing = {"number": 700, "title": "gone", "body": f"{FENCE}\n{LOG}{FENCE}\n", "user": {"login": "r", "type": "User"}}
    assert deliver(bot, "issues", issue_event("opened", missing), delivery="d-404")[0] == 202  # the API answers 404
    bot.idle()
    for number, fault in ((701, (410, {}, "Gone")), (702, (422, {}, "Validation Failed: locked issue"))):
        issue = standin.add_issue(number, f"{FENCE}\n{LOG}{FENCE}\n")
        standin.faults = [fault]
        assert deliver(bot, "issues", issue_event("opened", issue), delivery=f"d-{fault[0]}")[0] == 202
        bot.idle()
    from logscope.bot.queue import JobQueue

    parked = JobQueue(bot.data_dir).parked()
    assert [(d, issue, attempts) for d, _, issue, attempts, _ in parked] == [
        ("d-404", 700, 1),
        ("d-410", 701, 1),
        ("d-422", 702, 1),
    ]
    assert [error.split(" from ")[0] for *_, error in parked] == ["Permanent: 404", "Permanent: 410", "Permanent: 422"]
    assert bot.jobs() == {"parked": 3}
    # a 422 that says "too long" is not parked: the comment is cut and written
    issue = standin.add_issue(703, f"{FENCE}\n{LOG}{FENCE}\n")
    standin.faults = [(422, {}, "Validation Failed: body is too long (maximum is 65536 characters)")]
    assert deliver(bot, "issues", issue_event("opened", issue))[0] == 202
    bot.idle()
    assert len(standin.bot_comments(703)) == 1 and bot.jobs() == {"parked": 3, "done": 1}


def test_allowlist_refuses_other_repositories_and_the_label_filter_ignores_unlabelled_issues(standin, tmp_path):
    filtered = Bot(
        standin.url,
        tmp_path / "data",
        "--allow-repo",
        "org/repo",
        "--allow-repo",
        "team/*",
        "--label",
        "bug",
        "--label",
        "startup",
    )
    try:
        labelled = standin.add_issue(800, f"{FENCE}\n{LOG}{FENCE}\n")
        labelled["labels"] = [{"name": "startup"}]
        other = issue_event("opened", labelled, repo={"full_name": "someone/else"})
        assert deliver(filtered, "issues", other)[0] == 403
        assert deliver(filtered, "issues", issue_event("opened", labelled, repo={"full_name": "ORG/Repo"}))[0] == 202
        assert deliver(filtered, "issues", issue_event("opened", labelled, repo={"full_name": "team/any"}))[0] == 202
        unlabelled = standin.add_issue(801, f"{FENCE}\n{LOG}{FENCE}\n")
        assert deliver(filtered, "issues", issue_event("opened", unlabelled))[0] == 202
        filtered.idle()
        samples = filtered.metrics()
    finally:
        filtered.stop()
    assert _jobs_in(tmp_path / "data") == {"done": 2}  # ORG/Repo (names are case-insensitive) and team/any
    assert samples['logscope_deliveries_total{result="refused"}'] == 1
    assert samples['logscope_deliveries_total{result="ignored"}'] == 1
    assert standin.bot_comments(801) == [] and len(standin.bot_comments(800)) == 1


@pytest.fixture(scope="module")
def app_key():
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _key_file(key, path: Path) -> Path:
    from cryptography.hazmat.primitives import serialization

    # GitHub's download is PKCS#1 ("BEGIN RSA PRIVATE KEY")
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
        )
    )
    return path


def test_app_tokens_are_cached_per_installation_and_refreshed_before_expiry(app_key, tmp_path):
    from logscope.bot.auth import AppAuth, load_private_key
    from logscope.bot.github import GitHub
    from tests.github_standin import APP_ID

    now = [time.time()]
    with StandIn(
        app_key=app_key, token_lifetime=3600, installations={"org/repo": 11, "team/other": 22}, clock=lambda: now[0]
    ) as api:
        api.add_issue(1, "body")
        auth = AppAuth(api.url, APP_ID, load_private_key(_key_file(app_key, tmp_path / "app.pem")), clock=lambda: now[0])
        github = GitHub(api.url, auth, min_interval=0)
        assert auth.slug() == "logscope-triage"
        assert github.issue("org/repo", 1, 11)["number"] == 1
        assert github.issue("org/repo", 1, 11)["number"] == 1
        assert github.issue("team/other", 1, 22)["number"] == 1
        assert [inst for inst, _ in api.issued] == [11, 22]  # one token per installation, reused
        now[0] += 3600 - 300 - 1  # just before the refresh point (5 minutes before expiry)
        github.issue("org/repo", 1, 11)
        assert len(api.issued) == 2
        now[0] += 2
        github.issue("org/repo", 1, 11)
        assert [inst for inst, _ in api.issued] == [11, 22, 11]
        api.revoke()  # expired early on GitHub's side (a clock off, a revoked token): 401, a fresh token, done
        assert github.issue("org/repo", 1, 11)["number"] == 1
        assert [inst for inst, _ in api.issued] == [11, 22, 11, 11]
        assert api.refused == ["GET /repos/org/repo/issues/1: Bad credentials (expired)"]
        # another installation's token is never used for a repository: a wrong one would be a 404
        with pytest.raises(Exception, match="404"):
            github.issue("org/repo", 1, 22)


def test_app_bot_survives_tokens_expiring_mid_queue(app_key, tmp_path):
    """Tokens that live 2 s, writes 0.25 s apart, 12 issues in two installations, and every token revoked
    in the middle: each issue gets its one comment, with the token of its own installation."""
    from tests.github_standin import APP_ID

    installations = {"org/repo": 11, "team/other": 22}
    with StandIn(app_key=app_key, token_lifetime=2.0, installations=installations) as api:
        key = _key_file(app_key, tmp_path / "app.pem")
        bot = Bot(
            api.url,
            tmp_path / "data",
            "--app-id",
            APP_ID,
            "--app-key",
            str(key),
            "--mutation-interval",
            "0.25",
            env={"GITHUB_TOKEN": ""},
        )
        try:
            issues = [api.add_issue(900 + i, f"{FENCE}\n{LOG}{FENCE}\n") for i in range(12)]
            no_installation = issue_event("opened", issues[0])
            assert deliver(bot, "issues", no_installation)[0] == 400
            for i, issue in enumerate(issues):
                repo = "org/repo" if i % 3 else "team/other"
                event = issue_event("opened", issue, repo={"full_name": repo}, installation=installations[repo])
                assert deliver(bot, "issues", event)[0] == 202
            deadline = time.monotonic() + 30
            while len(api.mutations()) < 4 and time.monotonic() < deadline:
                time.sleep(0.05)
            api.revoke()
            bot.idle(timeout=60)
        finally:
            bot.stop()
    assert [len(api.bot_comments(i["number"])) for i in issues] == [1] * 12
    assert {inst for inst, _ in api.issued} == {11, 22}
    assert len(api.issued) >= 3  # a second token for at least one installation: expiry or the revoke
    assert all("Bad credentials (expired)" in why for why in api.refused), api.refused  # never a wrong installation
    assert _jobs_in(tmp_path / "data") == {"done": 12}


def test_start_up_refusals_are_one_line(tmp_path):
    def serve(*args: str, **env: str) -> subprocess.CompletedProcess:
        base = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "LOGSCOPE_APP_ID", "LOGSCOPE_APP_KEY_FILE")}
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "logscope",
                "bot",
                "serve",
                "--data-dir",
                str(tmp_path / "d"),
                "--port",
                str(free_port()),
                *args,
            ],
            env={**base, **env},
            cwd=ROOT,
            capture_output=True,
            timeout=60,
        )

    cases = [
        ((), {}, "LOGSCOPE_WEBHOOK_SECRET is not set"),
        ((), {"LOGSCOPE_WEBHOOK_SECRET": "s"}, "no GitHub credentials: set LOGSCOPE_APP_ID and LOGSCOPE_APP_KEY_FILE"),
        (("--app-id", "1"), {"LOGSCOPE_WEBHOOK_SECRET": "s"}, "a GitHub App needs both --app-id"),
        (
            ("--app-id", "1", "--app-key", str(tmp_path / "missing.pem")),
            {"LOGSCOPE_WEBHOOK_SECRET": "s"},
            "--app-key: [Errno 2] No such file or directory",
        ),
        (
            ("--app-id", "1", "--app-key", str(ROOT / "README.md")),
            {"LOGSCOPE_WEBHOOK_SECRET": "s"},
            "README.md: not an unencrypted PEM private key",
        ),
        (("--dry-run", "--allow-repo", "../etc"), {"LOGSCOPE_WEBHOOK_SECRET": "s"}, "--allow-repo '../etc': not owner/name"),
    ]
    for args, env, message in cases:
        done = serve(*args, **env)
        err = done.stderr.decode()
        assert done.returncode == 2 and err.count("\n") == 1 and message in err, (args, err)


def test_a_jwt_signed_with_another_key_or_for_another_app_is_refused(app_key, tmp_path):
    from cryptography.hazmat.primitives.asymmetric import rsa

    from logscope.bot.auth import AppAuth
    from logscope.bot.github import Unauthorized
    from tests.github_standin import APP_ID

    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with StandIn(app_key=app_key, installations={"org/repo": 11}) as api:
        with pytest.raises(Unauthorized):
            AppAuth(api.url, APP_ID, other_key).slug()
        with pytest.raises(Unauthorized):
            AppAuth(api.url, "999", app_key).slug()
        assert AppAuth(api.url, APP_ID, app_key).slug() == "logscope-triage"
    assert len(api.refused) == 2 and api.refused[0] == "JWT: bad signature"
    assert api.refused[1].startswith("JWT: claims") and "'iss': '999'" in api.refused[1]

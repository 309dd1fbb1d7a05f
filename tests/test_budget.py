"""The budget of one request (logscope/paste/budget.py): reading stops at a deadline and the report says
where, a child past the budget is stopped, what a page draws is cut with the rest counted, the paste page
answers 503 with Retry-After past its analyses at once, and both servers say how they started."""

from __future__ import annotations

import http.client
import io
import json
import os
import subprocess
import sys
import threading
import time
from html import escape
from pathlib import Path

import pytest

from logscope.paste import budget as paste_budget
from logscope.paste.budget import Budget, OverTime, Part, run_job
from logscope.pipeline.analyze import DEADLINE_READ_BYTES, ReadDeadline, analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.report.comment import render_comment
from logscope.report.html import render_html
from logscope.report.shown import DrawLimits, within
from logscope.report.view import build_view
from tests.helpers import REAL, ROOT, free_port
from tests.test_paste_page import PLANTED, SECRETS

LOG = (REAL / "h-019-sglang-17392.log").read_bytes()  # one launch of 4 ranks; two copies make one restart


def test_reading_stops_at_the_deadline_and_the_verdict_says_where():
    copies = DEADLINE_READ_BYTES // len(LOG) * 3  # three reads' worth
    data = LOG * copies
    total = data.count(b"\n")
    source = Source(name="pasted", path=None, data=data)
    document = analyze_sources([source], deadline=ReadDeadline(at=0.0, budget_s=2.0))  # passed before it began
    read = document["coverage"]["lines"]
    assert 0 < read < total  # the first read only: a late start still reports on something
    stopped = document["inputs"][0]["stopped"]
    assert stopped == (
        f"stopped after line {read:,} of {total:,}: the analysis's time budget (2 s) ran out; the report covers lines 1-{read:,}"
    )
    assert f"read limits: pasted {stopped}" in build_view(document).verdict  # then the restarts folded, if any
    # the same input without a deadline reads every line
    assert analyze_sources([Source(name="pasted", path=None, data=data)])["coverage"]["lines"] == total


def test_a_second_source_past_the_deadline_is_not_read_and_says_so():
    first, second = Source("a.log", None, LOG), Source("b.log", None, LOG)
    document = analyze_sources([first, second], deadline=ReadDeadline(at=0.0, budget_s=3.0))
    inputs = {i["path"]: i for i in document["inputs"]}
    assert "stopped" not in inputs["a.log"] and inputs["a.log"]["lines"] == LOG.count(b"\n")
    assert inputs["b.log"]["stopped"] == "not read: the analysis's time budget (3 s) ran out before it"


def _sleep(seconds: float) -> str:
    time.sleep(seconds)
    return "late"


def test_a_child_past_the_budget_is_stopped():
    started = time.monotonic()
    with pytest.raises(OverTime, match="ran past its budget of 0.5 s and was stopped"):
        run_job(_sleep, (30.0,), 0.5)
    assert time.monotonic() - started < 10
    assert run_job(_sleep, (0.0,), 30) == "late"


def test_the_page_and_the_comment_draw_within_the_limits_and_count_the_rest():
    document = analyze_sources([Source("pasted", None, LOG * 50)])
    launches = len(document["launches"])
    ranks = sum(len(launch["ranks"]) for launch in document["launches"])
    findings = len(document["findings"])
    # every launch stopped before ready but the last, whose copy ends in a cut line ("Memory pool end. a")
    assert launches == 25 and ranks == 100 and findings == 24
    drawn = within(document, DrawLimits(launches=10, ranks=3, findings=4))
    assert len(drawn["launches"]) == 10 and all(len(launch["ranks"]) == 3 for launch in drawn["launches"])
    assert drawn["shown"] == {
        "launches": 10,
        "of_launches": 25,
        "ranks": 30,
        "of_ranks": 100,
        "ranks_per_launch": 3,
        "findings": 4,
        "of_findings": 24,
        "findings_left_out": {"startup-incomplete": 20},
    }
    assert set(drawn["coverage"]["missing_phases"]) <= {str(launch["id"]) for launch in drawn["launches"]}
    assert build_view(drawn).verdict == build_view(document).verdict  # the top finding is kept
    statement = (
        "Drawn within this report's budget: 10 of 25 launches; 30 of 100 ranks (at most 3 a launch); 4 of 24 findings "
        "(left out: startup-incomplete x20). logscope run locally on the input draws all of it."
    )
    assert f'<p class="muted" id="shown">{escape(statement)}</p>' in render_html(drawn)
    assert f"<sub>{statement}</sub>" in render_comment(drawn)
    small = analyze_sources([Source("pasted", None, LOG * 2)])
    assert within(small, DrawLimits()) is small  # within the limits: nothing cut, nothing said
    assert 'id="shown"' not in render_html(small)


def test_the_paste_page_job_redacts_in_the_child_and_draws_within_the_budget():
    html = run_job(
        paste_budget.report_page,
        ([Part("rank0.log", PLANTED.encode() + LOG * 50)], Budget(), time.monotonic()),
        60,
    )
    assert not [secret for secret in SECRETS if secret in html]
    assert '"HF_TOKEN": "\\u003credacted\\u003e"' in html  # the embedded document escapes < and >
    assert 'id="shown">Drawn within this report&#x27;s budget: 20 of 25 launches;' in html


def _post(port: int, text: bytes) -> tuple[int, str | None, str]:
    body = b'--b\r\nContent-Disposition: form-data; name="text"\r\n\r\n' + text + b"\r\n--b--\r\n"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/", body=body, headers={"Content-Type": "multipart/form-data; boundary=b"})
    response = connection.getresponse()
    answer = response.read().decode()
    connection.close()
    return response.status, response.getheader("Retry-After"), answer


def test_past_its_analyses_at_once_the_page_answers_503_with_retry_after(monkeypatch):
    uvicorn = pytest.importorskip("uvicorn")
    from starlette.applications import Starlette

    from logscope.paste import page

    release = threading.Event()
    entered = threading.Semaphore(0)

    def held(job, args, seconds):  # stands for a long analysis: holds its slot until released
        entered.release()
        release.wait(30)
        return "<!doctype html><p>report</p>"

    monkeypatch.setattr(page, "run_job", held)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(Starlette(routes=page.routes(Budget(concurrent=2, retry_after_s=7))), port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        answers: list[tuple[int, str | None, str]] = []
        first = [threading.Thread(target=lambda: answers.append(_post(port, LOG))) for _ in range(2)]
        for t in first:
            t.start()
        assert entered.acquire(timeout=20) and entered.acquire(timeout=20)  # both slots taken
        status, retry_after, text = _post(port, LOG)
        assert status == 503 and retry_after == "7"
        assert "2 pastes are being received or analysed, the most this server takes at once: try again in 7 s" in text
        release.set()
        for t in first:
            t.join(20)
        assert [a[0] for a in answers] == [200, 200]
        assert _post(port, LOG)[0] == 200  # the slots are free again
    finally:
        release.set()
        server.should_exit = True
        thread.join(10)


def _first_line(args: list[str], env: dict[str, str] | None = None) -> str:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "logscope", *args, "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        return proc.stderr.readline().strip().replace(str(port), "PORT")
    finally:
        proc.terminate()
        proc.wait(10)


def test_both_servers_start_with_a_line_saying_where_how_and_within_what(tmp_path: Path):
    budget = (
        "8 MiB a request, 15 s an analysis (reading stops at 0.2 of it), 2 at once, drawn: 20 launches, "
        "64 ranks a launch, 50 findings"
    )
    assert _first_line(["serve"]) == (
        f"logscope serve: the paste page at http://127.0.0.1:PORT/ (no bot, nothing stored); budget: {budget}"
    )
    line = _first_line(
        ["bot", "serve", "--dry-run", "--data-dir", str(tmp_path), "--max-concurrent", "3", "--allow-repo", "org/*"],
        {"LOGSCOPE_WEBHOOK_SECRET": "s3cret"},
    )
    url = "http://127.0.0.1:PORT"
    assert line == (
        f"logscope bot serve: {url}/webhook (and the paste page at {url}/, {url}/metrics, {url}/healthz); "
        f"mode: dry run (nothing posted; comments written under {tmp_path}/dry-run); data folder: {tmp_path} "
        "(the job queue); repositories: org/*; labels: any; limits: webhook body 1 MiB, "
        + budget.replace("2 at once", "3 at once")
        + ", the worker one job at a time"
    )
    assert "s3cret" not in line


@pytest.mark.parametrize("command", [["serve"], ["bot", "serve"]])
def test_help_names_the_start_line_and_the_budget(command):
    done = subprocess.run([sys.executable, "-m", "logscope", *command, "--help"], cwd=ROOT, capture_output=True, text=True)
    text = " ".join(done.stdout.split())
    assert "At start it prints one line on stderr: the URL" in text
    for option in ("--max-paste", "--budget-seconds", "--max-concurrent"):
        assert option in text
    assert "answered 503 with Retry-After" in text


def _thread(log: bytes) -> str:
    issue = {"number": 7, "title": "startup", "body": f"```\n{log.decode()}```\n", "user": {"login": "r", "type": "User"}}
    return json.dumps({"issue": issue, "comments": []})


def test_the_bots_worker_comments_within_the_budget_and_parks_a_job_past_it(tmp_path: Path):
    from logscope.bot.queue import JobQueue
    from logscope.bot.worker import Worker

    queue = JobQueue(tmp_path / "data")
    queue.enqueue("d-1", "issues", "opened", "org/repo", 7, None, _thread(LOG * 50))
    worker = Worker(queue, None, "logscope[bot]", dry_run_dir=tmp_path / "dry", out=io.StringIO())
    worker.handle(queue.claim())
    comment = (tmp_path / "dry/org/repo/7.md").read_text(encoding="utf-8")
    assert "<sub>Drawn within this report's budget: 20 of 25 launches;" in comment
    queue.enqueue("d-2", "issues", "opened", "org/repo", 8, None, _thread(LOG))
    late = Worker(queue, None, "logscope[bot]", dry_run_dir=tmp_path / "dry", budget=Budget(seconds=0.001))
    late.handle(queue.claim())
    [(delivery, _repo, issue, _attempts, error)] = queue.parked()
    assert (delivery, issue) == ("d-2", 8)
    assert error == "OverTime: the analysis ran past its budget of 0.001 s and was stopped: paste less"

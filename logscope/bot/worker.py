"""The worker: one job at a time, in order. It reads the issue and its comments as they are now, triages
them (the bot's own and other bots' comments left out), and creates or updates the one comment that carries
the marker and the bot's login; it does nothing when that comment already says the same, and posts nothing
on an issue where logscope recognised nothing."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, TextIO

from logscope.bot.github import BodyTooLong, GitHub, RetryLater
from logscope.bot.queue import Job, JobQueue
from logscope.report.comment import MARKER, render_comment
from logscope.triage.run import triage_text

MAX_ATTEMPTS = 6
BACKOFF = (5.0, 30.0, 120.0, 600.0, 1800.0)


def is_bot(user: dict[str, Any] | None, login: str) -> bool:
    user = user or {}
    return user.get("login") == login or user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]")


class Worker(threading.Thread):
    def __init__(self, queue: JobQueue, github: GitHub | None, login: str, dry_run: bool = False,
                 out: TextIO = sys.stdout, poll: float = 0.2, backoff: tuple[float, ...] = BACKOFF) -> None:
        super().__init__(name="logscope-worker", daemon=True)
        self.queue = queue
        self.github = github
        self.login = login
        self.dry_run = dry_run
        self.out = out
        self.poll = poll
        self.backoff = backoff
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            job = self.queue.claim()
            if job is None:
                self.stopping.wait(self.poll)
                continue
            self.handle(job)

    def handle(self, job: Job) -> None:
        try:
            self.process(job)
        except RetryLater as exc:
            self.queue.retry(job, str(exc), max(exc.delay, self._delay(job)) if job.attempts else exc.delay)
        except Exception as exc:  # noqa: BLE001 - any failure is retried, then parked with its error
            error = f"{type(exc).__name__}: {exc}"
            if job.attempts + 1 >= MAX_ATTEMPTS:
                self.queue.park(job, error)
            else:
                self.queue.retry(job, error, self._delay(job))
        else:
            self.queue.done(job)

    def _delay(self, job: Job) -> float:
        return self.backoff[min(job.attempts, len(self.backoff) - 1)]

    def process(self, job: Job) -> None:
        if self.github is None:
            raise RuntimeError("no GitHub client: the bot needs GITHUB_TOKEN to read the issue")
        issue = self.github.issue(job.repo, job.issue)
        comments = self.github.comments(job.repo, job.issue)
        people = [c for c in comments if not is_bot(c.get("user"), self.login)]
        document = triage_text(json.dumps([issue, *people]), f"{job.repo}#{job.issue}")
        if document["coverage"]["recognized_lines"] == 0 and not document["findings"]:
            return  # nothing logscope reads: no comment
        body = render_comment(document)
        mine = next((c for c in comments if (c.get("user") or {}).get("login") == self.login
                     and str(c.get("body", "")).startswith(MARKER)), None)
        if mine is not None and mine.get("body") == body:
            return
        if self.dry_run:
            self.out.write(f"--- would {'update' if mine else 'create'} the comment on {job.repo}#{job.issue}:\n{body}\n")
            self.out.flush()
            return
        try:
            self._post(job, mine, body)
        except BodyTooLong:
            self._post(job, mine, render_comment(document, max_chars=len(body) // 2))

    def _post(self, job: Job, mine: dict[str, Any] | None, body: str) -> None:
        assert self.github is not None
        if mine is not None:
            self.github.update_comment(job.repo, int(mine["id"]), body)
        else:
            self.github.create_comment(job.repo, job.issue, body)


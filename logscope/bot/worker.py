"""The worker: one job at a time, in order. It reads the issue and its comments as they are now, triages
them (the bot's own and other bots' comments left out), and creates or updates the one comment that carries
the marker and the bot's login; it does nothing when that comment already says the same, and posts nothing
on an issue where logscope recognised nothing. A dry run needs no token and no network: it triages the
text the delivery carried and writes the would-be comment to `<dry-run dir>/<owner>/<name>/<issue>.md`.
Each triage runs within the budget of the paste page (paste/budget.py): in a child process, reading stopped at
the budget's read deadline (the comment says where), the comment drawn within its limits; a thread that
runs past the whole budget is parked (it would again)."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from logscope.bot.github import BodyTooLong, GitHub, Permanent, RetryLater
from logscope.bot.metrics import Metrics
from logscope.bot.payload import REPO_NAME
from logscope.bot.queue import Job, JobQueue
from logscope.core.errors import LogscopeError
from logscope.paste.budget import Budget, Comment, run_job, thread_comment
from logscope.report.comment import MARKER

MAX_ATTEMPTS = 6
BACKOFF = (5.0, 30.0, 120.0, 600.0, 1800.0)


def is_bot(user: dict[str, Any] | None, login: str) -> bool:
    user = user or {}
    return user.get("login") == login or user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]")


class Worker(threading.Thread):
    def __init__(
        self,
        queue: JobQueue,
        github: GitHub | None,
        login: str,
        dry_run_dir: Path | None = None,
        out: TextIO = sys.stdout,
        poll: float = 0.2,
        backoff: tuple[float, ...] = BACKOFF,
        metrics: Metrics | None = None,
        budget: Budget | None = None,
    ) -> None:
        super().__init__(name="logscope-worker", daemon=True)
        self.queue = queue
        self.github = github
        self.login = login
        self.dry_run_dir = dry_run_dir
        self.out = out
        self.poll = poll
        self.backoff = backoff
        self.metrics = metrics or Metrics()
        self.budget = budget or Budget()
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            job = self.queue.claim()
            if job is None:
                self.stopping.wait(self.poll)
                continue
            self.handle(job)

    def handle(self, job: Job) -> None:
        outcome = "retry"
        try:
            self.process(job)
        except RetryLater as exc:
            self.queue.retry(job, str(exc), max(exc.delay, self._delay(job)) if job.attempts else exc.delay)
        except (Permanent, LogscopeError) as exc:  # the same answer however often it is asked (GitHub; the budget)
            self.queue.park(job, f"{type(exc).__name__}: {exc}")
            outcome = "parked"
        except Exception as exc:  # noqa: BLE001 - any other failure is retried, then parked with its error
            error = f"{type(exc).__name__}: {exc}"
            if job.attempts + 1 >= MAX_ATTEMPTS:
                self.queue.park(job, error)
                outcome = "parked"
            else:
                self.queue.retry(job, error, self._delay(job))
        else:
            self.queue.done(job)
            outcome = "done"
        self.metrics.job_ended(outcome, time.time() - job.received)

    def _delay(self, job: Job) -> float:
        return self.backoff[min(job.attempts, len(self.backoff) - 1)]

    def process(self, job: Job) -> None:
        if not REPO_NAME.fullmatch(job.repo):  # the webhook refuses these; a queue from an older bot may hold one
            raise Permanent(f"repository {job.repo!r} is not owner/name")
        if self.dry_run_dir is not None:
            self._dry_run(job)
            return
        if self.github is None:
            raise RuntimeError("no GitHub client: the bot needs a token or a GitHub App to read the issue")
        issue = self.github.issue(job.repo, job.issue, job.installation)
        comments = self.github.comments(job.repo, job.issue, job.installation)
        people = [c for c in comments if not is_bot(c.get("user"), self.login)]
        comment = self._comment(json.dumps([issue, *people]), f"{job.repo}#{job.issue}")
        if not comment.recognised:
            return  # nothing logscope reads: no comment
        body = comment.body
        mine = next(
            (
                c
                for c in comments
                if (c.get("user") or {}).get("login") == self.login and str(c.get("body", "")).startswith(MARKER)
            ),
            None,
        )
        if mine is not None and mine.get("body") == body:
            return
        try:
            self._post(job, mine, body)
        except BodyTooLong:
            self._post(job, mine, comment.shorter)

    def _comment(self, thread_json: str, source: str) -> Comment:
        """The triage's comment, made in a child process within the budget (paste/budget.py)."""
        return run_job(thread_comment, (thread_json, source, self.budget, time.monotonic()), self.budget.seconds)

    def _dry_run(self, job: Job) -> None:
        assert self.dry_run_dir is not None
        thread = json.loads(job.thread) if job.thread else None
        if not thread:
            raise Permanent("a dry run triages the text the delivery carried, and this job has none")
        thread["comments"] = [c for c in thread["comments"] if not is_bot(c.get("user"), self.login)]
        comment = self._comment(json.dumps(thread), f"{job.repo}#{job.issue}")
        if not comment.recognised:
            return
        owner, name = job.repo.split("/")
        path = self.dry_run_dir / owner / name / f"{job.issue}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(comment.body, encoding="utf-8")
        self.out.write(f"dry run: the comment for {job.repo}#{job.issue} is in {path}\n")
        self.out.flush()

    def _post(self, job: Job, mine: dict[str, Any] | None, body: str) -> None:
        assert self.github is not None
        if mine is not None:
            self.github.update_comment(job.repo, int(mine["id"]), body, job.installation)
        else:
            self.github.create_comment(job.repo, job.issue, body, job.installation)

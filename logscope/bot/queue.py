"""The durable job queue: SQLite (the standard library's) in the data directory. A delivery is stored before
the webhook is answered; a job being worked on when the bot died is pending again on restart, with the newest
text it had absorbed from later deliveries; a job that keeps failing is retried with back-off, then parked
with its error. Once a job is done, the texts it covered are dropped, and done or superseded deliveries
older than KEEP_DAYS are deleted (a redelivery within them is still recognised)."""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

KEEP_DAYS = 7.0  # done and superseded deliveries kept (ids for recognising redeliveries, for `bot status`)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery TEXT UNIQUE NOT NULL,
  event TEXT NOT NULL,
  action TEXT NOT NULL,
  repo TEXT NOT NULL,
  issue INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',  -- pending | running | done | superseded | parked
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at REAL NOT NULL DEFAULT 0,
  error TEXT,
  received REAL NOT NULL,
  installation INTEGER,  -- the GitHub App installation the delivery came from (NULL with a plain token)
  thread TEXT  -- the issue and comment as delivered (JSON): what a dry run triages
);
CREATE INDEX IF NOT EXISTS jobs_pending ON jobs (status, next_at, id);
"""


@dataclass(frozen=True, slots=True)
class Job:
    id: int
    delivery: str
    event: str
    action: str
    repo: str
    issue: int
    attempts: int
    installation: int | None = None
    thread: str | None = None
    received: float = 0.0


class JobQueue:
    def __init__(self, data_dir: Path, keep_days: float = KEEP_DAYS) -> None:
        self.keep_days = keep_days
        data_dir.mkdir(parents=True, exist_ok=True)
        self.path = data_dir / "jobs.sqlite3"
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # a stored delivery survives a crash right after the 2xx
        self.db.executescript(_SCHEMA)
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(jobs)")}
        for column, kind in (("installation", "INTEGER"), ("thread", "TEXT")):
            if column not in columns:  # a queue written by an older bot
                self.db.execute(f"ALTER TABLE jobs ADD COLUMN {column} {kind}")
        self.lock = threading.Lock()
        self.db.execute("UPDATE jobs SET status='pending' WHERE status='running'")  # resume what a kill interrupted

    def enqueue(
        self,
        delivery: str,
        event: str,
        action: str,
        repo: str,
        issue: int,
        installation: int | None = None,
        thread: str | None = None,
    ) -> bool:
        """Store a delivery; False when this delivery id was stored before (a redelivery)."""
        with self.lock:
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO jobs (delivery, event, action, repo, issue, received, installation, thread) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (delivery, event, action, repo, issue, time.time(), installation, thread),
            )
            return cursor.rowcount == 1

    def claim(self) -> Job | None:
        """The oldest due job, now running; other pending jobs of the same issue are superseded by it (the
        worker reads the issue as it is now, so one run covers every delivery received before it)."""
        with self.lock:
            row = self.db.execute(
                "SELECT id, delivery, event, action, repo, issue, attempts, installation, thread, "
                "received FROM jobs "
                "WHERE status='pending' AND next_at <= ? ORDER BY id LIMIT 1",
                (time.time(),),
            ).fetchone()
            if row is None:
                return None
            job = Job(*row)
            latest = self.db.execute(
                "SELECT thread FROM jobs WHERE status='pending' AND repo=? AND issue=? ORDER BY id DESC LIMIT 1",
                (job.repo, job.issue),
            ).fetchone()
            if latest is not None and latest[0] is not None:  # the newest text delivered covers the older ones
                job = replace(job, thread=latest[0])
            self.db.execute("BEGIN IMMEDIATE")
            # the newest text is stored with the running job, so that a kill before it is done loses no edit
            self.db.execute("UPDATE jobs SET status='running', thread=? WHERE id=?", (job.thread, job.id))
            self.db.execute(
                "UPDATE jobs SET status='superseded', thread=NULL WHERE status='pending' AND repo=? AND issue=? AND id<>?",
                (job.repo, job.issue, job.id),
            )
            self.db.execute("COMMIT")
            return job

    def done(self, job: Job) -> None:
        """The job delivered: its text dropped, and deliveries done or superseded more than keep_days ago deleted."""
        with self.lock:
            self.db.execute("UPDATE jobs SET status='done', error=NULL, thread=NULL WHERE id=?", (job.id,))
            self.db.execute(
                "DELETE FROM jobs WHERE status IN ('done', 'superseded') AND received < ?",
                (time.time() - self.keep_days * 86400,),
            )

    def retry(self, job: Job, error: str, delay: float) -> None:
        with self.lock:
            self.db.execute(
                "UPDATE jobs SET status='pending', attempts=attempts+1, next_at=?, error=? WHERE id=?",
                (time.time() + delay, error, job.id),
            )

    def park(self, job: Job, error: str) -> None:
        with self.lock:
            self.db.execute("UPDATE jobs SET status='parked', attempts=attempts+1, error=? WHERE id=?", (error, job.id))

    def counts(self) -> dict[str, int]:
        with self.lock:
            return dict(self.db.execute("SELECT status, COUNT(*) FROM jobs GROUP BY status").fetchall())

    def parked(self) -> list[tuple[str, str, int, int, str]]:
        with self.lock:
            return self.db.execute(
                "SELECT delivery, repo, issue, attempts, error FROM jobs WHERE status='parked' ORDER BY id"
            ).fetchall()

    def failing(self) -> list[tuple[str, str, int, int, str]]:
        """Pending jobs that failed at least once (waiting for their retry)."""
        with self.lock:
            return self.db.execute(
                "SELECT delivery, repo, issue, attempts, error FROM jobs WHERE status='pending' AND attempts > 0 ORDER BY id"
            ).fetchall()

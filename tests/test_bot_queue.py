"""The bot's queue (logscope/bot/queue.py): a job killed mid-run comes back with the newest text it absorbed
(a dry run's kill -9 loses no edit); texts are dropped once delivered, and deliveries older than keep_days are
deleted, so replays of a large body do not grow the queue without end."""

from __future__ import annotations

import json
import time

from logscope.bot.queue import JobQueue


def _thread(body: str) -> str:
    return json.dumps({"issue": {"title": "t", "body": body}})


def test_a_job_killed_mid_run_resumes_with_the_newest_edit(tmp_path):
    queue = JobQueue(tmp_path)
    queue.enqueue("d-1", "issues", "opened", "org/repo", 7, thread=_thread("first text"))
    queue.enqueue("d-2", "issues", "edited", "org/repo", 7, thread=_thread("newest edit"))
    assert json.loads(queue.claim().thread)["issue"]["body"] == "newest edit"
    queue.db.close()  # kill -9 while the job ran: nothing else was written
    again = JobQueue(tmp_path).claim()
    assert again is not None and json.loads(again.thread)["issue"]["body"] == "newest edit"


def test_texts_are_dropped_once_delivered_and_old_deliveries_deleted(tmp_path):
    queue = JobQueue(tmp_path, keep_days=7)
    body = _thread("x" * 567_000)
    for n in range(100):  # replays of one large body under new delivery ids
        queue.enqueue(f"d-{n}", "issues", "edited", "org/repo", 7, thread=body)
        queue.done(queue.claim())
    stored = queue.db.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(thread)), 0) FROM jobs").fetchone()
    assert stored == (100, 0)  # every delivery id kept (redeliveries recognised), no text
    assert not queue.enqueue("d-5", "issues", "edited", "org/repo", 7, thread=body)
    queue.db.execute("UPDATE jobs SET received=? WHERE delivery != 'd-99'", (time.time() - 8 * 86400,))
    queue.enqueue("d-new", "issues", "edited", "org/repo", 8, thread=body)
    queue.done(queue.claim())
    assert [r[0] for r in queue.db.execute("SELECT delivery FROM jobs ORDER BY id")] == ["d-99", "d-new"]

"""What `GET /metrics` reports, in Prometheus' text format: deliveries by result, jobs by state (read from the
queue), job runs by outcome, and two latency histograms (the webhook's answer; a job from its delivery to
its end). Counted in memory since the start; the queue keeps the durable counts."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import Counter

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
RESULTS = ("queued", "duplicate", "ignored", "ping", "refused", "invalid", "unauthorized", "too_large")
STATES = ("pending", "running", "done", "superseded", "parked")
OUTCOMES = ("done", "retry", "parked")


class Histogram:
    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)
        self.sum = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(BUCKETS, seconds)] += 1
        self.sum += seconds

    def lines(self, name: str) -> list[str]:
        out, running = [], 0
        for bound, count in zip((*BUCKETS, float("inf")), self.counts):
            running += count
            out.append(f'{name}_bucket{{le="{"+Inf" if bound == float("inf") else bound}"}} {running}')
        return [*out, f"{name}_sum {self.sum:.6f}", f"{name}_count {running}"]


class Metrics:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.deliveries: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.answer = Histogram()
        self.job = Histogram()

    def delivery(self, result: str, seconds: float) -> None:
        with self.lock:
            self.deliveries[result] += 1
            self.answer.observe(seconds)

    def job_ended(self, outcome: str, seconds_since_delivery: float) -> None:
        with self.lock:
            self.outcomes[outcome] += 1
            if outcome != "retry":
                self.job.observe(seconds_since_delivery)

    def render(self, jobs: dict[str, int]) -> str:
        with self.lock:
            lines = [
                "# HELP logscope_deliveries_total Webhook deliveries answered, by result.",
                "# TYPE logscope_deliveries_total counter",
            ]
            lines += [f'logscope_deliveries_total{{result="{r}"}} {self.deliveries[r]}' for r in RESULTS]
            lines += ["# HELP logscope_jobs Jobs in the durable queue, by state.", "# TYPE logscope_jobs gauge"]
            lines += [f'logscope_jobs{{state="{s}"}} {jobs.get(s, 0)}' for s in STATES]
            lines += [
                "# HELP logscope_job_runs_total Job runs since the start, by outcome.",
                "# TYPE logscope_job_runs_total counter",
            ]
            lines += [f'logscope_job_runs_total{{outcome="{o}"}} {self.outcomes[o]}' for o in OUTCOMES]
            lines += [
                "# HELP logscope_webhook_answer_seconds Time to answer a delivery.",
                "# TYPE logscope_webhook_answer_seconds histogram",
                *self.answer.lines("logscope_webhook_answer_seconds"),
            ]
            lines += [
                "# HELP logscope_job_seconds From a delivery to the end of its job (done or parked).",
                "# TYPE logscope_job_seconds histogram",
                *self.job.lines("logscope_job_seconds"),
            ]
        return "\n".join(lines) + "\n"

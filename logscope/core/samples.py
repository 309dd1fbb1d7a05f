"""The samples file of `logscope run` (schema logscope-samples/1): what NVML showed while a launch ran, beside
its log. `logscope run` writes it (logscope/measure/), `logscope analyze` reads it (pipeline/ingest/samples.py).

JSON lines. The first line is the header; every later line is one sample:

    {"schema": "logscope-samples/1", "log": "launch.log", "started": "2026-12-04T16:00:00Z", "command": [...],
     "root_pid": 4242, "nvml": true, "reason": null, "driver": "580.95.05", "interval_s": 0.5,
     "gpus": [{"index": 0, "name": "NVIDIA H200", "total_mib": 143771.0, "reserved_mib": 616.0}]}
    {"t": 0.0, "trigger": "start", "line": null, "text": null,
     "gpus": [{"index": 0, "used_mib": 0.0, "tree_mib": {}, "others_mib": 0.0}]}
    {"t": 3.1, "trigger": "phase", "line": 12, "text": "[... TP0] Load weight begin. avail mem=137.70 GB", "gpus": [...]}

- `t`: seconds since the launch started; `trigger`: start | phase | interval | end | stop (the user's signal,
  `signal`: SIGINT or SIGTERM, forwarded to the launch when the log held `line` lines; no `gpus`).
- `line`: for a phase sample, the 1-based line in the log file (as `logscope analyze` numbers physical lines) of
  the line that holds a phase literal (taken at once on that literal alone: the analysis joins a
  sample to a phase reading by this line, so a sample of a line that is no phase line joins nothing); `text`:
  that line (cut at TEXT_KEEP characters).
- per GPU: `used_mib` (NVML device used), `tree_mib` (pid → MiB: NVML per-process used memory of each process of
  the launched tree on that GPU), `others_mib` (the other processes NVML lists on that GPU).
- `nvml: false` with a `reason`: nothing was measured (no NVML, no GPU); the file then holds only the header.
MiB are 2^20 bytes, as NVML reports bytes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from logscope.core.errors import InputError

SCHEMA: Final = "logscope-samples/1"
SUFFIX: Final = ".samples.jsonl"
HEAD: Final = b'{"schema": "logscope-samples/'  # how a samples file starts (the header is written with this spacing)
TEXT_KEEP: Final = 300
TRIGGERS: Final = ("start", "phase", "interval", "end", "stop")


@dataclass(frozen=True, slots=True)
class GpuInfo:
    index: int
    name: str | None
    total_mib: float | None
    reserved_mib: float | None  # NVML v2's driver-reserved memory (nvidia-smi's "Reserved"); None where not given

    @property
    def card_total_gib(self) -> float | None:
        """What torch and SGLang see as the card (DESIGN.md: Total - Reserved), None without Reserved."""
        if self.total_mib is None or self.reserved_mib is None:
            return None
        return round((self.total_mib - self.reserved_mib) / 1024, 2)


@dataclass(frozen=True, slots=True)
class GpuSample:
    index: int
    used_mib: float
    tree_mib: dict[int, float] = field(default_factory=dict)
    others_mib: float = 0.0

    @property
    def tree_total_mib(self) -> float:
        return sum(self.tree_mib.values())


@dataclass(frozen=True, slots=True)
class Sample:
    t: float
    trigger: str
    line: int | None
    text: str | None
    gpus: tuple[GpuSample, ...]
    signal: str | None = None  # a `stop` record: the user's signal that `logscope run` forwarded to the launch

    def gpu(self, index: int) -> GpuSample | None:
        return next((g for g in self.gpus if g.index == index), None)


@dataclass(frozen=True, slots=True)
class Header:
    log: str
    started: str
    command: tuple[str, ...]
    root_pid: int | None
    nvml: bool
    reason: str | None
    driver: str | None
    interval_s: float | None
    gpus: tuple[GpuInfo, ...]

    def gpu(self, index: int) -> GpuInfo | None:
        return next((g for g in self.gpus if g.index == index), None)


@dataclass(frozen=True, slots=True)
class SamplesFile:
    path: str
    header: Header
    samples: tuple[Sample, ...]

    def at_line(self, line: int) -> Sample | None:
        """The sample taken when the log's line `line` (a phase line) was printed."""
        return next((s for s in self.samples if s.trigger == "phase" and s.line == line), None)

    def first(self) -> Sample | None:
        return self.samples[0] if self.samples else None

    def user_stop(self) -> Sample | None:
        """The record of the user's first signal forwarded to the launch (its `line`: the log's lines by then)."""
        return next((s for s in self.samples if s.trigger == "stop"), None)


def samples_path_for(log: Path) -> Path:
    """Where `logscope run` writes the samples of `log`: launch.log → launch.samples.jsonl."""
    stem = log.name[: -len(".log")] if log.name.endswith(".log") else log.name
    return log.with_name(stem + SUFFIX)


def header_json(header: Header) -> str:
    return json.dumps(
        {
            "schema": SCHEMA,
            "log": header.log,
            "started": header.started,
            "command": list(header.command),
            "root_pid": header.root_pid,
            "nvml": header.nvml,
            "reason": header.reason,
            "driver": header.driver,
            "interval_s": header.interval_s,
            "gpus": [
                {"index": g.index, "name": g.name, "total_mib": g.total_mib, "reserved_mib": g.reserved_mib} for g in header.gpus
            ],
        }
    )


def sample_json(sample: Sample) -> str:
    return json.dumps(
        {
            "t": round(sample.t, 3),
            "trigger": sample.trigger,
            "line": sample.line,
            "text": None if sample.text is None else sample.text[:TEXT_KEEP],
            "gpus": [
                {
                    "index": g.index,
                    "used_mib": round(g.used_mib, 2),
                    "tree_mib": {str(pid): round(mib, 2) for pid, mib in sorted(g.tree_mib.items())},
                    "others_mib": round(g.others_mib, 2),
                }
                for g in sample.gpus
            ],
            **({"signal": sample.signal} if sample.signal is not None else {}),
        }
    )


def is_samples_head(head: bytes) -> bool:
    return head.lstrip(b"\xef\xbb\xbf").startswith(HEAD)


def read_samples(path: Path) -> SamplesFile:
    """The samples file at `path`; a file that is not one, or a later line that is not a sample, is a one-line
    input error naming the file and the line (a last line cut by a killed run is skipped)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the samples file: {exc}") from None
    if not lines:
        raise InputError(f"{path}: empty samples file")
    try:
        head = json.loads(lines[0])
    except ValueError:
        raise InputError(f"{path}:1: not a logscope samples header") from None
    if not isinstance(head, dict) or not str(head.get("schema", "")).startswith("logscope-samples/"):
        raise InputError(f"{path}:1: not a logscope samples header")
    if head["schema"] != SCHEMA:
        raise InputError(f"{path}:1: samples schema {head['schema']} (this logscope reads {SCHEMA})")
    try:
        header = _header(head)
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{path}:1: malformed samples header ({exc})") from None
    samples: list[Sample] = []
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        try:
            samples.append(_sample(json.loads(text)))
        except (KeyError, TypeError, ValueError) as exc:
            if number == len(lines):
                break  # the last line, cut when the run was killed
            raise InputError(f"{path}:{number}: malformed sample ({exc})") from None
    return SamplesFile(str(path), header, tuple(samples))


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


def _header(data: dict[str, Any]) -> Header:
    return Header(
        log=str(data["log"]),
        started=str(data["started"]),
        command=tuple(str(c) for c in data.get("command") or ()),
        root_pid=None if data.get("root_pid") is None else int(data["root_pid"]),
        nvml=bool(data["nvml"]),
        reason=data.get("reason"),
        driver=data.get("driver"),
        interval_s=_num(data.get("interval_s")),
        gpus=tuple(
            GpuInfo(int(g["index"]), g.get("name"), _num(g.get("total_mib")), _num(g.get("reserved_mib")))
            for g in data.get("gpus") or ()
        ),
    )


def _sample(data: dict[str, Any]) -> Sample:
    if data["trigger"] not in TRIGGERS:
        raise ValueError(f"unknown trigger {data['trigger']!r}")
    return Sample(
        t=float(data["t"]),
        trigger=str(data["trigger"]),
        line=None if data.get("line") is None else int(data["line"]),
        text=data.get("text"),
        gpus=tuple(
            GpuSample(
                int(g["index"]),
                float(g["used_mib"]),
                {int(pid): float(mib) for pid, mib in (g.get("tree_mib") or {}).items()},
                float(g.get("others_mib") or 0.0),
            )
            for g in data["gpus"]
        ),
        signal=None if data.get("signal") is None else str(data["signal"]),
    )

"""`logscope run` end to end on CPU: a real launch-like child (tests/measure_children/launch_like.py) under a fake
NVML (tests/fake_nvml.py) that reports what the child says it holds; the pass-through, the log, the samples,
the exit codes and signals, and the analysis of the log with its samples."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from logscope.core.errors import InputError, LogscopeError
from logscope.core.samples import read_samples
from logscope.measure.proctree import descendants
from logscope.measure.run import RunOptions, RunResult, run_launch
from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import expand_inputs
from tests.fake_nvml import BrokenNvml, FakeNvml

CHILD = Path(__file__).parent / "measure_children" / "launch_like.py"


def _run(tmp_path: Path, mode: str, nvml: object | None = None, analysis: bool = False) -> tuple[RunResult, bytes, bytes]:
    state = tmp_path / "state.jsonl"
    out = tmp_path / "run"
    with open(tmp_path / "stdout", "wb") as so, open(tmp_path / "stderr", "wb") as se:
        options = RunOptions(
            [sys.executable, str(CHILD), str(state), mode],
            out,
            interval_s=0.05,
            analysis=analysis,
            fmt="json",
            nvml_module=FakeNvml(state) if nvml is None else nvml,
            stdout_fd=so.fileno(),
            stderr_fd=se.fileno(),
            report_fd=so.fileno(),  # as on a terminal
        )
        result = run_launch(options)
    return result, (tmp_path / "stdout").read_bytes(), (tmp_path / "stderr").read_bytes()


def _document(result: RunResult) -> dict:
    return analyze_sources(expand_inputs([str(result.log)]))


def test_run_measures_outside_the_allocator_at_every_phase(tmp_path: Path) -> None:
    result, stdout, stderr = _run(tmp_path, "ready")
    assert result.exit_code == 0 and result.measured
    assert [phase for _, phase in result.phases][-1] == "server_ready"
    samples = read_samples(result.samples)
    assert samples.header.gpus[0].card_total_gib == 139.80  # (143771 - 616) / 1024
    phase_lines = {s.line for s in samples.samples if s.trigger == "phase"}
    assert phase_lines == {line for line, _ in result.phases}
    log_lines = result.log.read_text().splitlines()
    # every phase line was sampled; so were some of the child's "stderr after Load weight begin..." lines, which
    # hold a phase literal but are no phase: they join no reading
    assert sum(log_lines[line - 1].startswith("[2026-10-20") for line in phase_lines) == 11
    assert {s.trigger for s in samples.samples} >= {"start", "phase", "end"}
    # the log holds both streams, each line whole
    assert sum(line.startswith("stderr after") for line in log_lines) == 10

    rank = _document(result)["launches"][0]["ranks"][0]
    device = {p["phase"]: p["device"] for p in rank["phases"] if "device" in p}
    # the scheduler (a grandchild of the run) holds 600 MiB before the weights: context + NCCL, all outside
    assert device["load_weight_begin"]["process_gib"] == pytest.approx(600 / 1024, abs=1e-3)
    assert device["load_weight_begin"]["outside_allocator_gib"] == 0.59
    assert device["load_weight_end"]["sglang_stated_gib"] == 10.0
    assert device["memory_pool_end"]["sglang_stated_gib"] == 30.0
    assert device["capture_end"]["sglang_stated_gib"] == 31.0
    assert {d["outside_allocator_gib"] for d in device.values() if d["process_gib"]} == {0.59}
    ledger = {i["item"]: i for i in rank["ledger"]}
    assert ledger["outside_allocator"]["gib"] == 0.59 and ledger["outside_allocator"]["kind"] == "measured (NVML)"
    assert "cuda_context" not in ledger and "comm_eager" not in ledger
    assert ledger["other_processes"]["gib"] == 0.98  # the fake's other process, 1000 MiB
    assert rank["card_total_gib"] == 139.80 and rank["card_total_source"].startswith("NVML")
    assert sum(i["gib"] for i in rank["ledger"]) == pytest.approx(139.80, abs=0.02)
    assert rank["device"]["gpu"] == 0


def test_samples_file_given_alone_brings_its_log(tmp_path: Path) -> None:
    result, _, _ = _run(tmp_path, "ready")
    document = analyze_sources(expand_inputs([str(result.samples)]))
    assert [i["kind"] for i in document["inputs"]] == ["log", "samples"]
    assert "device" in document["launches"][0]["ranks"][0]["phases"][3]


def test_pass_through_is_byte_exact_with_junk_and_long_lines(tmp_path: Path) -> None:
    result, stdout, _ = _run(tmp_path, "junk")
    assert result.exit_code == 0
    assert b"binary \x00\xff\xfe\x1b[31m junk \r\n" in stdout
    assert b"x" * (3 << 20) + b" a 3 MiB line\n" in stdout
    assert stdout.endswith(b"no newline at the end")
    log = result.log.read_bytes()
    assert b"x" * (3 << 20) + b" a 3 MiB line\n" in log and log.endswith(b"no newline at the end\n")


def test_failing_launch_keeps_its_exit_code_and_is_analysed(tmp_path: Path) -> None:
    result, stdout, stderr = _run(tmp_path, "fail", analysis=True)
    assert result.exit_code == 3
    assert b"the launch ended with exit code 3" in stdout  # the analysis's heading, where the analysis goes
    document = json.loads(stdout[stdout.index(b'{\n  "schema"') :])
    assert document["launches"][0]["ranks"][0]["phases"][-1]["phase"] == "scheduler_summary"
    assert any(f["severity"] == "error" for f in document["findings"])


def test_report_file_takes_the_analysis_off_the_terminal(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    state = tmp_path / "state.jsonl"
    with open(tmp_path / "stdout", "wb") as so, open(tmp_path / "stderr", "wb") as se:
        options = RunOptions(
            [sys.executable, str(CHILD), str(state), "fail"],
            tmp_path / "run",
            interval_s=0.05,
            fmt="json",
            nvml_module=FakeNvml(state),
            stdout_fd=so.fileno(),
            stderr_fd=se.fileno(),
            report_fd=so.fileno(),
            report_path=report,
        )
        result = run_launch(options)
    stdout = (tmp_path / "stdout").read_bytes()
    assert result.exit_code == 3
    assert f"the launch ended with exit code 3; analysis of {result.log}; written to {report}".encode() in stdout
    assert b'"schema"' not in stdout
    document = json.loads(report.read_bytes())
    assert document["launches"][0]["ranks"][0]["phases"][-1]["phase"] == "scheduler_summary"


def test_report_file_that_cannot_be_written_is_one_line_error(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "logscope", "run", "--report", str(tmp_path / "no" / "r.txt"), "--", "true"],
        capture_output=True,
        cwd=Path(__file__).parent.parent,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1 and "--report" in proc.stderr.decode()
    assert not (tmp_path / "no").exists()


def test_sigint_is_forwarded_to_the_launch_group(tmp_path: Path) -> None:
    log = tmp_path / "run" / "launch.log"

    def interrupt() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if log.exists() and b"waiting for a signal" in log.read_bytes():
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.02)

    thread = threading.Thread(target=interrupt)
    thread.start()
    started = time.monotonic()
    result, _, _ = _run(tmp_path, "wait")
    thread.join()
    assert result.interrupted
    assert time.monotonic() - started < 20  # the child's 60 s sleep was cut
    # the root waits on the scheduler: both got SIGINT; the root died of it (Python's KeyboardInterrupt exit)
    assert result.exit_code == 128 + signal.SIGINT
    # the KeyboardInterrupt tracebacks that follow are the launch stopping as asked: no crash, no error finding
    assert b"KeyboardInterrupt" in result.log.read_bytes()
    assert read_samples(result.samples).user_stop() is not None
    document = _document(result)
    assert [f["rule"] for f in document["findings"] if f["severity"] == "error"] == []
    stop = document["launches"][0]["stopped_by_user"]
    assert stop["signal"] == "SIGINT" and stop["failures_after"] >= 1
    assert stop["line"] == result.log.read_bytes().split(b"\n").index(b"waiting for a signal") + 1
    from logscope.report.view import build_view

    assert "launch 1 stopped by the user (SIGINT forwarded by logscope run" in build_view(document).verdict


def test_without_nvml_it_still_wraps_and_says_so_once(tmp_path: Path) -> None:
    result, stdout, stderr = _run(tmp_path, "ready", nvml=BrokenNvml())
    assert result.exit_code == 0 and not result.measured
    assert stderr.count(b"nothing measured") == 1
    assert b"; the log is saved\n" in stderr  # --no-analysis: nothing is analysed, and it says so
    assert b"NVML failed: NVML Shared Library Not Found" in stderr
    samples = read_samples(result.samples)
    assert not samples.header.nvml and samples.samples == ()
    rank = _document(result)["launches"][0]["ranks"][0]
    assert all("device" not in p for p in rank["phases"])
    assert b"The server is fired up" in stdout


def test_command_that_cannot_start_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(LogscopeError, match="no-such-launcher: cannot start the command"):
        run_launch(RunOptions(["no-such-launcher"], tmp_path / "run", nvml_module=BrokenNvml()))
    assert not (tmp_path / "run").exists()  # no empty output folder left behind


IGNORES_SIGNALS = (
    "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('waiting for a signal', flush=True); time.sleep(60)"
)


def test_repeated_ctrl_c_escalates_to_sigterm_then_sigkill(tmp_path: Path) -> None:
    out = tmp_path / "run"

    def press_three_times() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (
            (out / "launch.log").exists() and b"waiting" in (out / "launch.log").read_bytes()
        ):
            time.sleep(0.02)
        for _ in range(3):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)

    thread = threading.Thread(target=press_three_times)
    thread.start()
    with open(tmp_path / "stderr", "wb") as se, open(tmp_path / "stdout", "wb") as so:
        options = RunOptions([sys.executable, "-c", IGNORES_SIGNALS], out, analysis=False, nvml_module=BrokenNvml())
        options.stdout_fd, options.stderr_fd = so.fileno(), se.fileno()
        started = time.monotonic()
        result = run_launch(options)
    thread.join()
    assert time.monotonic() - started < 20
    assert result.exit_code == 128 + signal.SIGKILL
    said = (tmp_path / "stderr").read_bytes()
    assert b"Ctrl-C x2: SIGTERM sent to the launch; Ctrl-C again sends SIGKILL" in said
    assert b"Ctrl-C x3: SIGKILL sent to the launch" in said


def test_the_analysis_goes_to_stderr_when_stdout_is_piped(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "logscope",
            "run",
            "--out",
            str(tmp_path / "run"),
            "--format",
            "json",
            "--",
            sys.executable,
            str(CHILD),
            str(tmp_path / "state.jsonl"),
            "fail",
        ],
        capture_output=True,
        cwd=Path(__file__).parent.parent,
        timeout=120,
    )
    assert proc.returncode == 3
    assert b'"schema"' not in proc.stdout and b"the launch ended with exit code" not in proc.stdout
    assert proc.stdout.endswith(
        b"max_total_num_tokens=400000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
        b"max_running_requests=4096, context_len=40960, available_gpu_mem=107.24 GB\n"
    )
    assert b"the launch ended with exit code 3" in proc.stderr and b'"schema": "logscope/1"' in proc.stderr
    assert b"the log is saved and analysed" in proc.stderr


def test_malformed_samples_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "launch.samples.jsonl"
    path.write_text('{"schema": "logscope-samples/1", "log": "launch.log", "started": "x", "nvml": true}\n{"t": 1}\n{"t": 2}\n')
    with pytest.raises(InputError, match=r"launch.samples.jsonl:2: malformed sample"):
        read_samples(path)
    path.write_text('{"schema": "logscope-samples/9"}\n')
    with pytest.raises(InputError, match="samples schema logscope-samples/9"):
        read_samples(path)


def test_descendants_walks_the_tree(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    for pid, parent, name in ((1, 0, "init"), (10, 1, "python (a) b"), (11, 10, "sched"), (12, 11, "x"), (20, 1, "other")):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / "stat").write_text(f"{pid} ({name}) S {parent} 1 1 0")
    assert descendants(10, proc) == {10, 11, 12}


def _gpu_check() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_run_check", Path(__file__).parent.parent / "bench" / "gpu_run_check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpu_check_comparison_on_a_fake_nvml_run(tmp_path: Path) -> None:
    """bench/gpu_run_check.py's comparison over a real `run` under the fake NVML: the child holds 600 MiB outside
    the allocator (context 500 + communicator 100); a program that knew 600 MiB passes, one that knew 700 fails."""
    check = _gpu_check()
    result, _, _ = _run(tmp_path, "ready")
    document = _document(result)

    def known(outside_mib: float) -> dict:
        phases = ("load_weight_begin", "load_weight_end", "memory_pool_end", "server_ready")
        return {"phases": {p: {"torch_reserved_gib": 0.0, "outside_mib": outside_mib} for p in phases}}

    rows, ok = check.compare(document, known(600.0))  # type: ignore[attr-defined]
    assert ok and [r["phase"] for r in rows] == ["load_weight_begin", "load_weight_end", "memory_pool_end"]  # ready: no rank tag
    assert all(r["measured_gib"] == 0.59 for r in rows) and rows[0]["error"] < 0.01
    rows, ok = check.compare(document, known(700.0))  # type: ignore[attr-defined]
    assert not ok and rows[0]["error"] == pytest.approx(1 - 0.59 / (700 / 1024), abs=1e-6)


def test_gpu_check_prints_the_0523_wordings() -> None:
    check = _gpu_check()
    line = check.fill(check.wordings()["Load weight end"], {"avail mem=": "120.00", "mem usage=": "8.00"})  # type: ignore[attr-defined]
    assert line == "Load weight end. elapsed=37.00 s, type=Qwen3ForCausalLM, avail mem=120.00 GB, mem usage=8.00 GB."

"""`logscope probe` on the CPU: the stage arithmetic and calibration file rebuilt from the readings recorded on
the H200 (fixtures/calibration), the refusals, the child processes' environment, the watchdog, and how
`analyze --calibration` uses a calibration. The GPU run itself is by hand (docs/probe.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
import yaml

from logscope.core.errors import InputError
from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import expand_inputs
from logscope.pipeline.sizing.calibration import load_calibration, parse_calibration
from logscope.probe.launcher import build_calibration, child_command, preflight
from logscope.probe.stages import NVLS_OFF, STAGES
from tests.helpers import ROOT, run

CALIBRATION = ROOT / "fixtures" / "calibration" / "h200-ws1.yaml"
DUMPS = [str(ROOT / "fixtures" / "calibration" / name) for name in ("h200-ws1-smi-q.txt", "h200-ws1-torch-oom.txt")]


def _recorded() -> dict:
    return yaml.safe_load(CALIBRATION.read_text(encoding="utf-8"))


def test_the_committed_calibration_is_what_its_readings_give():
    document = _recorded()
    records = {int(name[4:]): lines for name, lines in document["readings"].items()}
    rebuilt = build_calibration(
        records,
        {"command": document["command"], "driver": document["hardware"]["driver"], "measured_at": document["measured_at"]},
    )
    assert rebuilt["mechanisms"] == document["mechanisms"]
    sizes = {m["stage"]: (m["mib"], m["outside_allocator_mib"]) for m in document["mechanisms"]}
    # NVML's device use before and after the context; torch's free memory around every later stage
    assert sizes["cuda_context"] == (523.56, 523.56)
    assert sizes["nccl_eager_init"] == (650.0, 650.0)
    assert sizes["nccl_first_collective"] == (2.0, 0.0)  # the 2 MiB are the allocator's (the tensor)
    assert sizes["nccl_split"] == (388.0, 388.0)
    assert sizes["custom_ar_ipc_buffers"] == (26.0, 26.0)  # 3 x 8 MiB + 8448 B, each rounded up to 2 MiB pages
    assert {s["stage"] for s in document["skipped"]} == {"p2p_transport", "deepep_buffer"}
    assert document["environment"] == NVLS_OFF


def test_stage_deltas_from_recorded_readings():
    def reading(stage, free_mib, reserved_mib):
        return {
            "stage": stage,
            "free_bytes": free_mib << 20,
            "total_bytes": 1000 << 20,
            "allocated_bytes": 0,
            "reserved_bytes": reserved_mib << 20,
            "nvml_used_mib": 1000 - free_mib + 10,
        }

    ranks = {
        r: [
            {"stage": "before_context", "pid": 10 + r, "nvml_used_mib": 10.0},
            reading("cuda_context", 500, 0),
            reading("nccl_eager_init", 400 - r * 10, 0),
            reading("nccl_first_collective", 390 - r * 10, 6),
        ]
        for r in range(2)
    }
    document = build_calibration(ranks, {})
    by_stage = {m["stage"]: m for m in document["mechanisms"]}
    assert by_stage["cuda_context"]["mib"] == 500.0  # 510 - 10 MiB used on the device, from NVML
    assert by_stage["nccl_eager_init"]["per_rank_mib"] == [100.0, 110.0]
    assert by_stage["nccl_eager_init"]["mib"] == 110.0  # the largest rank
    assert (by_stage["nccl_first_collective"]["mib"], by_stage["nccl_first_collective"]["outside_allocator_mib"]) == (10.0, 4.0)
    assert by_stage["nccl_eager_init"]["group_size"] == 2
    assert [p["pid"] for p in document["processes"]] == [10, 11]


def test_a_stage_that_failed_or_timed_out_is_listed_not_measured():
    lines = [
        {"stage": "before_context", "pid": 1, "nvml_used_mib": 0.0},
        {
            "stage": "cuda_context",
            "free_bytes": 900 << 20,
            "total_bytes": 1000 << 20,
            "allocated_bytes": 0,
            "reserved_bytes": 0,
            "nvml_used_mib": 100.0,
        },
        {"stage": "nccl_eager_init", "error": "timed out after 5 s"},
    ]
    document = build_calibration({0: lines}, {})
    assert [m["stage"] for m in document["mechanisms"]] == ["cuda_context"]
    assert document["skipped"] == [{"stage": "nccl_eager_init", "reason": "rank 0: timed out after 5 s"}]


class _FakeNvml:
    def __init__(self, gpus):
        self.gpus = gpus

    def nvmlInit(self):
        pass

    def nvmlDeviceGetCount(self):
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index):
        return self.gpus[index]

    def nvmlDeviceGetComputeRunningProcesses(self, handle):
        return [SimpleNamespace(pid=pid) for pid in handle["pids"]]

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle):
        return []

    def nvmlDeviceGetMemoryInfo(self, handle):
        return SimpleNamespace(used=handle["used_mib"] << 20)


def test_the_probe_refuses_busy_gpus_and_missing_ones():
    idle = {"pids": [], "used_mib": 618}
    assert preflight(_FakeNvml([idle, idle]), 2) == []
    assert preflight(_FakeNvml([idle]), 2) == ["--world-size 2 needs 2 GPUs; 1 visible"]
    busy = preflight(_FakeNvml([idle, {"pids": [4242], "used_mib": 20000}]), 2)
    assert busy == ["GPU 1 is in use by process 4242"]
    hidden = preflight(_FakeNvml([{"pids": [], "used_mib": 9000}]), 1)
    assert hidden == ["GPU 0 has 9000 MiB in use by a process NVML does not show"]


def test_children_run_with_nvlink_multicast_off(tmp_path):
    argv, env = child_command(1, 4, 29500, tmp_path / "r1.jsonl", 60.0, ["tp", "ep"], 64, None, tmp_path / "hold")
    assert argv[1:3] == ["-m", "logscope.probe.worker"]
    assert argv[argv.index("--rank") + 1] == "1" and argv[argv.index("--groups") + 1] == "tp,ep"
    for key, value in NVLS_OFF.items():
        assert env[key] == value
    assert env["LOGSCOPE_PROBE_HOLD"] == str(tmp_path / "hold")


def test_the_watchdog_ends_a_stage_that_hangs(tmp_path):
    out = tmp_path / "rank0.jsonl"
    code = (
        "import time, pathlib\n"
        "from logscope.probe.worker import _Results, _Watchdog\n"
        f"w = _Watchdog(_Results(pathlib.Path({str(out)!r})), 1.0)\n"
        "w.begin('nccl_eager_init')\n"
        "time.sleep(30)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=20)
    assert done.returncode == 3
    assert json.loads(out.read_text().splitlines()[-1]) == {"stage": "nccl_eager_init", "error": "timed out after 1 s"}


def test_every_stage_names_a_mechanism_and_a_timing():
    assert len({s.id for s in STAGES}) == len(STAGES)
    assert all(s.timing in ("eager", "lazy") and s.mechanism and s.what for s in STAGES)


def test_analyze_with_the_calibration_reconciles_the_probes_own_dumps():
    report = analyze_sources(expand_inputs(DUMPS), calibration=load_calibration(CALIBRATION))
    (gpu,) = report["gpus"]
    assert gpu["outside_allocator_mib"] == 1645.12  # 1.63 GiB in use - 4.00 MiB allocated - 20.00 MiB reserved
    items = {i["item"]: i["mib"] for i in gpu["outside_allocator_ledger"]}
    assert items["cuda_context"] == 523.56 and items["nccl_eager_init"] == 650.0 and items["nccl_split"] == 388.0
    assert abs(items["unexplained"]) <= 64  # the bar; the OOM text rounds to 0.01 GiB (5 MiB)
    assert items["unexplained"] == -10.44
    assert report["calibration"]["gpu"] == "NVIDIA H200" and report["calibration"]["world_size"] == 1


def test_another_process_is_not_explained_by_the_probe():
    # the corpus H200 dump is of another process (PID 416): the calibration says nothing about it
    report = analyze_sources(
        expand_inputs(["fixtures/h200/smi-busy-q.txt", "fixtures/h200/torch-oom-message.txt"]),
        calibration=load_calibration(CALIBRATION),
    )
    assert "outside_allocator_ledger" not in report["gpus"][0]


def test_cells_and_context_measured_where_the_calibration_covers_them():
    sources = expand_inputs(["fixtures/synthetic/full-startup-tp2-with-smi.log"])
    plain = analyze_sources(sources)["launches"][0]["ranks"][0]
    calibrated = analyze_sources(
        expand_inputs(["fixtures/synthetic/full-startup-tp2-with-smi.log"]), calibration=load_calibration(CALIBRATION)
    )["launches"][0]["ranks"][0]
    context = next(i for i in calibrated["ledger"] if i["item"] == "cuda_context")
    assert (context["gib"], context["kind"]) == (round(523.56 / 1024, 2), "measured (probe)")
    cells = {c["mechanism"]: c for c in calibrated["cells"]}
    # no version in the log: the newest release's custom all-reduce v2, which the probe (v1 IPC buffers) does not measure
    assert cells["custom_ar_v2"]["kind"] == "estimated" and "custom_ar" not in cells
    # TP=2: the world-size-1 calibration has no group of 2, so the NCCL cells keep their estimate and say why
    assert cells["pynccl"]["kind"] == "estimated" and "has no" in cells["pynccl"]["basis"]
    assert cells["pynccl"]["gib"] == next(c for c in plain["cells"] if c["mechanism"] == "pynccl")["gib"]
    unexplained = {
        r: next(i["gib"] for i in r_["ledger"] if i["item"] == "unexplained")
        for r, r_ in (("plain", plain), ("calibrated", calibrated))
    }
    assert unexplained["calibrated"] != unexplained["plain"]


def test_a_group_size_the_calibration_has_is_used():
    document = _recorded()
    for entry in document["mechanisms"]:
        if entry["group"] != "rank" and entry["group"] != "device":
            entry["group_size"] = 2
    # the recorded run was in NCCL's default environment (cuMem on): SGLang sets NCCL_CUMEM_ENABLE=0, so no row fits
    report = analyze_sources(
        expand_inputs(["fixtures/synthetic/full-startup-tp2-with-smi.log"]), calibration=parse_calibration(document, "ws2.yaml")
    )
    cells = {c["mechanism"]: c for c in report["launches"][0]["ranks"][0]["cells"]}
    assert cells["pynccl"]["kind"] == "estimated" and "under NCCL_CUMEM_ENABLE=0" in cells["pynccl"]["basis"]
    document["environment"]["NCCL_CUMEM_ENABLE"] = "0"
    report = analyze_sources(
        expand_inputs(["fixtures/synthetic/full-startup-tp2-with-smi.log"]), calibration=parse_calibration(document, "ws2.yaml")
    )
    cells = {c["mechanism"]: c for c in report["launches"][0]["ranks"][0]["cells"]}
    assert cells["pynccl"]["kind"] == "measured (probe)" and cells["pynccl"]["gib"] == round(650 / 1024, 3)
    assert cells["torch_nccl"]["gib"] == round(388 / 1024, 3)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("just: text\n", "expected a mapping with logscope_calibration: 1"),
        ("logscope_calibration: 1\nworld_size: 0\n", "world_size must be a positive integer"),
        ("logscope_calibration: 1\nworld_size: 1\nmechanisms: [{mechanism: x}]\n", "mechanisms[0]"),
        ("logscope_calibration: 1\nworld_size: 1\nsurprise: 1\n", "unknown keys ['surprise']"),
        ("logscope_calibration: [\n", "invalid YAML"),
    ],
)
def test_a_bad_calibration_file_is_one_line_naming_it(tmp_path, text, needle):
    path = tmp_path / "calib.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        load_calibration(path)
    done = run("analyze", "--calibration", str(path), "fixtures/synthetic/full-startup-tp2-with-smi.log")
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err


# stand-ins put first on the import path, so the answer does not depend on what this machine has installed
_MISSING = "raise ImportError('not installed here')\n"
_NVML = "class NVMLError(Exception):\n    pass\n"
_NO_CUDA = "class cuda:\n    @staticmethod\n    def is_available():\n        return False\n"


@pytest.mark.parametrize(
    ("pynvml", "torch", "message"),
    [
        (_MISSING, _MISSING, "needs nvidia-ml-py to check that the GPUs are free: from a logscope clone, pip install '.[probe]'"),
        (_NVML, _MISSING, "needs PyTorch with CUDA: from a logscope clone, pip install '.[probe]'"),
        (_NVML, _NO_CUDA, "PyTorch sees no CUDA GPU"),
    ],
)
def test_probe_without_nvml_torch_or_a_gpu_is_one_line(tmp_path, pynvml, torch, message):
    (tmp_path / "pynvml.py").write_text(pynvml)
    (tmp_path / "torch.py").write_text(torch)
    out = tmp_path / "never-written.yaml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "logscope", "probe", "--world-size", "1", "--out", str(out)],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == f"logscope: error: {message}\n"
    assert not out.exists()


def test_children_run_under_sglangs_nccl_environment_unless_told_otherwise(tmp_path, monkeypatch):
    from logscope.probe.stages import NCCL_ENVIRONMENTS

    monkeypatch.setenv("NCCL_BUFFSIZE", "2097152")  # inherited: dropped, a row must mean what it says
    monkeypatch.setenv("NCCL_CUMEM_ENABLE", "1")
    _, env = child_command(0, 1, 29500, tmp_path / "r0.jsonl", 60.0, ["tp"], 64, None, None)
    assert env["NCCL_CUMEM_ENABLE"] == "0" and "NCCL_BUFFSIZE" not in env
    _, env = child_command(
        0, 1, 29500, tmp_path / "r0.jsonl", 60.0, ["tp"], 64, None, None, NCCL_ENVIRONMENTS["sglang-buffsize-1mib"]
    )
    assert (env["NCCL_CUMEM_ENABLE"], env["NCCL_BUFFSIZE"]) == ("0", "1048576")


def test_an_env_matrix_calibration_keys_its_rows_by_environment():
    from logscope.probe.launcher import merge_calibrations
    from logscope.probe.stages import NCCL_ENVIRONMENTS

    document = _recorded()
    records = {int(name[4:]): lines for name, lines in document["readings"].items()}
    runs = {}
    for name, scale in (("sglang", 1.0), ("nccl-default", 0.5), ("sglang-buffsize-1mib", 0.25)):
        run = build_calibration(records, {"environment": NCCL_ENVIRONMENTS[name]})
        for m in run["mechanisms"]:  # stand-in readings: each environment its own size
            m["outside_allocator_mib"] = round(m["outside_allocator_mib"] * scale, 2)
        assert run["environment"] == {**NVLS_OFF, **NCCL_ENVIRONMENTS[name]}
        runs[name] = run
    merged = parse_calibration(merge_calibrations(runs), "matrix.yaml")
    assert merged.lookup("nccl_communicator", 1, ("0", None)).outside_allocator_mib == 650.0
    assert merged.lookup("nccl_communicator", 1, ("1", None)).outside_allocator_mib == 325.0
    assert merged.lookup("nccl_communicator", 1, ("0", "1048576")).outside_allocator_mib == 162.5
    assert len(merged.environments()) == 3

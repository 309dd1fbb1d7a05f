"""nvidia-smi dumps (table, -q, CSV) and their join with an OOM text: the real H200 reconciliation."""

from __future__ import annotations

from tests.helpers import analyze_paths


def test_h200_card_total_and_memory_outside_the_allocator():
    report = analyze_paths("fixtures/h200/smi-busy-q.txt", "fixtures/h200/torch-oom-message.txt")
    (gpu,) = report["gpus"]
    assert gpu["memory_total_mib"] == 143771 and gpu["driver_reserved_mib"] == 616
    assert gpu["card_total_gib"] == 139.80  # (143771 - 616) MiB, the OOM's "total capacity"
    # process use 22.23 GiB - allocated 20.19 GiB - reserved-unallocated 18 MiB; the probe's stages sum to 2077
    assert abs(gpu["outside_allocator_mib"] - 2077) <= 64
    assert gpu["processes"] == [{"pid": 416, "type": "C", "name": "python3", "used_mib": 22764}]
    assert report["launches"][0]["versions"]["driver"] == "580.159.04"


def test_the_three_formats_agree():
    q = analyze_paths("fixtures/h200/smi-busy-q.txt")["gpus"][0]
    table = analyze_paths("fixtures/h200/smi-busy-table.txt")["gpus"][0]
    csv = analyze_paths("fixtures/h200/smi-busy-gpu.csv", "fixtures/h200/smi-busy-apps.csv")["gpus"][0]
    for gpu in (q, table, csv):
        assert gpu["memory_total_mib"] == 143771 and gpu["memory_used_mib"] == 22773
        assert [p["pid"] for p in gpu["processes"]] == [416]
    assert table["temperature_c"] == 42 and table["power_w"] == 124 and table["power_cap_w"] == 700
    assert "card_total_gib" not in table  # the table shows Total only
    assert csv["card_total_gib"] == 139.80


def test_wide_table_with_two_gpus():
    gpus = analyze_paths("fixtures/real/n-001-sglang-3196.txt")["gpus"]
    assert [(g["index"], g["bus_id"], g["memory_used_mib"], g["memory_total_mib"]) for g in gpus] == [
        (0, "00000000:03:00.0", 124585, 143771),
        (1, "00000000:23:00.0", 124729, 143771),
    ]


def test_logs_with_nvidia_smi_and_topology_show_the_join_in_every_format(tmp_path):
    import json
    import subprocess
    import sys

    from tests.helpers import ROOT

    log = tmp_path / "run.log"
    log.write_text(
        "[2025-06-12 22:41:35 TP0] Custom allreduce is disabled because it's not supported on more than two "
        "PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.\n"
        "[2025-06-12 22:41:35 TP1] Load weight begin. avail mem=120.00 GB\n"
        "[2025-06-12 22:41:35 TP0] Load weight begin. avail mem=122.00 GB\n"
    )
    args = [str(log), "fixtures/real/n-001-sglang-3196.txt", "fixtures/real/n-016-vllm-16543.txt"]
    run = [sys.executable, "-m", "logscope", "analyze", *args]
    report = json.loads(subprocess.run([*run, "-f", "json"], capture_output=True, cwd=ROOT, check=False).stdout)
    assert [g["ranks"] for g in report["gpus"]] == [["TP0"], ["TP1"]]
    assert report["launches"][0]["tp_groups"] == [{"ranks": ["TP0", "TP1"], "gpus": [0, 1], "links": {"NODE": 1}, "path": "pcie"}]
    text = subprocess.run([*run, "--width", "200"], capture_output=True, cwd=ROOT, check=False).stdout.decode()
    assert "TP group: TP0, TP1 on GPUs 0, 1 (assumed): pcie (NODE x1)" in text and "124585" in text
    markdown = subprocess.run([*run, "-f", "markdown"], capture_output=True, cwd=ROOT, check=False).stdout.decode()
    assert "**TP group** TP0, TP1 on GPUs 0, 1" in markdown and "| 0 | NVIDIA H200 | 143771 |" in markdown


def test_smi_q_per_gpu_fields_people_quote():
    (gpu,) = analyze_paths("fixtures/h200/smi-busy-q.txt")["gpus"]
    assert (gpu["dump_timestamp"], gpu["attached_gpus"], gpu["perf_state"], gpu["architecture"]) == (
        "Wed Dec  2 14:13:34 2026",
        1,
        "P0",
        "Hopper",
    )
    assert (gpu["power_w"], gpu["power_cap_w"], gpu["temperature_c"], gpu["memory_temperature_c"]) == (124.12, 700.0, 42, 39)
    assert (gpu["clock_sm_mhz"], gpu["clock_memory_mhz"], gpu["max_clock_graphics_mhz"]) == (1980, 3201, 1980)
    assert gpu["ecc_mode"] == "Enabled" and gpu["ecc_errors"]["volatile"]["DRAM Uncorrectable"] == 0
    assert gpu["remapped_rows"]["Uncorrectable Error"] == 0 and gpu["remapped_rows"]["Pending"] == "No"
    assert gpu["retired_pages"]["Double Bit ECC"] == "N/A"
    assert gpu["throttle_reasons_active"] == []


def test_older_smi_q_power_readings_and_active_throttle_reasons():
    from tests.helpers import analyze_text

    text = (
        "==============NVSMI LOG==============\n\nTimestamp : Mon Jan  6 10:00:00 2025\n"
        "Driver Version : 535.104.05\nCUDA Version : 12.2\n\nAttached GPUs : 1\nGPU 00000000:07:00.0\n"
        "    Product Name : NVIDIA A100-SXM4-80GB\n    Performance State : P0\n"
        "    Clocks Throttle Reasons\n        Idle : Not Active\n        SW Power Cap : Active\n"
        "        HW Slowdown : Not Active\n"
        "    FB Memory Usage\n        Total : 81920 MiB\n        Reserved : 573 MiB\n        Used : 70000 MiB\n"
        "        Free : 11346 MiB\n"
        "    Power Readings\n        Power Draw : 312.45 W\n        Power Limit : 400.00 W\n"
    )
    (gpu,) = analyze_text(text, "smi.txt")["gpus"]
    assert (gpu["power_w"], gpu["power_cap_w"], gpu["throttle_reasons_active"]) == (312.45, 400.0, ["SW Power Cap"])
    assert gpu["card_total_gib"] == round((81920 - 573) / 1024, 2)


def test_topology_nics_affinity_typed_and_a_damaged_row_read_up_to_the_damage():
    from tests.helpers import analyze_text

    text = (
        "        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
        "GPU0     X      NV18    PIX     0-47    0               N/A\n"
        "GPU1    NV18     XSYS   0-47    1    N/A\n"  # two cells run together by the paste
        "NIC0    PIX     SYS      X\n\nNIC Legend:\n\n  NIC0: mlx5_0\n"
    )
    topology = analyze_text(text, "topo.txt")["topology"]
    assert topology["links"] == [[0, 1, "NV18"]]
    assert topology["nics"] == [{"gpu": 0, "nic": "NIC0", "link": "PIX", "device": "mlx5_0"}]
    assert topology["affinity"] == {"GPU0": {"cpu": "0-47", "numa": 0, "gpu_numa_id": None}}


def test_corpus_topology_with_ten_nics():
    topology = analyze_paths("fixtures/real/n-004-DeepEP-128.txt")["topology"]
    assert {n["link"] for n in topology["nics"] if n["gpu"] == 4} == {"PIX", "SYS"}
    assert next(n for n in topology["nics"] if n["gpu"] == 4 and n["link"] == "PIX")["nic"] == "NIC4"
    assert topology["affinity"]["GPU4"] == {"cpu": "56-111,168-223", "numa": 1, "gpu_numa_id": None}


def test_mig_rows_keep_sm_count_ecc_and_bar1():
    gpus = analyze_paths("fixtures/real/n-010-nvitop-8.txt")["gpus"]
    first = gpus[0]["mig"][0]
    assert (first["gi"], first["memory_used_mib"], first["sm"], first["ecc_uncorrected"]) == (3, 14366, 28, 0)
    assert (first["bar1_used_mib"], first["bar1_total_mib"]) == (4, 32767)
    assert "bar1_used_mib" not in gpus[1]["mig"][0]  # the paste is cut before GPU 2's BAR1 line


def test_collect_env_versions_from_pip_lines_and_headers():
    from tests.helpers import analyze_text

    text = (
        "PyTorch version: 2.6.0+cu124\nCUDA used to build PyTorch: 12.4\nNvidia driver version: 550.54.15\n"
        "[pip3] sgl-kernel==0.1.0\n[pip3] flashinfer-python==0.2.5\n[conda] No relevant packages\n"
        "vLLM Version: Could not collect\n"
    )
    report = analyze_text(text, "collect_env.txt")
    assert report["versions"] == {
        "torch": "2.6.0+cu124",
        "driver": "550.54.15",
        "sgl_kernel": "0.1.0",
        "flashinfer": "0.2.5",
        "cuda": "12.4",
    }
    assert report["inputs"][0]["kind"] == "check_env" and report["coverage"]["unrecognized_total"] == 1


def test_gpustat_rows():
    from tests.helpers import analyze_text

    text = (
        "gpu-node-3  Mon Jan  6 10:00:00 2025  550.54.15\n"
        "[0] NVIDIA H100 80GB HBM3 | 35°C,   0 % | 75000 / 81559 MB | alice(74000M)\n"
        "[1] NVIDIA H100 80GB HBM3 | 33°C,  45 %, 100 % | 76210 / 81559 MB | "
        "alice:python/1234(75000M) bob:python3/999(1200M)\n"
    )
    report = analyze_text(text, "gpustat.txt")
    assert report["inputs"][0]["kind"] == "nvidia-smi"
    first, second = report["gpus"]
    assert (first["index"], first["temperature_c"], first["util_pct"], first["memory_used_mib"], first["memory_total_mib"]) == (
        0,
        35,
        0,
        75000,
        81559,
    )
    assert second["util_pct"] == 100
    assert second["processes"] == [
        {"used_mib": 75000, "pid": 1234, "name": "python"},
        {"used_mib": 1200, "pid": 999, "name": "python3"},
    ]

"""The ledger: measured items recomputed from the raw log text, closing on the card total, residual shown."""

from __future__ import annotations

import re

import pytest

from tests.helpers import ROOT, analyze_paths, corpus_inputs

FULL = "fixtures/synthetic/full-startup-tp2-with-smi.log"
_AVAIL = re.compile(r"(?:avail mem|available_gpu_mem)=(\d+\.\d\d) GB")


def _raw_avail(source: str, line: int) -> float:
    text = (ROOT / source).read_text(errors="replace").split("\n")[line - 1]
    return float(_AVAIL.findall(text)[-1])


def _check_measured_items(report: dict) -> int:
    checked = 0
    for launch in report["launches"]:
        for rank in launch["ranks"]:
            if not rank["ledger"]:
                continue
            assert rank["ledger"][-1]["item"] == "unexplained"  # the residual is always shown
            lines = {(p["phase"]): p for p in rank["phases"] if p["model"] == "target" and "avail_gib" in p}
            for item in rank["ledger"]:
                if item["kind"] != "measured" or "between" not in item:
                    continue
                first, second = (lines[item["between"][0]], lines[item["between"][1]])
                if item["between"][1] == "capture_end":
                    second = [p for p in rank["phases"] if p["phase"] == "capture_end" and p["model"] == "target"][-1]
                expected = _raw_avail(first["source"], first["line"]) - _raw_avail(second["source"], second["line"])
                assert abs(item["gib"] - expected) <= 0.01, (rank["rank"], item)
                checked += 1
    return checked


def test_full_startup_ledger_closes_on_the_card_total():
    report = analyze_paths(FULL)
    for rank in report["launches"][0]["ranks"]:
        assert rank["card_total_gib"] == 139.80
        items = {i["item"]: i for i in rank["ledger"]}
        assert abs(sum(i["gib"] for i in rank["ledger"]) - 139.80) <= 0.01 * len(rank["ledger"])
        assert items["weights"]["gib"] == 30.80 and items["kv_pool"]["gib"] == 92.10
        assert items["kv_pool"]["reported_kv_gib"] == 91.56
        assert items["cuda_graphs"]["gib"] == 1.40
        # 139.80 - (137.70 + 1.53) = 0.57 before init: 0.50 context, the rest unexplained with the init remainder
        assert items["cuda_context"]["gib"] == 0.50 and items["cuda_context"]["kind"] == "estimated"
        assert items["comm_eager"]["measured_init_gib"] == 1.53
    assert _check_measured_items(report) == 9  # 5 drops on TP0, 4 on TP1 (only TP0 prints the summary)


@pytest.mark.parametrize("path", corpus_inputs(), ids=lambda p: p.name)
def test_measured_items_match_the_text(path):
    _check_measured_items(analyze_paths(f"fixtures/real/{path.name}"))


# hand-worked from DeepEP's LowLatencyLayout (hidden 7168, 128 tokens): dispatch msg 16 + 14336 = 14352 B,
# combine msg 224 + 14336 = 14560 B; send = recv = E x 128 x 14560; signalling ceil(4E / 128) x 128;
# total 4 x E x 128 x 14560 + 2 x signalling, then (total // 128 + 1) x 128
@pytest.mark.parametrize(
    "check_env, experts, ar_mechanism",
    [
        # version unknown: the newest release (0.5.23) turns shared-expert fusion off under DeepEP
        # (deepseek_v2.py shared_experts_fusion_disable_reason), so the routed count
        ("", 256, "custom_ar_v2"),
        ("sglang: 0.5.9\n", 256, "custom_ar"),  # 0.5.9 passes n_routed_experts; custom all-reduce v1
    ],
)
def test_cells_for_a_deepep_launch(check_env, experts, ar_mechanism):
    text = (
        ("Python: 3.12.3\n" + check_env if check_env else "")
        + "[2025-11-04 05:20:00] server_args=ServerArgs(model_path='/m/DeepSeek-R1', tp_size=8, ep_size=8, "
        "moe_a2a_backend='deepep', deepep_mode='low_latency')\n"
        "[2025-11-04 05:27:13 TP0] Load weight end. type=DeepseekV3ForCausalLM, avail mem=75.11 GB\n"
    )
    from tests.helpers import analyze_text

    cells = analyze_text(text)["launches"][0]["ranks"][0]["cells"]
    low_latency = next(c for c in cells if c["mechanism"] == "deepep_low_latency")
    signalling = -(-4 * experts // 128) * 128
    expected = ((4 * experts * 128 * 14560 + 2 * signalling) // 128 + 1) * 128
    assert low_latency["gib"] == round(expected / 2**30, 3) and low_latency["timing"] == "lazy"
    assert f"x {experts} experts" in low_latency["basis"]
    if not check_env:  # every release read passes 256 by default (fusion off under DeepEP from 0.5.11, no slots before)
        assert "alternative" not in low_latency and "every release it allows gives the same" in low_latency["basis"]
    tp = [c["mechanism"] for c in cells if c["group"] == "tp"]
    assert tp == ["pynccl", "pynccl_channels", "torch_nccl", "torch_nccl_channels", ar_mechanism]


def test_another_process_is_its_own_ledger_item():
    from tests.helpers import analyze_text

    text = (
        "==============NVSMI LOG==============\n"
        "GPU 00000000:00:06.0\n"
        "    Product Name                                       : NVIDIA H200\n"
        "    FB Memory Usage\n"
        "        Total                                          : 143771 MiB\n"
        "        Reserved                                       : 616 MiB\n"
        "    Processes\n"
        "        GPU instance ID                                : N/A\n"
        "        Process ID                                     : 416\n"
        "            Type                                       : C\n"
        "            Name                                       : sglang::scheduler\n"
        "            Used GPU Memory                            : 22764 MiB\n"
        "        Process ID                                     : 999\n"
        "            Type                                       : C\n"
        "            Name                                       : jupyter\n"
        "            Used GPU Memory                            : 20480 MiB\n"
        "[2025-01-01 10:00:00] Init torch distributed ends. mem usage=0.30 GB\n"
        "[2025-01-01 10:00:01] Load weight begin. avail mem=118.50 GB\n"
    )
    rank = analyze_text(text)["launches"][0]["ranks"][0]
    items = {i["item"]: i for i in rank["ledger"]}
    assert items["other_processes"]["gib"] == 20.0 and items["other_processes"]["kind"] == "measured"
    # 139.80 - (118.50 + 0.30) = 21.00 before init: 20.00 jupyter + 0.50 context + 0.50 unexplained (with init rest)
    assert items["cuda_context"]["measured_pre_existing_gib"] == 21.0
    assert abs(sum(i["gib"] for i in rank["ledger"]) - 139.80) <= 0.02


def test_the_other_processes_an_oom_text_lists_are_a_ledger_item():
    """torch prints "this process has" for its own process and "Process N has" for every other one: with both,
    N is another process, a ledger item read from the text (no unexplained residual), and the rank pays."""
    document = analyze_paths(ROOT / "fixtures" / "heldout" / "h29-other-process-owns-card.log")
    rank = document["launches"][0]["ranks"][0]
    items = {i["item"]: i for i in rank["ledger"]}
    assert items["other_processes"]["gib"] == 21.69  # Process 4021 has 21.69 GiB memory in use
    assert items["other_processes"]["basis"].startswith("torch OOM text")
    assert items["free"]["gib"] == 1.83 and abs(items["unexplained"]["gib"]) <= 0.01
    assert abs(sum(i["gib"] for i in rank["ledger"]) - 23.53) <= 0.02  # the OOM text's total capacity
    rules = {f["rule"]: f for f in document["findings"]}
    assert "unexplained-memory" not in rules
    assert "rank(s) paying for it: TP0." in rules["gpu-shared-with-other-process"]["message"]


def test_an_oom_text_without_this_process_counts_no_other_process():
    """Without "this process has" (another PID namespace) torch's list may be the rank itself: not counted."""
    from tests.helpers import analyze_text

    text = (
        "[2026-04-11 17:02:10 TP1] Load weight begin. avail mem=78.00 GB\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 1 has a total capacity of 79.19 GiB"
        " of which 1.06 GiB is free. Process 88120 has 78.12 GiB memory in use. Of the allocated memory 75.40 GiB is"
        " allocated by PyTorch, and 1.30 GiB is reserved by PyTorch but unallocated.\n"
    )
    rank = analyze_text(text)["launches"][0]["ranks"][0]
    assert "other_processes" not in {i["item"] for i in rank["ledger"]}


def test_capture_delta_is_reconciled_with_the_lazy_cells(monkeypatch):
    import logscope.pipeline.sizing.cell_rules
    from tests.helpers import analyze_text

    monkeypatch.setattr(logscope.pipeline.sizing.cell_rules, "shipped_calibration", lambda: None)  # pin the issue 27 table's rows

    text = (
        "[2025-11-04 05:20:00] server_args=ServerArgs(model_path='/m/DeepSeek-R1', tp_size=8, ep_size=8, "
        "moe_a2a_backend='deepep', deepep_mode='low_latency')\n"
        "[2025-11-04 05:27:13 TP0] Load weight end. type=DeepseekV3ForCausalLM, avail mem=75.11 GB\n"
        "[2025-11-04 05:27:20 TP0] Memory pool end. avail mem=9.50 GB\n"
        "[2025-11-04 05:27:21 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=9.40 GB\n"
        "[2025-11-04 05:28:21 TP0] Capture cuda graph end. Time elapsed: 60.00 s. mem usage=3.40 GB. avail mem=6.00 GB.\n"
    )
    ledger = {i["item"]: i for i in analyze_text(text)["launches"][0]["ranks"][0]["ledger"]}
    graphs = ledger["cuda_graphs"]
    assert graphs["gib"] == 3.40 and graphs["kind"] == "measured"
    # DeepEP low-latency 1.777 GiB (128 tokens x 7168 x 256 experts: the wordings give SGLang 0.4.6.post5-0.5.13.post1,
    # whose newest, 0.5.13.post1, keeps shared-expert fusion off under DeepEP) + the TP
    # device group's torch communicator, lazy, 514 MiB = 0.502 GiB (H200 row for NCCL_CUMEM_ENABLE=0)
    assert graphs["lazy_comm_estimate_gib"] == round(1.777 + 0.502, 2)
    assert graphs["graph_pool_estimate_gib"] == round(3.40 - round(1.777 + 0.502, 2), 2)


def test_the_init_lines_mem_usage_is_shown_with_the_ledger():
    # h-001 (a healthy TP 8 log without a card total): TP0's init line says mem usage=1.96 GB, TP7's 1.77; the
    # ledger's comm_eager holds the eager cells' 0.78 of it (the first pynccl communicator, 776 MiB as the H200
    # probe measured it under SGLang's NCCL_CUMEM_ENABLE=0, plus custom all-reduce; the torch TP group is lazy)
    # and unexplained the rest
    import html

    from logscope.cli import Format, render

    report = analyze_paths("fixtures/real/h-001-sglang-11716.log")
    tp0 = {i["item"]: i["gib"] for i in report["launches"][0]["ranks"][0]["ledger"]}
    assert (tp0["comm_eager"], tp0["unexplained"]) == (0.78, 1.18)
    for fmt in (Format.text, Format.markdown, Format.html):
        text = " ".join(html.unescape(render(report, fmt, 200)).split())
        assert "init distributed mem usage (measured, SGLang's init line): TP0 1.96, TP1 2.01" in text.replace(
            "Init distributed", "init distributed"
        ), fmt
        assert "TP7 1.77 GiB" in text, fmt

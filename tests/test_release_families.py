"""The automatic mem_fraction_static of one release per family, from that release's own server_args line
(tests/memory_model_cases/release_families.yaml): the line is written from the release's ServerArgs fields and
defaults (tools/upstream/server_args_forms.py), read by logscope, and the rule runs on what was read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from logscope.memory_model.fraction import auto_fraction, uses_mla
from logscope.memory_model.releases import release_for
from tests.helpers import analyze_text
from tools.upstream.server_args_forms import OUT, render

ROOT = Path(__file__).resolve().parent.parent
CASES = yaml.safe_load((ROOT / "tests" / "memory_model_cases" / "release_families.yaml").read_text(encoding="utf-8"))["cases"]
FORMS: dict[str, Any] = json.loads(OUT.read_text(encoding="utf-8"))


def release_log(version: str, values: dict[str, Any], architecture: str | None = None, exports: dict | None = None) -> str:
    """A launch of `version` as it logs: check_env's version, the exports, the release's server_args line."""
    text = f"Python: 3.12.3\nCUDA available: True\nGPU 0: NVIDIA H200\nsglang: {version}\n"
    text += "".join(f"export {name}={value}\n" for name, value in (exports or {}).items())
    text += f"[2026-11-20 10:00:00] {render(FORMS[version], values)}\n"
    text += "[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=138.39 GB\n"
    if architecture:
        text += f"[2026-11-20 10:00:41 TP0] Load weight end. type={architecture}, avail mem=75.11 GB\n"
    return text


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_rule_from_the_release_line(case):
    assert case.get("derivation")
    launch = analyze_text(release_log(case["version"], case["values"], case.get("architecture"), case.get("environment")))[
        "launches"
    ][0]
    graph = case["values"].get("cuda_graph_config", {}).get("decode", {})
    assert launch["config"]["cuda_graph_max_bs"] == graph.get("max_bs", case["values"].get("cuda_graph_max_bs"))
    found = auto_fraction(
        launch["config"], release_for(case["version"]), case["gpu_mem_mib"], uses_mla(launch["model"]), launch["environment"]
    )
    assert not found.missing, found.missing
    assert found.reserved_mib == case["expect"]["reserved_mib"], found.describe()
    assert found.value == case["expect"]["value"]


def test_each_release_prints_its_form():
    """Up to 0.5.18 the dataclass repr (engine.py `{server_args=}`), from 0.5.19 the resolved dict."""
    assert FORMS["0.5.18"]["form"] == "repr" and FORMS["0.5.19"]["form"] == "dict"
    line = render(FORMS["0.5.23"], {"tp_size": 8, "cuda_graph_config": {"decode": {"backend": "full", "max_bs": 512}}})
    assert "'cuda_graph_config': {'decode': {'backend': 'full', 'max_bs': 512," in line
    line = render(FORMS["0.5.14"], {"cuda_graph_config": {"decode": {"backend": "full", "max_bs": 512}}})
    assert "cuda_graph_config=CudaGraphConfig(decode=PhaseConfig(backend='full', max_bs=512," in line


def test_a_release_without_a_term_says_so():
    """A release whose record lacks a term of its rule: no exception, the missing term named (0.4.6.post5 without
    its fraction-by-parallel-size rule, which it has: tests/memory_model_cases/automatic_fraction.yaml)."""
    from dataclasses import replace

    from logscope.memory_model.record import Sourced

    release = release_for("0.4.6.post5")
    lacking = replace(release.record.mem_fraction, parallel_tiers=Sourced(None, None, "not matched"))
    release = replace(release, record=replace(release.record, mem_fraction=lacking))
    found = auto_fraction({"tp_size": 2, "chunked_prefill_size": 8192, "cuda_graph_max_bs": 256}, release, 143771)
    assert found.value is None and found.no_rule is not None and "SGLang 0.4.6.post5 has no" in found.no_rule


def test_the_oldest_releases_pick_the_fraction_by_parallel_size():
    """Before this rule was read, 0.3.0-0.4.6 had no automatic fraction (no_rule); now each gives its own."""
    config = {"tp_size": 2, "chunked_prefill_size": 8192, "cuda_graph_max_bs": 256}
    found = auto_fraction(config, release_for("0.4.6.post5"), 143771)
    assert found.no_rule is None and found.value == min(0.88 + 49152 * 0.12 / 143771, (143771 - 18432) / 143771)
    assert "sglang/srt/server_args.py:247" in found.describe()
    assert auto_fraction(config, release_for("0.3.2"), None).value == 0.87


# --------------------------------------------------------------- the 0.5.23 DeepSeek-V3 TP 8 DeepEP off / on pair
SMI = "".join(
    f"GPU 00000000:00:0{i}.0\n    Product Name : NVIDIA H200\n    FB Memory Usage\n        Total : 143771 MiB\n"
    f"        Reserved : 616 MiB\n        Used : 0 MiB\n        Free : 143155 MiB\n"
    for i in range(8)
)


def deepseek_run(deepep: bool) -> str:
    """A 0.5.23 DeepSeek-V3 TP 8 launch on H200s with the automatic fraction (16384 / 19456 MiB reserved: the
    release_families cases) and a pool that follows SGLang's profile: budget = 53.20 - 137.70 x (1 - mfs) GiB,
    tokens = int(budget x 2^30) // 70,272 B (MLA: (512 + 64) x 61 layers x 2 B)."""
    mfs, tokens, kv, pool_end = (0.865, 528841, "34.61", "18.59") if deepep else (0.886, 573025, "37.50", "15.70")
    values: dict[str, Any] = {
        "model_path": "deepseek-ai/DeepSeek-V3",
        "tp_size": 8,
        "mem_fraction_static": mfs,
        "chunked_prefill_size": 8192,
        "page_size": 1,
        "cuda_graph_config": {"decode": {"backend": "full", "max_bs": 512}, "prefill": {"backend": "breakable", "max_bs": 2048}},
    }
    if deepep:
        values.update(ep_size=8, moe_a2a_backend="deepep")
    text = "sglang: 0.5.23\n==============NVSMI LOG==============\nDriver Version : 580.159.04\n" + SMI
    text += f"[2026-11-20 10:00:00] {render(FORMS['0.5.23'], values)}\n"
    text += (
        "[2026-11-20 10:00:05 TP0] Memory baseline taken. mem usage=0.00 GB\n"
        "[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=137.70 GB\n"
        "[2026-11-20 10:02:05 TP0] Load weight end. elapsed=120.00 s, type=DeepseekV3ForCausalLM, avail mem=53.20 GB, "
        "mem usage=84.50 GB.\n"
        f"[2026-11-20 10:02:06 TP0] KV Cache is allocated. #tokens: {tokens}, KV size: {kv} GB\n"
        f"[2026-11-20 10:02:06 TP0] Memory pool end. avail mem={pool_end} GB\n"
        f"[2026-11-20 10:02:30 TP0] max_total_num_tokens={tokens}, chunked_prefill_size=8192, max_prefill_tokens=16384, "
        f"max_running_requests=4096, context_len=163840, available_gpu_mem={pool_end} GB\n"
    )
    return text


def test_deepep_pair_diff_says_the_fraction_is_the_rules(tmp_path):
    from typer.testing import CliRunner

    from logscope.cli import app

    off, on = tmp_path / "dsv3-off.log", tmp_path / "dsv3-on.log"
    off.write_text(deepseek_run(False), encoding="utf-8")
    on.write_text(deepseek_run(True), encoding="utf-8")
    result = CliRunner().invoke(app, ["diff", str(off), str(on), "--width", "240"])
    assert "the DeepEP reserve" in result.output, result.output
    # memory_hook.py: reserve_for_deepep_a2a_mb 2048 + reserve_for_graph_mb's breakable DeepEP delta 1024
    assert "2048 MiB more on B" in result.output and "prefill_graphs_deepep +1024 MiB" in result.output
    assert "0.886 -> 0.865, as logged" in result.output and "given by hand" not in result.output


def test_deepep_plan_from_the_off_run_gives_the_rule(tmp_path):
    from typer.testing import CliRunner

    from logscope.cli import app

    off = tmp_path / "dsv3-off.log"
    off.write_text(deepseek_run(False), encoding="utf-8")
    args = ["plan", "--from", str(off), "--moe-a2a-backend", "deepep", "--ep", "8", "--format", "json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (0, 1), result.output
    figure = json.loads(result.output)["plan"]["figures"]["mem_fraction_static"]
    assert figure["value"] == 0.865, figure
    assert "deepep_reserve 2048" in figure["basis"]


def test_plan_on_a_tiered_release_names_what_it_lacks(tmp_path):
    """<= 0.5.2 used to end in "internal error: MissingRule"; 0.4.6.post5 now has its own rule (the fraction by tp x
    pp, 0.88 above 81920 MiB, then the large-card boost: 0.871796 on an H200), so a logged 0.8 is the user's."""
    from typer.testing import CliRunner

    from logscope.cli import app

    run = tmp_path / "old.log"
    run.write_text(
        "sglang: 0.4.6.post5\n==============NVSMI LOG==============\n"
        + SMI
        + f"[2026-11-20 10:00:00] {render(FORMS['0.4.6.post5'], {'tp_size': 8, 'mem_fraction_static': 0.8})}\n"
        "[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=137.70 GB\n"
        "[2026-11-20 10:02:05 TP0] Load weight end. type=LlamaForCausalLM, avail mem=100.20 GB, mem usage=37.50 GB\n"
        "[2026-11-20 10:02:06 TP0] KV Cache is allocated. #tokens: 500000, K size: 30.52 GB, V size: 30.52 GB\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["plan", "--from", str(run), "--tp", "4", "--format", "json"])
    assert "internal error" not in result.output and result.exit_code in (0, 1), result.output
    notes = json.loads(result.output)["plan"]["assumptions"]
    assert any("the run's mem_fraction_static 0.8 is not the automatic rule's 0.871796" in note for note in notes), notes


def test_plan_sums_every_capture():
    """0.5.14+ capture the prefill graphs, then the decode graphs (cuda_graph_setup.py capture_prefill_graph /
    capture_decode_graph, each with its begin/end line): the graphs figure is their sum, 0.46 + 0.95 = 1.41."""
    from logscope.memory_model.kv_pool import kv_sizing
    from logscope.pipeline.analyze import analyze_model
    from logscope.pipeline.ingest.ingest import Source

    text = deepseek_run(False) + (
        "[2026-11-20 10:02:07 TP0] Capture target prefill CUDA graph begin. backend=breakable, num_tokens=[4, 8], "
        "avail mem=15.70 GB\n"
        "[2026-11-20 10:02:17 TP0] Capture target prefill CUDA graph end. elapsed=10.00 s, mem usage=0.46 GB, "
        "avail mem=15.24 GB.\n"
        "[2026-11-20 10:02:17 TP0] Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, "
        "avail mem=15.24 GB\n"
        "[2026-11-20 10:02:27 TP0] Capture target decode CUDA graph end. bs=[1, 2, 4], elapsed=10.00 s, "
        "mem usage=0.95 GB, avail mem=14.29 GB.\n"
    )
    launch = analyze_model([Source(name="run.log", path=None, data=text.encode())]).launches[0]
    graphs = kv_sizing(launch).graphs_gib
    assert graphs is not None and graphs.value == 1.41 and "sum of 2 captures" in graphs.basis


def test_diff_reads_the_baseline_as_the_release_measures_it(tmp_path):
    """0.5.21+ "Memory baseline taken" is measured after every group is built (distributed/bootstrap.py
    measure_pre_model_load_memory): not the communicators' delta. Two runs that differ only in that reading get no
    eager-communicator / free-before-init pair (before: -27,980 / +27,980 tokens, -/+1.28 GiB)."""
    from typer.testing import CliRunner

    from logscope.cli import app

    off = ROOT / "fixtures" / "cells" / "moe-tp2-h200-0.5.23-deepep-off.log"
    other = tmp_path / "baseline-1.42.log"
    other.write_text(
        off.read_text(encoding="utf-8").replace("baseline taken. mem usage=0.00 GB", "baseline taken. mem usage=1.42 GB"),
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["diff", str(off), str(other), "--width", "200"])
    assert "eager communicators" not in result.output and "free before init" not in result.output, result.output
    assert "budget: free before weights" in result.output


def test_release_inference_reads_the_whole_decode_capture_line():
    """0.5.14-0.5.15.post1's decode capture-begin wording lists num_tokens_per_bs and bs: at max_bs 512 the line
    is 600 characters, beyond the 300 an event's text keeps; it still pins the range."""
    bs = [1, 2, 4, 8, 12, *range(16, 257, 8), *range(272, 512, 16), 512]
    line = (
        f"[2026-10-20 09:00:07 TP0] Capture target decode CUDA graph begin. backend=full, num_tokens_per_bs={bs}, "
        f"bs={bs}, avail mem=14.60 GB"
    )
    assert len(line) > 300
    launch = analyze_text(f"[2026-10-20 09:00:05 TP0] Load weight begin. avail mem=137.70 GB\n{line}\n")["launches"][0]
    assert launch["sglang_version"]["range"] == ["0.5.14", "0.5.15.post1"]


def test_gpu_placement_follows_the_release_formula():
    """engine.py (0.5.23 line 938): base_gpu_id + (pp_rank % pp_size_per_node) x tp_size_per_node + (tp_rank %
    tp_size_per_node) x gpu_id_step. PP 2 x TP 2 without a stated tp_size (the tags show tp >= 2): PP0 TP0 -> 0,
    PP0 TP1 -> 1, PP1 TP0 -> 2, PP1 TP1 -> 3 (before: PP1 TP0 and PP0 TP1 both on GPU 1); gpu_id_step 2 moves
    only the TP part: 0, 2, 2, 4."""
    lines = "".join(
        f"[2026-11-20 10:00:05 PP{pp} TP{tp}] Load weight begin. avail mem=78.40 GB\n" for pp in (0, 1) for tp in (0, 1)
    )
    head = "sglang: 0.5.23\n"
    ranks = analyze_text(head + lines)["launches"][0]["ranks"]
    assert {r["rank"]: r["gpu"] for r in ranks} == {"PP0 TP0": 0, "PP0 TP1": 1, "PP1 TP0": 2, "PP1 TP1": 3}
    stepped = head + "[2026-11-20 10:00:00] server_args=ServerArgs(tp_size=2, pp_size=2, gpu_id_step=2)\n" + lines
    ranks = analyze_text(stepped)["launches"][0]["ranks"]
    assert {r["rank"]: r["gpu"] for r in ranks} == {"PP0 TP0": 0, "PP0 TP1": 2, "PP1 TP0": 2, "PP1 TP1": 4}


@pytest.mark.parametrize(
    ("version", "values", "reserved", "value", "reason"),
    [
        # 0.5.12.post1 server_args.py:_handle_piecewise_cuda_graph "6. MoE A2A backend": piecewise off before the
        # rule: 512 + 12288 + 256 x 2 + 2 / 8 x 1024 = 13568 (the run's 14032 less 58 buckets x 8); no DeepEP reserve
        # in this release. round(130203 / 143771, 3) = 0.906.
        ("0.5.12.post1", {"cuda_graph_max_bs": 256, "disable_piecewise_cuda_graph": False}, 13568, 0.906, "moe_a2a_backend"),
        # 0.5.16 server_args.py:_disable_breakable_prefill_if_incompatible "MoE A2A backend": 13568 + the DeepEP
        # reserve 2 x 1024 (not prefill, decode graphs on) = 15616; round(128155 / 143771, 3) = 0.891.
        (
            "0.5.16",
            {
                "cuda_graph_config": {
                    "decode": {"backend": "full", "max_bs": 256},
                    "prefill": {"backend": "breakable", "max_bs": 8192},
                }
            },
            15616,
            0.891,
            "MoE A2A backend",
        ),
    ],
)
def test_plan_applies_the_release_auto_disable(version, values, reserved, value, reason):
    """A setting the run did not have (plan --moe-a2a-backend deepep) goes through the release's own auto-disable
    rules of the prefill / piecewise graph (extracted from its source) before the memory rule."""
    run = {"model_path": "Qwen/Qwen3-32B", "tp_size": 2, "chunked_prefill_size": 8192, **values}
    config = dict(analyze_text(release_log(version, run))["launches"][0]["config"])
    config["moe_a2a_backend"] = "deepep"
    found = auto_fraction(config, release_for(version), 143771, False)
    assert found.reserved_mib == reserved and found.value == value, found.describe()
    assert any(reason in note for note in found.assumed), found.assumed


def test_the_docs_table_is_generated_from_the_records():
    """docs/memory-model.md's table of the rule by release is the records' (python -m tools.upstream.model_doc)."""
    from tools.upstream.model_doc import DOC, rendered

    assert rendered() == DOC.read_text(encoding="utf-8"), "run python -m tools.upstream.model_doc"

"""Communication cells, the automatic fraction and the request cap per SGLang release and environment, checked
against figures worked by hand from the released source's formulas (SGLang 0.5.9 / 0.5.20 / 0.5.23,
DeepEP's csrc/legacy/config.hpp) and the H200 table of issue 27."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from logscope.cli import app
from logscope.memory_model.fraction import auto_fraction, default_requests, user_requests
from logscope.memory_model.releases import release_for
from logscope.pipeline.sizing.cell_rules import NcclEnv
from tests.helpers import analyze_text

ROOT = Path(__file__).resolve().parent.parent
CELLS = ROOT / "fixtures" / "cells"
MIB, GIB = 1 << 20, 1 << 30
runner = CliRunner()


@pytest.fixture(autouse=True)
def _issue_table_only(monkeypatch):
    """These tests pin the issue 27 table's NCCL rows: a probe calibration committed later as
    logscope/data/h200-nccl-calibration.yaml (which cells prefer) is set aside here."""
    import logscope.pipeline.sizing.cell_rules

    monkeypatch.setattr(logscope.pipeline.sizing.cell_rules, "shipped_calibration", lambda: None)


def _cells(text: str) -> dict[str, dict]:
    rank = analyze_text(text)["launches"][0]["ranks"][0]
    return {f"{c['group']}/{c['mechanism']}": c for c in rank["cells"]}


def _log(args: str, version: str | None = "0.5.23", gpu: str = "NVIDIA H200", capability: str = "9.0", command: str = "") -> str:
    head = ""
    if version is not None:
        head = (
            f"Python: 3.12.3\nCUDA available: True\nGPU 0,1: {gpu}\nGPU 0,1 Compute Capability: {capability}\nsglang: {version}\n"
        )
    return (
        head + command + f"[2026-11-20 10:00:00] server_args=ServerArgs(model_path='/m/x', {args})\n"
        "[2026-11-20 10:00:05 TP0] Init torch distributed ends. elapsed=2.90 s, mem usage=0.88 GB\n"
        "[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=138.39 GB\n"
    )


def _v2_sm90(world: int, push: int) -> float:
    """CustomAllReduceV2 at W on SM90: 2W push slots + pull min(128 MiB, 16 MiB) + 64 x 128 B semaphores in symmetric
    memory, + graph_params 131072 x W x 8 B; push = min(max(graph, eager one-shot push), 16 MiB)."""
    return (2 * world * push + 16 * MIB + 64 * 128 + 131072 * world * 8) / GIB


# ------------------------------------------------------------------------------------------- custom all-reduce
def test_tp2_h200_0_5_23_without_the_all_reduce_config_line():
    text = (CELLS / "tp2-h200-0.5.23.log").read_text(encoding="utf-8")
    assert "All Reduce config" not in text
    cells = _cells(text)
    ar = cells["tp/custom_ar_v2"]
    # W=2: push max(graph 16 MiB, eager 32 MiB) capped at 16 MiB: 4 x 16 + 16 MiB + 8 KiB + 2 MiB = 82 MiB + 8 KiB
    assert ar["gib"] == round(_v2_sm90(2, 16 * MIB), 3) and round(ar["gib"] * 1024) == 82
    assert ar["kind"] == "estimated" and ar["timing"] == "eager"
    assert ar["rule"]["sglang"] == "SGLang >= 0.5.23" and ar["rule"]["world"] == 2 and ar["rule"]["arch"] == "sm90"
    assert any(s.startswith("sglang/srt/environ.py:") for s in ar["rule"]["source"])
    assert "82.0 MiB" in ar["basis"] and "graph_params 131072 x 2 x 8 B" in ar["basis"]
    torch_group, pynccl = cells["tp/torch_nccl"], cells["tp/pynccl"]
    assert torch_group["timing"] == "lazy" and "--pre-warm-nccl not set" in torch_group["basis"]
    # SGLang sets NCCL_CUMEM_ENABLE=0 (no symmetric memory): the H200 row is 684 MiB for the first communicator
    assert pynccl["timing"] == "eager" and pynccl["gib"] == round(684 / 1024, 3)
    assert "NCCL_CUMEM_ENABLE=0 (SGLang sets it)" in pynccl["rule"]["env"]
    assert torch_group["gib"] == round(514 / 1024, 3)


@pytest.mark.parametrize(
    "world, push, mib",
    [
        (4, 896 * 1024, 27),  # push max(graph 384 KiB, eager 896 KiB): 8 x 896 KiB = 7 MiB + 16 + 4 MiB graph_params
        (8, 128 * 1024, 26),  # push 128 KiB: 16 x 128 KiB = 2 MiB + 16 + 8 MiB graph_params
    ],
)
def test_v2_workspace_at_larger_groups(world, push, mib):
    cells = _cells(_log(f"tp_size={world}"))
    assert cells["tp/custom_ar_v2"]["gib"] == round(_v2_sm90(world, push), 3)
    assert math.floor(_v2_sm90(world, push) * 1024) == mib


def test_v1_where_the_release_has_no_v2_or_the_env_turns_it_off():
    cells = _cells(_log("tp_size=2", version="0.5.9"))
    assert "tp/custom_ar_v2" not in cells
    assert cells["tp/custom_ar"]["gib"] == round(3 * 8 * MIB / GIB, 3)  # meta + buffer + rank_data, 8 MiB each
    assert "this release has no --pre-warm-nccl" in cells["tp/torch_nccl"]["basis"]
    off = _cells(
        _log(
            "tp_size=2",
            command="$ SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0 python -m sglang.launch_server --model-path /m/x --tp 2\n",
        )
    )
    assert "tp/custom_ar_v2" not in off and "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0" in off["tp/custom_ar"]["basis"]


def test_an_inferred_range_takes_its_newest_release_and_gives_each_figure_inside_it():
    """The log's wordings give SGLang 0.5.9-0.5.20 (TP 2, arch unknown: SM90 tables). Hand-derived per release:
    - 0.5.16-0.5.20, v2 (configs/custom_all_reduce_v2.py _sm90_config(s) W=2: push 16 MiB, pull capped at max_size
      16384 KiB): 2 x 2 push slots x 16 MiB + 16 MiB pull + 64 x 128 B semaphores + graph_params 131072 x 2 x 8 B
      (2 MiB) = 82.0 MiB = 0.080 GiB;
    - 0.5.12.post1-0.5.15.post1, the first v2 (custom_all_reduce_v2.py THRESHOLD_2_SHOT_MAP default W=2: 2 MiB push;
      jit_kernel custom_all_reduce.cuh storage_bytes): 8 B x kMaxNumGPU 8 x (1 + 131072) = 8388672 -> 8388736 B +
      16 MiB pull + kNumStages 2 x 2 x 2 MiB = 33554560 B = 0.031 GiB;
    - 0.5.9-0.5.11, v1 (v2 opt-in only in 0.5.10.post1/0.5.11 via SGLANG_USE_JIT_ALL_REDUCE): 3 x _MAX_CAR_SIZE
      8 MiB = 24 MiB = 0.023 GiB."""
    cells = _cells(_log("tp_size=2", version=None))
    ar = cells["tp/custom_ar_v2"]
    assert ar["rule"]["version_known"] is False and "not in the input" not in ar["rule"]["note"]
    assert ar["rule"]["sglang"] == "SGLang 0.5.9 to 0.5.20 (inferred from the wordings)"
    assert ar["gib"] == 0.080
    assert [(a["sglang"], a["mechanism"], a["gib"]) for a in ar["alternatives"]] == [
        ("SGLang 0.5.12.post1 to 0.5.15.post1", "custom_ar_v2", 0.031),
        ("SGLang 0.5.9 to 0.5.11", "custom_ar", 0.023),
    ]


def test_pre_warm_nccl_makes_the_device_group_eager():
    cells = _cells(_log("tp_size=2, pre_warm_nccl=True"))
    assert cells["tp/torch_nccl"]["timing"] == "eager"


# ------------------------------------------------------------------------------------------------- NCCL env
@pytest.mark.parametrize(
    "exports, first, further",
    [
        ("NCCL_CUMEM_ENABLE=1 ", 558, 390),
        ("NCCL_CUMEM_ENABLE=0 NCCL_BUFFSIZE=1048576 ", 300, 130),
        ("", 684, 514),
    ],
)
def test_nccl_sizes_follow_the_environment_in_the_input(exports, first, further):
    command = f"$ {exports}python -m sglang.launch_server --model-path /m/x --tp 2\n"
    cells = _cells(_log("tp_size=2", command=command))
    assert cells["tp/pynccl"]["gib"] == round(first / 1024, 3)
    assert cells["tp/torch_nccl"]["gib"] == round(further / 1024, 3)


def test_symmetric_memory_forces_cumem_on():
    cells = _cells(
        _log(
            "tp_size=2, enable_symm_mem=True",
            command="$ NCCL_CUMEM_ENABLE=0 python -m sglang.launch_server --model-path /m/x --tp 2\n",
        )
    )
    assert cells["tp/pynccl"]["gib"] == round(558 / 1024, 3)


def test_a_calibration_row_is_used_only_under_its_environment():
    from logscope.pipeline.sizing.calibration import parse_calibration

    def doc(env: dict[str, str]) -> dict:
        return {
            "logscope_calibration": 1,
            "world_size": 2,
            "environment": env,
            "mechanisms": [
                {
                    "mechanism": "nccl_communicator",
                    "stage": "nccl_eager_init",
                    "group_size": 2,
                    "mib": 600,
                    "outside_allocator_mib": 600,
                },
                {
                    "mechanism": "nccl_first_collective",
                    "stage": "nccl_first_collective",
                    "group_size": 2,
                    "mib": 2,
                    "outside_allocator_mib": 2,
                },
            ],
        }

    matrix = doc({})
    matrix["mechanisms"] += [
        {
            **m,
            "mib": 700,
            "outside_allocator_mib": 700 if m["stage"] == "nccl_eager_init" else 4,
            "environment": {"NCCL_CUMEM_ENABLE": "0"},
        }
        for m in doc({})["mechanisms"]
    ]
    calibration = parse_calibration(matrix, "matrix.yaml")
    assert calibration.lookup("nccl_communicator", 2, ("0", None)).outside_allocator_mib == 700
    assert calibration.lookup("nccl_communicator", 2, ("1", None)).outside_allocator_mib == 600  # unset = NCCL's 1
    assert NcclEnv("0", "x", None).key() == ("0", None)


# --------------------------------------------------------------------------------------------- attention TP
def test_attention_tp_cells_only_for_a_group_larger_than_one():
    flat = _cells(_log("tp_size=4, dp_size=4, enable_dp_attention=True"))  # attention TP size 1
    assert not [k for k in flat if k.startswith("attention_tp/")]
    newer = _cells(_log("tp_size=8, dp_size=2, enable_dp_attention=True"))  # attention TP size 4
    assert newer["attention_tp/torch_nccl"]["timing"] == "lazy"
    assert newer["attention_tp/custom_ar_v2"]["gib"] == round(_v2_sm90(4, 896 * 1024), 3)  # its own, in 0.5.23
    older = _cells(_log("tp_size=8, dp_size=2, enable_dp_attention=True", version="0.5.20"))
    assert "attention_tp/torch_nccl" in older and "attention_tp/custom_ar_v2" not in older


# ------------------------------------------------------------------------------------------------------ DeepEP
@pytest.mark.parametrize("ep, gib", [(8, 1.777), (16, 1.777), (32, 1.777)])
def test_deepep_low_latency_expert_count_is_the_routed_count_at_every_ep_size(ep, gib):
    """0.5.23 models/deepseek_v2.py shared_experts_fusion_disable_reason: "DeepEP: fusion off by default", so no
    per-rank shared slots: 256 routed experts at every EP size. get_low_latency_rdma_size_hint(128, 7168, 256):
    dispatch msg 16 + max(14336, 7168 + 224) = 14352 B, combine 224 + 14336 = 14560 B; send = recv =
    256 x 128 x 14560 = 477102080; signalling 1024; 2 x 2 x 477102080 + 2048 = 1908410368 -> /128 + 1 -> 1908410496
    B = 1.777 GiB."""
    text = (
        _log(f"tp_size={ep}, ep_size={ep}, moe_a2a_backend='deepep', deepep_mode='low_latency'").replace("/m/x", "/m/DeepSeek-V3")
        + "[2026-11-20 10:00:41 TP0] Load weight end. type=DeepseekV3ForCausalLM, avail mem=75.11 GB\n"
    )
    cell = _cells(text)["moe_ep/deepep_low_latency"]
    experts = 256
    signalling = -(-4 * experts // 128) * 128
    expected = ((4 * experts * 128 * 14560 + 2 * signalling) // 128 + 1) * 128
    assert cell["gib"] == round(expected / GIB, 3) == gib
    assert "shared-expert fusion is off under DeepEP" in cell["basis"] and cell["inputs"]["experts"] == 256
    assert cell["inputs"]["reserved_bytes"] == 4 * 2**29  # NVSHMEM_CUMEM_GRANULARITY 2**29 steps: 1820 MiB -> 2048


# ---------------------------------------------------------------------------------------------------------- PD
def test_pd_buffers_are_lazy_and_prefill_staging_is_sized():
    text = (
        "$ export SGLANG_DISAGG_STAGING_BUFFER=1\n"  # for the launch of the log under it (its own command)
        + (CELLS / "tp2-h200-0.5.23.log")
        .read_text(encoding="utf-8")
        .replace("page_size=1)", "page_size=1, disaggregation_mode='prefill')")
        + "[2026-11-20 10:00:42 TP0] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1000000, "
        "K size: 61.04 GB, V size: 61.04 GB\n"
    )
    cells = _cells(text)
    assert {c["timing"] for k, c in cells.items() if k.startswith("pd/")} == {"lazy"}
    staging = cells["pd/staging_buffer"]
    # 4 queues (SGLANG_DISAGGREGATION_QUEUE_SIZE) x 8192 pages x the KV line's bytes per token (one-token pages)
    cell = 131072  # 2 x 61.04 GiB over 1,000,001 rows snaps to 131,072 B
    assert staging["gib"] == round(4 * 8192 * cell / GIB, 3) and staging["kind"] == "estimated"


# -------------------------------------------------------------------------------- automatic fraction and requests
def test_automatic_fraction_hand_worked_for_0_5_23():
    """arg_groups/memory_hook.py handle_gpu_memory_settings + reserve_for_graph_mb + reserve_for_deepep_a2a_mb:
    512 + max(8192, 2048) x 1.5 + 2 x 1 / 8 x 1024 + 256 x 2 (decode graphs) + 58 prefill buckets up to 8192
    (cuda_graph_hook.py generate_prefill_cuda_graph_batch_sizes: 8 + 14 + 8 + 8 + 12 + 8) x 8 = 464 -> 14032 MiB,
    above the 10 GiB floor; round((143771 - 14032) / 143771, 3) = 0.902. DeepEP (apply_deepep_adjustments: the
    42 buckets up to 2048 rounded up to multiples of 8 -> 38 -> 304 MiB) + 1024 (breakable prefill graph with
    DeepEP) + 2048 (reserve) -> 16944 MiB -> 0.882."""
    config = {"tp_size": 2, "pp_size": 1, "chunked_prefill_size": 8192, "cuda_graph_max_bs": 256}
    release = release_for("0.5.23")
    plain = auto_fraction(config, release, 143771)
    assert plain.reserved_mib == 14032 and plain.value == round((143771 - 14032) / 143771, 3) == 0.902
    deepep = auto_fraction({**config, "moe_a2a_backend": "deepep"}, release, 143771)
    assert deepep.reserved_mib == 16944 and deepep.value == 0.882
    prefill = auto_fraction({**config, "moe_a2a_backend": "deepep", "disaggregation_mode": "prefill"}, release, 143771)
    assert prefill.part("deepep_reserve") == 0 and prefill.part("cuda_graphs") == 0
    # 0.5.9 server_args.py _handle_gpu_memory_settings: no DeepEP reserve, piecewise graphs opt-in (off)
    old = auto_fraction({**config, "moe_a2a_backend": "deepep"}, release_for("0.5.9"), 143771)
    assert old.part("deepep_reserve") == 0 and old.reserved_mib == 13568 and old.value == 0.906


def test_request_cap_rules():
    release = release_for("0.5.23")
    assert default_requests(3000, 4096, release)[0] == min(min(max(int(3000 / 4096 * 512), 2048), 4096), 3000 // 2)
    assert default_requests(3000, 4096, release)[0] == 1500
    assert default_requests(2_000_000, 40960, release)[0] == 4096
    assert user_requests(1000, 4, release)[0] == 250 and "attn_dp_size" in user_requests(1000, 4, release)[1]
    assert "dp_size" in user_requests(1000, 4, release_for("0.5.9"))[1]


def test_plan_applies_the_automatic_rule_with_the_deepep_reserve():
    result = runner.invoke(
        app,
        [
            "plan",
            "--from",
            str(CELLS / "moe-tp2-h200-0.5.23-deepep-off.log"),
            "--moe-a2a-backend",
            "deepep",
            "--ep",
            "2",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)["plan"]
    assert plan["figures"]["mem_fraction_static"]["value"] == 0.882
    assert "deepep_reserve 2048" in plan["figures"]["mem_fraction_static"]["basis"]
    # budget 109.89 - 138.39 x (1 - 0.882) GiB over 49,152 B per token: the DeepEP-on run's logged pool
    assert plan["kv_tokens"] == math.floor((109.89 - 138.39 * (1 - 0.882)) * GIB / 49152) == 2043848
    assert plan["max_running_requests"]["value"] == min(4096, 2043848 // 2)
    tp4 = json.loads(
        runner.invoke(
            app, ["plan", "--from", str(CELLS / "moe-tp2-h200-0.5.23-deepep-off.log"), "--tp", "4", "--format", "json"]
        ).output
    )["plan"]
    # parallel term 4 / 8 x 1024 = 512: reserved 14032 - 256 + 512 = 14288 MiB
    assert tp4["figures"]["mem_fraction_static"]["value"] == round((143771 - 14288) / 143771, 3) == 0.901


def test_plan_keeps_a_fraction_that_is_not_the_rule():
    text = (
        (CELLS / "moe-tp2-h200-0.5.23-deepep-off.log")
        .read_text(encoding="utf-8")
        .replace("mem_fraction_static=0.902", "mem_fraction_static=0.85")
    )
    from logscope.compare.plan import Setting, plan
    from logscope.memory_model.kv_pool import kv_sizing
    from logscope.pipeline.analyze import analyze_model
    from logscope.pipeline.ingest.ingest import Source

    analysis = analyze_model([Source(name="run.log", path=None, data=text.encode())])
    launch = analysis.launches[0]
    result = plan("run.log", launch, kv_sizing(launch), Setting(moe_a2a_backend="deepep"), None, 143771)
    assert result.figures["mem_fraction_static"].value == 0.85
    assert any("taken as given by the user" in note for note in result.assumptions)


def test_diff_of_a_deepep_pair_names_the_reserve():
    result = runner.invoke(
        app,
        [
            "diff",
            str(CELLS / "moe-tp2-h200-0.5.23-deepep-off.log"),
            str(CELLS / "moe-tp2-h200-0.5.23-deepep-on.log"),
            "--width",
            "240",
        ],
    )
    assert "mem_fraction_static: the DeepEP reserve" in result.output.splitlines()[0]
    assert "2048 MiB more on B" in result.output and "0.902 -> 0.882, as logged" in result.output
    part = next(line for line in result.output.splitlines() if "budget: mem_fraction_static" in line)
    assert "-60,464" in part and "the DeepEP reserve" in part  # 138.39 x (0.882 - 0.902) GiB / 49,152 B = -60463.7


# ------------------------------------------------------------------------------------------------ the catalogue
def test_every_catalogued_constant_has_its_source_line():
    data = yaml.safe_load((ROOT / "logscope" / "data" / "cell_constants.yaml").read_text(encoding="utf-8"))
    assert (ROOT / "logscope" / "data" / "cell_constants.yaml").read_text(encoding="utf-8").startswith("# GENERATED")
    listed = [v.strip() for v in (ROOT / "tools/upstream/versions.txt").read_text().splitlines() if v.strip() and v[0] != "#"]
    assert list(data["versions"]) == listed

    def entries(node):
        if isinstance(node, dict):
            if "value" in node and "at" in node:
                yield node
            else:
                for child in node.values():
                    yield from entries(child)

    found = list(entries(data["versions"]))
    assert len(found) > 60
    assert all(e["at"] and ":" in e["at"] for e in found if e["value"] is not None)
    assert all("absent" in e for e in found if e["value"] is None and e["at"] is None)


def test_the_extractor_reads_a_wheel(tmp_path):
    from tools.upstream.cell_constants import Wheel, extract

    wheel = tmp_path / "sglang-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(
            "sglang/srt/environ.py",
            "class Envs:\n    SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK = EnvInt(64)\n"
            "    SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB = EnvInt(8 * 1024)\n"
            "    SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2 = EnvBool(False)\n",
        )
        z.writestr("sglang/srt/distributed/device_communicators/custom_all_reduce_v2.py", "_MAX_GRAPH_INPUTS = 1024\n")
        z.writestr(
            "sglang/srt/distributed/device_communicators/configs/custom_all_reduce_v2.py",
            "KB, MB = 1024, 1024 * 1024\n"
            "def _sm90_configs(num_sm):\n"
            "    def config(world_size, *, graph, eager):\n"
            "        return AllReduceConfig(graph=graph, eager=eager, num_push_blocks=num_sm, num_pull_blocks=32)\n"
            "    return {2: config(2, graph=(1.5 * MB, 2 * MB, 4 * MB),\n"
            "                      eager=(256 * KB, 1 * MB, 8 * MB, Range(0, 8 * MB)))}\n",
        )
    row = extract(Wheel(wheel))
    v2 = row["custom_ar_v2"]
    assert v2["default_on"] == {"value": False, "at": "sglang/srt/environ.py:4"}
    assert v2["max_size_kb"]["value"] == 8192 and v2["max_graph_inputs"]["value"] == 1024
    world = v2["arch"]["sm90"]["worlds"][2]
    assert world["graph"]["one_shot_push"] == 1572864 and world["eager"]["mc"] == [0, 8 * MIB]
    assert v2["arch"]["sm90"]["num_pull_blocks"] == 32
    assert row["deepep"]["num_max_dispatch_tokens_per_rank"]["value"] == 64
    assert row["deepep"]["reserve_mib"]["value"] is None and "absent" in row["deepep"]["reserve_mib"]


def test_deepseek_v3_2_indexer_adds_to_the_cell():
    from logscope.memory_model.kv_pool import Layout, config_cell

    v3 = {"kv_lora_rank": 512, "qk_rope_head_dim": 64, "num_hidden_layers": 61}
    assert config_cell(v3, Layout(tp=8), 2)[0] == 576 * 61 * 2
    # + (index_head_dim 128 + 128 // 128 x 4 B scale) x 61 layers, one byte each (DSATokenToKVPool)
    cell, how = config_cell({**v3, "index_head_dim": 128}, Layout(tp=8), 2, release_for("0.5.23"))
    assert cell == 576 * 61 * 2 + (128 + 4) * 61 and "indexer" in how


def test_deepep_normal_mode_closed_form():
    # DeepEP's default configs at 8 ranks: 20 SMs (10 channels), 256 NVL recv tokens (dispatch and combine);
    # bytes per token 7168 x 2 + 8 (SourceMeta) + 128 x 8 (top-k idx) + 128 x 4 (weights) + 128 x 4 (scales) = 16392
    text = (
        _log("tp_size=8, ep_size=8, moe_a2a_backend='deepep', deepep_mode='normal'").replace("/m/x", "/m/DeepSeek-V3")
        + "[2026-11-20 10:00:41 TP0] Load weight end. type=DeepseekV3ForCausalLM, avail mem=75.11 GB\n"
    )
    cell = _cells(text)["moe_ep/deepep_normal"]
    nvl = 10 * 8 * (2 * 1 + 3) * 4 + 10 * 8 * 256 * 16392
    assert cell["gib"] == round(-(-nvl // 128) * 128 / GIB, 3) == 0.313 and cell["timing"] == "lazy"
    assert "csrc/legacy/config.hpp" in cell["basis"]


def test_a_shipped_probe_calibration_replaces_the_table_row_for_its_environment():
    from logscope.pipeline.sizing.calibration import parse_calibration
    from logscope.pipeline.sizing.cell_rules import nccl_sizes

    rows = []
    for env, init, split in (({"NCCL_CUMEM_ENABLE": "0"}, 680.0, 510.0), ({"NCCL_CUMEM_ENABLE": "1"}, 556.0, 386.0)):
        rows += [
            {
                "mechanism": "nccl_communicator",
                "stage": "nccl_eager_init",
                "group_size": 1,
                "mib": init,
                "outside_allocator_mib": init,
                "environment": env,
            },
            {
                "mechanism": "nccl_first_collective",
                "stage": "nccl_first_collective",
                "group_size": 1,
                "mib": 2,
                "outside_allocator_mib": 0.0,
                "environment": env,
            },
            {
                "mechanism": "nccl_split_communicator",
                "stage": "nccl_split",
                "group_size": 1,
                "mib": split,
                "outside_allocator_mib": split,
                "environment": env,
            },
        ]
    calibration = parse_calibration(
        {
            "logscope_calibration": 1,
            "world_size": 1,
            "hardware": {"gpu": "NVIDIA H200"},
            "software": {"nccl": "2.28.9"},
            "mechanisms": rows,
        },
        "h200-nccl-calibration.yaml",
    )
    sglang = nccl_sizes(NcclEnv("0", "SGLang sets it", None), calibration)
    assert (sglang.first_mib, sglang.further_mib) == (680.0, (510.0, 510.0)) and "logscope probe" in sglang.basis
    # BUFFSIZE=1 MiB was not in this calibration: the issue 27 table's row stays
    small = nccl_sizes(NcclEnv("0", "SGLang sets it", "1048576"), calibration)
    assert (small.first_mib, small.further_mib) == (300.0, (128.0, 130.0))


def test_nvls_on_makes_the_nccl_rows_a_lower_bound():
    cells = _cells(_log("tp_size=2, enable_nccl_nvls=True"))
    assert "NCCL_NVLS_ENABLE=1" in cells["tp/pynccl"]["basis"] and "lower bound" in cells["tp/pynccl"]["basis"]
    assert any(s.startswith("sglang/srt/entrypoints/engine.py:") for s in cells["tp/pynccl"]["rule"]["source"])
    assert "NCCL_NVLS_ENABLE" not in _cells(_log("tp_size=2"))["tp/pynccl"]["basis"]


def test_plan_keeps_a_fraction_the_launch_command_gave():
    text = "$ python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 2 --mem-fraction-static 0.902\n" + (
        CELLS / "moe-tp2-h200-0.5.23-deepep-off.log"
    ).read_text(encoding="utf-8")
    from logscope.compare.plan import Setting, plan
    from logscope.pipeline.analyze import analyze_model
    from logscope.pipeline.ingest.ingest import Source

    analysis = analyze_model([Source(name="run.log", path=None, data=text.encode())])
    launch = analysis.launches[0]
    result = plan("run.log", launch, analysis.kv_sizing[launch.id], Setting(moe_a2a_backend="deepep"), None, 143771)
    assert result.figures["mem_fraction_static"].value == 0.902  # the automatic rule did not run
    assert any("launch command gives --mem-fraction-static" in note for note in result.assumptions)

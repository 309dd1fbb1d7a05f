"""Case tables for the readers of issue 34: lines in their general form (any field before the reading, any shell
prompt, the forms of each release), values stated outside check_env, npu-smi and gpustat tables, OOM texts
re-wrapped over lines, and the GPU a rank's own OOM names. Each case asserts the numbers the line states."""

from __future__ import annotations

import pytest

from logscope.core import kinds
from logscope.pipeline.assemble.launch_facts import flag_field
from logscope.pipeline.parse.classify import _starts_a_record
from logscope.pipeline.parse.parsers.npu_smi import read_npu_line
from logscope.pipeline.parse.parsers.other_lines import parse_launch_command
from logscope.pipeline.parse.parsers.registry import _flag_list, _launch_command
from logscope.pipeline.parse.parsers.sglang_line import parse_line
from logscope.pipeline.parse.parsers.smi_csv import parse_gpustat_row
from logscope.pipeline.parse.parsers.stated_env import parse_line as parse_stated
from tests.helpers import analyze_text

# ---------------------------------------------------------------- Load weight end, any fields before the reading
LOAD_END = [
    # model_runner.py 0.5.10.post1+ with quant_str, without its prefix, elapsed and type (as pasted)
    ("Load weight end. quant=fp8, fmt=e4m3, avail mem=12.25 GB, mem usage=125.65 GB.", 12.25, 125.65, {"quant": "fp8"}),
    (
        "[2026-05-01 10:00:00 TP3] Load weight end. elapsed=41.20 s, type=DeepseekV3ForCausalLM, quant=fp8, fmt=e4m3, "
        "avail mem=61.02 GB, mem usage=78.13 GB.",
        61.02,
        78.13,
        {"elapsed_s": 41.2, "model_type": "DeepseekV3ForCausalLM", "fmt": "e4m3"},
    ),
    ("Load weight end. type=LlamaForCausalLM, dtype=torch.float16, avail mem=60.01 GB", 60.01, None, {"dtype": "torch.float16"}),
    ("Load weight end. quant=gptq, bits=4, avail mem=20.50 GB, mem usage=3.25 GB.", 20.5, 3.25, {"bits": "4"}),
]


@pytest.mark.parametrize(("line", "avail", "usage", "fields"), LOAD_END)
def test_load_weight_end_in_general_form(line, avail, usage, fields):
    _, kind, data = parse_line(line)
    assert kind == kinds.LOAD_WEIGHT_END and data["avail_gib"] == avail and data.get("usage_gib") == usage
    assert {k: data[k] for k in fields} == fields


# ---------------------------------------------------------------- DeepSeek V4 memory lines, each release's form
DSV4 = [
    # 0.5.12.post1 - 0.5.14
    (
        "[2026-06-02 11:20:02 TP0] DSV4 memory calculation: bytes_per_full_token=15955.85, available_bytes=45.78 GB, "
        "full_token=3080704",
        "dsv4_memory",
        {"bytes_per_full_token": 15955.85, "available_bytes_gib": 45.78, "full_token_unverified": 3080704},
    ),
    # 0.5.15.post1 - 0.5.19
    (
        "DSV4 memory calculation: bytes_per_full_token=15955.85, available_bytes=45.78 GB, c128_state_fixed=0.12 GB, "
        "full_token=3080704",
        "dsv4_memory",
        {"available_bytes_gib": 45.78, "c128_state_fixed_gib": 0.12},
    ),
    # 0.5.20+
    (
        "DSV4 memory calculation: unified=True, unified_fp8=False, bytes_per_full_token=1234.50, available_bytes=100.25 GB, "
        "c128_state_fixed=0.50 GB, swa_ring_fixed=2.00 GB, full_token=123456",
        "dsv4_memory",
        {"unified": "True", "available_bytes_gib": 100.25, "swa_ring_fixed_gib": 2.0},
    ),
    # the spelling of a pasted build between releases
    (
        "DSv4 memory calculation: bytes_per_full_token=15955.85, available_bytes=45.78 GB, full_token=1641472",
        "dsv4_memory",
        {"available_bytes_gib": 45.78, "full_token_unverified": 1641472},
    ),
    (
        "[2026-06-02 11:20:02 TP0] DSV4 pool sizes: full=3080704, swa=385088, c4=770176, c128=24068, c4_state=6016, "
        "c128_state=3008",
        "dsv4_pool_sizes",
        {"full": 3080704, "swa": 385088, "c4": 770176, "c128": 24068, "c4_state": 6016, "c128_state_unverified": 3008},
    ),
]


@pytest.mark.parametrize(("line", "kind", "fields"), DSV4)
def test_dsv4_lines_of_each_release(line, kind, fields):
    _, got_kind, data = parse_line(line)
    assert got_kind == kind
    assert {k: data[k] for k in fields} == fields


# ---------------------------------------------------------------- launch commands behind shell prompts
PROMPTS = [
    ("$ python3 -m sglang.launch_server --tp 2", {}, {"tp": "2"}),
    ("# python3 -m sglang.launch_server --tp 2", {}, {"tp": "2"}),
    ("alice@gpu-box-07:~/work$ python3 -m sglang.launch_server --tp-size 4", {}, {"tp_size": "4"}),
    (
        "(sglang-env) alice@gpu-box-07:~/work$ NCCL_P2P_LEVEL=NVL python3 -m sglang.launch_server --tp-size 4",
        {"NCCL_P2P_LEVEL": "NVL"},
        {"tp_size": "4"},
    ),
    (
        "root@5f2c9a1b7d3e:/sgl-workspace# SGL_ENABLE_JIT_DEEPGEMM=1 python3 -m sglang.launch_server --tp 8",
        {"SGL_ENABLE_JIT_DEEPGEMM": "1"},
        {"tp": "8"},
    ),
    ("(base) root@node:~# export NCCL_DEBUG=INFO", {"NCCL_DEBUG": "INFO"}, {}),
    ("CUDA_VISIBLE_DEVICES=4,5,6,7", {"CUDA_VISIBLE_DEVICES": "4,5,6,7"}, {}),
    ("$ NCCL_IB_DISABLE=1 SGLANG_SET_CPU_AFFINITY=1", {"NCCL_IB_DISABLE": "1", "SGLANG_SET_CPU_AFFINITY": "1"}, {}),
]


@pytest.mark.parametrize(("line", "env", "args"), PROMPTS)
def test_commands_and_assignments_behind_any_prompt(line, env, args):
    parsed = _launch_command(line)
    assert parsed is not None
    assert parsed.data["env"] == env and parsed.data["args"] == args


def test_a_prompt_line_without_a_command_or_assignment_is_no_command():
    assert _launch_command("(venv) alice@box:~$ ls -la") is None
    assert parse_launch_command("$ cd /workspace") is None


# ---------------------------------------------------------------- flags as Markdown list items
FLAG_ITEMS = [
    ("- tp-size: 8", {"tp_size": "8"}),
    ("- mem-fraction-static: 0.75", {"mem_fraction_static": "0.75"}),
    ("* `chunked-prefill-size`: 8192", {"chunked_prefill_size": "8192"}),
    ("- --tp 4", {"tp": "4"}),
    ("- `--tp-size 8`, `--moe-a2a-backend deepep`", {"tp_size": "8", "moe_a2a_backend": "deepep"}),
    ("tp-size: 8", {"tp_size": "8"}),
    ("cuda-graph-max-bs: 160", {"cuda_graph_max_bs": "160"}),
]


@pytest.mark.parametrize(("line", "args"), FLAG_ITEMS)
def test_flags_written_as_list_items(line, args):
    parsed = _flag_list(line)
    assert parsed is not None and parsed.data["args"] == args


def test_a_list_item_of_prose_is_no_flag():
    assert _flag_list("- the server crashed after 10 minutes") is None
    assert _flag_list("- see https://github.com/sgl-project/sglang/issues/1") is None
    assert _flag_list("max-tokens: the server crashed after a while") is None


# ---------------------------------------------------------------- versions and GPUs stated outside check_env
STATED = [
    ("- SGLang: 0.5.4.post1", {"sglang": "0.5.4.post1"}),
    ("**PyTorch**: 2.8.0+cu129", {"torch": "2.8.0+cu129"}),
    ("- Host driver: 570.133.20", {"driver": "570.133.20"}),
    ("- CUDA: 12.9", {"cuda": "12.9"}),
    ("SGLang: v0.5.4 (installed with pip)", {"sglang": "0.5.4"}),
    ("sglang==0.5.9", {"sglang": "0.5.9"}),
    ("sglang[all]==0.4.6.post5", {"sglang": "0.4.6.post5"}),
    ("- GPUs: NVIDIA H20-3e (x4)", {"GPU 0,1,2,3": "NVIDIA H20-3e"}),
    ("GPU: 8 x NVIDIA H200", {"GPU 0,1,2,3,4,5,6,7": "NVIDIA H200"}),
    ("GPUs: NVIDIA H100 80GB HBM3 x 2", {"GPU 0,1": "NVIDIA H100 80GB HBM3"}),
    # a hand-written block of package versions (issue 43)
    ("sgl-kernel: 0.3.21", {"sgl-kernel": "0.3.21"}),
    ("flashinfer-python: 0.6.2", {"flashinfer-python": "0.6.2"}),
    ("- `sgl_kernel`: 0.3.16.post3", {"sgl-kernel": "0.3.16.post3"}),
    ("deep_ep: 1.2.1", {"deep_ep": "1.2.1"}),
    ("Flashinfer version: 0.5.0", {"flashinfer-python": "0.5.0"}),
    ("| PyTorch | 2.3.1+cu121 |", {"torch": "2.3.1+cu121"}),
    ("torch                     2.5.1", {"torch": "2.5.1"}),
    # a remark after a comma, the distribution before the version, verl's diagnose.py pip line (issue 43, mine3b)
    ("- **SGLang**: 0.5.6.post2, installed from `refs/pull/20547/head` (commit `7759843`)", {"sglang": "0.5.6.post2"}),
    ("NCCL: nvidia-nccl-cu13 2.30.4", {"nvidia-nccl-cu13": "2.30.4"}),
    ("torch\t     : 2.9.0+cu129", {"torch": "2.9.0+cu129"}),
]


@pytest.mark.parametrize(("line", "values"), STATED)
def test_stated_versions_and_gpus(line, values):
    parsed = parse_stated(line)
    assert parsed is not None and parsed.data["values"] == values


@pytest.mark.parametrize(
    "line",
    [
        "- SGLang: latest main",
        "GPUs: a few",
        "sglang: the server",
        "NVSHMEM: nvidia-nvshmem-cu13 3.4.5",  # a distribution logscope has no key for
        "PyTorch: nvidia-nccl-cu13 2.30.4",  # the distribution named is not the label's
        "- SGLang: 0.5.6, 0.5.7 also",  # a remark that names another version
        "sglang\t     : not found.",  # verl's diagnose.py for a package not installed
    ],
)
def test_a_field_without_a_version_or_count_states_nothing(line):
    assert parse_stated(line) is None


# other packages' versions where a sentence or a hand-written line names them (constructed in the shapes pasted)
NAMED = [
    ("Reproduced on two DGX Spark nodes (driver 580.95.05, CUDA 13.0, direct cable).", {"driver": "580.95.05", "cuda": "13.0"}),
    (
        "Ubuntu 24.04 LTS, python 3.11, Driver Version: 570.86.15, CUDA Version: 12.8",
        {"Python": "3.11", "driver": "570.86.15", "cuda": "12.8"},
    ),
    ("My torch version: 2.6.0+cu124", {"torch": "2.6.0+cu124"}),
    ("CUDA version: cuda_12.4", {"cuda": "12.4"}),
    ("we run sglang+ mooncake v0.3.7 on two nodes", {"mooncake": "0.3.7"}),
    ("- Mooncake\u2011master version: `0.3.10.post2`", {"mooncake": "0.3.10.post2"}),
    ("mooncake-transfer-engine 0.3.8", {"mooncake-transfer-engine": "0.3.8"}),  # a pip row
    ("\u7528flashinfer-python\uff1a0.2.7\u62a5\u9519", {"flashinfer-python": "0.2.7"}),  # CJK around it, a full-width colon
    ("Python 3.11", {"Python": "3.11"}),
    (" - python version : 3.11.9", {"Python": "3.11.9"}),
    ("Our torch is 2.9.1 and flashinfer 0.6.2", {"torch": "2.9.1", "flashinfer-python": "0.6.2"}),
    ("NCCL version 2.20.5+cuda12.4 on both nodes", {"nccl": "2.20.5"}),  # its build suffix is not the version
    ("I use sglang version sglang.v0.4.6.post5 with nixl", {"sglang": "0.4.6.post5"}),
    ("python: 3.12.7", {"Python": "3.12.7"}),
    ("mooncake-transfer-engine==0.3.6", {"mooncake-transfer-engine": "0.3.6"}),
    ("nixl 0.6.1", {"nixl": "0.6.1"}),
    ("transformers: 4.55.2", {"transformers": "4.55.2"}),
    ("triton 3.3.1", {"triton": "3.3.1"}),
    ("DeepEP 1.2.1", {"deep_ep": "1.2.1"}),
    # FlashInfer's PyPI name in two words (sgl-project/sglang#33943's environment list): not Python's version
    ("- FlashInfer Python `0.6.15.post1`", {"flashinfer-python": "0.6.15.post1"}),
    ("Cuda compilation tools, release 12.8, V12.8.93", {"cuda": "12.8"}),  # nvcc --version
    # what the sentence states before it describes the failure still counts (full-width punctuation as pasted)
    (
        "I was running it\uff08based on sgl-kernel=0.0.9\uff0cflashinfer-python=0.2.7\uff09, and then got a cuda error saying x",
        {"sgl-kernel": "0.0.9", "flashinfer-python": "0.2.7"},
    ),
]


@pytest.mark.parametrize(("line", "values"), NAMED)
def test_versions_named_in_a_sentence(line, values):
    parsed = parse_stated(line)
    assert parsed is not None and parsed.data["values"] == values


@pytest.mark.parametrize(
    "line",
    [
        "FlashInfer requires CUDA 12.4 or later",  # a requirement, not what runs
        "it needs torch>=2.5.1",
        "upgraded torch 2.5.1 -> 2.6.0 and it broke",  # which one runs is not said
        '  File "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py", line 10',  # a path
        "RuntimeError: CUDA 12.8 driver mismatch",  # a failure line is read for its failure
        "worker-1: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:1970, unhandled cuda error, NCCL version 2.20.5+cuda12.4",
        "torch 2.5.1 on one node, torch 2.6.0 on the other",  # two versions of one package
    ],
)
def test_a_version_not_stated_as_the_one_running_is_not_read(line):
    parsed = parse_stated(line)
    assert parsed is None or not set(parsed.data["values"]) & {"torch", "cuda", "Python", "nccl"}


def test_a_version_line_after_a_100_column_line_is_no_terminal_wrap():
    text = "SGLang commit: https://github.com/sgl-project/sglang/commit/" + "a" * 40 + "\nFlashinfer version: 0.5.3\n"
    assert analyze_text(text)["versions"]["flashinfer"] == "0.5.3"


# review 5's issue 2: a line that opens with a wrapper's name starts a record of its own only when the wrapper runs a
# command; as an English word it is the rest of a line a terminal cut at 80 columns, or a sentence of prose
WRAPPER_WORDS_AS_PROSE = {
    "a watchdog's message cut before its timeout": (
        "[2026-05-04 02:11:09 TP0] Scheduler " + "x" * 35 + "watchdog \ntimeout (self.watchdog_timeout=300, self.soft=False)\n",
        ["runtime-crash"],
    ),
    "DeepEP's timeout cut after its name": (
        "After ten minutes of waiting at the first batch, each of the eight ranks DeepEP \ntimeout for dispatch CPU, rank 3\n",
        ["deepep-buffer"],
    ),
    "a sentence that opens with timeout": (
        'timeout is what I see: "torch.distributed.DistBackendError: NCCL error in: '
        '../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error"\n',
        ["nccl-error"],
    ),
}


@pytest.mark.parametrize("form", WRAPPER_WORDS_AS_PROSE)
def test_a_wrapper_name_as_a_word_starts_no_record(form):
    text, findings = WRAPPER_WORDS_AS_PROSE[form]
    assert [f["rule"] for f in analyze_text(text)["findings"]] == findings


@pytest.mark.parametrize(
    ("line", "starts"),
    [
        ("nice -n 10 python3 -m sglang.launch_server --tp 2", True),
        ("timeout 600 python3 bench.py", True),
        ("sudo -E env NCCL_DEBUG=INFO python3 x.py", True),
        ("taskset -c 0-31 torchrun --nproc-per-node 8 x.py", True),
        ("/usr/bin/time -v python3 x.py", True),
        ("stdbuf -oL docker run img", True),
        ("nice to see python work", False),
        ("time to first token is 3 s", False),
        ("sudo -u root python3 x.py", True),
        ("timeout -s KILL 600 python3 x.py", True),
        # each word has one reading: a line of wrapper words that runs nothing fails at once (an ambiguous
        # reading took 1.5 s at 22 pairs, doubling with each)
        ("nice -n " * 40 + "x", False),
    ],
)
def test_a_wrapper_starts_a_record_when_it_runs_a_command(line, starts):
    assert _starts_a_record(line) is starts


def test_redaction_keeps_a_version_with_four_numbers():
    from logscope.core.redact import redact_document

    document = {"versions": {"driver": "5.0.21.47"}, "config": {"host": "10.0.0.21"}}
    assert redact_document(document) == {"versions": {"driver": "5.0.21.47"}, "config": {"host": "<redacted:ip>"}}


def test_pip_show_and_a_printed_version():
    shown = analyze_text("$ pip show sglang\nName: sglang\nVersion: 0.5.9\nSummary: SGLang\n", "pip.txt")
    assert shown["versions"]["sglang"] == "0.5.9"
    printed = analyze_text(">>> import sglang\n>>> print(sglang.__version__)\n0.5.6.post2\n", "repl.txt")
    assert printed["versions"]["sglang"] == "0.5.6.post2"
    repr_form = analyze_text(">>> torch.__version__\n'2.8.0+cu128'\n", "repl.txt")
    assert repr_form["versions"]["torch"] == "2.8.0+cu128"


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        ("*[pip show sglang]\nVersion: 0.4.4.post2\n", {"sglang": "0.4.4.post2"}),  # Xinference's template
        ("root@box:~# pip show sglang | grep Version\nVersion: 0.5.9\n", {"sglang": "0.5.9"}),
        ("$ python -m pip show torch\nName: torch\nVersion: 2.8.0\n", {"torch": "2.8.0"}),
        ("*[pip show vllm]\nVersion: 0.7.3\n", {}),  # a package logscope has no key for
        ("$ pip show torch sglang\nVersion: 2.8.0\n", {}),  # two packages: whose Version is it?
        ("$ pip show sglang\nName: sglang-router\nVersion: 0.2.1\n", {}),  # another package's Name line
        ("### SGLang Version\n\n0.5.6.post1\n", {"sglang": "0.5.6.post1"}),  # a GitHub issue form's field
        ("### NCCL Version\n\n_No response_\n", {}),
        ("### NCCL Version\n\n 2.27.3+cuda12.8\n", {"nccl": "2.27.3"}),  # NCCL's printed string: its build suffix
        ("### NVIDIA Open GPU Kernel Modules Version\n\n580.76.05\n", {"driver": "580.76.05"}),
        ("### NVIDIA Open GPU Kernel Modules Version\n\n2af9f1f\n", {}),  # the form asks for a SHA when built from one
        ("----------verl Info-----------\nVersion      : 0.7.0.dev\n", {}),  # diagnose.py: verl's own version
        ('*[python -c "import torch; print(torch.version.cuda)"]\n12.1\n', {"cuda": "12.1"}),
    ],
)
def test_a_version_under_the_line_that_names_its_package(text, versions):
    assert analyze_text(text, "issue.md")["versions"] == versions


def test_a_sentence_quoting_pip_show_is_read_as_a_sentence():
    report = analyze_text("I ran `pip show sglang` and it says sglang 0.5.6 on this box\nVersion: 0.5.7\n", "issue.md")
    assert report["versions"] == {"sglang": "0.5.6"}


def test_the_issue_template_gives_a_launch_with_its_sources():
    text = "### Environment\n- SGLang: 0.5.4.post1\n- GPUs: NVIDIA H20-3e (x4)\n\n### Flags\n- tp-size: 4\n"
    launch = analyze_text(text, "issue.md")["launches"][0]
    assert launch["config"] == {"tp_size": 4} and launch["config_source"] == {"tp_size": "issue_template"}
    assert launch["sglang_version"]["version"] == "0.5.4.post1"
    assert "stated" in launch["sglang_version"]["how"]


# ---------------------------------------------------------------- npu-smi
NPU_LINES = [
    ("| npu-smi 23.0.6                   Version: 23.0.6                       |", "header", {"npu_driver": "23.0.6"}),
    (
        "| 1     910B3               | OK            | 193.1       44                0    / 0             |",
        "npu_row",
        {"index": 1, "name": "910B3", "health": "OK", "power_w": 193.1, "temperature_c": 44},
    ),
    (
        "| 0                         | 0000:C2:00.0  | 12          0    / 0          60123/ 65536         |",
        "usage_row",
        {"bus_id": "0000:C2:00.0", "aicore_pct": 12, "memory_used_mib": 60123, "memory_total_mib": 65536, "memory_kind": "HBM"},
    ),
    (
        "| 0                         | 0000:01:00.0  | 0           1782 / 21527                               |",
        "usage_row",
        {"memory_used_mib": 1782, "memory_total_mib": 21527, "memory_kind": "memory"},
    ),
    (
        "| 1       0                 | 412233        | python3                  | 56760                   |",
        "process_row",
        {"gpu": 1, "pid": 412233, "name": "python3", "used_mib": 56760},
    ),
]


@pytest.mark.parametrize(("line", "rule", "fields"), NPU_LINES)
def test_npu_smi_lines(line, rule, fields):
    got = read_npu_line(line)
    assert got is not None and got[0] == rule
    assert {k: got[1][k] for k in fields} == fields


# ---------------------------------------------------------------- gpustat: every process form of process_repr
GPUSTAT = "[0] NVIDIA A100-SXM4-80GB | 61°C,  97 % | 79813 / 81920 MB | "
GPUSTAT_PROCESSES = [
    ("bob:python3/40112(61230M)", {"used_mib": 61230, "pid": 40112, "name": "python3"}),
    ("bob:python3(61230M)", {"used_mib": 61230, "name": "python3"}),
    ("root:sglang::scheduler_TP0/40140(3100M)", {"used_mib": 3100, "pid": 40140, "name": "sglang::scheduler_TP0"}),
    ("bob/40112(61230M)", {"used_mib": 61230, "pid": 40112, "user_or_command": "bob"}),
    ("bob(61230M)", {"used_mib": 61230, "user_or_command": "bob"}),
    ("--:--/5120(2000M)", {"used_mib": 2000, "pid": 5120}),
    ("?/5120(?M)", {"pid": 5120}),
]


@pytest.mark.parametrize(("word", "process"), GPUSTAT_PROCESSES)
def test_gpustat_process_forms(word, process):
    row = parse_gpustat_row(GPUSTAT + word)
    assert row is not None and row["processes"] == [process]


def test_gpustat_keeps_every_process_of_a_row():
    words = "bob:python3/40112(61230M) bob:python3(12407M) carol(2000M) root:sglang::scheduler/40140(3100M) dave/7733(1076M)"
    row = parse_gpustat_row(GPUSTAT + words)
    assert [p["used_mib"] for p in row["processes"]] == [61230, 12407, 2000, 3100, 1076]


# ---------------------------------------------------------------- OOM text re-wrapped over lines
REWRAPPED_OOM = (
    "[2026-04-11 17:02:13 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.\n"
    "GPU 0 has a total capacity of 139.80 GiB of which 512.00 MiB is free.\n"
    "Including non-PyTorch memory, this process has 139.29 GiB memory in use.\n"
    "Of the allocated memory 130.00 GiB is allocated by PyTorch, and 2.25 GiB\n"
    "is reserved by PyTorch but unallocated.\n"
)


def test_an_oom_rewrapped_over_lines_gives_every_figure():
    gpu = analyze_text(REWRAPPED_OOM, "oom.log")["gpus"][0]
    assert gpu["card_total_gib"] == 139.8
    assert gpu["oom"] == {
        "requested_mib": 1024.0,
        "free_mib": 512.0,
        "process_in_use_mib": 142632.96,
        "allocated_mib": 133120.0,
        "reserved_unallocated_mib": 2304.0,
    }
    # memory outside the allocator: 139.29 GiB in use - 130.00 allocated - 2.25 reserved = 7.04 GiB
    assert gpu["outside_allocator_mib"] == 7208.96


def test_an_oom_ending_at_is_free_does_not_take_the_next_line():
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "79.19 GiB of which 1.06 GiB is free.\nThe server then restarted.\n"
    )
    gpu = analyze_text(text, "oom.log")["gpus"][0]
    assert gpu["oom"] == {"requested_mib": 2048.0, "free_mib": 1085.44}


# ---------------------------------------------------------------- the GPU a rank's own OOM names
def test_a_rank_is_placed_on_the_gpu_its_oom_names_through_visible_devices():
    text = (
        "export CUDA_VISIBLE_DEVICES=4,5,6,7\n"
        "[2026-04-11 17:02:00 TP0] Load weight begin. avail mem=78.50 GB\n"
        "[2026-04-11 17:02:00 TP1] Load weight begin. avail mem=78.50 GB\n"
        "[2026-04-11 17:02:13 TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 2 has a "
        "total capacity of 79.19 GiB of which 1.06 GiB is free.\n"
    )
    ranks = {r["rank"]: r for r in analyze_text(text, "oom.log")["launches"][0]["ranks"]}
    assert (ranks["TP0"]["gpu"], ranks["TP0"]["gpu_assumed"]) == (6, False)  # torch's device 2 is the host's GPU 6
    assert (ranks["TP1"]["gpu"], ranks["TP1"]["gpu_assumed"]) == (5, True)  # local rank 1 → visible device 5, assumed


IMAGE_TAGS = [
    ("We pulled `lmsysorg/sglang:v0.5.12-cu130` and ran it.", "0.5.12"),
    ("Image: lmsysorg/sglang:v0.5.9", "0.5.9"),
    ("$ docker pull lmsysorg/sglang:v0.5.3rc0-cu126", "0.5.3rc0"),
    ("- Docker image: lmsysorg/sglang:v0.4.2.post2-rocm630", "0.4.2.post2"),
]


@pytest.mark.parametrize(("line", "version"), IMAGE_TAGS)
def test_an_image_tag_states_the_version(line, version):
    launch = analyze_text(line + "\n- tp-size: 2\n", "issue.md")["launches"][0]
    assert launch["sglang_version"]["version"] == version
    assert "release tag" in launch["sglang_version"]["how"]


MOVING_TAGS = ["Image: lmsysorg/sglang:latest", "Image: lmsysorg/sglang:dev", "Image: lmsysorg/sglang:nightly-dev-20251124"]


@pytest.mark.parametrize("line", MOVING_TAGS)
def test_a_moving_tag_states_no_version(line):
    launch = analyze_text(line + "\n- tp-size: 2\n", "issue.md")["launches"][0]
    assert launch["sglang_version"]["version"] is None


# ---------------------------------------------------------------- pools of their own kind as ledger items
def _ledger(text: str) -> dict[str, float]:
    rank = analyze_text(text)["launches"][0]["ranks"][0]
    return {item["item"]: item["gib"] for item in rank["ledger"]}


def test_a_labelled_swa_pool_is_its_own_ledger_item():
    text = (
        "[2026-10-01 10:00:00 TP0] Load weight begin. avail mem=78.00 GB\n"
        "[2026-10-01 10:00:10 TP0] Load weight end. elapsed=9.00 s, type=GptOssForCausalLM, avail mem=60.00 GB, "
        "mem usage=18.00 GB.\n"
        "[2026-10-01 10:00:11 TP0] Full KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1000000, K size: 20.00 GB, "
        "V size: 20.00 GB\n"
        "[2026-10-01 10:00:11 TP0] SWA KV Cache is allocated. dtype: torch.bfloat16, #tokens: 800000, K size: 2.00 GB, "
        "V size: 2.00 GB\n"
        "[2026-10-01 10:00:12 TP0] Memory pool end. avail mem=15.50 GB\n"
    )
    # 60.00 - 15.50 = 44.50 GiB of pools: the SWA pool's 4.00 read, the full pool's 40.00 in the other 40.50; no
    # card total and no init reading: the residual is unknown (null), never 0
    assert _ledger(text) == {"weights": 18.0, "kv_pool": 40.5, "swa_kv_pool": 4.0, "free": 15.5, "unexplained": None}


def test_the_post_capture_draft_pool_line_is_read():
    line = (
        "[2026-10-01 10:00:51 TP0] Post-capture KV sizing: draft KV cache allocated. dtype: torch.bfloat16, #tokens: 1000000, "
        "KV size: 2.16 GB"
    )
    _, kind, data = parse_line(line)
    assert kind == "post_capture_draft_kv" and data == {"dtype": "torch.bfloat16", "tokens": 1000000, "kv_gib": 2.16}


@pytest.mark.parametrize("heading", ["### Error Log", "## Error log", "# Environment", "#### Failed run"])
def test_a_markdown_heading_is_no_failure_and_no_prompt(heading):
    report = analyze_text(heading + "\n\n```\nsome text\n```\n", "issue.md")
    assert report["findings"] == [] and report["coverage"]["unrecognized_total"] == 0


# ---------------------------------------------------------------- issue 43: versions, commands and dumps in other clothes
SENTENCES = [
    ("After upgrading SGLang to v0.5.15 the server no longer starts.", "0.5.15"),
    ("sglang 0.5.9 with CUDA 12.8 and torch 2.8.0", "0.5.9"),
    ("SGLang version: 0.5.16.post1 on H200", "0.5.16.post1"),
    ("It crashes on SGLang (v0.5.15) with DeepEP.", "0.5.15"),
    ("We run the v0.5.10-cu130 image on 8 x H200.", "0.5.10"),
    ("我现在就想基于sglang v0.4.6.post4实现机内PD分离", "0.4.6.post4"),  # no ASCII space around name and version
    ("it runs with vllm (0.7.3), but it fails using sglang (0.4.4.post1).", "0.4.4.post1"),  # vllm's is vllm's
    ("- `sgl-kernel`: 0.3.21", None),  # a package's own version, not SGLang's
    ("vllm 0.11.0 works fine on the same box", None),
    ("it worked in v0.5.14 but SGLang v0.5.15 fails", None),  # an unowned version beside it: which one runs?
    ("upgrading SGLang from v0.5.14 to v0.5.16 broke it", None),
    ("we use openmmlab/lmdeploy:v0.9.2-cu12 for the other job", None),
    ("v0.5.10-cu130", None),  # a bare tag on a line that names neither SGLang nor an image
    ("image: lmsysorg/sglang:v0.5.16-cu130", "0.5.16"),  # issue 43's example: the official image with its tag
    ('$ pip install "sglang[all]==0.5.9"', "0.5.9"),  # a pip install command states the release installed
    ("uv pip install sglang==0.5.3rc0 --prerelease=allow", "0.5.3rc0"),
    ("Deploy model with backend sglang0.5.6.post1 on RTX 5090", "0.5.6.post1"),  # GPUStack's backend name
]


@pytest.mark.parametrize(("line", "version"), SENTENCES)
def test_a_version_in_a_sentence_is_sglangs_only_where_the_sentence_ties_it(line, version):
    parsed = parse_stated(line)
    assert (parsed.data["values"].get("sglang") if parsed else None) == version


def test_nvidia_smis_header_line_alone_gives_the_driver_and_its_cuda():
    report = analyze_text("NVIDIA-SMI 580.82.07   Driver Version: 580.82.07   CUDA Version: 13.0\n", "smi.txt")
    assert report["versions"] == {"driver": "580.82.07", "cuda_driver_api": "13.0"}


PROMPTED = [
    ("➜  sglang git:(main) ✗ python3 -m sglang.launch_server --tp 2", {"tp": "2"}),
    ("➜  ~ sglang serve --model-path Qwen/Qwen3-8B --dp 2", {"model_path": "Qwen/Qwen3-8B", "dp": "2"}),
    ("alice@box ~/work % NCCL_DEBUG=INFO python -m sglang.launch_server --tp 4", {"tp": "4"}),
    ("[root@node01 ~]# python3 -m sglang.launch_server --ep 8", {"ep": "8"}),
    ("❯ sglang serve --tp 8", {"tp": "8"}),
    (
        """$ python3 -m sglang.launch_server --json-model-override-args "{\\"rope_scaling\\": {\\"factor\\": 4}}" --tp 2""",
        {"json_model_override_args": '{"rope_scaling": {"factor": 4}}', "tp": "2"},
    ),
    # issue 43's example as given: a JSON argument with spaces, in single quotes
    (
        """python3 -m sglang.launch_server --json-model-override-args '{"rope_scaling": {"type": "yarn", "factor": 4}}' --tp 2""",
        {"json_model_override_args": '{"rope_scaling": {"type": "yarn", "factor": 4}}', "tp": "2"},
    ),
]


@pytest.mark.parametrize(("line", "args"), PROMPTED)
def test_a_command_behind_any_prompt_with_shell_quoting(line, args):
    parsed = _launch_command(line)
    assert parsed is not None and parsed.data["args"] == args


FIELDS = [
    # compose's inline command, Kubernetes' command + args lists, compose's entrypoint + a multi-line command,
    # a block list, a JSON spec
    ("    command: sglang serve --model-path m --dp 2 --tp 4\n", {"model_path": "m", "dp": "2", "tp": "4"}),
    (
        '      command: ["python3", "-m", "sglang.launch_server"]\n      args: ["--model-path", "m", "--tp", "2"]\n      env:\n',
        {"model_path": "m", "tp": "2"},
    ),
    (
        "    entrypoint: python3 -m sglang.launch_server\n    command:\n      --model-path m\n      --tp-size 4\n    ipc: host\n",
        {"model_path": "m", "tp_size": "4"},
    ),
    ("  command:\n  - python3\n  - -m\n  - sglang.launch_server\n  - --tp\n  - '8'\n  resources:\n", {"tp": "8"}),
    ('{\n  "cmd": ["python3", "-m", "sglang.launch_server", "--tp", "2"],\n  "gpus": 2\n}\n', {"tp": "2"}),
]


@pytest.mark.parametrize(("text", "args"), FIELDS)
def test_a_command_given_as_a_field(text, args):
    launch = analyze_text(text, "spec.yaml")["launches"][0]
    assert launch["server_args"] == {flag_field(flag): value for flag, value in args.items()}


def test_a_field_without_a_launcher_is_no_command():
    assert analyze_text("    command:\n    - /bin/bash\n    - -c\n    args:\n    - |\n", "spec.yaml")["launches"] == []


def test_topo_rows_without_their_header_name_only_the_columns_the_rows_show():
    rows = "GPU0\t X\tNV18\tPIX\t0-7\t0\t\tN/A\nGPU1\tNV18\t X\tSYS\t8-15\t1\t\tN/A\n"  # a NIC column no row or legend names
    topology = analyze_text(rows, "topo.txt")["topology"]
    assert topology["links"] == [[0, 1, "NV18"]]
    assert topology.get("nics", []) == []
    assert topology["affinity"]["GPU1"] == {"cpu": "8-15", "numa": 1, "gpu_numa_id": None}


def test_topo_rows_a_copy_starts_below_the_first_give_the_links_to_the_gpus_above():
    # a copy that starts at GPU5's row (nvidia-smi lists GPU0 .. GPU7 first, so its X in column 5 names columns 0-4)
    cells = ["NV18"] * 8
    rows = "".join(
        f"GPU{i}\t" + "\t".join(" X " if j == i else cells[j] for j in range(8)) + f"\tSYS\t{i * 28}-{i * 28 + 27}\t1\t\tN/A\n"
        for i in (5, 6, 7)
    )
    rows += "NIC0\t" + "\t".join(["SYS"] * 8) + "\t X \n"
    topology = analyze_text(rows, "topo.txt")["topology"]
    assert sorted(map(tuple, topology["links"])) == [(a, b, "NV18") for a in range(8) for b in range(a + 1, 8) if b >= 5]
    assert {(n["gpu"], n["nic"], n["link"]) for n in topology["nics"]} == {(i, "NIC0", "SYS") for i in (5, 6, 7)}


@pytest.mark.parametrize(
    "text",
    [
        "GPU3 NV18 X NV18",  # its X after one cell: not GPU3's diagonal
        "GPU0 X",
        "GPU2 is X and NV18",
    ],
)
def test_a_line_that_is_no_matrix_row_starts_no_topology(text):
    topology = analyze_text(text + "\n", "notes.txt").get("topology") or {}
    assert not topology.get("links") and not topology.get("nics") and not topology.get("p2p")


def test_gpus_a_field_states_say_so_and_quote_the_field():
    """ "GPU: B200x2" in an issue body is no dump: its GPU records say which form stated them, and their evidence is
    the line itself, not a check_env line that the paste does not hold."""
    gpus = analyze_text("Flashinfer version: 0.5.0\nGPU: B200x2\n")["gpus"]
    assert [(g["index"], g["name"], g["stated_by"], g["evidence"]["text"]) for g in gpus] == [
        (0, "B200", "issue_template", "GPU: B200x2"),
        (1, "B200", "issue_template", "GPU: B200x2"),
    ]


def test_torch_s_nccl_error_states_the_nccl_version_and_stays_a_failure():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 3665, in barrier\n'
        "    work = default_pg.barrier(opts=opts)\n"
        "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL"
        ".cpp:1197, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.3+cuda12.1\n"
    )
    report = analyze_text(text)
    assert report["launches"][0]["versions"] == {"nccl": "2.18.3"}
    assert "nccl-error" in {f["rule"] for f in report["findings"]}


def test_an_issue_templates_commands_above_their_output():
    # xorbitsai/inference#3138's template (mine3b's inference-3138, built): each command in "*[...]", its output under it
    text = (
        '*[python -c "import transformers;print(transformers.__version__)"]\n4.50.0\n\n'
        '*[python -c "import torch; print(torch.version.cuda)"]\n12.1\n\n'
        "*[pip show vllm]\nVersion: 0.7.3\n\n*[pip show sglang]\nVersion: 0.4.4.post2\n"
    )
    versions = _versions(analyze_text(text, "issue.md"))
    assert (versions["transformers"], versions["cuda"], versions["sglang"]) == ("4.50.0", "12.1", "0.4.4.post2")


def test_flashinfers_pypi_name_written_with_a_space_is_flashinfers():
    # sgl-project/sglang#33943's line (mine3a's sglang-33943, built): not Python's version
    versions = _versions(analyze_text("- FlashInfer Python `0.6.15.post1`\n", "issue.md"))
    assert versions == {"flashinfer": "0.6.15.post1"}


def _versions(document: dict) -> dict:
    """The versions a document gives: its launches' and its own (a paste of versions alone has no launch)."""
    merged = dict(document.get("versions") or {})
    for launch in document["launches"]:
        merged.update(launch["versions"])
    return merged

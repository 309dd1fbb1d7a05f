"""Facts pasted in forms that were not read (issue 43): a log viewer's time stamp and bar before each line, server flags
written as a JavaScript array. Each paste is written here in the real shape."""

from __future__ import annotations

from logscope.pipeline.analyze import analyze_model, analyze_sources
from logscope.pipeline.ingest.ingest import Source, clean

# a log viewer's export: its own time stamp and a bar before each line; the capture bar's first update has no
# SGLang prefix of its own, and a library's warning is glued after it
BEGIN = "[2026-04-02 07:12:05] Capture cuda graph begin. This can take up to several minutes. avail mem=6.81 GB"
BAR = "Capturing batches (bs=32 avail_mem=6.40 GB):   0%|          | 0/8 [00:00<?, ?it/s]"
VIEWER = (
    f"2026-04-02 07:12:05.118 | {BEGIN}\n"
    "2026-04-02 07:12:14.902 | \n"
    f"2026-04-02 07:12:14.902 | {BAR}/usr/lib/python3/x.py:9: UserWarning: w\n"
)


def test_a_log_viewers_time_stamp_and_bar_are_a_wrapper():
    assert clean("2026-04-02 07:12:14.902 | Capturing batches (bs=32 avail_mem=6.40 GB):") == [
        "Capturing batches (bs=32 avail_mem=6.40 GB):"
    ]
    analysis = analyze_model([Source(name="paste.log", path=None, data=VIEWER.encode())])
    (launch,) = analysis.launches
    readings = [(p.phase, p.values.get("bs"), p.values.get("avail_gib")) for t in launch.ranks.values() for p in t.phases]
    assert ("capture_progress", 32, 6.40) in readings


# a recipe's server flags as a JavaScript array, one "--flag value" string a line, with template placeholders
RECIPE = """```javascript
{
      match: { hw: "h20", quant: "fp8", nodes: "single" },
      env: [],
      flags: [
        "--model-path {{MODEL_NAME}}",
        "--tp-size 8",
        "--mem-fraction-static 0.88",
        "--enable-dp-attention",
        "--chunked-prefill-size 4096",
        "--port {{PORT}}",
      ],
    },
```
"""


def test_server_flags_as_a_javascript_array_are_read_as_a_launchs_flags():
    analysis = analyze_model([Source(name="paste.md", path=None, data=RECIPE.encode())])
    (launch,) = analysis.launches
    config = {
        key: launch.config.get(key) for key in ("tp_size", "mem_fraction_static", "enable_dp_attention", "chunked_prefill_size")
    }
    assert config == {"tp_size": 8, "mem_fraction_static": 0.88, "enable_dp_attention": True, "chunked_prefill_size": 4096}
    assert "model_path" not in launch.config and "port" not in launch.config  # a placeholder is no value


# an issue form's GPU field and an HTML table's row: a GPU named in prose, not nvidia-smi's CSV
def test_a_gpu_named_in_a_sentence_or_a_table_row_is_no_dump_row():
    prose = "### GPU\n\nNVIDIA RTX 5090, CUDA 12.8\n"
    table = "Item | Value\n-- | --\nHardware | NVIDIA H200 SXM5, 8x GPUs/node, x86_64\n"
    csv = "NVIDIA H200, 00000000:18:00.0, 143771 MiB\nNVIDIA H200, 00000000:2A:00.0, 143771 MiB\n"
    for text, names in ((prose, []), (table, []), (csv, ["NVIDIA H200", "NVIDIA H200"])):
        report = analyze_sources([Source(name="paste.md", path=None, data=text.encode())])
        assert [g["name"] for g in report["gpus"]] == names, text


# a Dockerfile's apt-get install of NCCL's Debian packages, pinned
DOCKERFILE = """FROM nvidia/cuda:11.0-devel-ubuntu18.04
RUN apt-get update && apt-get install -y --allow-downgrades --allow-change-held-packages \\
    libnccl2=2.8.4-1+cuda11.0 \\
    libnccl-dev=2.8.4-1+cuda11.0
"""


def test_an_apt_pin_of_nccls_debian_packages_states_the_nccl_version():
    report = analyze_sources([Source(name="Dockerfile", path=None, data=DOCKERFILE.encode())])
    versions = {**report.get("versions", {}), **{k: v for launch in report["launches"] for k, v in launch["versions"].items()}}
    assert versions.get("nccl") == "2.8.4"


def test_mpiruns_tag_and_time_stamp_and_a_logging_format_of_ones_own_are_wrappers():
    # mpirun --timestamp-output --tag-output: the line as the rank printed it comes after the colon, its indent kept
    assert clean('Mon Feb  3 09:05:11 2025[1,3]<stderr>:  File "/x/scheduler.py", line 2, in f') == [
        '  File "/x/scheduler.py", line 2, in f'
    ]
    assert clean("[1,0]<stdout>:[2025-02-03 09:05:11 TP0] Load weight end.") == ["[2025-02-03 09:05:11 TP0] Load weight end."]
    # a deployment's own format: time, level, pid, [rank tags file:line]
    head = "2025-09-02 10:11:12 ERROR 4242 [ DP3 TP3 EP3 scheduler.py:2655] "
    assert clean(head + "Traceback (most recent call last):") == ["Traceback (most recent call last):"]
    assert clean("2025-09-02 10:11:12 ERROR 4242 is the pid [see scheduler.py:2655]") != [""]  # prose stays


MPI_TRACEBACK = "".join(
    f"Mon Feb  3 09:05:11 2025[1,3]<stderr>:{line}\n"
    for line in (
        "Traceback (most recent call last):",
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 310, in load_model',
        "    self.model = get_model(model_config=self.model_config)",
        "RuntimeError: shape mismatch",
    )
)


def test_a_traceback_behind_mpiruns_tags_is_a_failure():
    analysis = analyze_model([Source(name="paste.log", path=None, data=MPI_TRACEBACK.encode())])
    failures = [f for fs in analysis.failures.values() for f in fs]
    assert [f.event.data.get("message") for f in failures] == ["shape mismatch"]


# a deployment's logging format, the rank tags inside its bracket: SGLang's lines keep their rank, a traceback logged
# line by line under it is read as one
CUSTOM_HEAD = "2025-09-02 10:11:12 ERROR 4242 [ DP3 TP3 EP3 scheduler.py:2655]"
CUSTOM = "\n".join(
    [
        "2025-09-02 10:11:02 INFO 4242 [ DP3 TP3 EP3 model_runner.py:250] Load weight end. elapsed=5.05 s, "
        "type=Qwen3MoeForCausalLM, avail mem=61.90 GB, mem usage=16.39 GB.",
        f"{CUSTOM_HEAD} Traceback (most recent call last):",
        f'{CUSTOM_HEAD}   File "/sgl/python/sglang/srt/managers/scheduler.py", line 2612, in run_scheduler_process',
        f"{CUSTOM_HEAD}     scheduler = Scheduler(",
        f"{CUSTOM_HEAD} RuntimeError: boom",
        "",
    ]
)


def test_a_logging_format_of_ones_own_keeps_the_rank_tags_and_its_traceback_is_read():
    analysis = analyze_model([Source(name="paste.log", path=None, data=CUSTOM.encode())])
    (launch,) = analysis.launches
    assert list(launch.ranks) == ["DP3 TP3 EP3"]
    failures = [f for fs in analysis.failures.values() for f in fs]
    assert [(f.event.data.get("message"), f.phase) for f in failures] == [("boom", "memory_pool")]


def test_a_table_copied_from_a_rendered_page_is_no_compose_prefix_and_states_its_versions():
    table = "Item | Value\n-- | --\nDeepEP | 1.3.0\nHardware | NVIDIA H200 SXM5, 8x GPUs/node\n"
    assert clean("DeepEP | 1.3.0") == ["DeepEP | 1.3.0"]
    assert clean("sglang-1  | [2026-01-01 10:00:00] Load weight begin.") == ["[2026-01-01 10:00:00] Load weight begin."]
    assert clean("worker  | started") == ["started"]
    report = analyze_sources([Source(name="issue.md", path=None, data=table.encode())])
    versions = {k: v for launch in report["launches"] for k, v in launch["versions"].items()}
    assert {**report.get("versions", {}), **versions}.get("deep_ep") == "1.3.0"

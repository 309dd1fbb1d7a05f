"""The reviewer's items 1, 5, 7, 8, 10, 12 and 13 (review of the reader changes up to b3f734d), each in the input's
shape the review gives: what the input does not show is not claimed, and a paste holding a failure is never read as
nothing found."""

from __future__ import annotations

import time

from tests.helpers import analyze_text


def _rules(report: dict) -> list[str]:
    return [f["rule"] for f in report["findings"]]


def _versions(report: dict) -> dict:
    return {key: v["version"] if isinstance(v, dict) else v for key, v in report.get("versions", {}).items()}


# ------------------------------------------------------------ 1: an array left open takes no failure under it

OOM_UNDER_AN_OPEN_ARRAY = """My launch script (abridged):
```bash
SERVER_ARGS=(
  --model-path /models/DeepSeek-V3
  --tp 8
  ...
```
Error:
```
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 3.12 GiB is free.
```
"""  # noqa: E501 - the line as torch prints it

NCCL_UNDER_AN_OPEN_ARRAY = """```bash
DIMS=(
  --tp 8
RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled system error, NCCL version 2.21.5
```
"""


def test_an_open_array_stops_at_a_fence_and_the_oom_under_it_is_read():
    assert "oom-time-unknown" in _rules(analyze_text(OOM_UNDER_AN_OPEN_ARRAY))


def test_an_open_array_stops_at_an_error_line_and_the_nccl_error_is_reported():
    report = analyze_text(NCCL_UNDER_AN_OPEN_ARRAY)
    assert report["findings"], "a paste holding an NCCL error is never 'nothing found'"


def test_an_array_cut_open_is_not_expanded_into_a_launch():
    text = 'ARGS=(\n  --tp 8\n\npython3 -m sglang.launch_server --model-path /m "${ARGS[@]}"\n'
    launches = analyze_text(text)["launches"]
    assert all("tp_size" not in launch["server_args"] for launch in launches)


# ------------------------------------------------------------ 8: which assignment ran, and an echo, are not shown

BRANCHES = """if [ "$ROLE" = prefill ]; then
  ARGS=(--tp 8 --mem-fraction-static 0.8)
else
  ARGS=(--tp 16 --mem-fraction-static 0.9)
fi
python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 "${ARGS[@]}"
"""


def test_an_array_assigned_in_two_branches_gives_neither_branch_s_values():
    for launch in analyze_text(BRANCHES)["launches"]:
        assert "tp_size" not in launch["server_args"] and "mem_fraction_static" not in launch["server_args"]


def test_an_echo_of_the_expanded_array_is_no_launch():
    text = 'ARGS=(--model-path /m --mem-fraction-static 0.8)\necho python3 -m sglang.launch_server "${ARGS[@]}" --tp 4\n'
    assert not any(launch["server_args"] for launch in analyze_text(text)["launches"])


# ------------------------------------------------------------ 5: flashinfer's report, a value padded with blanks


def test_a_flashinfer_entry_padded_with_blanks_reads_in_linear_time():
    # a correctness guard against quadratic time (as test_robustness's), generous bound on this process's CPU time
    text = "==== PyTorch ====\ntorch : 2.9 " + " " * 100_000 + "x\n"
    started = time.process_time()
    analyze_text(text)
    assert time.process_time() - started < 5.0


# ------------------------------------------------------------ 7: a pin in a fix or an install command is no version


def test_a_pin_in_a_fix_or_an_install_command_states_no_version():
    assert "flashinfer" not in _versions(analyze_text("Fixed by running pip install flashinfer-python==0.2.5\n"))
    text = "pip install torch==2.7.0 --index-url https://download.pytorch.org/whl/cu128\n"
    assert "torch" not in _versions(analyze_text(text))


def test_the_version_found_beside_a_requirement_is_read():
    versions = _versions(analyze_text("Please install sgl-kernel==0.3.21 (found sgl-kernel 0.3.16).\n"))
    assert versions.get("sgl_kernel") == "0.3.16"


# ------------------------------------------------------------ 10: a version of another machine or environment


def test_a_version_scoped_to_another_machine_or_environment_is_not_the_run_s():
    assert "torch" not in _versions(analyze_text("- torch on the working machine: 2.4.0\n"))
    text = "- torch in the old environment: 2.4.0\n- torch in the new environment: 2.6.0\n"
    assert "torch" not in _versions(analyze_text(text))
    # the run's own environment, named, still states it
    assert _versions(analyze_text("- torch in the SGLang environment: 2.6.0\n")).get("torch") == "2.6.0"


# ------------------------------------------------------------ 12: the older summary's last value, cut by a column

SUMMARY = (
    "[2025-05-14 09:29:10] max_total_num_tokens=404890, chunked_prefill_size=8192, max_prefill_tokens=16384, "
    "max_running_requests=4097, context_len=8096"
)


def _summary(report: dict) -> dict:
    phases = [p for launch in report["launches"] for rank in launch["ranks"] for p in rank["phases"]]
    (summary,) = [p for p in phases if p["phase"] == "scheduler_summary"]
    return summary


def test_the_older_summary_cut_at_a_column_gives_no_context_len():
    width = len(SUMMARY) - 2  # `cut -c`, `less -S`: every line of the paste at most this wide
    lines = [SUMMARY, "[2025-05-14 09:29:11] INFO:     Started server process [15955]"]
    summary = _summary(analyze_text("".join(line[:width] + "\n" for line in lines)))
    assert summary.get("context_len") is None and summary["max_running_requests"] == 4097


def test_the_older_summary_is_read_whole_where_a_longer_line_shows_no_column_cut():
    longer = "[2025-05-14 09:29:11] INFO:     Started server process [15955]" + " x" * 80
    assert _summary(analyze_text(SUMMARY + "\n" + longer + "\n"))["context_len"] == 8096


# ------------------------------------------------------------ 13: a card's memory stated by hand

CHINESE_SYSTEM_INFO = """GPU信息
GPU型号：8 × NVIDIA L20
驱动版本：570.124.06
单卡规格：
显存：46,068 MiB (约45GB)
"""


def test_a_stated_card_memory_is_labelled_as_stated_not_as_nvidia_smi():
    gpus = analyze_text(CHINESE_SYSTEM_INFO)["gpus"]
    assert [g.get("memory_total_mib") for g in gpus] == [46068] * 8
    assert {g.get("card_total_source") for g in gpus} == {"stated in the issue text (a card's total, no Reserved figure)"}


def test_a_stated_card_memory_far_from_the_gpu_line_is_not_applied():
    text = CHINESE_SYSTEM_INFO.replace("单卡规格：\n", "单卡规格：\n" + "其他\n" * 20)
    assert all(g.get("memory_total_mib") is None for g in analyze_text(text)["gpus"])

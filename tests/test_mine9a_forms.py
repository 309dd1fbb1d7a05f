"""Forms that mine9a's built pastes showed and nobody had read: a launch command quoted in a Markdown code span that
closes after its last flag, line-number gutters (vim `:set nu`, `cat -n`, `nl`, `less -N`) and box-drawn pane borders
(k9s, tmux, rich panels) on every line of a block."""

from __future__ import annotations

import pytest

from logscope.pipeline.ingest.gutters import undecorated
from tests.helpers import analyze_text


def _server_args(text: str) -> dict:
    return analyze_text(text)["launches"][0]["server_args"]


def test_a_command_quoted_in_a_code_span_ends_before_the_closing_backtick():
    # sglang-23808's shape: "cmd:`" opens a single-backtick span over the lines of a backslash-continued launch
    text = "cmd:`export A=1\nsglang serve \\\n    --tp 2 \\\n    --port 30000`\n\nresult:\n"
    args = _server_args(text)
    assert args["port"] == "30000" and args["tp_size"] == "2"


def test_a_backtick_the_shell_closes_stays_a_command_substitution():
    text = "python -m sglang.launch_server --model-path `cat model.txt` --port 30000\n"
    assert _server_args(text)["port"] == "30000"


def _failures(text: str) -> list[tuple]:
    return [(f["rule"], f.get("mechanism")) for f in analyze_text(text)["findings"] if f["severity"] != "info"]


TRITON_OUT_OF_RESOURCES = (
    "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 196608, Hardware limit: 65536. "
    "Reducing block sizes or `num_stages` may help."
)


def test_an_exception_of_a_module_of_exceptions_is_read_whatever_its_class_name():
    # triton 3.9.0 triton/runtime/errors.py OutOfResources.__str__, printed by CPython with its module
    assert _failures(TRITON_OUT_OF_RESOURCES + "\n") == [("failure-time-unknown", "triton")]


def test_it_is_read_in_an_inline_code_span_of_prose_that_its_own_backticks_break():
    # sgl-project-github-io-13's shape: the line in single backticks, whose message holds `num_stages`
    text = f"Running the stock docker image yields:\n\n`{TRITON_OUT_OF_RESOURCES}`\n\nOther folks have run into this.\n"
    assert _failures(text) == [("failure-time-unknown", "triton")]


@pytest.mark.parametrize(
    ("line", "mechanism"),
    [
        ("zmq.error.Again: Resource temporarily unavailable", "python"),  # pyzmq's zmq/error.py, a module named error
        ("triton.compiler.errors.CompileTimeAssertionFailure: at 12:4: assert failed", "triton"),
    ],
)
def test_other_classes_of_modules_of_exceptions_are_read(line, mechanism):
    assert _failures(line + "\n") == [("failure-time-unknown", mechanism)]


def test_a_class_outside_a_module_of_exceptions_is_no_exception_line():
    assert _failures("sglang.srt.configs.Config: loaded 3 entries\n") == []


def test_a_warning_class_of_a_module_of_exceptions_is_no_failure():
    # review 9: urllib3/exceptions.py InsecureRequestWarning, printed by warnings.showwarning with its module
    assert _failures("urllib3.exceptions.InsecureRequestWarning: Unverified HTTPS request is being made\n") == []


# ------------------------------------------------------------ gutters and pane borders on every line of a block

TRACEBACK = [
    "[2025-02-28 09:28:25 TP7] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/usr/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py", line 1825, in run_scheduler_process',
    "    scheduler.event_loop_overlap()",
    '  File "/usr/lib/python3.10/dist-packages/torch/utils/_contextlib.py", line 116, in decorate_context',
    "    return func(*args, **kwargs)",
    '  File "/usr/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py", line 1200, in event_loop_overlap',
]


def _crash(text: str) -> list[tuple]:
    return [(f["rule"], f.get("phase")) for f in analyze_text(text)["findings"] if f["severity"] == "error"]


def _numbered(fmt: str, first: int = 16433) -> str:
    return "".join(fmt.format(n=first + k, line=line) + "\n" for k, line in enumerate(TRACEBACK))


@pytest.mark.parametrize(
    "text",
    [
        '"2.log" 16498L, 2947832B\n' + _numbered("{n} {line}"),  # vim :set number (sglang-32182's shape)
        _numbered("{n:>6}\t{line}", first=1),  # cat -n, nl
        _numbered("{n:>7} {line}", first=98),  # less -N, the numbers growing a digit inside the column
    ],
)
def test_a_traceback_behind_a_line_number_gutter_is_read(text):
    assert _crash(text) == [("runtime-crash", "serving")]


def test_grep_n_s_line_numbers_with_context_lines_are_read():
    # grep -n -A: "N:" before the matching line, "N-" before each line of context, numbers unpadded
    lines = [f"{98 + k}{':' if k == 0 else '-'}{line}" for k, line in enumerate(TRACEBACK)]
    assert _crash("\n".join(lines) + "\n") == [("runtime-crash", "serving")]


def test_a_vim_gutter_with_skipped_and_empty_numbered_lines_is_read():
    lines = _numbered("{n} {line}").splitlines()
    text = "\n".join([*lines[:4], *("16439 " + line[6:] for line in lines[5:]), "16440"]) + "\n"
    assert _crash(text) == [("runtime-crash", "serving")]


def test_a_traceback_inside_a_pane_border_is_read():
    # sglang-4017's shape: a k9s-style log pane, each line padded to the pane's right bar, continuation lines after "│ "
    width = 130
    rows = [TRACEBACK[0].ljust(width) + "│", *("│ " + line.ljust(width - 2) + "│" for line in TRACEBACK[1:-1])]
    text = "\n".join([*rows, "│ " + TRACEBACK[-1][:60]]) + "\n"
    assert _crash(text) == [("runtime-crash", "serving")]


def test_a_rich_panel_around_a_log_is_read():
    inner = [f"│ {line:<118} │" for line in TRACEBACK]
    text = "╭" + "─" * 120 + "╮\n" + "\n".join(inner) + "\n╰" + "─" * 120 + "╯\n"
    assert _crash(text) == [("runtime-crash", "serving")]


def test_numbered_native_frames_and_box_tables_keep_their_form():
    ucx = [
        "==== backtrace (tid: 231810) ====",
        " 0  /usr/lib/x86_64-linux-gnu/libucs.so.0(ucs_handle_error+0x2e4) [0x7f2d1c0a1234]",
        " 1  /usr/lib/x86_64-linux-gnu/libucs.so.0(+0x2f4f1) [0x7f2d1c0a44f1]",
        " 2  /usr/lib/x86_64-linux-gnu/libucs.so.0(+0x2f6ca) [0x7f2d1c0a46ca]",
    ]
    assert undecorated(ucx, range(len(ucx))) == {}
    nvitop = [
        "╒═════════════════════════════╤══════════════════════╕",
        "│ GPU  Name        Persistence-M│ Bus-Id        Disp.A │",
        "╞═════════════════════════════╪══════════════════════╡",
        "│   0  H100 80GB HBM3   On      │ 00000000:18:00.0 Off │",
        "│   0  12345 C alice 70000MiB  0  100.0  5.0  1:00:00  python -m sglang.launch_server    │",
        "│   1  12346 C alice 70000MiB  0  100.0  5.0  1:00:00  python -m sglang.launch_server    │",
    ]
    assert undecorated(nvitop, range(len(nvitop))) == {}
    numbered_list = ["1 apple", "2 pear", "3 plum"]  # numbered, but no line of a log in it
    assert undecorated(numbered_list, [0]) == {}
    times = ["10:00:01 [2025-01-01 10:00:01] a", "10:00:02 [2025-01-01 10:00:02] b", "10:00:03 [2025-01-01 10:00:03] c"]
    assert undecorated(times, [0]) == {}  # a time's hour is no rising line number


def test_a_gpu_id_rank_tag_is_named_as_printed():
    # sglang-744's shape: sglang 0.2.x's "[gpu_id=N]" prefix; logscope/1 names a rank as printed (ranks[].rank)
    text = (
        "[gpu_id=0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=15.61 GB\n"
        "[gpu_id=1] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=15.95 GB\n"
    )
    ranks = analyze_text(text)["launches"][0]["ranks"]
    assert [(r["rank"], r["phases"][0]["avail_gib"]) for r in ranks] == [("gpu_id=0", 15.61), ("gpu_id=1", 15.95)]


# ------------------------------------------------------------ a service manager's prefix on every line


@pytest.mark.parametrize(
    "prefix",
    [
        "Dec 07 04:24:14 gpu-node python3[1234]: ",  # journalctl --output=short (the classic syslog line)
        "Dec  7 04:24:14.123456 gpu-node sglang[1234]: ",  # short-precise, a one-digit day padded
        "2025-02-28T09:28:25+0000 gpu-node python3[1234]: ",  # short-iso
        "0|sglang  | ",  # pm2 logs' stream (pm_id|name padded, then " | ")
        "[default0]:",  # torchrun's tee of a worker's output (torch.distributed.elastic TailLog: [{role}{local_rank}]:)
    ],
)
def test_a_traceback_behind_a_service_manager_s_prefix_is_placed_by_its_frames(prefix):
    text = "".join(prefix + line + "\n" for line in [*TRACEBACK[:3], "RuntimeError: boom"])
    assert _crash(text) == [("runtime-crash", "serving")]

"""Forms the mine12a batch showed on its one scoring (issue 43), each in the real shape of a built paste
(fixtures/mined): a traceback whose every line carries a log console's month-day time stamp (sglang-23195)."""

from __future__ import annotations

import pytest

from logscope.core.stage_functions import place_call, place_stack
from logscope.pipeline.ingest.ingest import unwrap
from tests.helpers import ROOT, analyze_text

MINED = ROOT / "fixtures" / "mined"


def _rules(report: dict) -> list[str]:
    return [f["rule"] for f in report["findings"]]


# ------------------------------------------------------------ a log console's stamp before each traceback line


def test_a_console_stamp_before_each_traceback_line_is_taken_off():
    report = analyze_text((MINED / "sglang-23195.txt").read_text())
    (crash,) = report["findings"]
    assert crash["rule"] == "startup-crash"
    assert "model_runner.py:479 __init__" in crash["message"]


def test_the_stamped_traceback_reads_as_the_plain_one():
    block = (
        "Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 3770, in run_scheduler_process\n'
        "    scheduler = Scheduler(\n"
        "                ^^^^^^^^^^\n"
        "RuntimeError: CUDA error: out of memory\n"
    )
    stamped = "".join(f"04-20 13:32:25.784{line}\n" for line in block.splitlines())
    plain, stamped_report = analyze_text(block), analyze_text(stamped)
    assert [f["message"] for f in stamped_report["findings"]] == [f["message"] for f in plain["findings"]]
    assert _rules(stamped_report) == ["startup-oom"]


@pytest.mark.parametrize(
    ("line", "unwrapped"),
    [
        # only a traceback's line loses the stamp (review12a item 3): words after one or two blanks keep it, and so
        # does Android logcat's threadtime line ("MM-DD HH:MM:SS.mmm  PID  TID L TAG: msg")
        ("04-20 13:32:25.784 something happened here", "04-20 13:32:25.784 something happened here"),
        ("04-20 13:32:25.784  something happened here", "04-20 13:32:25.784  something happened here"),
        (
            "12-07 10:00:01.123  4411  4412 I ActivityManager: Start proc",
            "12-07 10:00:01.123  4411  4412 I ActivityManager: Start proc",
        ),
        ('04-20 13:32:25.784  File "/app/x.py", line 3, in f', '  File "/app/x.py", line 3, in f'),
        ("04-20 13:32:25.784    scheduler = Scheduler(", "    scheduler = Scheduler("),
        ("04-20 13:32:25.784  ^^^^^^^^^^", "  ^^^^^^^^^^"),
    ],
)
def test_a_month_day_stamp_comes_off_a_tracebacks_line_only(line, unwrapped):
    assert unwrap(line) == unwrapped


# ------------------------------------------------------------ a usage example's metavariable is no value


def test_the_deprecation_warnings_example_is_no_launch():
    # sglang 0.5.12 launch_server.py warns with a usage example; the launch is the prompt's command above it
    report = analyze_text((MINED / "sglang-26122.txt").read_text())
    assert [launch["server_args"] for launch in report["launches"]] == [{"model_path": "Qwen/Qwen3.5-4B"}]


def test_a_run_with_one_placeholder_among_real_values_is_still_a_launch():
    (launch,) = analyze_text("python -m sglang.launch_server --model-path <model> --tp 4\n")["launches"]
    assert launch["server_args"] == {"model_path": "<model>", "tp_size": "4"}


# ------------------------------------------------------------ pip list rows of the other packages


def test_pip_list_rows_padded_to_the_widest_name_are_read():
    # pip 23.2.1 utils/misc.py tabulate pads each name to the widest one (sglang-3604's pip list, built)
    report = analyze_text((MINED / "sglang-3604.txt").read_text())
    assert report["versions"] == {
        "sglang": "0.4.1.4+cu126",
        "torch": "2.5.1.14+cu126",
        "transformers": "4.48.1",
        "triton": "3.0.0",
    }


# ------------------------------------------------------------ the weight loader's bar tells a startup failure's step


def test_an_unfinished_weight_bar_before_a_constructor_traceback_tells_the_step():
    # sglang-9747 (built): the shard loader at 0/2, then TP10's Scheduler constructor traceback cut above its step
    (crash,) = analyze_text((MINED / "sglang-9747.txt").read_text())["findings"]
    assert (crash["rule"], crash["phase"]) == ("startup-crash", "load_weight")
    assert "progress bar at 0/2" in crash["message"]


def test_a_finished_weight_bar_tells_no_step():
    text = (MINED / "sglang-9747.txt").read_text().replace("0% Completed | 0/2", "100% Completed | 2/2")
    (crash,) = analyze_text(text)["findings"]
    assert (crash["rule"], crash["phase"]) == ("startup-crash", "startup")


# ------------------------------------------------------------ a traceback cut under a frame: the call it makes


def test_a_traceback_cut_under_the_launch_scripts_frame_is_placed_by_the_call_it_makes():
    # sglang-2933 (built): launch_server.py <module> -> "server_args = prepare_server_args(sys.argv[1:])", cut below
    (crash,) = analyze_text((MINED / "sglang-2933.txt").read_text())["findings"]
    assert (crash["rule"], crash["phase"]) == ("startup-crash", "startup")
    assert "prepare_server_args" in crash["message"]


def test_the_call_places_nothing_when_the_traceback_goes_on_below_the_frame():
    # a frame whose callee is shown below it is placed by that callee, never by the source line's call
    frame = "/sgl-workspace/sglang/python/sglang/launch_server.py:11 <module>: server_args = prepare_server_args(sys.argv[1:])"
    assert place_call(frame) is not None and place_call(frame).stage == "startup"
    assert place_stack([frame]) is None
    assert place_stack([frame], cut=True) is not None

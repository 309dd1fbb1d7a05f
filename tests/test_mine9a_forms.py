"""Forms that mine9a's built pastes showed and nobody had read: a launch command quoted in a Markdown code span that
closes after its last flag, line-number gutters (vim `:set nu`, `cat -n`, `nl`, `less -N`) and box-drawn pane borders
(k9s, tmux, rich panels) on every line of a block."""

from __future__ import annotations

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


def test_a_class_outside_a_module_of_exceptions_is_no_exception_line():
    assert _failures("sglang.srt.configs.Config: loaded 3 entries\n") == []

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

"""Launch commands as mine7a's built pastes cut or wrote them: cut inside a quoted value, continued lines broken by a
blank line, sglang_router's launcher (which takes SGLang's server arguments)."""

from __future__ import annotations

from logscope.pipeline.parse.parsers.quote_cut import before_open_quote
from tests.helpers import analyze_text

_READING = "[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n"


def test_a_command_cut_inside_a_quoted_json_value_keeps_the_options_before_it():
    # sglang-20016's shape: assignments continued at column 0, then the launcher, cut inside --...-extra-config's JSON
    text = (
        'MOONCAKE_PROTOCOL="ascend" \\\nMOONCAKE_MASTER=10.0.0.1:50051 \\\npython -m sglang.launch_server \\\n'
        "--model-path /data/deepseek-r1-awq/ \\\n--tp-size 8 \\\n--hicache-storage-backend mooncake \\\n"
        "--hicache-storage-backend-extra-config '{\"prefetc\n"
    )
    launch = analyze_text(text + _READING)["launches"][0]
    assert launch["config"] == {"model_path": "/data/deepseek-r1-awq/", "tp_size": 8}
    args = {"model_path": "/data/deepseek-r1-awq/", "tp_size": "8", "hicache_storage_backend": "mooncake"}
    assert launch["server_args"] == args
    assert launch["environment"] == {"MOONCAKE_PROTOCOL": "ascend", "MOONCAKE_MASTER": "10.0.0.1:50051"}


def test_a_blank_line_ends_the_assignments_and_the_launch_after_it_is_read_up_to_its_cut_quote():
    # sglang-18366's shape: "NCCL_DEBUG=INFO \" then a blank line (bash ends the command there), then the launcher
    # cut inside a quoted --model-path: the path is unknown, the options before it are read
    text = (
        "CUDA_VISIBLE_DEVICES=0 \\\nNCCL_DEBUG=INFO \\\n\npython -m sglang.launch_server \\\n  --nnodes 2 \\\n"
        '  --node-rank 0 \\\n  --trust-remote-code \\\n  --model-path "/workspaces/models/DeepSeek-R1-Dist\n'
    )
    launch = analyze_text(text + _READING)["launches"][0]
    assert launch["config"] == {"nnodes": 2, "node_rank": 0, "trust_remote_code": True}


def test_the_word_that_opens_an_unclosed_quote_is_left_out():
    assert before_open_quote('python -m sglang.launch_server --tp 2 --model-path "/a/b') == (
        "python -m sglang.launch_server --tp 2 --model-path"
    )
    assert before_open_quote('--x \'{"a": 1}\' --y "q\\"r"') is None
    assert before_open_quote('--json-model-override-args \'{"rope": {"fac') == "--json-model-override-args"


def test_sglang_routers_launcher_gives_the_server_arguments_not_its_own():
    # sglang_router/launch_server.py (sglang-router 0.1.4 .. 0.3.2): ServerArgs.add_cli_args(parser), then the
    # router's own options under "--router-"; sglang-4160's one-line form, in a code span the copy cut
    text = (
        "command `python -m sglang_router.launch_server --router-worker-startup-timeout-secs 600 "
        "--router-balance-abs-threshold 3 --model-path /models/Llama-3.1-8B --dp-size 8 --tp 1 --trust-re\n"
    )
    launch = analyze_text(text)["launches"][0]
    assert launch["server_args"] == {"model_path": "/models/Llama-3.1-8B", "dp_size": "8", "tp_size": "1"}
    assert launch["config"] == {"model_path": "/models/Llama-3.1-8B", "dp_size": 8, "tp_size": 1}


def test_a_launch_in_a_code_span_cut_by_the_copy_is_read_and_a_closed_one_still_is():
    for text in (
        "I ran `python3 -m sglang.launch_server --model-path /models/m --tp 2 --trust-rem\n",
        "I ran `python3 -m sglang.launch_server --model-path /models/m --tp 2` and it hung\n",
    ):
        assert analyze_text(text)["launches"][0]["config"] == {"model_path": "/models/m", "tp_size": 2}


def test_a_code_span_cut_by_the_copy_drops_its_last_word_and_a_wrapped_one_is_not_read_cut():
    # review7 item 8: the copy's cut may fall inside the last word ("--tp 1" of "--tp 16"), as in close_at_end
    cut = analyze_text("I ran `python3 -m sglang.launch_server --model-path /models/m --tp 1\n")["launches"]
    assert cut[0]["config"] == {"model_path": "/models/m"}
    # a span wrapped onto the next line was not cut: its first line alone is no command to read
    wrapped = (
        "I start it with `python -m sglang.launch_server --model-path /models/Qwen3-8B --tp 1\n"
        "6 --mem-fraction-static 0.85` and it OOMs.\n"
    )
    result = analyze_text(wrapped)
    # (its sentence states the failure, "and it OOMs" (silent14's stated_failure, 38a281a7), an OOM of unknown time
    # (oom14's stated OOM): that failure's launch is there, with no setting read from the cut span)
    assert [launch["config"] for launch in result["launches"]] == [{}]
    assert [(f["rule"], f["launch"]) for f in result["findings"]] == [("oom-time-unknown", 1)]


def test_the_routers_own_launcher_is_no_server_launch():
    assert (
        analyze_text("python -m sglang_router.launch_router --worker-urls http://a:30000 --policy cache_aware\n")["launches"]
        == []
    )

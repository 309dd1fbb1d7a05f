"""Launch-command facts (issue 43 item 4): bash's line continuation after any character, argparse's --help, another
engine's `name: value` settings, bash arrays cut open or assigned in one branch of an if, benchmark arguments, and
list options that stop at the first word argparse would not take."""

from __future__ import annotations

from logscope.core import server_flags
from logscope.core.server_flags import benchmark_option, may_take, takes, value_type
from logscope.pipeline.parse.parsers.shell_arrays import ShellArrayReader
from tests.helpers import ROOT, analyze_text

MINED = ROOT / "fixtures" / "mined"


def _args(text: str) -> list[dict]:
    return [launch["server_args"] for launch in analyze_text(text)["launches"]]


# ------------------------------------------------------------ a backslash right after a value continues the command


def test_a_backslash_right_after_a_value_continues_the_command():
    # the real shape of sglang-10570 (built): "--speculative-num-steps 1\" with no blank before the backslash
    text = (MINED / "sglang-10570.txt").read_text(encoding="utf-8")
    (args,) = [a for a in _args(text) if a]
    assert args["speculative_num_steps"] == "1" and args["speculative_eagle_topk"] == "1"
    assert args["tool_call_parser"] == "deepseekv31" and args["reasoning_parser"] == "deepseek-v3"
    assert args["chat_template"] == "/sgl-workspace/sglang/examples/chat_template/tool_chat_template_deepseekv31.jinja"


def test_a_launcher_s_line_continued_with_no_blank_before_its_backslash_goes_on():
    text = "python3 -m sglang.launch_server --model-path /m --tp 8\\\n  --mem-fraction-static 0.8 \\\n  --port 1\n"
    assert _args(text) == [{"model_path": "/m", "tp_size": "8", "mem_fraction_static": "0.8", "port": "1"}]


def test_a_quoted_backslash_at_the_end_ends_the_command():
    text = "python3 -m sglang.launch_server \\\n  --tp 2 \\\n  --chat-template C:\\\\\n  --port 1\n"
    (args,) = _args(text)
    assert args == {"tp_size": "2", "chat_template": "C:\\"}


# ------------------------------------------------------------ --help starts nothing


def test_a_help_command_gives_no_setting():
    # the real shape of sglang-27654 (built): "$ python3 -m sglang.launch_server --help" then the import's traceback
    report = analyze_text((MINED / "sglang-27654.txt").read_text(encoding="utf-8"))
    assert all("help" not in launch["server_args"] for launch in report["launches"])
    assert _args("python3 -m sglang.launch_server --tp 8 -h\n") == [{}]


# ------------------------------------------------------------ another engine's settings are no SGLang flag


def test_a_name_value_line_of_another_engine_s_config_is_no_flag():
    # dynamo-1492 (built): a Dynamo yaml of vLLM worker settings under the OOM
    text = "PrefillWorker:\n  gpu-memory-utilization: 0.98\n  max-model-len: 16384\n"
    assert all(not args for args in _args(text))
    assert _args("- mem-fraction-static: 0.75\n- tp-size: 4\n") == [{"mem_fraction_static": "0.75", "tp_size": "4"}]


# ------------------------------------------------------------ bash arrays


def test_an_array_cut_open_hands_its_lines_back_to_the_other_readers():
    text = (
        "ARGS=(\n"
        "    --model-path /models/x\n"
        "    --tp 8\n"
        "    python3 -m sglang.launch_server --model-path /models/y \\\n"
        "        --tp 4 --mem-fraction-static 0.8\n"
    )
    assert _args(text) == [{"model_path": "/models/y", "tp_size": "4", "mem_fraction_static": "0.8"}]


def test_an_array_assigned_in_one_branch_of_an_if_is_not_expanded_outside_it():
    text = (
        'if [ "$ROLE" = prefill ]; then\n'
        "  ARGS=(--disaggregation-mode prefill --tp 8)\n"
        "fi\n"
        'python3 -m sglang.launch_server --model-path /m "${ARGS[@]}"\n'
    )
    assert _args(text) == [{"model_path": "/m"}]


def test_an_array_assigned_in_a_branch_is_expanded_by_the_launch_in_that_branch():
    text = (
        'if [ "$ROLE" = prefill ]; then\n'
        "  ARGS=(--disaggregation-mode prefill --tp 8)\n"
        '  python3 -m sglang.launch_server --model-path /m "${ARGS[@]}"\n'
        "fi\n"
    )
    assert _args(text) == [{"model_path": "/m", "disaggregation_mode": "prefill", "tp_size": "8"}]


def test_an_array_assigned_after_an_if_is_expanded():
    text = 'if [ -z "$X" ]; then\n  echo unset\nfi\nARGS=(--tp 8)\npython3 -m sglang.launch_server --model-path /m "${ARGS[@]}"\n'
    assert _args(text) == [{"model_path": "/m", "tp_size": "8"}]


def test_asking_whether_a_branch_head_starts_a_block_changes_nothing():
    # review7 item 11: starts() is a predicate; where the branch begins is taken when the head's block opens
    reader = ShellArrayReader("paste")
    head = 'if [ "$ROLE" = prefill ]; then'
    assert reader.starts(head) and reader.branch is None
    assert reader.open(1, head).close() == [] and reader.branch == 0


def test_a_release_s_options_are_named_fields():
    # review7 item 11: what server_flags reads per option is a NamedTuple, not a positional 4-tuple
    (option,) = server_flags._resolved("tp_size", "0.5.23")
    assert (option.dest, option.takes, option.type, option.choices) == ("tp_size", "one", "int", None)


# ------------------------------------------------------------ a list option takes only the values argparse would


def test_the_released_argparse_types_each_value_of_a_list_option():
    # sglang 0.4.1-0.5.13 ServerArgs.add_cli_args: parser.add_argument("--cuda-graph-bs", type=int, nargs="+", ...)
    assert takes("cuda_graph_bs") == "many" and value_type("cuda_graph_bs") == "int"
    assert value_type("bucket_time_to_first_token") == "float"  # type=float, nargs="+"
    assert may_take("cuda_graph_bs", "16") and not may_take("cuda_graph_bs", "and")
    assert may_take("attention_backend", "fa3")  # in the choices of the releases that fix them


def test_a_list_option_stops_at_the_first_word_that_is_not_its_value():
    text = "I ran `python3 -m sglang.launch_server --model-path /m --cuda-graph-bs 1 2 4 and got` an OOM at capture.\n"
    (args,) = _args(text)
    assert args == {"model_path": "/m", "cuda_graph_bs": "1 2 4"}
    (args,) = _args("python3 -m sglang.launch_server --cuda-graph-bs 1 2 4 8 --tp 2\n")
    assert args == {"cuda_graph_bs": "1 2 4 8", "tp_size": "2"}


def test_a_list_option_with_no_value_of_its_type_is_not_read():
    (args,) = _args("python3 -m sglang.launch_server --tp 2 --cuda-graph-bs all of them\n")
    assert args == {"tp_size": "2"}


# ------------------------------------------------------------ a benchmark's own options are no server setting


def test_a_benchmark_s_own_options_are_no_server_setting():
    # the real shape of sglang-3333 (built); sglang 0.4.2 bench_one_batch.py: ServerArgs.add_cli_args(parser) and
    # BenchArgs.add_cli_args(parser) on one parser, then load_model -> ModelRunner(server_args) in the same process
    line = (MINED / "sglang-3333.txt").read_text(encoding="utf-8").splitlines()[0]
    (launch,) = analyze_text(line + "\n")["launches"]
    assert launch["server_args"] == {
        "model_path": "deepseek-ai/DeepSeek-V3",
        "tp_size": "8",
        "trust_remote_code": True,
        "disable_cuda_graph": True,
    }
    assert benchmark_option("sglang.bench_one_batch", "input")  # the prefix of BenchArgs' --input-len
    assert not benchmark_option("sglang.launch_server", "batch_size")


# ------------------------------------------------------------ a copy cut inside a code block


def test_a_command_s_last_word_is_not_read_where_the_copy_ended_inside_a_code_block():
    # the real shapes of sglang-33740 and sglang-4767 (built): a fence opened and never closed, the command's last
    # line the copy's last ("--model-path za" of zai-org/..., "--host 0" of 0.0.0.0)
    cut = analyze_text((MINED / "sglang-33740.txt").read_text(encoding="utf-8"))
    assert [launch["server_args"].get("model_path") for launch in cut["launches"]] == ["zai-org/GLM-5.2-FP8", None]
    cut = analyze_text((MINED / "sglang-4767.txt").read_text(encoding="utf-8"))
    assert [launch["server_args"].get("host") for launch in cut["launches"]] == ["0.0.0.0", "0.0.0.0", None]


def test_a_command_in_a_closed_code_block_or_none_is_read_to_its_last_word():
    command = "python3 -m sglang.launch_server \\\n  --tp 8 \\\n  --model-path zai\n"
    assert _args("```\n" + command + "```\n") == [{"tp_size": "8", "model_path": "zai"}]
    assert _args(command) == [{"tp_size": "8", "model_path": "zai"}]


def test_bench_offline_throughput_is_read_as_its_grammar_reads_it():
    # sglang 0.4.2 bench_offline_throughput.py: ServerArgs.add_cli_args(parser), BenchArgs.add_cli_args(parser), then
    # Engine(**dataclasses.asdict(server_args)) in the same process; the grammar's MODULE names it, the prefilter did not
    (args,) = _args("python3 -m sglang.bench_offline_throughput --model-path /m --tp 2 --num-prompts 10\n")
    assert args == {"model_path": "/m", "tp_size": "2"}


def test_a_word_no_release_s_choices_hold_is_printed_but_no_setting():
    # ServerArgs.add_cli_args: parser.add_argument("--deepep-mode", type=str, choices=["normal", "low_latency", "auto"])
    (launch,) = analyze_text("python3 -m sglang.launch_server --tp 8 --deepep-mode lowlatency\n")["launches"]
    assert launch["server_args"]["deepep_mode"] == "lowlatency" and "deepep_mode" not in launch["config"]
    (launch,) = analyze_text("python3 -m sglang.launch_server --tp 8 --deepep-mode low_latency\n")["launches"]
    assert launch["config"]["deepep_mode"] == "low_latency"

"""Forms of batch mine15a's built pastes (fixtures/mined, branch mine15a): a floor written for Python in a hand-written
environment list ("Python: 3.12+"), a topology matrix that check_env printed and the copy cut inside its last row, and a
launch command after a few Chinese words and no colon ("执行 python -m sglang.launch_server ..."), a client's error for a
request the server answered with a 4xx status, a traceback through the `sglang serve` command's launcher, and a sentence
of when it failed after a line only startup code prints."""

from __future__ import annotations

from tests.helpers import analyze_text, stated_versions


def test_a_python_floor_in_an_environment_list_is_no_interpreter_release():
    # sglang-30335's shape: "Python: 3.12+" opens a hand-written list the way check_env's first line does
    text = "### Environment\n\n  OS: Linux\n  Python: 3.12+\n  Hardware: Intel XPU / NVIDIA CUDA\n"
    assert "python" not in stated_versions(text)
    # check_env's own line (sys.version: three numbers) is still read, a source build's "+" included
    assert stated_versions("Python: 3.12.3 (main, Nov  6 2025, 13:44:16) [GCC 13.3.0]\nCUDA available: True\n") == {
        "python": "3.12.3"
    }
    assert stated_versions("Python: 3.12.0+ (heads/3.12:abc, Oct 1 2025) [GCC 13.3.0]\nCUDA available: True\n") == {
        "python": "3.12.0+"
    }


_CHECK_ENV_CUT_IN_TOPOLOGY = (
    "Python: 3.12.9 (main, Feb  6 2025, 18:56:27) [GCC 11.2.0]\n"
    "CUDA available: True\n"
    "GPU 0,1,2,3: NVIDIA H20\n"
    "NVIDIA Topology: \n"
    "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
    "GPU0     X      NV18    NV18    NV18    0-105   0               N/A\n"
    "GPU1    NV18     X      NV18    NV18    0-105   0               N/A\n"
    "GPU2    NV18    NV18     X      NV1\n"
)


def test_check_envs_topology_cut_in_its_last_row_drops_the_cut_cell():
    # sglang-7387's shape: the copy ends inside GPU2's row, "NV1" the cut rest of "NV18"
    links = analyze_text(_CHECK_ENV_CUT_IN_TOPOLOGY)["topology"]["links"]
    assert [2, 3, "NV1"] not in links
    assert sorted(map(tuple, links)) == [(0, 1, "NV18"), (0, 2, "NV18"), (0, 3, "NV18"), (1, 2, "NV18"), (1, 3, "NV18")]
    # the copy cut after a whole cell ("NV18", as the rows above hold it): that cell is read
    whole_cell = _CHECK_ENV_CUT_IN_TOPOLOGY.replace("NV1\n", "NV18\n")
    assert [2, 3, "NV18"] in analyze_text(whole_cell)["topology"]["links"]


def _configs(text: str) -> list[dict]:
    return [launch["config"] for launch in analyze_text(text)["launches"] if launch.get("config")]


def test_a_launch_after_chinese_words_without_a_colon():
    # sglang-2418's shape: "执行 <command> 过一段时间就出现下面的错误" ("run <command>; after a while the error below appears")
    text = (
        " 执行 python -m sglang.launch_server  --model-path /models/Qwen2.5-7B  --tp-size 4   --host 0.0.0.0  --port 8008"
        " 过一段时间就出现下面的错误\n"
    )
    [config] = _configs(text)
    assert config["model_path"] == "/models/Qwen2.5-7B"
    assert config["tp_size"] == 4
    # a question before the launcher names the command, it states no run (facts15's launcher_in_sentence reads a
    # stated run, "I run python -m ... --tp-size 4", as a command)
    assert _configs("Can I run python -m sglang.launch_server --model-path /models/Qwen2.5-7B --tp-size 4\n") == []


_FAILURE_RULES = {"failure-time-unknown", "runtime-crash", "startup-crash"}


def _failure_rules(text: str) -> set[str]:
    return {finding["rule"] for finding in analyze_text(text)["findings"]} & _FAILURE_RULES


def test_a_clients_4xx_error_is_no_failure_of_the_server():
    # sglang-12745's shape: openai's BadRequestError for a request the running server answered with a 400
    refused = (
        "error message as follows:\n"
        "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'The following requested LoRA adapters"
        " are not loaded: 120b', 'type': 'BadRequestError', 'param': None, 'code': 400}\n"
    )
    assert _failure_rules(refused) == set()
    # the server's own error answer (a 500) is still a failure, placed while serving
    answered = refused.replace("BadRequestError: Error code: 400", "InternalServerError: Error code: 500")
    assert _failure_rules(answered) == {"runtime-crash"}


_CLI_CHAINED = (
    "Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.12/dist-packages/transformers/models/auto/configuration_auto.py", line 105, in'
    " __getitem__\n"
    "    raise KeyError(key)\n"
    "KeyError: 'gemma4_assistant'\n"
    "\n"
    "During handling of the above exception, another exception occurred:\n"
    "\n"
    "Traceback (most recent call last):\n"
    '  File "/usr/local/bin/sglang", line 6, in <module>\n'
    "    sys.exit(main())\n"
    '  File "/sgl-workspace/sglang/python/sglang/cli/main.py", line 40, in main\n'
    "    serve(args, extra_argv)\n"
)


def test_a_traceback_through_the_sglang_serve_command_is_at_startup():
    # sglang-26640's shape: the chained traceback, cut, goes through the `sglang` command's main into serve (sglang
    # 0.5.10.post1 .. 0.5.23 sglang/cli/main.py; serve runs prepare_server_args and the launch script's run_server)
    assert _failure_rules(_CLI_CHAINED) == {"startup-crash"}
    # main's other subcommand (a one-off diffusion run) places nothing
    generated = _CLI_CHAINED.replace("    serve(args, extra_argv)\n", "    generate(args, extra_argv)\n")
    assert _failure_rules(generated) == {"failure-time-unknown"}


def test_a_sentence_of_when_it_failed_outweighs_a_startup_only_line_before_it():
    # sglang-24121's shape: a line only startup code prints (HostKVCache.__init__'s "Allocating ... host memory for
    # hierarchical KV cache."), then the paste's own words place the crash at the first request
    log = (
        "```\n"
        "[TP0] Allocating 14.06 GB host memory for hierarchical KV cache.\n"
        "```\n"
        "\n"
        "{said}\n"
        "\n"
        "```\n"
        "[TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        "RuntimeError: Destination indices must be a CUDA tensor\n"
        "```\n"
    )
    said = "CUDA graphs capture successfully. On the first actual inference request, the scheduler crashes:"
    assert _failure_rules(log.format(said=said)) == {"runtime-crash"}
    # without the sentence, the line before it places it at startup
    assert _failure_rules(log.format(said="Then:")) == {"startup-crash"}

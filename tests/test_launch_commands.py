"""Launch commands as people paste them: continued over lines, after VAR=value lines, in docker run with -e,
through torchrun, with a prompt; the same flags give the same config whichever way they are written."""

from __future__ import annotations

import pytest

from tests.helpers import analyze_text

FLAGS = "--model-path /models/DeepSeek-V3 --tp 4 --mem-fraction-static 0.82 --enable-dp-attention"
CONFIG = {"model_path": "/models/DeepSeek-V3", "tp_size": 4, "mem_fraction_static": 0.82, "enable_dp_attention": True}

FORMS = {
    "one line": f"python3 -m sglang.launch_server {FLAGS}\n",
    "continued": "python3 -m sglang.launch_server \\\n    "
    + " \\\n    ".join(["--model-path /models/DeepSeek-V3", "--tp 4", "--mem-fraction-static 0.82", "--enable-dp-attention"])
    + "\n",
    "env lines first": f"CUDA_VISIBLE_DEVICES=4,5,6,7 \\\nNCCL_DEBUG=INFO \\\npython3 -m sglang.launch_server \\\n  {FLAGS}\n",
    "prompt": f"$ CUDA_VISIBLE_DEVICES=4,5,6,7 NCCL_DEBUG=INFO python -m sglang.launch_server {FLAGS}\n",
    "docker": f"docker run --gpus all --shm-size 32g -e CUDA_VISIBLE_DEVICES=4,5,6,7 --env NCCL_DEBUG=INFO "
    f"lmsysorg/sglang:latest python3 -m sglang.launch_server {FLAGS}\n",
    "docker continued": f"docker run --gpus all \\\n  -e CUDA_VISIBLE_DEVICES=4,5,6,7 \\\n  -e NCCL_DEBUG=INFO \\\n"
    f"  lmsysorg/sglang:latest \\\n  python3 -m sglang.launch_server {FLAGS}\n",
    "torchrun": f"torchrun --nproc_per_node 4 -m sglang.launch_server {FLAGS}\n",
    "sglang serve": f"sglang serve {FLAGS}\n",
    # assignments before nohup, the command sent to the background (sglang-6854's launch lines, built)
    "assignments before nohup": "CUDA_VISIBLE_DEVICES=4,5,6,7 NCCL_DEBUG=INFO  nohup "
    f"python3 -m sglang.launch_server {FLAGS} 2>&1 &\n",
    # a script's commented-out lines above the command, each ending in a backslash (sglang-11744's deploy script, built)
    "commented lines first": "# CUDA_LAUNCH_BLOCKING=1 \\\n# TORCH_USE_CUDA_DSA=1 \\\n"
    f"CUDA_VISIBLE_DEVICES=4,5,6,7 NCCL_DEBUG=INFO \\\n    python3 -m sglang.launch_server \\\n    {FLAGS}\n",
    # ai-dynamo's SGLang worker takes SGLang's server arguments (dynamo/sglang/args.py of ai-dynamo 0.7.1:
    # ServerArgs.add_cli_args(parser)); continued inside a code span (dynamo-5048's launch, built)
    "ai-dynamo's SGLang worker": f"python3 -m dynamo.sglang {FLAGS}\n",
    "ai-dynamo 0.4's decode worker": f"python3 -m dynamo.sglang.decode_worker {FLAGS}\n",
    "ai-dynamo's worker in a code span": "`python3 -m dynamo.sglang \\\n  "
    + " \\\n  ".join(["--model-path /models/DeepSeek-V3", "--tp 4", "--mem-fraction-static 0.82", "--enable-dp-attention"])
    + "\n `\n",
}


@pytest.mark.parametrize("form", FORMS)
def test_every_form_gives_the_config(form):
    launch = analyze_text(FORMS[form] + "[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n")["launches"][0]
    assert launch["config"] == CONFIG
    assert set(launch["config_source"].values()) == {"launch_command"}
    if form in ("env lines first", "prompt", "docker", "docker continued", "commented lines first", "assignments before nohup"):
        assert launch["environment"] == {"CUDA_VISIBLE_DEVICES": "4,5,6,7", "NCCL_DEBUG": "INFO"}


def test_another_module_of_ai_dynamo_is_no_sglang_launch():
    assert analyze_text("python3 -m dynamo.frontend --http-port 8000 --tp 4\n")["launches"] == []
    assert analyze_text("python3 -m dynamo.sglang.utils.clear_namespace --tp 4\n")["launches"] == []


def test_continued_lines_count_as_recognised():
    report = analyze_text(FORMS["env lines first"])
    assert report["coverage"]["recognized_lines"] == 4 == report["coverage"]["lines"]


def test_credentials_in_the_environment_are_named_not_echoed():
    text = (
        "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=256 "
        "AWS_SECRET_ACCESS_KEY=abc/def python3 -m sglang.launch_server --tp 2\n"
    )
    env = analyze_text(text)["launches"][0]["environment"]
    assert env == {
        "HF_TOKEN": "<redacted>",
        "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "256",
        "AWS_SECRET_ACCESS_KEY": "<redacted>",
    }


def test_every_server_arg_is_carried_as_printed_with_its_source():
    text = (
        "python3 -m sglang.launch_server --model-path /models/x --tp 8 --port 31000 --disable-radix-cache "
        "--served-model-name ds\n"
        "[2025-11-04 05:20:00] server_args=ServerArgs(model_path='/models/x', tp_size=8, port=30000, random_seed=42, "
        "api_key='s3cret', disaggregation_mode='prefill', num_reserved_decode_tokens=512, attention_backend=None, "
        "mem_fraction_static=0.85, enable_dp_attention=False)\n"
    )
    launch = analyze_text(text)["launches"][0]
    args, source = launch["server_args"], launch["server_args_source"]
    # the dump's fields, typed as the dump prints them, win over the command's words
    assert args["port"] == 30000 and source["port"] == "server_args"
    assert args["random_seed"] == 42 and args["num_reserved_decode_tokens"] == 512
    assert args["attention_backend"] is None and args["enable_dp_attention"] is False
    assert args["disaggregation_mode"] == "prefill"
    assert args["api_key"] == "<redacted>"
    # what only the command states is there too, as written
    assert args["disable_radix_cache"] is True and source["disable_radix_cache"] == "launch_command"
    assert args["served_model_name"] == "ds"
    assert launch["config"]["mem_fraction_static"] == 0.85


@pytest.mark.parametrize(
    "prose",
    [
        "I start it with `python -m sglang.launch_server --model-path m --tp 2 --mem-fraction-static 0.85` on 2 GPUs.",
        "`python3 -m sglang.launch_server --model-path m --tp 2 --mem-fraction-static 0.85`",
    ],
)
def test_a_launch_command_in_a_code_span_is_read_up_to_the_span_end(prose):
    launch = analyze_text(prose + "\n[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n")["launches"][0]
    assert launch["config"]["tp_size"] == 2 and launch["config"]["mem_fraction_static"] == 0.85


def test_each_launch_command_of_a_paste_is_a_launch_of_its_own():
    """Prefill and decode (or node 0 and node 1) pasted one after the other: each command keeps its own values,
    none is lost to the first one's."""
    text = (
        "Prefill:\n"
        "python -m sglang.launch_server --model-path /models/llama --disaggregation-mode prefill --port 30000 "
        "--base-gpu-id 0\n\n"
        "Decode:\n"
        "python -m sglang.launch_server --model-path /models/llama --disaggregation-mode decode --port 30001 "
        "--base-gpu-id 1\n"
    )
    launches = analyze_text(text)["launches"]
    assert [(one["config"]["disaggregation_mode"], one["config"]["base_gpu_id"]) for one in launches] == [
        ("prefill", 0),
        ("decode", 1),
    ]
    assert [one["server_args"]["port"] for one in launches] == ["30000", "30001"]


def test_the_same_command_twice_stays_one_launch():
    command = "python3 -m sglang.launch_server --model-path /models/x --tp 4 --enable-dp-attention\n"
    launches = analyze_text(command + "It fails again with\n" + command)["launches"]
    assert [launch["config"] for launch in launches] == [{"model_path": "/models/x", "tp_size": 4, "enable_dp_attention": True}]


def test_a_hard_wrapped_command_is_read_whole():
    """A command an editor wrapped with no backslashes: cut after "python3 -m", after an option whose value is on
    the next line, and with lines that go on with options."""
    text = (
        "my command:\n"
        "pip3 install mooncake-transfer-engine && python3 -m\n"
        "sglang.launch_server --nnodes 2 --model-path\n"
        "/models/DeepSeek-V3\n"
        " --tp 16 --trust-remote-code --disaggregation-mode decode --port\n"
        "30000 --host 0.0.0.0\n"
        "--mem-fraction-static 0.82 --context-length 4096\n"
        "\n"
        "and the nodes can reach each other.\n"
    )
    launch = analyze_text(text)["launches"][0]
    assert launch["config"] == {
        "nnodes": 2,
        "model_path": "/models/DeepSeek-V3",
        "tp_size": 16,
        "trust_remote_code": True,
        "disaggregation_mode": "decode",
        "mem_fraction_static": 0.82,
        "context_length": 4096,
    }
    assert launch["server_args"]["port"] == "30000"


def test_a_value_the_shell_expands_is_not_read_as_the_value():
    text = "python3 -m sglang.launch_server --nnodes $(LWS_GROUP_SIZE) --node-rank $RANK --tp 16 --model-path ${MODEL}\n"
    launch = analyze_text(text)["launches"][0]
    assert launch["config"] == {"tp_size": 16}
    assert launch["server_args"]["nnodes"] == "$(LWS_GROUP_SIZE)"  # as printed


FIELD_FORMS = {
    # Kubernetes' args alone, under an image whose entrypoint launches SGLang
    "args list": '        args:\n          - --model-path\n          - /models/x\n          - --tp\n          - "8"\n'
    '          - --mem-fraction-static\n          - "0.8"\n',
    "args flow list": '        "args": ["--model-path", "/models/x", "--tp", "8", "--mem-fraction-static", "0.8"],\n',
    # compose's folded block scalar: the command's words on the lines under it
    "folded command": "    command: >\n      python3 -m sglang.launch_server --model-path /models/x\n"
    "      --tp 8 --mem-fraction-static 0.8\n",
    # a Dockerfile's exec form
    "dockerfile": 'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "/models/x", "--tp", "8", '
    '"--mem-fraction-static", "0.8"]\n',
}


@pytest.mark.parametrize("form", FIELD_FORMS)
def test_a_command_or_its_flags_as_a_field_give_the_config(form):
    (launch,) = analyze_text(FIELD_FORMS[form])["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8, "mem_fraction_static": 0.8}


# a mapping's keys have no order: the launcher's field may come under the flags' own (compose's `command:` over its
# `entrypoint:`, Kubernetes' `args:` over its `command:`); its words still run first
FLAGS_OVER_LAUNCHER = {
    "compose command list over entrypoint": "    image: lmsysorg/sglang:v0.5.2-cu126\n    command:\n"
    "      - --model-path=/models/x\n      - --tp-size=8\n      - --trust-remote-code\n"
    "      - --mem-fraction-static=0.8\n"
    '    entrypoint: ["python3", "-m", "sglang.launch_server"]\n',
    "compose command string over entrypoint": "    command: --model-path /models/x --tp 8 --trust-remote-code "
    "--mem-fraction-static 0.8\n    entrypoint: python3 -m sglang.launch_server\n",
    "k8s args over command": "        - name: sglang\n          args:\n            - --model-path\n            - /models/x\n"
    '            - --tp\n            - "8"\n            - --trust-remote-code\n            - --mem-fraction-static\n'
    '            - "0.8"\n          command: ["python3", "-m", "sglang.launch_server"]\n',
    # review13a's item 8: the flags' field a one-line flow list of fewer flags than a list of flags alone needs
    "compose command flow list over entrypoint": '    image: lmsysorg/sglang:latest\n    command: ["--model-path", '
    '"/models/x", "--tp", "8"]\n    entrypoint: ["python3", "-m", "sglang.launch_server"]\n',
    "k8s args flow list over command": '      image: lmsysorg/sglang:latest\n      args: ["--model-path", "/models/x", '
    '"--tp", "8"]\n      command: ["python3", "-m", "sglang.launch_server"]\n',
}
FLAGS_OVER_LAUNCHER_CONFIG = {"model_path": "/models/x", "tp_size": 8, "trust_remote_code": True, "mem_fraction_static": 0.8}


@pytest.mark.parametrize("form", FLAGS_OVER_LAUNCHER)
def test_flags_written_over_their_launcher_s_field_give_the_config(form):
    (launch,) = analyze_text(FLAGS_OVER_LAUNCHER[form])["launches"]
    if "flow list" in form:  # (two flags)
        assert launch["config"] == {"model_path": "/models/x", "tp_size": 8}
    else:
        assert launch["config"] == FLAGS_OVER_LAUNCHER_CONFIG


def test_a_flow_list_of_two_flags_with_no_launcher_s_field_is_no_launch():
    text = '    image: lmsysorg/sglang:latest\n    command: ["--model-path", "/models/x", "--tp", "8"]\n    ports:\n'
    assert analyze_text(text)["launches"] == []


def test_a_compose_command_of_flags_alone_under_another_engine_s_image_is_no_launch():
    # compose's `command:` is the image's arguments: flags alone with no launcher's `entrypoint:` are no SGLang launch,
    # though every flag here is also one of SGLang's names
    text = (
        "  vllm:\n    image: vllm/vllm-openai:v0.10.1\n    command:\n      - --model\n      - Qwen/Qwen3-8B\n"
        '      - --tensor-parallel-size\n      - "2"\n      - --port\n      - "8000"\n'
    )
    assert analyze_text(text)["launches"] == []


def test_an_args_list_of_something_else_is_no_launch():
    text = "        args:\n          - --config\n          - /etc/app.yaml\n          - --verbose\n"
    assert analyze_text(text)["launches"] == []


def test_a_server_config_file_s_lines_give_the_config():
    text = "model-path: /models/x\ntp-size: 8\nmem-fraction-static: 0.8\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8, "mem_fraction_static": 0.8}


def test_a_sentence_after_a_command_cut_at_a_number_option_is_not_its_value():
    text = "python3 -m sglang.launch_server --model-path /models/x --tp 2 --port\nand then it crashes at startup\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 2}
    assert "port" not in launch["server_args"]


@pytest.mark.parametrize(
    "line",
    [
        # the module's name as a command in a script's line or a code span (the shell cannot run it; the options are
        # still the user's)
        "`sglang.launch_server --model-path /models/m --host 0.0.0.0 --tp 2 --port 8004`",
        "sglang.launch_server --model-path /models/m --tp 2",
        # a command in a Python string that goes on past the line (a notebook, launch_server_cmd)
        'cmd = """python -m sglang.launch_server --model-path /models/m --tensor-parallel-size 2 --dtype bfloat16',
    ],
)
def test_a_command_without_its_launcher_or_inside_code_is_read(line):
    launch = analyze_text(line + "\n")["launches"][0]
    assert launch["config"]["tp_size"] == 2 and launch["config"]["model_path"] == "/models/m"


def test_an_import_of_the_module_is_no_command():
    assert analyze_text("from sglang.launch_server import launch_server\n")["launches"] == []


def test_a_number_cut_at_its_point_is_not_read():
    launch = analyze_text('cmd = """python -m sglang.launch_server --model-path /models/m --tp 2 --mem-fraction-static 0.\n')
    assert launch["launches"][0]["config"] == {"model_path": "/models/m", "tp_size": 2}


WRAPPED_FORMS = {
    "nohup, redirected, in the background": "NCCL_DEBUG=INFO nohup python3 -m sglang.launch_server {flags} > server.log 2>&1 &",
    "env with its options": "env -u http_proxy NCCL_DEBUG=INFO python3 -m sglang.launch_server {flags}",
    "time with its option": "NCCL_DEBUG=INFO /usr/bin/time -v python3 -m sglang.launch_server {flags} |& tee run.log",
    "numactl and taskset": "NCCL_DEBUG=INFO numactl -N 0 -m 0 taskset -c 0-31 python3 -m sglang.launch_server {flags}",
    "sudo behind a prompt": "$ sudo -E NCCL_DEBUG=INFO python3 -m sglang.launch_server {flags} 2>/dev/null; echo --tp 9",
    "a comment after it": "NCCL_DEBUG=INFO python3 -m sglang.launch_server {flags}  # on node 0 --tp 9",
    "another command after it": "NCCL_DEBUG=INFO python3 -m sglang.launch_server {flags} && curl localhost:30000 --tp 9",
    "under nohup behind a zsh prompt": "➜  sglang git:(main) ✗ NCCL_DEBUG=INFO nohup python3 -m sglang.launch_server "
    "{flags} > a.log 2>&1 &",
    "in a container": "docker exec -it -e NCCL_DEBUG=INFO sglang-box python3 -m sglang.launch_server {flags}",
    "as a job step": "srun -N 1 --gpus-per-node 4 env NCCL_DEBUG=INFO python3 -m sglang.launch_server {flags}",
    "after another command": "cd /workspace/sglang && NCCL_DEBUG=INFO python3 -m sglang.launch_server {flags}",
    "after another command with its own assignment": "HF_HUB_OFFLINE=1 huggingface-cli download x; NCCL_DEBUG=INFO "
    "python3 -m sglang.launch_server {flags}",
    "continued under a wrapper": "NCCL_DEBUG=INFO \\\n  numactl --cpunodebind=0 --membind=0 \\\n"
    "  python3 -m sglang.launch_server \\\n  {flags} \\\n  >> server.log 2>&1 &",
    # review 5's issue 5: any wrapper or runner takes its words before a continued launcher's first line, as numactl's
    # and taskset's did (the last flag alone on the next line: three flags there would be read without the launcher)
    "continued under nice": "nice -n 10 env NCCL_DEBUG=INFO python3 -m sglang.launch_server {flags_then_one}",
    "continued under timeout": "timeout 600 env NCCL_DEBUG=INFO python3 -m sglang.launch_server {flags_then_one}",
    "continued under sudo with a user": "sudo -u svc NCCL_DEBUG=INFO python3 -m sglang.launch_server {flags_then_one}",
    # review 5's issue 6: a container started under any wrapper takes its -e / --env flags as the environment, and a
    # launch under torchrun is one under any wrapper too
    "a container started under a wrapper": "nohup docker run --gpus all --env=NCCL_DEBUG=INFO lmsysorg/sglang "
    "python3 -m sglang.launch_server {flags} > server.log 2>&1 &",
    "torchrun under a wrapper": "numactl -N 0 env NCCL_DEBUG=INFO torchrun --nproc-per-node 4 -m sglang.launch_server {flags}",
    "continued in a container": "docker exec -it -e NCCL_DEBUG=INFO box \\\n  python3 -m sglang.launch_server \\\n  {flags}",
    # podman's container start, its GPUs through CDI (podman 4.x: --device nvidia.com/gpu=all)
    "a podman container": "podman run --rm --device nvidia.com/gpu=all --ipc=host -p 30000:30000 -e NCCL_DEBUG=INFO "
    "-v /models:/models docker.io/lmsysorg/sglang:v0.5.6 python3 -m sglang.launch_server {flags}",
    # a profiler's or a debugger's options are no server arguments
    "under nsys": "NCCL_DEBUG=INFO nsys profile -o /tmp/sgl --trace-fork-before-exec=true --cuda-graph-trace=node "
    "python3 -m sglang.launch_server {flags}",
    "under compute-sanitizer": "NCCL_DEBUG=INFO compute-sanitizer --tool memcheck --target-processes all "
    "python3 -m sglang.launch_server {flags}",
    "under py-spy": "NCCL_DEBUG=INFO py-spy record -o profile.svg -- python3 -m sglang.launch_server {flags}",
    "under gdb": "NCCL_DEBUG=INFO gdb -ex run --args python3 -m sglang.launch_server {flags}",
}


@pytest.mark.parametrize("form", WRAPPED_FORMS)
def test_a_command_under_a_wrapper_or_before_other_shell_words_gives_its_own_flags(form):
    """The wrapper's words are no part of the launch, its environment is; the command ends where the shell ends it."""
    flags_then_one = " \\\n  ".join(FLAGS.rsplit(" ", 1))
    (launch,) = analyze_text(WRAPPED_FORMS[form].format(flags=FLAGS, flags_then_one=flags_then_one) + "\n")["launches"]
    assert launch["config"] == CONFIG
    assert launch["environment"] == {"NCCL_DEBUG": "INFO"}


# review13a's item 3: a sentence that opens with a container start's, a profiler's or a debugger's name and holds a launch
# command is a sentence, not the program's command line: the words between the name and the launcher are no options,
# values or image, and the failure the sentence states is read
SENTENCES_OPENING_WITH_A_RUNNER = {
    "podman run": "podman run works on the other node but",
    "nsys profile": "nsys profile works on the other node but",
    "gdb": "gdb says",
}


@pytest.mark.parametrize("form", SENTENCES_OPENING_WITH_A_RUNNER)
def test_a_sentence_opening_with_a_runner_s_name_keeps_the_failure_it_states(form):
    text = (
        SENTENCES_OPENING_WITH_A_RUNNER[form]
        + " python3 -m sglang.launch_server --model-path Qwen/Qwen2-7B --tp 4 crashes with an illegal memory access"
        " on this one.\n"
    )
    report = analyze_text(text)
    assert [(f["rule"], f["mechanism"]) for f in report["findings"]] == [("failure-time-unknown", "cuda")]


def test_a_many_valued_flag_ends_at_a_redirection_and_a_substitution_is_one_word():
    text = "python3 -m sglang.launch_server --cuda-graph-bs 1 2 4 8 > log.txt --nnodes $(cat /etc/nodes | wc -l) --tp 2\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["server_args"] == {"cuda_graph_bs": "1 2 4 8", "nnodes": "$(cat /etc/nodes | wc -l)", "tp_size": "2"}
    assert launch["config"] == {"tp_size": 2}
    # a redirection among the flags: the flags after it are still the command's
    (launch,) = analyze_text('python3 -m sglang.launch_server --tp 4 &> "my log.txt" --port 30000 &\n')["launches"]
    assert launch["server_args"] == {"tp_size": "4", "port": "30000"}


def test_lines_commented_out_above_a_continued_command_are_no_part_of_it():
    text = (
        "# CUDA_LAUNCH_BLOCKING=1 \\\n"
        "NCCL_DEBUG=INFO \\\n"
        "python3 -m sglang.launch_server \\\n"
        "  --model-path /models/DeepSeek-V3 \\\n"
        "  --tp 4 --mem-fraction-static 0.82 \\\n"
        "  --enable-dp-attention\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == CONFIG
    assert launch["environment"] == {"NCCL_DEBUG": "INFO"}


def test_a_comment_inside_a_continued_command_ends_it_as_bash_does():
    # bash runs "... --model-path /models/DeepSeek-V3" (the comment's backslash is part of the comment), then fails on
    # "--tp: command not found": the flags after the comment are not the server's
    text = (
        "python3 -m sglang.launch_server \\\n"
        "  --model-path /models/DeepSeek-V3 \\\n"
        "#  --tp 8 \\\n"
        "  --tp 4 --mem-fraction-static 0.82 \\\n"
        "  --enable-dp-attention\n"
    )
    launch = analyze_text(text)["launches"][0]
    assert launch["server_args"] == {"model_path": "/models/DeepSeek-V3"}


def test_a_note_after_a_lines_backslash_keeps_the_command_going():
    # "--dp 2 \  # ⚠️ ❌": a pasted command's line marked with a note after its backslash (sglang-30642, built); the
    # lines below are the same command as shown, the note is no argument
    text = (
        "python3 -m sglang.launch_server \\\n"
        "  --model-path /models/DeepSeek-V3 \\\n"
        "  --tp 4 \\  # ⚠️ ❌\n"
        "  --mem-fraction-static 0.82 \\\n"
        "  --enable-dp-attention\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == CONFIG


def test_a_note_after_a_lines_backslash_ends_the_command_before_the_next_command():
    # review12a item 10: bash ends the command at "\  # note"; the script's next command (the benchmark) is no part
    # of the launch, its flags are no server arguments
    text = (
        "python3 -m sglang.launch_server --model-path /models/Qwen2-7B --port 30000 \\  # the server\n"
        "python3 -m sglang.bench_serving --backend sglang --num-prompts 200 --request-rate 8\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["server_args"] == {"model_path": "/models/Qwen2-7B", "port": "30000"}


@pytest.mark.parametrize(
    "line",
    [
        "The start command is:  python3 -m sglang.launch_server {flags}",
        "启动命令：python3 -m sglang.launch_server {flags}",
        "- python3 -m sglang.launch_server {flags}",
        "    command:\n    - /bin/sh\n    - -c\n    args:\n    - 'python3 -m sglang.launch_server {flags} 2>&1 | tee /log/s.log'",
        '        command: ["/bin/sh", "-c", "pip install -U x && python3 -m sglang.launch_server {flags}; sleep inf"]',
        '        args: ["python3 -m sglang.launch_server {flags}"]',
        # a script's list of words given to a name (a subprocess call's argument list)
        'cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "/models/DeepSeek-V3", "--tp", "4", '
        '"--mem-fraction-static", "0.82", "--enable-dp-attention"]',
    ],
)
def test_a_command_after_a_label_as_a_list_item_or_as_a_shell_script_is_read(line):
    (launch,) = analyze_text(line.format(flags=FLAGS) + "\n")["launches"]
    assert launch["config"] == CONFIG


def test_a_lead_in_before_a_command_is_still_read_as_prose():
    (launch,) = analyze_text("With SGLang 0.5.2 the start command is: python3 -m sglang.launch_server --tp 8\n")["launches"]
    assert launch["config"] == {"tp_size": 8}
    assert launch["sglang_version"]["version"] == "0.5.2"


def test_a_command_inside_a_sentence_is_read_up_to_the_sentences_own_words():
    # the form of a title or a sentence that names the command run ("no response running python -m
    # sglang.launch_server --model-path NousResearch/Llama-2-7b-chat-hf --port 30000": sgl-project/sglang#100, built)
    text = (
        "I launched with python3 -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4 --attention-backend "
        "flashinfer and at the first request it fails, but --tp 2 works\n"
    )
    (launch,) = analyze_text(text)["launches"]
    # the command ends at "and": the sentence's later "--tp 2" is no option of it
    assert launch["config"] == {"model_path": "Qwen/Qwen3-30B-A3B", "tp_size": 4, "attention_backend": "flashinfer"}
    (launch,) = analyze_text("We run sglang serve --model-path Qwen/Qwen3-8B --tp 2.\n")["launches"]
    assert launch["config"] == {"model_path": "Qwen/Qwen3-8B", "tp_size": 2}


@pytest.mark.parametrize(
    "prose",
    [
        "If I run python -m sglang.launch_server --tp 8 --model-path /m it might work",
        "I want to try python -m sglang.launch_server --tp 8 --model-path /m on two nodes",
        "Why does python -m sglang.launch_server --tp 8 --model-path /m hang",
        "python -m sglang.launch_server is slow when I use --tp 2",
    ],
)
def test_a_sentence_that_supposes_or_asks_about_a_command_gives_no_launch(prose):
    assert analyze_text(prose + "\n")["launches"] == []


@pytest.mark.parametrize(
    "prose",
    [
        "Does python -m sglang.launch_server --tp 8 work with DeepEP?",
        "I wonder whether --tp 8 --dp 8 --enable-dp-attention helps here.",
    ],
)
def test_a_question_that_names_flags_gives_no_launch(prose):
    assert analyze_text(prose + "\n")["launches"] == []


def test_a_flag_cut_at_the_terminal_width_is_joined_only_into_a_released_option():
    cut = "python3 -m sglang.launch_server --model-path /models/m --nnodes 2 --node-r\nank 0 --tp-size 8 --dp-\nsize 2\n"
    (launch,) = analyze_text(cut)["launches"]
    assert launch["config"] == {"model_path": "/models/m", "nnodes": 2, "node_rank": 0, "tp_size": 8, "dp_size": 2}
    # in a continued command, the cut line has no backslash: the command goes on after the flag's rest
    continued = (
        "python3 -m sglang.launch_server \\\n  --model-path /models/m --tp-size 8 --disaggregation-transfer-back\n"
        "end mooncake \\\n  --dp-size 2\n"
    )
    (launch,) = analyze_text(continued)["launches"]
    assert launch["config"] == {
        "model_path": "/models/m",
        "tp_size": 8,
        "disaggregation_transfer_backend": "mooncake",
        "dp_size": 2,
    }
    # "--tp-size" is whole: the next line's word is not glued to it ("--tp-size8" is no option)
    (launch,) = analyze_text("python3 -m sglang.launch_server --model-path /models/m --enable-metrics\nsize 2\n")["launches"]
    assert launch["server_args"] == {"model_path": "/models/m", "enable_metrics": True}
    # pieces that make no option of any release stay apart
    (launch,) = analyze_text("python3 -m sglang.launch_server --model-path /models/m --dp-\nfoo 2\n")["launches"]
    assert "dp_size" not in launch["config"] and "dp_foo" not in launch["server_args"]


def test_a_flag_cut_at_the_width_is_not_joined_across_a_blank_line():
    text = "python3 -m sglang.launch_server --model-path /m --nnodes 2 --dp-\n\nsize 8 is what I want.\n"
    (launch,) = analyze_text(text)["launches"]
    assert "dp_size" not in launch["server_args"]
    assert launch["server_args"]["nnodes"] == "2"


def test_a_continued_command_whose_first_line_is_the_interpreter_alone():
    # sgl-project/sglang#9780's command: "python \" then "-m sglang.launch_server \" and the flags
    text = "python \\\n    -m sglang.launch_server \\\n    --tp-size 8 \\\n    --ep-size 8 \\\n    --enable-metrics\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["server_args"] == {"tp_size": "8", "ep_size": "8", "enable_metrics": True}
    # another program run the same way is no launch
    assert analyze_text("python \\\n    train.py \\\n    --tp-size 8\n")["launches"] == []


# the reviewer's issue 8: text quoted inside a launch command line is the command's words (an option's value, a JSON
# argument's strings), never a failure the line quotes; the command in issue 43's shape (a JSON argument with spaces,
# single-quoted), its values holding failure wordings built for the test
QUOTED_ARGUMENTS = {
    "a JSON argument": "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --json-model-override-args "
    '\'{"rope_scaling": {"type": "yarn", "factor": 4}, "note": "RuntimeError: CUDA error: an illegal memory access '
    "was encountered\"}'\n",
    "a served model name": 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --served-model-name "Segmentation '
    'fault (core dumped) repro"\n',
    "an --option=value word": "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 "
    '--served-model-name="Segmentation fault (core dumped) repro"\n',
    "a container's environment": 'docker run --gpus all -e SGLANG_NOTE="RuntimeError: CUDA error: an illegal memory access '
    'was encountered" lmsysorg/sglang python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n',
    # (read as the command's before the reviewer's issue 8 as well: the prompt sends the line to the launch grammar)
    "behind a prompt": '$ python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --served-model-name "NCCL error: '
    'unhandled system error"\n',
}


@pytest.mark.parametrize("form", QUOTED_ARGUMENTS)
def test_a_quoted_argument_of_a_launch_command_is_no_failure(form):
    report = analyze_text(QUOTED_ARGUMENTS[form])
    assert report["findings"] == []
    assert report["launches"][0]["config"] == {"model_path": "Qwen/Qwen3-8B", "tp_size": 2}


# review 5's issue 1: the launch grammar lets a multi-value option take the prose after it ("1 2 4 and got ..."); a quoted
# span is the command's only in the one word after an option that takes a single value, never in a list's words
FAILURE_AFTER_THE_COMMAND = {
    "after the options": "--tp 2 and got ",
    "after a list option": "--tp 2 --cuda-graph-bs 1 2 4 and got ",
}


@pytest.mark.parametrize("form", FAILURE_AFTER_THE_COMMAND)
def test_a_failure_quoted_after_the_command_is_still_read(form):
    report = analyze_text(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
        + FAILURE_AFTER_THE_COMMAND[form]
        + '"RuntimeError: CUDA error: an illegal memory access was encountered"\n'
    )
    assert report["launches"][0]["config"] == {"model_path": "Qwen/Qwen3-8B", "tp_size": 2}
    assert [f["rule"] for f in report["findings"]] == ["failure-time-unknown"]


ARGV = (
    "['python3', '-m', 'sglang.launch_server', '--model-path', '/models/x', '--tp-size', '8', '--trust-remote-code', "
    "'--mem-fraction-static', '0.8']"
)
ARGV_FORMS = {
    # a program that starts the server logs its argv (a Ray actor's line: "(pid=...) INFO ... Launching: [...]")
    "logged argv": f"(SGLangServer pid=2345) INFO 2026-03-01 10:00:00 launcher.py:50 Launching server: {ARGV}\n",
    # a JSON spec on one line
    "json spec": '{"name": "sglang", "cmd": ' + ARGV.replace("'", '"') + ', "gpus": 8}\n',
    # CPython's CalledProcessError holds the argv's repr (subprocess.py: "Command '%s' returned non-zero exit status %d.")
    "CalledProcessError": "Traceback (most recent call last):\n"
    '  File "/workspace/serve.py", line 12, in <module>\n'
    "    subprocess.run(cmd, check=True)\n"
    '  File "/usr/lib/python3.10/subprocess.py", line 526, in run\n'
    "    raise CalledProcessError(retcode, process.args,\n"
    f"subprocess.CalledProcessError: Command '{ARGV}' returned non-zero exit status 1.\n",
}


@pytest.mark.parametrize("form", ARGV_FORMS)
def test_a_launch_s_argv_printed_as_a_list_gives_the_config(form):
    (launch,) = analyze_text(ARGV_FORMS[form])["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8, "trust_remote_code": True, "mem_fraction_static": 0.8}


def test_a_sentence_quoting_an_argv_list_keeps_the_failure_it_states():
    # review13a's item 7: the list inside a sentence's words is no record of its own (a log line's, a spec's, a
    # script's): the sentence states the failure
    text = (
        "I tried both of these argv lists from our launcher config and neither works: "
        + ARGV.replace("'", '"')
        + " crashes with CUDA error: an illegal memory access was encountered\n"
    )
    report = analyze_text(text)
    assert [(f["rule"], f["mechanism"]) for f in report["findings"]] == [("failure-time-unknown", "cuda")]


def test_an_argv_list_after_a_label_then_a_comment_is_still_the_line_s_record():
    text = "launch argv: " + ARGV + "  # the node's launch\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8, "trust_remote_code": True, "mem_fraction_static": 0.8}


def test_an_argv_list_of_another_engine_is_no_launch():
    text = "Launching server: ['python3', '-m', 'vllm.entrypoints.openai.api_server', '--model', '/models/x', '--port', '8000']\n"
    assert analyze_text(text)["launches"] == []


def test_a_launcher_alone_on_its_line_then_a_flag_a_line_without_backslashes():
    # a command written over lines, or one whose backslashes a copy of a rendered page lost: the flags under the
    # launcher are its own, up to the first line that is no option
    text = (
        "python3 -m sglang.launch_server\n--model-path /models/x\n--tp 8\n--trust-remote-code\n"
        "--mem-fraction-static 0.8\nThe server hangs after loading.\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8, "trust_remote_code": True, "mem_fraction_static": 0.8}


def test_a_sentence_that_opens_with_a_flag_after_a_launcher_alone_is_no_flag_line():
    # review13a's item 4: a flag line holds options and their values only; a sentence that starts with an option ends
    # the command, and none of its words is the launch's
    text = (
        "I run it like this:\npython3 -m sglang.launch_server\n--model-path /models/Llama-3-8B --tp 2\n"
        "--port 30000 is the default, --enable-dp-attention gives the crash\nRuntimeError: CUDA error: out of memory\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["server_args"] == {"model_path": "/models/Llama-3-8B", "tp_size": "2"}
    # a flag line with a shell variable and a comment is one
    text = "python3 -m sglang.launch_server\n--model-path /models/x\n--tp $TP --port 30000  # the node's port\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["server_args"] == {"model_path": "/models/x", "tp_size": "$TP", "port": "30000"}


def test_an_unquoted_json_value_with_blanks_does_not_end_a_flag_a_line_command():
    # review13b's item 2: issues write --json-model-override-args' JSON unquoted; its words up to the matching close are
    # one value, and the flags on the lines after it are the launch's
    text = (
        "python3 -m sglang.launch_server\n--model-path /models/Llama-3-8B\n"
        '--json-model-override-args {"rope_scaling": {"type": "yarn", "factor": 4.0}}\n--tp 2\n'
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/Llama-3-8B", "tp_size": 2}
    assert launch["server_args"]["tp_size"] == "2"
    # a sentence after the closed value, an object never closed on its line, or an object given to an int option
    # is no flag line: the command ends before it
    for line in (
        '--json-model-override-args {"rope_scaling": {"type": "yarn"}} is what I pass',
        '--json-model-override-args {"rope_scaling": {"type": "yarn",',
        '--port {"a": 1}',
    ):
        (launch,) = analyze_text(f"python3 -m sglang.launch_server\n--model-path /models/x\n{line}\n--tp 2\n")["launches"]
        assert launch["config"] == {"model_path": "/models/x"}, line

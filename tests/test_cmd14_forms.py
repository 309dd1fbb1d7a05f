"""Launch commands in the shapes session 14's probes showed (constructed in the real shape, no paste copied)."""

from __future__ import annotations

import pytest

from tests.helpers import analyze_text


def test_a_command_in_a_python_string_literal_with_escaped_quotes_is_read_to_its_closing_quote():
    # a launcher's argv printed as a Python list of one string (its repr: the JSON argument's quotes escaped, \'): the
    # escaped quote does not end the string, and the flags after the JSON argument are the command's (probe
    # sgl-project/sglang#15608's shape)
    text = (
        "launcher_cmd: ['python3 -m sglang.launch_server --model-path /models/x   --tp 8   --mem-fraction-static 0.85"
        '   --model-loader-extra-config \\\'{"enable_multithread_load": true, "num_threads": 8}\\\' '
        "--disable-cuda-graph  --enable-dp-attention  --port 8081']\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {
        "model_path": "/models/x",
        "tp_size": 8,
        "mem_fraction_static": 0.85,
        "disable_cuda_graph": True,
        "enable_dp_attention": True,
    }
    assert launch["server_args"]["model_loader_extra_config"] == '{"enable_multithread_load": true, "num_threads": 8}'


def test_a_list_item_given_as_a_folded_scalar_is_one_command():
    # Kubernetes' `args:` with the shell's script as a folded scalar item (`- >`): YAML joins its lines with blanks
    text = (
        '        command: ["/bin/sh", "-c"]\n'
        "        args:\n"
        "          - >\n"
        "            python3 -m sglang.launch_server --model-path /models/x --tp 8\n"
        "            --mem-fraction-static 0.85 --port 30000\n"
        "            --enable-dp-attention\n"
        "        ports:\n"
        "          - containerPort: 30000\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8, "mem_fraction_static": 0.85, "enable_dp_attention": True}


def test_a_code_span_opened_with_a_blank_before_its_launcher_and_closed_on_the_next_line():
    # "` python -m sglang.launch_server ...` " with the closing backtick on a line of its own (GitHub renders it as one
    # span; probe sgl-project/sglang#7875's shape)
    text = (
        "###CMD\n"
        "` python -m sglang.launch_server --model-path /models/x --port 30000 --tp 16 --dp-size 2 --enable-dp-attention "
        "--mem-fraction-static 0.83\n"
        "`\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {
        "model_path": "/models/x",
        "tp_size": 16,
        "dp_size": 2,
        "enable_dp_attention": True,
        "mem_fraction_static": 0.83,
    }


def test_a_code_span_with_a_blank_before_its_launcher_ends_at_its_closing_backtick():
    text = "` python -m sglang.launch_server --model-path /models/x --tp 16 ` fails, and so does --dp-size 4\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 16}


def test_a_continued_command_cut_after_an_option_takes_its_value_from_the_next_line():
    # the line with no backslash ends in an option that takes a value (a wrap): the value's line, flags after it, goes on
    text = (
        "python3 -m sglang.launch_server --model-path /models/x --tp 4 \\\n"
        "  --mem-fraction-static 0.7 --chunked-prefill-size\n"
        "4096 \\\n"
        "  --enable-dp-attention\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {
        "model_path": "/models/x",
        "tp_size": 4,
        "mem_fraction_static": 0.7,
        "chunked_prefill_size": 4096,
        "enable_dp_attention": True,
    }


def test_a_sentence_after_a_continued_command_cut_after_an_option_is_no_value():
    text = (
        "python3 -m sglang.launch_server --model-path /models/x --tp 4 \\\n"
        "  --mem-fraction-static\n"
        "0.8 is what I used and it crashed\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 4}


ARGV = '["python3", "-m", "sglang.launch_server", "--model-path", "/models/x", "--tp-size", "8"]'


def test_a_sentence_stating_its_failure_before_an_argv_list_that_ends_it():
    # the sentence states the failure, then quotes the argv it ran: both are read (session 13's left item)
    text = f"It crashes with CUDA error: an illegal memory access was encountered when I run {ARGV}\n"
    report = analyze_text(text)
    assert [(f["rule"], f["mechanism"]) for f in report["findings"]] == [("failure-time-unknown", "cuda")]
    assert report["launches"][0]["config"] == {"model_path": "/models/x", "tp_size": 8}


def test_an_argv_list_between_a_sentence_s_words_gives_its_config_beside_the_failure():
    text = (
        f"I tried both of these argv lists and neither works: {ARGV} crashes with CUDA error: an illegal memory access "
        "was encountered\n"
    )
    report = analyze_text(text)
    assert [(f["rule"], f["mechanism"]) for f in report["findings"]] == [("failure-time-unknown", "cuda")]
    assert report["launches"][0]["config"] == {"model_path": "/models/x", "tp_size": 8}


def test_a_log_record_s_failure_words_before_the_argv_it_prints_keep_the_list_its_record():
    # behind a log prefix the words are the record's message; the list is its argv (no sentence's failure)
    text = f"[2026-03-01 10:00:00] ERROR launcher.py:50 Launch failed, retrying: {ARGV}\n"
    report = analyze_text(text)
    assert report["launches"][0]["config"] == {"model_path": "/models/x", "tp_size": 8}


def test_the_dataclass_repr_without_the_logger_s_head_keeps_its_first_field():
    # print(server_args) gives the repr alone ("ServerArgs(model_path=..., ...)"); its first field follows the class name
    text = (
        "ServerArgs(model_path='Qwen/Qwen3-8B', tokenizer_path='Qwen/Qwen3-8B', tokenizer_mode='auto', load_format='auto', "
        "trust_remote_code=False, dtype='auto', kv_cache_dtype='auto', mem_fraction_static=0.85, tp_size=2, dp_size=1, "
        "ep_size=1, chunked_prefill_size=8192)\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"]["model_path"] == "Qwen/Qwen3-8B"
    assert launch["config"]["tp_size"] == 2
    assert launch["config"]["mem_fraction_static"] == 0.85


def test_a_construction_of_a_few_keywords_in_code_is_no_dump():
    assert analyze_text("args = ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2)\n")["launches"] == []


def test_sglang_jax_s_launcher_is_no_sglang_launch():
    # the mined corpus's convention (sglang-jax-113, sglang-jax-1360, built): sglang-jax's own launcher,
    # sgl_jax.launch_server, gives no config (its server_args dump is read as SGLang's)
    text = (
        "JAX_COMPILATION_CACHE_DIR=/tmp/jit_cache  python3 -u -m sgl_jax.launch_server --model-path Qwen/Qwen3-8B "
        "--nnodes=1  --tp-size=4 --device=tpu --mem-fraction-static=0.8\n"
    )
    assert analyze_text(text)["launches"] == []


TEMPLATED = {
    # a Python f-string's fields: the program fills them before it runs the command
    "f-string": 'cmd = f"python -m sglang.launch_server --model-path /models/{name} --tp {tp} --mem-fraction-static 0.7"\n',
    # str.format's empty fields
    "format": '"python -m sglang.launch_server --model-path {} --tp {} --mem-fraction-static 0.7".format(model, tp)\n',
    # Helm's placeholders in a manifest's flow list, and split into words on a command's line
    "helm list": '          command: ["python3", "-m", "sglang.launch_server", "--model-path", "{{ .Values.modelPath }}", '
    '"--tp", "{{ .Values.tp }}", "--mem-fraction-static", "0.7"]\n',
    "helm words": "  python3 -m sglang.launch_server --model-path {{ .Values.modelPath }} --tp {{ .Values.tp }} "
    "--mem-fraction-static 0.7\n",
}


@pytest.mark.parametrize("form", TEMPLATED)
def test_a_template_s_placeholder_is_no_value(form):
    (launch,) = analyze_text(TEMPLATED[form])["launches"]
    assert launch["config"] == {"mem_fraction_static": 0.7}


@pytest.mark.parametrize("prompt", ["", "$ CUDA_VISIBLE_DEVICES=0,1 "])
def test_sglang_serve_takes_the_model_s_path_as_its_first_word(prompt):
    # sglang 0.5.16 .. 0.5.23 cli/serve.py _normalize_positional_model_path: `sglang serve <model> [flags]`
    (launch,) = analyze_text(f"{prompt}sglang serve Qwen/Qwen3-8B --tp 2 --mem-fraction-static 0.8\n")["launches"]
    assert launch["config"] == {"model_path": "Qwen/Qwen3-8B", "tp_size": 2, "mem_fraction_static": 0.8}


@pytest.mark.parametrize(
    "text",
    [
        "sglang serve is slow when I use --tp 2 with it\n",
        "python3 -m sglang.launch_server works, but when I add --tp 2 it crashes\n",
    ],
)
def test_a_sentence_that_names_the_launcher_then_a_flag_is_no_command(text):
    # the server's argparse takes no positional words (only `sglang serve`'s model path): words after the launcher
    # before any option are a sentence's
    assert analyze_text(text)["launches"] == []


COPIED = {
    # a copy from a rendered page or a chat client: no-break spaces between the words
    "no-break spaces": "python3 -m sglang.launch_server\u00a0--model-path /models/x\u00a0--tp 8 --mem-fraction-static\u00a00.8\n",
    # a word processor's smart dashes for the options' "--"
    "en dashes": "python3 -m sglang.launch_server \u2013model-path /models/x \u2013tp 8 \u2013mem-fraction-static 0.8\n",
    "em dashes": "python3 -m sglang.launch_server \u2014model-path /models/x \u2014tp 8 --mem-fraction-static 0.8\n",
    "continued, indented with no-break spaces": "python3 -m sglang.launch_server \\\n\u00a0\u00a0--model-path /models/x \\\n"
    "\u00a0\u00a0--tp 8 \\\n\u00a0\u00a0--mem-fraction-static 0.8\n",
}


@pytest.mark.parametrize("form", COPIED)
def test_a_command_a_copy_changed_the_blanks_or_dashes_of(form):
    (launch,) = analyze_text(COPIED[form])["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8, "mem_fraction_static": 0.8}


def test_a_dash_before_a_word_that_is_no_option_stays_prose():
    text = "python3 -m sglang.launch_server --model-path /models/x --tp 8 \u2013 crashes at load\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8}


PYTHON_ARGV = {
    # a launcher script's argv list opened at a line's end, a few items a line
    "items a line": 'cmd = [\n    "python3", "-m", "sglang.launch_server",\n    "--model-path", "/models/x",\n'
    '    "--tp", "8",\n    "--mem-fraction-static", "0.8",\n]\nsubprocess.Popen(cmd)\n',
    # the first items on the opening line, the list closed on the last item's line; variables give no value
    "opened with items": 'command = ["python3", "-m", "sglang.launch_server",\n           "--model-path", "/models/x",\n'
    '           "--tp", str(tp),\n           "--mem-fraction-static", "0.8"]\n',
}


@pytest.mark.parametrize("form", PYTHON_ARGV)
def test_a_python_argv_list_over_lines_gives_the_config(form):
    (launch,) = analyze_text(PYTHON_ARGV[form])["launches"]
    expected = {"model_path": "/models/x", "tp_size": 8, "mem_fraction_static": 0.8}
    if form == "opened with items":
        del expected["tp_size"]  # str(tp): the paste does not show the value
    assert launch["config"] == expected


def test_a_python_list_of_flags_alone_is_no_launch():
    text = 'other_args = [\n    "--tp", "8",\n    "--mem-fraction-static", "0.8",\n    "--model-path", "/m",\n]\n'
    assert analyze_text(text)["launches"] == []


def test_the_module_run_as_a_script_by_its_path_relative_to_the_checkout_s_python_folder():
    text = "PYTHONPATH=python python sglang/launch_server.py --model-path /models/x --tp 4\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 4}


def test_a_launch_after_a_bold_label_whose_colon_is_inside_the_emphasis():
    text = "**Command:** python3 -m sglang.launch_server --model-path /models/x --tp 8 --mem-fraction-static 0.8\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8, "mem_fraction_static": 0.8}


def test_a_table_cell_s_html_line_break_parts_the_command_s_words():
    # a Markdown table cell breaks its lines with <br>: removed with nothing, "8<br>--mem..." glued the tp value to the
    # next flag
    text = "| server | `python3 -m sglang.launch_server --model-path /models/x --tp 8<br>--mem-fraction-static 0.8` |\n"
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 8, "mem_fraction_static": 0.8}


LISTED = {
    # a list item's launcher alone on its line, its flags indented under it (no backslashes)
    "list item, flags under it": "* python3 -m sglang.launch_server\n  --model-path /models/x\n  --tp 2\n"
    "  --mem-fraction-static 0.8\n",
    # a list item's field whose value is a code span: the span's text, its backticks no part of the last word
    "field with a code span": "- Launch: `python3 -m sglang.launch_server --model-path /models/x --tp 2 "
    "--mem-fraction-static 0.8`\n- GPUs: 2x H100\n",
    # a Markdown table row's cell, the command written bare
    "table cell": "| Launch command | python3 -m sglang.launch_server --model-path /models/x --tp 2 "
    "--mem-fraction-static 0.8 |\n",
}


@pytest.mark.parametrize("form", LISTED)
def test_a_command_in_a_list_item_or_a_table_cell(form):
    (launch,) = analyze_text(LISTED[form])["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 2, "mem_fraction_static": 0.8}


SPLIT_CLI = {
    # compose's entrypoint the CLI, its command the subcommand and the flags (sglang 0.5.x `sglang serve`)
    "entrypoint first": '    entrypoint: ["sglang"]\n    command: ["serve", "--model-path", "/models/x", "--tp", "2", '
    '"--mem-fraction-static", "0.8"]\n',
    "command first": '    command: ["serve", "--model-path", "/models/x", "--tp", "2", "--mem-fraction-static", "0.8"]\n'
    '    entrypoint: ["sglang"]\n',
    "plain values": "    entrypoint: sglang\n    command: serve --model-path /models/x --tp 2 --mem-fraction-static 0.8\n",
}


@pytest.mark.parametrize("form", SPLIT_CLI)
def test_sglang_s_cli_split_between_entrypoint_and_command(form):
    (launch,) = analyze_text(SPLIT_CLI[form])["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 2, "mem_fraction_static": 0.8}


def test_an_entrypoint_of_the_cli_alone_is_no_launch():
    assert analyze_text('    entrypoint: ["sglang"]\n    ports:\n      - 30000:30000\n')["launches"] == []


OPEN_FLOW = {
    # a Kubernetes field's flow list opened with its first items and closed lines later
    "k8s command": '          command: ["python3", "-m", "sglang.launch_server",\n'
    '                    "--model-path", "/models/x",\n                    "--tp", "2", "--mem-fraction-static", "0.8"]\n',
    # a Dockerfile's exec form continued by backslashes
    "dockerfile": 'CMD ["python3", "-m", "sglang.launch_server", \\\n     "--model-path", "/models/x", \\\n'
    '     "--tp", "2", "--mem-fraction-static", "0.8"]\n',
}


@pytest.mark.parametrize("form", OPEN_FLOW)
def test_a_flow_list_opened_on_its_field_s_line_and_closed_lines_later(form):
    (launch,) = analyze_text(OPEN_FLOW[form])["launches"]
    assert launch["config"] == {"model_path": "/models/x", "tp_size": 2, "mem_fraction_static": 0.8}


def test_an_open_flow_list_of_other_words_is_no_launch():
    assert analyze_text('    tags: ["a", "b",\n           "c"]\n')["launches"] == []

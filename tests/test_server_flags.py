"""A launch command's flags as each release's argparse reads them (catalog/server_flags.json, generated from the
released ServerArgs by `python -m tools.upstream flags`): aliases, unique prefixes, and prefixes a release refuses."""

from __future__ import annotations

import pytest

from logscope.core.server_flags import field_of, may_take, takes, value_type
from logscope.pipeline.assemble.launch_facts import flag_field
from logscope.pipeline.parse.parsers.command_text import parse_command


@pytest.mark.parametrize(
    ("flag", "version", "field"),
    [
        ("tp", None, "tp_size"),  # --tp: the unique prefix of --tp-size in every release
        ("dp", None, "dp_size"),
        ("tensor_parallel_size", "0.3.0", "tp_size"),  # an alias (from_cli_args renames its dest to tp_size)
        ("model", "0.5.23", "model_path"),  # --model is an alias of --model-path since 0.4.8
        ("ep", "0.5.15", "ep_size"),  # --ep is an option of its own since 0.4.10
        ("ep", "0.3.0", None),  # 0.3.0 has no option starting with --ep
        ("pp", "0.5.15", None),  # --pp-size, --pp-max-micro-batch-size, ...: argparse refuses it as ambiguous
        ("pp", "0.4.6", "pp_size"),  # 0.4.6.post5: --pp-size is the only one
        ("no_such_flag", None, None),
    ],
)
def test_a_flag_is_the_field_its_release_sets(flag, version, field):
    assert field_of(flag, version) == field


def test_config_keys_keep_their_name_and_unknown_flags_stay_as_written():
    assert flag_field("tp") == "tp_size"
    assert flag_field("cuda_graph_max_bs", "0.5.15") == "cuda_graph_max_bs"  # logscope's config key, as spelled
    assert flag_field("no_such_flag") == "no_such_flag"


@pytest.mark.parametrize(
    ("flag", "taken", "kind"),
    [
        ("tp", "one", "int"),
        ("port", "one", "int"),
        ("mem_fraction_static", "one", "float"),
        ("trust_remote_code", "none", None),  # store_true in every release
        ("enable_dp_attention", "none", None),
        ("lora_paths", "many", None),
        ("no_such_flag", None, None),
    ],
)
def test_what_a_flag_takes_comes_from_the_released_argparse(flag, taken, kind):
    assert takes(flag) == taken
    assert value_type(flag) == kind


@pytest.mark.parametrize(
    ("flags", "args"),
    [
        ("--chunked-prefill-size -1 --tp 2", {"chunked_prefill_size": "-1", "tp": "2"}),  # a negative value, not an option
        ("--tp 2 --port", {"tp": "2"}),  # cut after an option that takes a value: no value is read for it
        ("--port --tp 2", {"tp": "2"}),
        ("--cuda-graph-bs 1 2 4 8 --tp 2", {"cuda_graph_bs": "1 2 4 8", "tp": "2"}),  # a list option's words
        ("--tp 2 --trust-remote-code --tp 4", {"tp": "4", "trust_remote_code": True}),  # argparse: the last one wins
        ("--trust-remote-code ./model --tp 2", {"trust_remote_code": True, "tp": "2"}),  # a flag takes no word
    ],
)
def test_a_command_s_flags_take_what_argparse_gives_them(flags, args):
    assert parse_command(f"python3 -m sglang.launch_server {flags}")["args"] == args


def test_a_choice_list_plugins_extend_fixes_no_choices():
    # review7 item 10a: sglang 0.5.23 arg_groups/choices.py hands ATTENTION_BACKEND_CHOICES.extend on to plugins
    # (add_attention_backend_choices), so a plugin's backend word may be the flag's value
    assert may_take("attention_backend", "my_plugin_backend", "0.5.23")
    assert may_take("quantization", "my_plugin_quant", "0.5.23")
    # a list no one extends keeps its choices (0.4.9.post6's --attention-backend)
    assert not may_take("attention_backend", "my_plugin_backend", "0.4.9.post6")

"""Forms of mine12b's built misses that hold for a family of outputs: UCX's backtrace header copied without its rules,
Python logging's "time | level | name | message" format that FastChat's SGLang worker prints every line of the server
through, and a hand-written environment list with a bold label and an em dash for the colon."""

from __future__ import annotations

from logscope.pipeline.ingest.ingest import unwrap
from logscope.pipeline.parse.parsers.stated_env import parse_line
from tests.helpers import analyze_text

UCX_FRAMES = (
    " 0  /venv/lib/python3.12/site-packages/nixl/../nixl.libs/libucs-36b9ef61.so.0.0.0(ucs_handle_error+0x304) [0x7ff41b1ad074]\n"
    " 1  /venv/lib/python3.12/site-packages/nixl/../nixl.libs/libucs-36b9ef61.so.0.0.0(+0x3c274) [0x7ff41b1ad274]\n"
)


def _errors(text: str) -> list[tuple]:
    return [(f["rule"], f.get("mechanism")) for f in analyze_text(text)["findings"] if f["severity"] == "error"]


def test_ucxs_backtrace_header_without_its_rules_opens_the_block():
    # ucs/debug/debug.c ucs_debug_print_backtrace: "==== backtrace (tid:%7d) ====", the rules lost in the copy
    with_rules = _errors("==== backtrace (tid:  59888) ====\n" + UCX_FRAMES)
    assert with_rules == [("pd-transfer-failed", "pd_transfer")]
    assert _errors("backtrace (tid:  59888)\n" + UCX_FRAMES) == with_rules


def test_the_words_backtrace_and_tid_in_a_sentence_open_no_block():
    # the header is the whole line; the frames alone open no block: a sentence that opens with the header's words
    # (review12a item 4: one that opens with "The" never matched, whatever the header's end)
    assert _errors("The backtrace (tid: 59888) is below.\n" + UCX_FRAMES) == []
    assert _errors("backtrace (tid: 59888) printed below, see the attached file\n" + UCX_FRAMES) == []


FASTCHAT = (
    "2024-02-15 16:04:21 | INFO | stdout | router init state: Traceback (most recent call last):\n"
    '2024-02-15 16:04:21 | INFO | stdout |   File "/venv/lib/python3.11/site-packages/sglang/srt/managers/router/'
    'manager.py", line 68, in start_router_process\n'
    "2024-02-15 16:04:21 | INFO | stdout |     model_client = ModelRpcClient(server_args, port_args)\n"
)


def test_a_line_fastchat_logged_from_the_servers_stdout_is_read_as_the_server_printed_it():
    # FastChat fastchat/utils.py build_logger: "%(asctime)s | %(levelname)s | %(name)s | %(message)s", sys.stdout and
    # sys.stderr redirected to the loggers "stdout" (INFO) and "stderr" (ERROR)
    assert unwrap('2024-06-02 00:26:10 | ERROR | stderr |   File "<frozen runpy>", line 198, in _run_module_as_main') == (
        '  File "<frozen runpy>", line 198, in _run_module_as_main'
    )
    assert unwrap("2024-02-15 16:04:21 | INFO | stdout |     model_client = ModelRpcClient(server_args, port_args)") == (
        "    model_client = ModelRpcClient(server_args, port_args)"
    )
    # the router's init frame places the cut traceback in startup (phases.yaml phase-startup-router-init)
    assert _errors(FASTCHAT) == [("startup-crash", "sglang")]


def test_a_record_of_a_named_logger_keeps_its_failing_level():
    # a logger's own ERROR record is a failing record; a redirected stream's ERROR is only the stream's
    assert unwrap("2024-06-02 00:26:10 | ERROR | model_worker | Load failed for llama") == "ERROR Load failed for llama"
    assert unwrap("2024-06-02 00:26:10 | ERROR | stderr | Load failed for llama") == "Load failed for llama"
    assert unwrap("2024-06-02 00:26:10,123 | INFO | fairseq_cli.train | loaded 3 shards") == "loaded 3 shards"


def test_a_bold_label_with_an_em_dash_states_a_version():
    cuda = parse_line("- **CUDA** \u2014 13.0")
    transformers = parse_line("- **Transformers** \u2014 `5.14.1`")
    assert cuda is not None and cuda.data["values"] == {"cuda": "13.0"}
    assert transformers is not None and transformers.data["values"] == {"transformers": "5.14.1"}
    # a remark that names another version states neither; a dash in a sentence is no label
    assert parse_line("- **PyTorch** \u2014 `2.13.0+cu130` test venv (also occurs on `2.12.1+cu130`, lower rate)") is None
    assert parse_line("CUDA \u2014 13.0") is None
    assert parse_line("The model \u2014 3.5 times faster") is None


def _versions(text: str) -> dict:
    return analyze_text(text)["versions"]


def test_a_heading_that_names_the_release_states_it_as_a_sentence_does():
    assert _versions("## Collection summary for b200_sxm sglang:0.5.9\n### Error summary\n") == {"sglang": "0.5.9"}
    # a heading is still no record: its failure words read nothing, and a fix it names is no release in use
    assert _versions("### Error Log\n") == {}
    assert _versions("## Fixed in sglang 0.5.10\n") == {}
    assert [f["rule"] for f in analyze_text("## Failed with sglang 0.5.9\n")["findings"]] == []

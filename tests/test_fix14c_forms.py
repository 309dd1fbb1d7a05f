"""review14a items 5, 6, 9, 13, 14, 15: constructed inputs in the real shapes (no paste copied)."""

from __future__ import annotations

import ast
import re
from re import _parser  # type: ignore[attr-defined]

import pytest

from logscope.pipeline.ingest import ingest
from logscope.pipeline.parse.parsers import blocks, command_text, field_commands, rocm_topo
from tests.helpers import analyze_text


def _configs(text: str) -> list[dict]:
    return [launch["config"] for launch in analyze_text(text)["launches"]]


def test_a_script_s_shell_expansions_before_the_first_option_are_arguments_not_prose():
    # item 6: a launch script passes its argument variables first
    script = (
        "#!/bin/bash\n"
        'MODEL_ARGS="--model-path /models/Qwen3-32B --trust-remote-code"\n'
        'PARALLEL_ARGS="--tp 4 --dp 2"\n'
        "python3 -m sglang.launch_server $MODEL_ARGS $PARALLEL_ARGS --port 30000 --mem-fraction-static 0.85\n"
    )
    assert _configs(script) == [{"mem_fraction_static": 0.85}]
    assert _configs('sglang serve ${MODEL} "$@" --mem-fraction-static 0.8\n') == [{"mem_fraction_static": 0.8}]
    # a sentence that names the launcher still gives none
    assert _configs("sglang serve is slow when I use --tp 2\n") == []


def test_sglang_serve_s_positional_word_of_many_slashes_is_split_at_its_first_slash_only():
    # item 9: the run before the "/" holds none, so the engine has one split to try (linear in the word)
    first_run = re.search(r"\[\^[^\]]*\]\*/", command_text._POSITIONAL_MODEL.pattern)
    assert first_run is not None and re.fullmatch(first_run.group(0)[:-2], "/") is None
    word = "a/" * 4000 + "b"
    assert command_text._POSITIONAL_MODEL.sub(r"\1 --model-path \2", f"sglang serve {word} --tp 2") == (
        f"sglang serve --model-path {word} --tp 2"
    )
    assert command_text._POSITIONAL_MODEL.search("sglang serve " + "a/" * 4000 + " x") is None


@pytest.mark.parametrize("head", ["~" * 3000 + "x,", "-" * 5000 + "1,", "not " * 30000 + "x,"])
def test_a_deep_expression_in_a_python_list_is_no_command_and_no_internal_error(head):
    # item 5: CPython's parser raises RecursionError / MemoryError on it, not SyntaxError
    assert field_commands._python_items(head) is None
    text = f'cmd = [\n    "python3", "-m", "sglang.launch_server",\n    {head}\n]\n'
    # the launcher's words above the line are read; the line ends the list
    assert _configs(text) == [{}]


def _counting_parse(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = ast.parse

    def parse(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(field_commands.ast, "parse", parse)
    return calls


def test_a_python_list_of_data_is_given_back_at_its_first_item(monkeypatch):
    # item 13: a list opened empty whose first item is no interpreter is no launcher's argv: not parsed line by line
    calls = _counting_parse(monkeypatch)
    text = "data = [\n" + "    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,\n" * 2000 + "]\n"
    assert _configs(text) == []
    assert len(calls) <= 2


def test_a_python_argv_list_longer_than_a_launcher_s_stops_being_read(monkeypatch):
    calls = _counting_parse(monkeypatch)
    text = 'cmd = [\n    "python3", "-m", "sglang.launch_server",\n' + '    "--tp", "2", str(tp), args.x,\n' * 2000 + "]\n"
    analyze_text(text)
    assert len(calls) <= field_commands._PY_LINES_MAX + 2
    # a real one is still read
    real = 'cmd = [\n    "python3", "-m", "sglang.launch_server",\n    "--tp", "2",\n    "--mem-fraction-static", "0.8",\n]\n'
    assert _configs(real) == [{"tp_size": 2, "mem_fraction_static": 0.8}]


def test_an_html_break_match_starts_only_where_a_blank_run_starts():
    # item 14: a match tried inside a long blank run (before a `<` that is no break) rescanned the run
    assert ingest._HTML_BREAK.match(" " * 6 + "<br>", 3) is None
    assert ingest._HTML_BREAK.sub(" ", "--tp 8<br>--mem 0.8") == "--tp 8 --mem 0.8"
    assert ingest._HTML_BREAK.sub(" ", "x <BR >  y") == "x y"
    assert ingest._HTML_BREAK.sub(" ", "<br>x") == " x"
    line = "**Error**" + " " * 30000 + "<unk> token"
    assert ingest._HTML_BREAK.sub(" ", line) == line


def test_a_flow_list_item_s_continuation_is_cut_without_a_regex():
    assert field_commands._without_continuation('"--tp", "2",   \\  ') == '"--tp", "2",'
    spaced = '"--tp",' + " " * 30000 + '"2",'
    assert field_commands._without_continuation(spaced) == spaced


def _lazy_any_repeats(pattern: str) -> int:
    """How many repeats of any character (`.*?`, `.*`) the pattern holds."""

    def walk(items) -> int:
        count = 0
        for op, av in items:
            if op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT):
                count += any(sub_op == _parser.ANY for sub_op, _ in av[2]) + walk(av[2])
            elif op == _parser.SUBPATTERN:
                count += walk(av[3])
        return count

    return walk(_parser.parse(pattern))


def test_rocm_topo_s_row_is_runs_of_cells_not_a_lazy_any():
    # item 15: `(\S.*?)\s*$` rescanned a row's blank run at each character
    assert _lazy_any_repeats(rocm_topo._ROW.pattern) == 0
    m = rocm_topo._ROW.match("GPU0   0            XGMI         XGMI          ")
    assert m is not None and m.groups() == ("0", "0            XGMI         XGMI")
    row = rocm_topo._ROW.match("GPU0   0 " + " " * 30000 + "x")
    assert row is not None and row.group(2).split() == ["0", "x"]


def test_a_faulthandler_frame_cut_before_its_end_is_read_by_runs_of_the_path():
    assert blocks._FAULTHANDLER_CUT.match('  File "/usr/lib/python3.10/threading.py') is not None
    assert blocks._FAULTHANDLER_CUT.match("  File") is not None
    assert blocks._FAULTHANDLER_CUT.match('  File "abc' + " " * 30000 + '"x') is None


def test_rocm_topo_s_table_ends_at_a_gpu_line_whose_words_are_no_link_types():
    # item 15: the reader took any `GPU<n> ...` line as a row, and kept the block open
    reader = rocm_topo.RocmTopoReader("paste")
    reader.open(1, "=============================== Link Type between two GPUs ===============================")
    assert reader.feed(2, "       GPU0         GPU1         ")
    assert reader.feed(3, "GPU0   0            XGMI         ")
    assert not reader.feed(4, "GPU1   hangs at startup after the weights load")
    assert reader.feed(4, "GPU1   XGMI         0            ")
    [event] = reader.close()
    assert event.data["links"] == [[0, 1, "XGMI"]]

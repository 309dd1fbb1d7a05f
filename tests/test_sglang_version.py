"""How a launch's SGLang release is known: stated (check_env, a pip list, the docker image's release tag) or a
range inferred from the wordings its lines use (the upstream catalogue), or unknown."""

from __future__ import annotations

import pytest

from tests.helpers import analyze_text

INIT = "[2026-10-20 09:00:01 TP0] Init parallel begin.\n"

CASES = [
    ("check_env", "Python: 3.12.3 (main)\nCUDA available: True\nsglang: 0.5.23\n" + INIT, "0.5.23", None, "stated by check_env"),
    ("pip list", "[pip3] sglang==0.5.22\n" + INIT, "0.5.22", None, "stated by a pip list"),
    (
        "docker tag",
        "docker run --gpus all lmsysorg/sglang:v0.5.2rc0-cu126 python3 -m sglang.launch_server --tp 2\n" + INIT,
        "0.5.2rc0",
        None,
        "stated by the release tag",
    ),
    (
        "docker latest",
        "docker run --gpus all lmsysorg/sglang:latest python3 -m sglang.launch_server --tp 2\n" + INIT,
        None,
        ["0.5.21", "0.5.23"],
        "inferred from 1 wording(s)",
    ),
    ("wordings", INIT, None, ["0.5.21", "0.5.23"], "inferred from 1 wording(s)"),
    ("no telling wording", "[2026-10-20 09:00:01 TP0] Load weight begin. avail mem=70.00 GB\n", None, None, "unknown"),
]


@pytest.mark.parametrize(("name", "text", "version", "span", "how"), CASES, ids=[c[0] for c in CASES])
def test_sglang_version_and_how_it_is_known(name, text, version, span, how):
    found = analyze_text(text)["launches"][0]["sglang_version"]
    assert found["version"] == version
    assert found["range"] == span
    assert found["how"].startswith(how)


@pytest.mark.parametrize(
    "line",
    [
        # a logger's own prefix before the message (f-037's format, and vLLM's): the message alone is matched, so the
        # placeholder-led wording of 0.5.10.post1+ ("{cls_name} is disabled ...") cannot take the prefix for its
        # placeholder and exclude the older releases that print the sentence literally
        "2025-04-13 14:53:43 WARNING 509 [custom_all_reduce.py:185] Custom allreduce is disabled because this process "
        "group spans across nodes.",
        "WARNING 04-13 14:53:43 [custom_all_reduce.py:185] Custom allreduce is disabled because this process group "
        "spans across nodes.",
    ],
)
def test_a_logger_prefix_is_not_read_as_part_of_the_wording(line):
    plain = analyze_text("[2025-04-13 14:53:43 TP0] Custom allreduce is disabled because this process group spans across nodes.")
    prefixed = analyze_text(line)
    span = plain["launches"][0]["sglang_version"]["range"]
    assert span is not None and span[0] != "0.5.10.post1"
    assert prefixed["launches"][0]["sglang_version"]["range"] == span


def test_strip_prefix_reads_the_prefixes_the_grammar_reads():
    from logscope.pipeline.parse.parsers.base import strip_prefix

    assert strip_prefix("2025-04-13 14:53:45,123 INFO 507 [model_runner.py:313] Init ends.") == "Init ends."
    assert strip_prefix("INFO 01-01 10:00:00.123 [__init__.py:239] Automatically detected") == "Automatically detected"
    assert strip_prefix("[2026-01-01 10:00:00 TP0] Load weight begin") == "Load weight begin"
    assert strip_prefix("2025-04-13 a line with no logger prefix") == "2025-04-13 a line with no logger prefix"

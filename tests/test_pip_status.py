"""pip's download and search-scope lines are read as pip's and nothing more (fix15 item 3): the prefilter's literals in
their wheel names ("sgl_kernel", ".whl", a build tag's "torch2.6") no longer send them through the prose readers, and
what the readers read from a pip log is the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from logscope.pipeline.parse import classify, pip_status
from tests.helpers import analyze_text

ROOT = Path(__file__).resolve().parent.parent


def test_the_heads_are_pips_released_wordings():
    heads = json.loads((ROOT / "catalog" / "pip_status.json").read_text())["heads"]
    assert {h.rstrip() for h in heads} == set(pip_status.DOWNLOAD_HEADS) | set(pip_status.SCOPE_HEADS)
    assert heads["Downloading "]["pip/_internal/network/download.py"] == ["20.0", "23.0", "25.3"]


@pytest.mark.parametrize(
    "line",
    [
        "  Downloading torch-2.9.1+cu128-cp312-cp312-manylinux_2_28_x86_64.whl (899.7 MB)",
        "Downloading torch2.4.0-cp310.whl",
        "  Downloading https://github.com/flashinfer-ai/flashinfer/releases/download/v0.2.5/"
        "flashinfer_python-0.2.5+cu124torch2.6-cp38-abi3-linux_x86_64.whl (899.7 MB)",
        "  Using cached sgl_kernel-0.3.21-cp310-abi3-manylinux2014_x86_64.whl (512.3 MB)",
        "  Resuming download torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl (100.0 MB/899.7 MB)",
        "Downloading sglang-0.5.3.tar.gz (1.2 MB)",
        "Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cu128",
        "Looking in links: https://flashinfer.ai/whl/cu124/torch2.6/flashinfer-python",
    ],
)
def test_pips_download_lines_state_nothing(line):
    assert pip_status.states_nothing(line)


@pytest.mark.parametrize(
    "line",
    [
        "Collecting torch==2.9.1",  # a pin: read (below)
        "Successfully installed sgl_kernel-0.1.0+cu124torch2.5 torch-2.9.1 triton-3.5.1",
        "Downloading shards: 100%|██████████| 4/4 [00:10<00:00,  2.5s/it]",  # transformers' bar, no file
        "Downloading torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl failed: connection reset",  # words after it
        "ROCm Component: torch2.4.0+ROCm 6.1",
        "[2026-01-05 09:00:05] Downloading https://x/y.whl",  # a record's prefix: not pip's own line
    ],
)
def test_other_lines_are_no_pip_status_line(line):
    assert not pip_status.states_nothing(line)


_PIP_LOG = (
    "Looking in links: https://flashinfer.ai/whl/cu124/torch2.6/flashinfer-python\n"
    "Collecting torch==2.9.1\n"
    "  Downloading torch-2.9.1+cu128-cp312-cp312-manylinux_2_28_x86_64.whl (899.7 MB)\n"
    "Collecting flashinfer-python==0.2.5+cu124torch2.6\n"
    "  Downloading https://github.com/flashinfer-ai/flashinfer/releases/download/v0.2.5/"
    "flashinfer_python-0.2.5+cu124torch2.6-cp38-abi3-linux_x86_64.whl (899.7 MB)\n"
    "ROCm Component: torch2.4.0+ROCm 6.1\n"
)


@pytest.mark.parametrize("fenced", [False, True])
def test_a_pip_log_states_the_same_and_its_download_lines_reach_no_reader(fenced, monkeypatch):
    text = "```\n" + _PIP_LOG + "```\n" if fenced else _PIP_LOG
    reached: list[str] = []
    classify_line = classify.SourceClassifier._classify

    def spy(self, lineno, line, candidates):
        reached.append(line)
        return classify_line(self, lineno, line, candidates)

    monkeypatch.setattr(classify.SourceClassifier, "_classify", spy)
    report = analyze_text(text)
    # as before the guard (main 3da6d5aa gives the same): the two pins and the ROCm component line read, nothing listed
    assert report["versions"] == {"torch": "2.9.1", "flashinfer": "0.2.5+cu124torch2.6"}
    assert report["inputs"][0]["recognized_lines"] == 3
    assert report["coverage"]["grammars"] == {"stated_env": {"seen": 3, "recognized": 3}}
    assert report["coverage"]["unrecognized"] == []
    downloads = [line for line in text.splitlines() if pip_status.states_nothing(line)]
    assert len(downloads) == 3 and not set(downloads) & set(reached)
    assert "Collecting torch==2.9.1" in reached


def test_a_line_a_reader_asks_twice_is_read_once_and_each_answer_is_its_own(monkeypatch):
    from logscope.pipeline.parse.parsers import stated_env

    stated_env._named_versions_memo.cache_clear()
    calls: list[str] = []
    read = stated_env._named_versions
    monkeypatch.setattr(stated_env, "_named_versions", lambda text: calls.append(text) or read(text))
    line = "Collecting sgl-kernel==0.3.21 (from sglang[all]==0.5.3)"
    assert stated_env.fits(line)
    parsed = stated_env.parse_line(line)
    assert parsed is not None and parsed.data == {"values": {"sgl-kernel": "0.3.21"}, "stated_by": "sentence"}
    assert calls == [line]  # fits() asked, parse_line() got the memo's answer
    first = stated_env.named_versions(line)
    first["torch"] = "9.9.9"  # a caller's change stays its own
    assert stated_env.named_versions(line) == {"sgl-kernel": "0.3.21"}
    long_line = line + " " * stated_env._NAMED_MEMO_CHARS
    assert stated_env.named_versions(long_line) == {"sgl-kernel": "0.3.21"} and calls[-1] == long_line

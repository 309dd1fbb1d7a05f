"""Forms that mine8a's and mine8b's built pastes showed and nobody had read: a pin of Python beside the package pins, a
capitalised "Transformers:" field, a clone of SGLang's repository at a release tag."""

from __future__ import annotations

import pytest

from tests.helpers import analyze_text, stated_versions


def test_a_python_pin_among_package_pins_is_the_python_version():
    # sglang-9590's shape: a pip-freeze-like block with the interpreter written as a pin
    text = "sglang==0.4.10.post2\nsgl_kernel==0.2.8\npython==3.10.13\ntorch==2.7.1\n"
    assert stated_versions(text) == {"sglang": "0.4.10.post2", "sgl_kernel": "0.2.8", "python": "3.10.13", "torch": "2.7.1"}


def test_a_capitalised_transformers_field_of_a_key_value_block():
    # flashinfer-3493's shape: vLLM's and FlashInfer's environment as "Key: value" lines
    text = "```\nPython: 3.12.13\nPyTorch: 2.11.0+cu130\nTransformers: 5.9.0\n```\n"
    assert stated_versions(text) == {"python": "3.12.13", "torch": "2.11.0+cu130", "transformers": "5.9.0"}


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("git clone -b v0.4.9 --depth 1 https://github.com/sgl-project/sglang.git", "0.4.9"),  # sglang-7905
        ("git clone --branch v0.5.3rc0 https://github.com/sgl-project/sglang", "0.5.3rc0"),
        ("git clone --branch=v0.4.6.post5 git@github.com:sgl-project/sglang.git", "0.4.6.post5"),
        ("git clone -b main https://github.com/sgl-project/sglang.git", None),  # a branch, no release
        ("git clone -b v0.4.9 https://github.com/someone/sglang-fork.git", None),  # another repository's tag
    ],
)
def test_a_clone_of_sglang_at_a_release_tag_states_the_release(line, version):
    assert stated_versions(f"```\n{line}\ncd sglang\n```\n").get("sglang") == version


@pytest.mark.parametrize(
    "line",
    [
        "- `--mem-fraction-static 0.7` → does NOT resolve the issue",  # sglang-24302's list of workarounds tried
        "- `--disable-cuda-graph` → does NOT resolve the issue, run but raise error when requested",
        "I tried `--cuda-graph-max-bs 16`, no effect",
        "- `--chunked-prefill-size 4096` didn't help",
        "- mem-fraction-static: 0.7 (tried, still fails)",
    ],
)
def test_a_flag_quoted_as_an_attempt_is_no_setting_of_the_launch(line):
    report = analyze_text(f"**Workarounds tried:**\n{line}\n")
    assert all(not launch["config"] for launch in report["launches"])


@pytest.mark.parametrize(
    ("line", "config"),
    [
        ("- `--mem-fraction-static 0.7`", {"mem_fraction_static": 0.7}),
        ("- `--cuda-graph-max-bs 16` and `--tp 2`", {"cuda_graph_max_bs": 16, "tp_size": 2}),
        ("- tp-size: 4", {"tp_size": 4}),
    ],
)
def test_a_flag_quoted_without_words_of_an_attempt_is_still_read(line, config):
    report = analyze_text(f"{line}\n")
    assert report["launches"][0]["config"] == config


def test_a_traced_shell_assignment_is_no_flag():
    # mooncake-180's shape: `set -x` output (bash PS4 "+ ") before a vLLM launch; the variable is no SGLang setting
    text = "```\n+ model=/workspace/Meta-Llama-3.1-8B-Instruct/\n++ port=8100\n+ mooncake_master --port 50001\n```\n"
    assert all(not launch["config"] for launch in analyze_text(text)["launches"])


def test_an_lmcache_error_record_is_read_as_a_failure():
    # lmcache-1690's shape: LMCache's logger format (lmcache/logging.py build_format) behind Ray's worker prefix
    text = (
        "INFO 09-25 00:42:05 [async_llm.py:270] Added request chatcmpl-2c45aa08.\n"
        "(RayWorkerWrapper pid=999) [2025-09-25 00:42:06,066] LMCache INFO: Post-initializing LMCacheEngine "
        "(cache_engine.py:177:lmcache.v1.cache_engine)\n"
        "(RayWorkerWrapper pid=999) [2025-09-25 00:42:06,089] LMCache ERROR: The number of retrieved tokens is wrong "
        "(cache_engine.py:510:lmcache.v1.cache_engine)\n"
    )
    findings = analyze_text(text)["findings"]
    assert [f["rule"] for f in findings] == ["unrecognized-failure"]
    assert "The number of retrieved tokens is wrong" in findings[0]["message"]
    # an INFO record of the same form states no failure
    assert analyze_text(text.rsplit("(RayWorkerWrapper", 1)[0])["findings"] == []


def _failure_libraries(text: str) -> list:
    return [f.get("library") for f in analyze_text(text)["findings"] if f["severity"] == "error"]


def test_a_failure_stated_in_prose_is_attributed_to_the_one_library_its_sentence_names():
    # sglang-24633's form: the failing runner named as FlashInfer's, the error only in inline code
    text = (
        "On RTX PRO 6000 (SM120), SGLang 0.5.10 routes MLA prefill through the TRTLLM MLA prefill path, which calls "
        "FlashInfer's `TllmGenFmhaRunner` and fails immediately with `Unsupported architecture`.\n"
    )
    assert _failure_libraries(text) == ["FlashInfer"]


def test_a_sentence_naming_two_libraries_names_no_raiser():
    text = "The server crashes at startup when DeepEP and FlashInfer are both enabled.\n"
    libraries = _failure_libraries(text)
    assert libraries and all(library is None for library in libraries)

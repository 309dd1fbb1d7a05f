"""Versions as people write them (session 14): what a resolver or a writer says a package depends on, and a range's
bound after SGLang's own name, are no versions installed."""

from __future__ import annotations

import pytest

from logscope.pipeline.ingest.unwrap import glued_check_env
from tests.helpers import analyze_text, stated_versions, versions_of


@pytest.mark.parametrize(
    "text",
    [
        # uv's resolver report (the shape of a dependency conflict pasted in an issue)
        "  ╰─▶ Because flashinfer was not found in the package registry and sglang[all]==0.4.2 depends on "
        "flashinfer==0.1.6, we can conclude that sglang[all]==0.4.2 cannot be used.\n",
        # pip 25.0's conflict report (resolvelib/factory.py: "{name} {version} depends on {req}", "The user requested")
        "The conflict is caused by:\n    The user requested torch==2.3.0\n    sglang 0.4.2 depends on torch==2.5.1\n",
        # a writer naming another project's dependency
        "LLaVA's official repository has a dependency of torch==2.1.2, see here.\n",
        # a range's bound after SGLang's name, in a question
        "Would you mind upgrading sglang to 0.4.3 or above? Thank you!\n",
        "sglang 0.5.3+ is needed for this model.\n",
        # a version named as the requirement (a maintainer's answer)
        "Thanks for the report! The README has been updated — CUDA 13.2.1 is the correct requirement.\n",
        "torch 2.8.0 is the minimum\n",
    ],
)
def test_dependencies_and_ranges_are_no_installed_versions(text):
    assert stated_versions(text) == {}


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        ("I upgraded sglang to 0.5.4 and it fails\n", {"sglang": "0.5.4"}),
        ("I run sglang 0.5.3 with torch 2.8.0 and it fails\n", {"sglang": "0.5.3", "torch": "2.8.0"}),
        # a version before a range's arrow is the old one; nothing is said to run
        ("sglang v0.5.3 -> v0.5.4 broke it\n", {}),
    ],
)
def test_versions_in_use_are_still_read(text, versions):
    assert stated_versions(text) == versions


def test_query_gpu_csv_driver_version_column_is_the_driver():
    # nvidia-smi --query-gpu=...,driver_version,... --format=csv: one driver for every row, as printed
    text = (
        "$ nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.used --format=csv\n"
        "index, name, driver_version, memory.total [MiB], memory.used [MiB]\n"
        "0, NVIDIA H100 80GB HBM3, 570.133.20, 81559 MiB, 1234 MiB\n"
        "1, NVIDIA H100 80GB HBM3, 570.133.20, 81559 MiB, 4 MiB\n"
    )
    assert stated_versions(text) == {"driver": "570.133.20"}


def test_query_gpu_csv_noheader_keeps_the_drivers_text():
    # the columns from the command; "535.40" is no number to round
    text = (
        "nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader\n"
        "NVIDIA H100 80GB HBM3, 535.40, 81559 MiB\n"
        "NVIDIA H100 80GB HBM3, 535.40, 81559 MiB\n"
    )
    assert stated_versions(text) == {"driver": "535.40"}


def test_query_gpu_csv_rows_of_two_drivers_state_none():
    # rows of several hosts (two drivers): neither is the run's
    text = "index, name, driver_version\n0, NVIDIA H100 80GB HBM3, 570.133.20\n1, NVIDIA H100 80GB HBM3, 570.124.06\n"
    assert stated_versions(text) == {}


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        # a change of image: the old tag is no longer the one that runs (code spans and emphasis around the tags)
        (
            "Bumps the configs from **`lmsysorg/sglang:v0.5.11-cu130`** to **`v0.5.12-cu130`** in `nvidia-master.yaml`.\n",
            {"sglang": "0.5.12"},
        ),
        ("lmsysorg/sglang:v0.5.11-cu130 -> lmsysorg/sglang:v0.5.12-cu130\n", {"sglang": "0.5.12"}),
        ("I run `lmsysorg/sglang:v0.5.11-cu130` on H100\n", {"sglang": "0.5.11"}),
        # a request to add a release is no release in use
        ("Add SGlang v0.5.12.post1\n", {}),
    ],
)
def test_image_tags_of_a_change_and_requests(text, versions):
    assert stated_versions(text) == versions


@pytest.mark.parametrize(
    "text",
    [
        # pip list rows of the builds published under other distribution names (PyPI's index)
        "mooncake-transfer-engine-cuda13  0.3.12.post1\nnixl-cu12                        0.7.1\n",
        # pip freeze
        "mooncake-transfer-engine-cuda13==0.3.12.post1\nnixl-cu13==0.7.1\n",
        # a hand-written block
        "- mooncake-transfer-engine-cuda13: 0.3.12.post1\n- nixl-cu12: 0.7.1\n",
    ],
)
def test_variant_distributions_of_mooncake_and_nixl(text):
    assert stated_versions(text) == {"mooncake": "0.3.12.post1", "nixl": "0.7.1"}


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        # a package's name run into its release of three numbers
        ("I use torch2.5.1 and flashinfer0.2.3 on one H100\n", {"torch": "2.5.1", "flashinfer": "0.2.3"}),
        ("torch2.4.0\n", {"torch": "2.4.0"}),
        # a wheel index's path names a series, not a release (and its slash is no word's start)
        ("pip install flashinfer -i https://flashinfer.ai/whl/cu124/torch2.5/\n", {}),
        ("flashinfer_python-0.2.1+cu124torch2.5-cp312-cp312-linux_x86_64.whl is broken\n", {}),
    ],
)
def test_a_name_run_into_its_release(text, versions):
    assert stated_versions(text) == versions


@pytest.mark.parametrize(
    "text",
    [
        # the project's history: when something came or went
        "This regression was introduced in SGLang v0.5.2.\n",
        "Starting from sglang 0.5.3, the default changed.\n",
        "As of SGLang 0.5.4 this flag is removed.\n",
        "PyTorch 2.9 is required since sglang 0.5.6.\n",
        "After sglang 0.5.3 the memory usage grew.\n",
        "I switched from sglang 0.5.2 and now it fails.\n",
        "This was introduced in torch 2.8.0 and breaks us.\n",
        # a release planned or awaited
        "We plan to release this in v0.5.5.\n",
        "Will this be backported to sglang 0.5.3?\n",
    ],
)
def test_history_and_future_releases_are_no_installed_versions(text):
    assert stated_versions(text) == {}


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        ("I run sglang 0.5.3 and it crashes.\n", {"sglang": "0.5.3"}),
        ("I am using v0.5.4.post1 and see the same error.\n", {"sglang": "0.5.4.post1"}),
        ("After upgrading to sglang 0.5.3 the memory usage grew.\n", {"sglang": "0.5.3"}),
        # "from" after no change of release: the release that runs
        ("I built the image from sglang v0.5.3 source.\n", {"sglang": "0.5.3"}),
    ],
)
def test_releases_in_use_beside_history_words(text, versions):
    assert stated_versions(text) == versions


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        # a sentence that recommends names no version that runs; the next sentence still states one
        ("Try transformers==4.56.2\n", {}),
        ("Use torch 2.8.0 instead.\n", {}),
        ("torch 2.8.0 should fix this\n", {}),
        ("Please install flashinfer 0.2.5 first. I have torch 2.7.1 here.\n", {"torch": "2.7.1"}),
        ("I use torch 2.8.0 and flashinfer 0.2.5\n", {"torch": "2.8.0", "flashinfer": "0.2.5"}),
    ],
)
def test_advice_sentences_of_other_packages(text, versions):
    assert stated_versions(text) == versions


# check_env as a reply quoting the rendered report shows it: the lines run into one, a space between them (the shape of
# a quoted comment on a DGX Spark report)
_GLUED_CHECK_ENV = (
    "> warnings.warn( Python: 3.12.12 | packaged by Anaconda, Inc. | (main, Oct 21 2025, 20:05:09) [GCC 11.2.0] CUDA"
    " available: True GPU 0: NVIDIA GB10 GPU 0 Compute Capability: 12.1 CUDA_HOME: /usr/local/cuda NVCC: Cuda compilation"
    " tools, release 13.0, V13.0.88 CUDA Driver Version: 580.95.05 PyTorch: 2.9.1+cu130 sglang: 0.5.5.post1 sgl_kernel:"
    " 0.3.17 flashinfer_python: 0.5.0 flashinfer_cubin: 0.5.0 flashinfer_jit_cache: Module Not Found triton: 3.5.1"
    " transformers: 4.57.1 torchao: 0.9.0 numpy: 2.3.4 orjson: 3.11.4 outli\n"
)


def test_check_env_run_into_one_line_is_read_as_check_env():
    report = analyze_text(_GLUED_CHECK_ENV)
    assert versions_of(report) == {
        "python": "3.12.12",
        "cuda": "13.0",
        "driver": "580.95.05",
        "torch": "2.9.1+cu130",
        "sglang": "0.5.5.post1",
        "sgl_kernel": "0.3.17",
        "flashinfer": "0.5.0",
        "triton": "3.5.1",
        "transformers": "4.57.1",
    }
    assert [(g["index"], g["name"]) for g in report["gpus"]] == [(0, "NVIDIA GB10")]


def test_a_sentence_naming_two_check_env_keys_is_not_split():
    # fewer keys than check_env prints: a sentence, read as one
    text = "Python: 3.12 and PyTorch: 2.9.1 are what I use.\n"
    assert glued_check_env(text.strip()) is None


def test_torch_collect_env_run_into_one_line_is_read():
    # torch/utils/collect_env.py's env_info_fmt, its lines run into one by a quoted reply
    text = (
        "> Collecting environment information... PyTorch version: 2.5.1+cu124 Is debug build: False CUDA used to build"
        " PyTorch: 12.4 ROCM used to build PyTorch: N/A OS: Ubuntu 22.04.4 LTS (x86_64) Python version: 3.10.12 (main)"
        " Is CUDA available: True CUDA runtime version: 12.4.131 GPU models and configuration: GPU 0: NVIDIA H100 80GB"
        " HBM3 Nvidia driver version: 550.54.15\n"
    )
    report = analyze_text(text)
    assert versions_of(report) == {"torch": "2.5.1+cu124", "cuda": "12.4", "python": "3.10.12", "driver": "550.54.15"}
    assert [(g["index"], g["name"]) for g in report["gpus"]] == [(0, "NVIDIA H100 80GB HBM3")]

"""Versions as people write them (session 13): py-spy's dump header names the interpreter of the dumped process, pip
freeze names a wheel installed from a file or a URL by the wheel's own name, and two numbers of a package whose every
release has three (or Python's minor series inside a running sentence) name a series, not the version that runs."""

from __future__ import annotations

import pytest

from logscope.pipeline.parse.parsers import stated_env
from tests.helpers import stated_versions


def test_py_spy_dump_header_names_the_schedulers_python():
    # the shape of SGLang's watchdog dump (gpustack-3139, sglang-5022): "Pyspy dump for PID", py-spy's two header lines
    text = (
        "[2025-11-05 10:18:51] Pyspy dump for PID 499:\n"
        "Process 499: sglang::scheduler\n"
        "Python v3.11.13 (/usr/local/python3.11.13/bin/python3.11)\n"
        'Thread 499 (idle): "MainThread"\n'
        "    replay (npu_graph_runner.py:82)\n"
    )
    assert stated_versions(text) == {"python": "3.11.13"}


def test_a_sentence_that_names_python_v_is_no_dump_header():
    # "Python v3.12" without a path after it is a sentence's, and a minor series: not the interpreter's release
    assert stated_versions("We run everything on Python v3.12 here.\n") == {}


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # pip freeze for a wheel installed from a file (pip's direct reference "name @ url")
        (
            "sgl-kernel @ file:///tmp/wheels/sgl_kernel-0.3.9.post2-cp310-abi3-manylinux2014_x86_64.whl",
            {"sgl_kernel": "0.3.9.post2"},
        ),
        # ... from a URL, its local version's "+" written "%2B"
        (
            "sgl-kernel @ https://github.com/sgl-project/whl/releases/download/v0.3.9.post2/"
            "sgl_kernel-0.3.9.post2%2Bcu128-cp310-abi3-manylinux2014_x86_64.whl",
            {"sgl_kernel": "0.3.9.post2+cu128"},
        ),
        (
            "flashinfer-python @ file:///wheels/flashinfer_python-0.2.14.post1-cp39-abi3-linux_x86_64.whl",
            {"flashinfer": "0.2.14.post1"},
        ),
        # a source tree names no release
        ("sglang @ file:///sgl-workspace/sglang/python", {}),
        # another distribution's wheel behind the name is not this package's version
        ("sgl-kernel @ file:///tmp/wheels/flashinfer_python-0.2.14-cp39-abi3-linux_x86_64.whl", {}),
    ],
)
def test_pip_freeze_direct_reference_to_a_wheel(line, versions):
    text = "$ pip freeze | grep -E 'sgl|flashinfer'\n" + line + "\ntorch==2.8.0\n"
    assert stated_versions(text) == {**versions, "torch": "2.8.0"}


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # a documentation diff's sentence (sgl-project/sglang#3648's shape): torch's series, no release
        (
            "-Note: SGLang currently uses torch 2.5, so you need to install the flashinfer version for torch 2.5.",
            {},
        ),
        ("+  under the `triton_<version>/` dir matching the image's triton 3.7.0 for torch 2.12", {"triton": "3.7.0"}),
        # three numbers are a release
        ("We run torch 2.8.0 with flashinfer 0.2.14.", {"torch": "2.8.0", "flashinfer": "0.2.14"}),
        # CUDA's and NCCL's versions have two numbers
        ("Host: driver 580.65.06, CUDA 12.9, NCCL 2.30", {"driver": "580.65.06", "cuda": "12.9", "nccl": "2.30"}),
    ],
)
def test_two_numbers_of_a_three_number_package_name_a_series(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # Python's minor series inside a running sentence (sglang-27654, sglang-465, sglang-25160 shapes)
        ("I installed sglang in pip in a python 3.12 venv.  When I tried to run it I got this error:", {}),
        ("Installed via pip in python 3.10 as readme says, then ran:", {}),
        ("Reproduced in a docker image with CUDA 13 and python 3.12:", {}),
        # ... and beside a full release in the same sentence: neither is said to run
        (
            "The venv method installs Python 3.13.2 by default on Ubuntu 24.04, so I used Conda to create a Python 3.12"
            " environment:",
            {},
        ),
        # a list of the environment states it (nixl-177's, ascend-sglang-520's shapes)
        ("Ubuntu 22.04.3 LTS, python 3.12, Driver Version: 560.28.03", {"python": "3.12", "driver": "560.28.03"}),
        ("Python 3.10", {"python": "3.10"}),
        # a full release in a sentence is stated
        ("I installed sglang in a python 3.12.3 venv.", {"python": "3.12.3"}),
    ],
)
def test_python_minor_series_in_a_running_sentence(line, versions):
    assert stated_versions(line + "\n") == versions


def test_xformers_build_warning_gives_the_process_versions_not_the_wheels():
    # xformers _cpp_lib.py xFormersWasNotBuiltException: the build's torch and Python first, the process's in "(you have ...)"
    text = (
        "[2025-06-08 10:55:22] WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.6.0+cu124 with CUDA 1204 (you have 2.7.1+cu126)\n"
        "    Python  3.10.16 (you have 3.10.12)\n"
        "  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)\n"
        "  Memory-efficient attention, SwiGLU, sparse and more won't be available.\n"
    )
    assert stated_versions(text) == {"torch": "2.7.1+cu126", "python": "3.10.12"}


@pytest.mark.parametrize(
    ("message", "versions"),
    [
        # SGLang's assert_pkg_version (sglang/srt/utils.py): the installed version first, the minimum after it
        (
            "Exception: flashinfer_python is installed with version 0.2.3, which is less than the minimum required version"
            " 0.2.5. Please reinstall the latest version with `pip install flashinfer-python --force-reinstall`",
            {"flashinfer": "0.2.3"},
        ),
        (
            "Exception: sgl-kernel is installed with version 0.0.5, which is less than the minimum required version"
            " 0.0.5.post3. Please reinstall the latest version with `pip install sgl-kernel --force-reinstall`",
            {"sgl_kernel": "0.0.5"},
        ),
        # its other branch names only the minimum: no version installed
        (
            "Exception: flashinfer_python with minimum required version 0.2.5 is not installed. Please reinstall the latest"
            " version with `pip install flashinfer-python --force-reinstall`",
            {},
        ),
    ],
)
def test_sglang_version_check_names_the_installed_version(message, versions):
    text = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/utils.py", line 716, in assert_pkg_version\n'
        "    raise Exception(\n" + message + "\n"
    )
    assert stated_versions(text) == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # SGLang's warnings that print the installed version (the released templates, catalog/sglang.json)
        (
            "[2026-03-01 10:00:01] Current Triton version 3.1.0 is below the recommended 3.2.0 version. Errors may occur"
            " and these issues will not be fixed. Please consider upgrading Triton.",
            {"triton": "3.1.0"},
        ),
        # the sentence's period is no part of the local version
        ("  Current torch version is 2.9.1+cu129.", {"torch": "2.9.1+cu129"}),
        (
            "[2026-03-01 10:00:01] LoRA shrink config not found for Triton 3.5.1. Falling back to"
            " /sgl-workspace/configs/triton_3_4_0/shrink.json.",
            {"triton": "3.5.1"},
        ),
        # the MoE config fallback names an older Triton's configs, not the installed Triton
        (
            "[2025-07-01 10:00:01] Config file not found at /sgl-workspace/sglang/python/sglang/srt/layers/moe/"
            "fused_moe_triton/configs/triton_3_4_0/E=128,N=768,device_name=NVIDIA_H20.json. Fallback to triton version"
            " 3.3.1 and use MoE kernel config from /sgl-workspace/sglang/python/sglang/srt/layers/moe/fused_moe_triton/"
            "configs/triton_3_3_1/E=128,N=768,device_name=NVIDIA_H20.json. Performance might be sub-optimal!",
            {},
        ),
    ],
)
def test_sglang_warnings_that_name_an_installed_version(line, versions):
    assert stated_versions(line + "\n") == versions


def test_flashinfer_wheel_skew_is_not_read_as_the_installed_version():
    # FlashInfer's wheel-skew check names two wheels' versions; reading the second as flashinfer-python's gave one more
    # false version on the held-back part of the mined corpus (totals only): not read
    text = (
        '  File "/usr/local/lib/python3.12/dist-packages/flashinfer/__init__.py", line 40, in <module>\n'
        "    _check_cubin_version()\n"
        "RuntimeError: flashinfer-cubin version (0.6.4) does not match flashinfer version (0.6.3). Please install the same"
        " version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check.\n"
    )
    assert stated_versions(text) == {}


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        # a script's print of the attribute and its value on one line
        ("torch.__version__: 2.8.0+cu128\ntorch.version.cuda: 12.8\n", {"torch": "2.8.0+cu128", "cuda": "12.8"}),
        (
            "sglang.__version__ = '0.5.4.post1'\n- `torch.__version__`: `2.9.1+cu130`\n",
            {"sglang": "0.5.4.post1", "torch": "2.9.1+cu130"},
        ),
        # the attribute asked on its line, the value printed on the next (VersionPrintReader), as before
        (">>> import torch\n>>> torch.__version__\n'2.8.0+cu128'\n", {"torch": "2.8.0+cu128"}),
        # a comparison in code is no value printed
        ("if torch.__version__ >= '2.8.0':\n", {}),
    ],
)
def test_a_module_attribute_with_its_value_on_one_line(text, versions):
    assert stated_versions(text) == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # a CI matrix's diff line with its remark (flashinfer-ai/flashinfer#711's shape): support dropped, no environment
        ('+          - cuda: "12.1" # torch 2.5+ drops cuda 12.1', {}),
        # a maintainer's answer (flashinfer-ai/flashinfer#464's shape): a release a project does not have
        (
            "FlashInfer's cuda version follows your pytorch's cuda version, and this has nothing to do with your nvcc or"
            " cuda driver version in your operating system, pytorch do not have an official cuda 12.5 release.",
            {},
        ),
        # a statement of the environment beside a negation of something else is still read
        ("I'm not sure why, but with CUDA 12.8 it crashes.", {"cuda": "12.8"}),
    ],
)
def test_a_release_dropped_or_not_had_is_no_environment(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # pip's line for a requirement already installed (ai-dynamo/nixl#616's shape): the version last in parentheses
        (
            "Requirement already satisfied: torch in /usr/local/lib/python3.11/dist-packages (from nixl)"
            " (2.8.0.dev20250319+cu128)",
            {"torch": "2.8.0.dev20250319+cu128"},
        ),
        # a specifier is the requirement's, the parenthesised version the installed one
        (
            "Requirement already satisfied: transformers>=4.51.0 in /opt/venv/lib/python3.12/site-packages (4.57.1)",
            {"transformers": "4.57.1"},
        ),
        # the chain of requirers is no statement of their versions
        (
            "Requirement already satisfied: pydantic<3,>=1.9.0 in /venv/lib/python3.12/site-packages (from"
            " anthropic>=0.20.0->sglang==0.4.6) (2.11.4)",
            {},
        ),
    ],
)
def test_pip_requirement_already_satisfied(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # a distribution's name joined to its version (kvcache-ai/Mooncake#872's title shape)
        (
            "sglang-0.4.9.post5 mooncake-0.3.5 pd disaggregation single node use tcptransport failed",
            {"sglang": "0.4.9.post5", "mooncake": "0.3.5"},
        ),
        ("Running sglang-0.5.4 with sgl-kernel-0.3.16 on 8xH100 the server hangs", {"sglang": "0.5.4", "sgl_kernel": "0.3.16"}),
        # a wheel's file name, a path and an installed package's metadata folder are no statement
        ("Downloading torch-2.8.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl (888.1 MB)", {}),
        ("CUDA_HOME=/usr/local/cuda-12.4", {}),
        ("torch-2.8.0.dist-info sglang-0.5.3.dist-info", {}),
        # a virtualenv's folder in a path (fixtures/real/h-010-sglang-27537.log's shape)
        (
            "[2026-06-08 07:21:05 TP1] Config file not found at /root/.virtualenvs/sglang-0.5.6/lib/python3.10/"
            "site-packages/sglang/srt/layers/moe/configs/E=64.json",
            {},
        ),
    ],
)
def test_a_name_joined_to_its_version_by_a_hyphen(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # sglang-17460's shape: two pins of one package in the sentence's code spans state neither
        (
            "In `sgl-kernel/pyproject_cpu.toml` the requirement of PyTorch version is `>=2.7.1`. However this triggers the"
            " installation of the latest `torch==2.10.0`, leading to symbol errors for build output, as `sglang` is built"
            " with `torch==2.9.0`.",
            {},
        ),
        # one pin of each package in a sentence's spans is read
        ("We pinned `torch==2.9.1` and `flashinfer-python==0.5.3` in the image.", {"torch": "2.9.1", "flashinfer": "0.5.3"}),
    ],
)
def test_two_pins_of_one_package_in_a_sentence(line, versions):
    assert stated_versions(line + "\n") == versions


def test_the_owner_of_each_version_is_looked_for_in_a_bounded_window(monkeypatch):
    # review13a item 10: a line of one sglang-X and many name-version words (a pip list flattened into a sentence) had
    # each version's owner searched over the whole sentence before it: quadratic. The work per version is bounded by
    # the window, counted here, not timed
    scanned: list[int] = []
    owned = stated_env._OWNED

    class Counting:
        def search(self, text, pos=0, endpos=None):
            end = len(text) if endpos is None else endpos
            scanned.append(end - pos)
            return owned.search(text, pos, end)

    monkeypatch.setattr(stated_env, "_OWNED", Counting())
    names = ("alpha", "beta", "gamma", "delta", "kappa", "sigma", "theta", "omega")
    others = [f"{names[i % 8]}pkg-1.{i}.0" for i in range(2000)]
    line = "My environment: sglang-0.4.9 " + " ".join(others)
    assert len(line) > 30_000
    assert stated_env.sentence_version(line) == "0.4.9"  # every other version has its package's name
    assert len(scanned) == 2000  # one owner search per version
    assert max(scanned) == stated_env.OWNER_WINDOW
    assert sum(scanned) <= 2000 * stated_env.OWNER_WINDOW  # linear in the line (the whole prefix: ~30 million)


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # a name longer than the window still owns its version (a long name is no connector)
        ("We run sglang-0.4.9 next to " + "x" * 100 + "-1.2.3 here", {"sglang": "0.4.9"}),
        # "to" right before a version owns nothing: two of SGLang's versions, neither stated
        ("We went from sglang-0.4.9 to 0.5.4 last week", {}),
    ],
)
def test_the_owner_window_keeps_the_readings(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    "text",
    [
        # pip's block that replaced a version (pip/_internal/req/req_uninstall.py "Uninstalling %s:", "Successfully
        # uninstalled %s", req_install.py "Found existing installation: %s"; pip 23.2.1 and 26.3): the version removed
        "  Attempting uninstall: flashinfer-python\n"
        "    Found existing installation: flashinfer-python 0.2.3\n"
        "    Uninstalling flashinfer-python-0.2.3:\n"
        "      Successfully uninstalled flashinfer-python-0.2.3\n",
        # a paste cut below "Found existing installation" (review13a v2.txt's shape)
        "    Uninstalling flashinfer-python-0.2.3:\n"
        "      Successfully uninstalled flashinfer-python-0.2.3\n"
        "    Uninstalling torch-2.5.1:\n"
        "      Successfully uninstalled torch-2.5.1\n",
        # an uninstall that then failed (review13a v8.txt's shape)
        "$ pip install flashinfer-python==0.2.5 -i https://flashinfer.ai/whl/cu124/torch2.5/\n"
        "Installing collected packages: flashinfer-python\n"
        "  Attempting uninstall: flashinfer-python\n"
        "    Found existing installation: flashinfer-python 0.2.3\n"
        "    Uninstalling flashinfer-python-0.2.3:\n"
        "      Successfully uninstalled flashinfer-python-0.2.3\n"
        "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n",
        # SGLang's own (the sentence reader's tied form)
        "  Attempting uninstall: sglang\n"
        "    Found existing installation: sglang 0.4.9\n"
        "    Uninstalling sglang-0.4.9:\n"
        "      Successfully uninstalled sglang-0.4.9\n",
        # the order to remove it
        "$ pip uninstall -y flashinfer-python-0.2.3\n",
        "$ pip uninstall sglang-0.4.9\n",
    ],
)
def test_a_version_pip_removes_is_no_version_in_use(text):
    assert stated_versions(text) == {}


def test_pip_s_installed_line_still_gives_the_new_version_over_the_removed_one():
    text = (
        "Installing collected packages: torch\n"
        "  Attempting uninstall: torch\n"
        "    Found existing installation: torch 2.5.1\n"
        "    Uninstalling torch-2.5.1:\n"
        "      Successfully uninstalled torch-2.5.1\n"
        "Successfully installed torch-2.6.0\n"
    )
    assert stated_versions(text) == {"torch": "2.6.0"}


@pytest.mark.parametrize(
    "text",
    [
        # `helm list`: the CHART column's name-version is the chart's (review13a v6.txt's shape)
        "NAME    NAMESPACE  REVISION  UPDATED                   STATUS    CHART         APP VERSION\n"
        "sglang  default    1         2025-06-01 10:00:00 UTC   deployed  sglang-0.1.0  \n",
        # a container's name (review13a v5.txt's shape)
        "docker run --gpus all --name sglang-0.5.4 --shm-size 32g lmsysorg/sglang:latest python3 -m"
        " sglang.launch_server --model-path Qwen/Qwen2-7B\n",
        "docker run --gpus all --name=sglang-0.5.4 lmsysorg/sglang:latest nvidia-smi\n",
        # a conda environment's name in the prompt
        "(sglang-0.4.6) root@gpu:~# ls\n",
        "(sglang-0.4.6) $ nvidia-smi\n",
        # ls -l of /usr/local: folders' names
        "drwxr-xr-x  2 root root 4096 Jun  1 10:00 cuda-12.4\n",
    ],
)
def test_a_name_version_word_that_names_a_thing_states_no_version(text):
    assert stated_versions(text) == {}
    # the line reader's own answer too (a docker run line or an ls row goes to another reader first end to end)
    assert [stated_env.parse_line(line) for line in text.splitlines()] == [None] * len(text.splitlines())


def test_a_conda_prompt_s_name_leaves_the_command_s_statement():
    # the prompt's environment is no statement; what the sentence after it says still is
    # (a parenthesis before a sentence is no prompt: two of SGLang's versions in one sentence state neither)
    assert stated_versions("(sglang-0.4.6) I run sglang 0.5.4 here\n") == {}
    assert stated_versions("(sglang-0.4.6) $ echo done\nWe run sglang 0.5.4 on H100.\n") == {"sglang": "0.5.4"}


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # a writer's own change is read (as "downgraded to" is), SGLang's MoE config fallback is not
        ("Falling back to flashinfer 0.2.3 fixed it for me.", {"flashinfer": "0.2.3"}),
        ("We fall back to triton 3.1.0 on this box.", {"triton": "3.1.0"}),
        (
            "[2025-11-01 10:00:01 TP0] Config file not found at /usr/local/lib/python3.10/dist-packages/sglang/srt/"
            "layers/moe/moe_runner/triton_utils/configs/triton_3_5_0/E=256,N=256,device_name=NVIDIA_H200.json. Fallback"
            " to triton version 3.4.0 and use MoE kernel config from /usr/local/lib/python3.10/dist-packages/sglang/srt/"
            "layers/moe/moe_runner/triton_utils/configs/triton_3_4_0/E=256,N=256,device_name=NVIDIA_H200.json."
            " Performance might be sub-optimal!",
            {},
        ),
    ],
)
def test_only_sglang_s_moe_config_fallback_names_a_borrowed_triton(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # review13b item 4: an environment listed as aligned cells after a label is no listing: every cell is read,
        # whatever its column (the third was taken for a chart's name)
        (
            "Environment:  sglang-0.4.6  flashinfer-0.2.3  torch-2.5.1",
            {"sglang": "0.4.6", "flashinfer": "0.2.3", "torch": "2.5.1"},
        ),
        ("sglang-0.4.6\ttorch-2.5.1\tcuda-12.4", {"sglang": "0.4.6", "torch": "2.5.1", "cuda": "12.4"}),
        # a row with a listing's cell (a revision number, a date and time, helm's status) names charts, in any column
        ("sglang-0.1.0  default  1  2025-06-01 10:00:00 UTC  deployed  torch-2.5.1", {}),
        ("sglang  default  3  superseded  flashinfer-0.2.3", {}),
    ],
)
def test_a_table_row_is_a_listing_by_its_shape_not_by_a_cell_s_column(line, versions):
    assert stated_versions(line + "\n") == versions


def test_a_long_row_of_name_version_words_is_read_with_bounded_work_per_word(monkeypatch):
    # review13b item 10: a 32 KiB row of name-version words two blanks apart (a flattened environment listing): the
    # row's shape is decided once (one split, no gap search per word), and a requirement's window is searched only
    # where one of its words starts; counted, not timed
    calls: dict[str, int] = {"split": 0, "gap_search": 0, "requirement": 0}
    wide_gap, requirement = stated_env._WIDE_GAP, stated_env._REQUIREMENT

    class Gap:
        def split(self, text):
            calls["split"] += 1
            return wide_gap.split(text)

        def search(self, *args):
            calls["gap_search"] += 1
            return wide_gap.search(*args)

    class Requirement:
        def search(self, *args):
            calls["requirement"] += 1
            return requirement.search(*args)

    monkeypatch.setattr(stated_env, "_WIDE_GAP", Gap())
    monkeypatch.setattr(stated_env, "_REQUIREMENT", Requirement())
    stated_env._listing_row.cache_clear()
    line = "Environment:  " + "  ".join(["torch-2.5.1  cuda-12.4  flashinfer-0.2.3"] * 800)
    assert len(line) > 30_000
    assert stated_env.named_versions(line) == {"torch": "2.5.1", "cuda": "12.4", "flashinfer-python": "0.2.3"}
    assert calls == {"split": 1, "gap_search": 0, "requirement": 0}
    # a requirement's word still has its window searched, and still reads as one
    assert stated_env.named_versions("This build requires torch-2.5.1") == {}
    assert calls["requirement"] == 1

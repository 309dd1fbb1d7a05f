"""Versions stated in forms the prefilter never passed to the reader (an environment block's label in another casing:
"- Python: 3.11.6", "NCCL: 2.27.3", "Mooncake: 0.3.6") and a version change the writer made ("After downgrade
flashinfer from 0.2.4 to 0.2.3, I got:"): the version that runs is the one after "to"."""

from __future__ import annotations

import pytest

from tests.helpers import stated_versions


def test_an_issue_forms_environment_list_in_the_casings_people_write():
    # sglang-24049's shape: a Markdown list of the environment, the labels capitalised, a commit for SGLang (no version)
    text = (
        "### 环境信息\n"
        "\n"
        "- Device: Ascend Atlas 800I A2 (single card)\n"
        "- SGLang version: 7603b226c\n"
        "- Python: 3.11.6\n"
        "- OS: Linux 5.15\n"
    )
    assert stated_versions(text) == {"python": "3.11.6"}


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        ("NCCL: 2.27.3", {"nccl": "2.27.3"}),
        ("- Mooncake: 0.3.6", {"mooncake": "0.3.6"}),
        ("* Triton: 3.4.0", {"triton": "3.4.0"}),
        ("**DeepEP version**: 1.2.1", {"deep_ep": "1.2.1"}),
        ("PYTHON: 3.12.3", {"python": "3.12.3"}),
        ("- Sglang: 0.5.3", {"sglang": "0.5.3"}),
        ("- Nixl: 0.6.0", {"nixl": "0.6.0"}),
        # no version after the label: nothing stated
        ("- Python: see above", {}),
        ("- NCCL: bundled with torch", {}),
    ],
)
def test_each_label_casing(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # sglang-5022's first line
        ("After downgrade flashinfer from 0.2.4 to 0.2.3, I got:", {"flashinfer": "0.2.3"}),
        ("I downgraded flashinfer-python from 0.3.1 to 0.2.14.post1.", {"flashinfer": "0.2.14.post1"}),
        ("I upgraded torch to 2.8.0 and rebuilt sgl-kernel.", {"torch": "2.8.0"}),
        # an order or advice is no change made
        ("Please upgrade flashinfer to 0.2.5", {}),
        ("Try upgrading torch to 2.8.0", {}),
        ("upgrade torch to 2.8.0", {}),
    ],
)
def test_a_version_change_the_writer_made(line, versions):
    assert stated_versions(line + "\n") == versions


def test_conda_list_rows_and_collect_envs_conda_rows():
    # specforge-360's shape: `conda list` columns (name, version, build, channel); torch's collect_env.py prints the
    # same rows after "[conda] "
    text = (
        "# Name                    Version                   Build  Channel\n"
        "nvidia-nccl-cu12          2.26.2                   pypi_0    pypi\n"
        "numpy                     1.26.4                   pypi_0    pypi\n"
        "pytorch                   2.5.1           py3.12_cuda12.4_cudnn9.1.0_0    pytorch\n"
        "sglang                    0.5.5                    pypi_0    pypi\n"
    )
    assert stated_versions(text) == {"nccl": "2.26.2", "torch": "2.5.1", "sglang": "0.5.5"}
    collect_env = (
        "Versions of relevant libraries:\n"
        "[pip3] numpy==1.26.4\n"
        "[conda] nvidia-nccl-cu12          2.26.2                   pypi_0    pypi\n"
        "[conda] triton                    3.3.0                    pypi_0    pypi\n"
    )
    assert stated_versions(collect_env) == {"nccl": "2.26.2", "triton": "3.3.0"}


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        # a Dockerfile's RUN line: the image is built with each pinned package
        (
            "RUN pip install sgl-kernel==0.3.9.post2 flashinfer-python==0.3.1\n",
            {"sgl_kernel": "0.3.9.post2", "flashinfer": "0.3.1"},
        ),
        (
            'RUN pip install --upgrade pip && pip install "torch==2.8.0" "sglang[all]==0.5.2"\n',
            {"sglang": "0.5.2", "torch": "2.8.0"},
        ),
        # the same RUN continued over lines ending in a backslash
        (
            "RUN pip install \\\n    sgl-kernel==0.3.9.post2 \\\n    flashinfer-python==0.3.1\n",
            {"sgl_kernel": "0.3.9.post2", "flashinfer": "0.3.1"},
        ),
        # an install in prose is advice: nothing installed is stated
        ("Please run pip install torch==2.8.0\n", {}),
        # `uv pip list` rows, the name padded
        (
            "sglang                                   0.5.3\nnixl                                     0.6.0\n",
            {"sglang": "0.5.3", "nixl": "0.6.0"},
        ),
        # each package named, then "version", in one line
        (
            "sglang version: 0.5.4.post2, sgl-kernel version: 0.3.16.post4, flashinfer version 0.4.1\n",
            {"sglang": "0.5.4.post2", "sgl_kernel": "0.3.16.post4", "flashinfer": "0.4.1"},
        ),
        # an unowned version beside SGLang's: neither is stated
        ("it worked in v0.5.3, sglang version 0.5.4 fails\n", {}),
    ],
)
def test_installs_lists_and_named_versions(text, versions):
    assert stated_versions(text) == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # the official image's tag without its namespace, in an issue title (the shape of sgl-project/sglang#8911's)
        ("[Bug] Docker container start error sglang:v0.4.10.post2-cu128-gb200 on B200+ARM", {"sglang": "0.4.10.post2"}),
        ("I run the image sglang:v0.5.3-cu129 on 8 H200", {"sglang": "0.5.3"}),
        # a nightly tag names no release
        ("docker pull lmsysorg/sglang:nightly-dev-cu13-20251122-f84e825d", {}),
    ],
)
def test_an_image_tag_without_its_namespace(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        # several values asked in one print: one word each, in the order asked
        (
            '$ python -c "import torch; print(torch.__version__, torch.version.cuda)"\n2.8.0+cu128 12.8\n',
            {"torch": "2.8.0+cu128", "cuda": "12.8"},
        ),
        # torch.cuda.nccl.version() prints a tuple (torch/cuda/nccl.py)
        (">>> torch.cuda.nccl.version()\n(2, 27, 3)\n", {"nccl": "2.27.3"}),
        ('$ python -c "import torch; print(torch.cuda.nccl.version())"\n(2, 21, 5)\n', {"nccl": "2.21.5"}),
        # a printed line that does not give one value per ask states none of them
        (
            '$ python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())"\n'
            "2.8.0+cu128 12.8 (2, 27, 3)\n",
            {},
        ),
        # a Markdown table of the environment, each label in its own casing
        (
            "| Component | Version |\n|---|---|\n| SGLang | 0.5.3 |\n| NCCL | 2.27.3 |\n"
            "| Mooncake | 0.3.6 |\n| DeepEP | 1.2.1 |\n",
            {"sglang": "0.5.3", "nccl": "2.27.3", "mooncake": "0.3.6", "deep_ep": "1.2.1"},
        ),
    ],
)
def test_printed_versions_and_table_rows(text, versions):
    assert stated_versions(text) == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # specforge-274's sentence: a proposed change, no version in use
        ("Change sglang version to 0.5.3 will solve this problem.", {}),
        ("Downgrade torch to 2.7.1, that may fix it.", {}),
        # a change the writer made still states the version
        ("I switched to sglang 0.5.3 and it still crashes", {"sglang": "0.5.3"}),
    ],
)
def test_a_proposed_change_is_no_version_in_use(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # `dpkg -l | grep nccl`: installed ("ii") rows; a removed package's left configuration ("rc") is no install
        ("ii  libnccl2   2.21.5-1+cuda12.4   amd64   NVIDIA Collective Communication Library (NCCL) Runtime", {"nccl": "2.21.5"}),
        (
            "ii  libnccl-dev  2.27.3-1+cuda12.9  amd64  NVIDIA Collective Communication Library (NCCL) Development Files",
            {"nccl": "2.27.3"},
        ),
        ("rc  libnccl2   2.21.5-1+cuda12.4   amd64   NVIDIA Collective Communication Library (NCCL) Runtime", {}),
        # `apt list --installed`
        ("libnccl2/unknown,now 2.21.5-1+cuda12.4 amd64 [installed]", {"nccl": "2.21.5"}),
    ],
)
def test_nccls_debian_package_as_installed(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("text", "versions"),
    [
        # /proc/driver/nvidia/version, the proprietary and the open kernel module
        (
            "$ cat /proc/driver/nvidia/version\n"
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Feb 28 01:13:34 UTC 2025\n"
            "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n",
            {"driver": "570.133.20"},
        ),
        ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build\n", {"driver": "580.95.05"}),
        # the kernel log's load line
        (
            "[Fri Jun  5 01:02:42 2026] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Feb 28 2025\n",
            {"driver": "570.133.20"},
        ),
        # a mismatch names two versions: neither is the one in use
        ("NVRM: API mismatch: the client has the version 570.133.20, but this kernel module has the version 570.86.15.\n", {}),
    ],
)
def test_the_kernel_modules_version_string(text, versions):
    assert stated_versions(text) == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # several labels in one line in Chinese (版本 "version", 驱动 "driver", a full-width colon and comma)
        ("sglang版本：0.5.3，torch版本：2.8.0", {"sglang": "0.5.3", "torch": "2.8.0"}),
        ("驱动版本：570.124.06，CUDA版本：12.9", {"driver": "570.124.06", "cuda": "12.9"}),
        ("torch版本 2.8.0", {"torch": "2.8.0"}),
    ],
)
def test_versions_in_a_chinese_sentence(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        ("with PyTorch v2.8.0 and FlashInfer (0.4.1)", {"torch": "2.8.0", "flashinfer": "0.4.1"}),
        ("CUDA (12.8) and driver 570.133.20", {"cuda": "12.8", "driver": "570.133.20"}),
        # a requirement in parentheses is no version in use
        ("requires flashinfer (0.4.1)", {}),
    ],
)
def test_a_version_in_parentheses_after_the_name(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # pip freeze's direct reference and a pip install of SGLang's repository at a release tag
        ("sglang @ git+https://github.com/sgl-project/sglang.git@v0.5.3#subdirectory=python", {"sglang": "0.5.3"}),
        (
            'pip install "git+https://github.com/sgl-project/sglang.git@v0.5.3.post1#subdirectory=python"',
            {"sglang": "0.5.3.post1"},
        ),
        # a branch or a commit is no release
        ("sglang @ git+https://github.com/sgl-project/sglang.git@main#subdirectory=python", {}),
        ("sglang @ git+https://github.com/sgl-project/sglang.git@3c2a1e5#subdirectory=python", {}),
    ],
)
def test_sglangs_repository_installed_at_a_release_tag(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    "line",
    [
        # review12a item 21: a question, a condition, another's change, a requirement, a contrast: no version in use
        "Has anyone upgraded torch to 2.9.0 successfully?",
        "If you upgraded torch to 2.9.0, reinstall sgl-kernel.",
        "Someone in #1234 said they downgraded flashinfer to 0.2.3 and it worked.",
        "vLLM users switched torch to 2.9.0 last month; we are still on the old one.",
        "NCCL: 2.27.3 is required by DeepEP.",
        "| NCCL | 2.27.3 | required |",
        "| CUDA | 12.8 | minimum |",
        "如果 torch版本：2.9.0 的话会报错吗",
        "Is sglang:v0.4.10.post2-cu128-gb200 supposed to work on H100?",
        "Support for sglang:v0.5.3 images on B200 would be nice.",
        "It works with FlashInfer (0.4.1) but not with the latest.",
    ],
)
def test_a_version_asked_about_supposed_required_or_changed_by_another_is_not_in_use(line):
    assert stated_versions(line + "\n") == {}


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        ("I upgraded torch to 2.8.0. Is this a known issue?", {"torch": "2.8.0"}),
        ("We have downgraded flashinfer to 0.2.3, still the same.", {"flashinfer": "0.2.3"}),
        ("| NCCL | 2.27.3 |", {"nccl": "2.27.3"}),
        ("torch版本：2.9.0", {"torch": "2.9.0"}),
        # flashtts-40's line (built split): "when I use flashinfer-python 0.2.5 it errors as follows:"
        ("如果我使用flashinfer-python：0.2.5会报错如下：", {"flashinfer": "0.2.5"}),
    ],
)
def test_the_writer_s_own_change_and_a_plain_label_still_read(line, versions):
    assert stated_versions(line + "\n") == versions


def test_a_long_line_of_changes_searches_for_advice_once(monkeypatch):
    """review12a item 22: _ADVICE.search ran once per change found (a 30 KB line of them took 11 s); now once a line."""
    from logscope.pipeline.parse.parsers import stated_env

    calls = []

    class Counting:
        def search(self, text, *args):
            calls.append(len(text))
            return ADVICE.search(text, *args)

    ADVICE = stated_env._ADVICE
    monkeypatch.setattr(stated_env, "_ADVICE", Counting())
    line = "The server crashes at startup. " + "I upgraded torch to 2.8.0 and " * 300
    assert stated_env.named_versions(line) == {"torch": "2.8.0"}
    assert len(calls) == 1


@pytest.mark.parametrize(
    "line",
    [
        # review12a item 26: another environment, a requirement, two values of one label, a compatibility matrix
        "- NCCL: 2.27.3 (vLLM env, not the one that fails)",
        "- NCCL: 2.27.3 (in another container)",
        "- NCCL: 2.27.3 (the old env)",
        "Mooncake: 0.3.6 required",
        "Triton: 3.4.0 fails, Triton: 3.3.1 works",
        "| Triton | 3.4.0 | broken |",
        "| DeepEP | 1.2.1 | n/a |",
    ],
)
def test_a_label_s_value_that_is_no_version_in_use_reads_nothing(line):
    assert stated_versions(line + "\n") == {}


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        ("| DeepEP | 1.2.1 |", {"deep_ep": "1.2.1"}),
        ("- NCCL: 2.27.3 (pip)", {"nccl": "2.27.3"}),
        # a remark about something else leaves the value ours (fixtures/pastes/versions-not-sglang.md's shape)
        ("- NCCL: 2.27.3 (we use the lmdeploy image for the other job)", {"nccl": "2.27.3"}),
        ("- SGLang: 0.5.4 (pip)", {"sglang": "0.5.4"}),
    ],
)
def test_a_label_with_a_plain_remark_still_reads(line, versions):
    assert stated_versions(line + "\n") == versions


def test_a_question_that_names_the_versions_in_use_still_states_them():
    # mooncake-1064's line (built split): the versions run, named in a question about them
    line = "Could you please confirm whether Mooncake 0.3.6 and SGLang 0.5.3 support the deployment? It fails to start."
    assert stated_versions(line + "\n")["mooncake"] == "0.3.6"


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        # review12a item 23: only a pip install command's pins, before any `||` fallback, are installed
        ("RUN pip install torch==2.8.0 && pip uninstall -y torch && pip install torch==2.9.0", {"torch": "2.9.0"}),
        ("RUN pip install flashinfer-python==0.4.1 || pip install flashinfer-python==0.3.1", {"flashinfer": "0.4.1"}),
        ("RUN pip install uv && uv pip install --system sglang[all] && pip download torch==2.4.0 -d /tmp/w", {}),
        ("RUN pip install -r requirements.txt && echo sgl-kernel==0.3.9 >> notes.txt", {}),
        ("RUN pip install sgl-kernel==0.3.9.post2  # not torch==2.4.0", {"sgl_kernel": "0.3.9.post2"}),
    ],
)
def test_a_run_line_reads_only_its_pip_install_commands_pins(line, versions):
    from logscope.pipeline.parse.parsers.stated_env import parse_line

    parsed = parse_line(line)
    read = {} if parsed is None else parsed.data["values"]
    assert {key.replace("-python", "").replace("-", "_"): value for key, value in read.items()} == versions

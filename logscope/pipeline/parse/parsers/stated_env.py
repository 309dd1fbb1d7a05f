"""Versions and GPUs a paste states outside check_env: the GitHub issue template's environment block
("- SGLang: 0.5.4.post1", "- PyTorch: 2.8.0+cu129", "- Host driver: 570.133.20", "- GPUs: NVIDIA H20-3e (x4)"),
a pip freeze line ("sglang==0.5.9"), `pip show sglang` (Name / Version), and the value printed by
`print(sglang.__version__)` on the line after it, and the official image's release tag anywhere in a line
(lmsysorg/sglang:v0.5.12-cu130). Each is a stated fact; the event's `stated_by` says which form stated it
(the launch's sglang_version says so)."""

from __future__ import annotations

import bisect
import functools
import re
import string
from typing import Any

from logscope.core import kinds, upstream
from logscope.core.events import Event
from logscope.pipeline.parse.parsers.base import SHELL_PROMPT, BlockReader, Parsed
from logscope.pipeline.parse.parsers.build_versions import (
    already_satisfied,
    cmake_found,
    frozen_wheel,
    installed_wheel,
    pip_installed,
)
from logscope.pipeline.parse.parsers.prose_guards import CONDITION, OTHER_ENGINES

_VERSION = r"v?(\d+\.\d+(?:\.\w+)*(?:[+.-][\w.+-]*)?)"
# packages whose version matters for the memory SGLang uses, as pip names them → check_env's key for them
PACKAGES = {
    "sglang": "sglang",
    "sgl-kernel": "sgl-kernel",
    "sgl_kernel": "sgl-kernel",
    "sglang-kernel": "sglang-kernel",
    "torch": "torch",
    "flashinfer-python": "flashinfer-python",
    "flashinfer_python": "flashinfer-python",
    "nvidia-nccl-cu12": "nvidia-nccl-cu12",
    "nvidia-nccl-cu13": "nvidia-nccl-cu13",
    "deep_ep": "deep_ep",
    "deep-ep": "deep_ep",
    "mooncake-transfer-engine": "mooncake-transfer-engine",
    "nixl": "nixl",
    "triton": "triton",
    "transformers": "transformers",
    # the same projects' builds published under other distribution names (PyPI's index, 2026-08 .. 2026-11:
    # mooncake-transfer-engine-cuda13 0.3.14, -efa, -efa-cuda13, -non-cuda, -musa, -npu, -rocm 0.3.13.post1; nixl-cu12,
    # nixl-cu13 1.5.1): the one package as `pip list` / `pip freeze` names the wheel installed
    **dict.fromkeys(
        [f"mooncake-transfer-engine-{v}" for v in ("cuda13", "efa", "efa-cuda13", "non-cuda", "musa", "npu", "rocm")],
        "mooncake-transfer-engine",
    ),
    "nixl-cu12": "nixl",
    "nixl-cu13": "nixl",
}
_PACKAGE = "|".join(re.escape(name) for name in sorted(PACKAGES, key=len, reverse=True))
_PIN = re.compile(rf"^\s*(?:[-*+]\s+)?`?({_PACKAGE})(?:\[[\w,-]+\])?=={_VERSION}`?\s*(?:\\\s*)?$")  # "\\": a continued RUN
# a Dockerfile's RUN line that installs pinned packages ("RUN pip install sgl-kernel==0.3.9.post2 flashinfer-python==0.3.1",
# "RUN uv pip install --system torch==2.8.0"): the image is built with those versions (a pip install in prose or in an
# answer is advice, not read; SGLang's own pin is read in any install line, _INSTALL)
_RUN_INSTALL = re.compile(r"^\s*RUN\s+(?:.*?&&\s*)?(?:uv\s+)?pip3?\s+install\b")
_INSTALLED_PIN = re.compile(rf"(?<![\w.-])({_PACKAGE})(?:\[[\w,-]+\])?=={_VERSION}")
# the commands of a RUN line (review12a item 23): only a pip install's pins are installed, not those of a chained
# `pip download`, an `echo`, or the fallback after `||` (what installs when the first command succeeds is the first's)
_COMMAND_SEP = re.compile(r"&&|;|\|")
_PIP_INSTALL_COMMAND = re.compile(r"^\s*(?:RUN\s+)?(?:uv\s+)?pip3?\s+install\b")


def _install_commands(text: str) -> list[str]:
    """The pip install commands of a RUN line, each up to a comment, before any `||` fallback."""
    text = text.split("||")[0]
    return [c.split("#")[0] for c in _COMMAND_SEP.split(text) if _PIP_INSTALL_COMMAND.match(c)]


# NCCL's Debian packages pinned for apt ("libnccl2=2.7.3-1+cuda10.1 libnccl-dev=2.7.3-1+cuda10.1"): NVIDIA/nccl
# pkg/debian control.in names them libnccl${nccl:Major} and libnccl-dev, changelog.in versions them
# ${nccl:Major}.${nccl:Minor}.${nccl:Patch}${nccl:Suffix}-${pkg:Revision}+cuda${cuda:Major}.${cuda:Minor}
_APT_NCCL = re.compile(r"(?<![\w.-])libnccl(?:\d+|-dev)=(\d+\.\d+\.\d+)[a-z0-9]*-\d+\+cuda\d+\.\d+(?![\w.])")
# the same packages as installed: a `dpkg -l` row ("ii  libnccl2  2.21.5-1+cuda12.4  amd64  NVIDIA Collective ...": the
# desired/status letters "ii" or "hi" are installed, "rc" only left its configuration and is not read) and an `apt list
# --installed` row ("libnccl2/unknown,now 2.21.5-1+cuda12.4 amd64 [installed]")
_INSTALLED_NCCL = re.compile(
    r"^\s*(?:[hi]i\s+)?libnccl(?:\d+|-dev)(?::\w+)?(?:/\S+)?\s+(\d+\.\d+\.\d+)[a-z0-9]*-\d+\+cuda\d+\.\d+(?:\s|$)"
)

# the kernel module's version string, as /proc/driver/nvidia/version and the kernel log's load line print it: "NVRM version:
# NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Feb 28 ...", "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64
# 580.95.05  Release Build ...", "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.133.20 ...": the driver release
_KERNEL_MODULE = re.compile(r"\bNVIDIA UNIX (?:Open Kernel Module for \w+|\w+ Kernel Module)\s+(\d{3}\.\d+(?:\.\d+)?)(?![\w.])")

# py-spy's dump names the interpreter of the process it dumps (py-spy 0.3.14 .. 0.4.1 src/dump.rs print_traces:
# "Process {pid}: {cmdline}", then "Python v{version} ({exe})"): "Python v3.11.13 (/usr/local/python3.11.13/bin/python3.11)"
# (SGLang's scheduler watchdog prints it in "Pyspy dump for PID ...")
_PY_SPY = re.compile(r"^\s*Python v(3\.\d+\.\d+(?:(?:a|b|rc)\d+)?\+?)\s+\((?:/|[A-Za-z]:\\)[^()]*\)\s*$")

# xFormers' warning when its extensions were built for another torch (xformers 0.0.2x _cpp_lib.py
# xFormersWasNotBuiltException.__str__, and mslk's fmha the same): "xFormers was built for:" then "    PyTorch
# {build torch} with CUDA {build cuda} (you have {torch.__version__})" and "    Python  {build python} (you have
# {platform.python_version()})": the versions in parentheses are the process's own, the first ones the wheel's build
_BUILT_FOR = re.compile(
    r"^\s*(?P<name>PyTorch|Python)\s+\S+(?:\s+with CUDA \d+)?\s+\(you have (?P<version>\d+\.\d+\.\d+[\w.+]*)\)\s*$"
)

# the issue template's labels (and their usual spellings) → check_env's key for the value
_LABELS = {
    "sglang": "sglang",
    "sglang version": "sglang",
    "pytorch": "torch",
    "pytorch version": "torch",
    "torch": "torch",
    "host driver": "driver",
    "driver": "driver",
    "driver version": "driver",
    "nvidia driver": "driver",
    "nvidia driver version": "driver",
    # NVIDIA/open-gpu-kernel-modules' bug forms (.github/ISSUE_TEMPLATE/10_functional_bug.yml): the field
    # sw_driver_version, labelled "NVIDIA Open GPU Kernel Modules Version" (the modules are released as the driver)
    "nvidia open gpu kernel modules": "driver",
    "cuda": "cuda",
    "cuda version": "cuda",
    "cuda runtime": "cuda",
    # a hand-written block of package versions ("sgl-kernel: 0.3.21", "flashinfer-python: 0.6.2"), as pip names them
    **PACKAGES,
    "flashinfer": "flashinfer-python",
    "flashinfer version": "flashinfer-python",
    "sgl-kernel version": "sgl-kernel",
    "torch version": "torch",
    "python": "Python",
    "python version": "Python",
    "mooncake": "mooncake",
    "nccl": "nccl",
    "deepep": "deep_ep",
    "驱动": "driver",
    "显卡驱动": "driver",
}
# the same labels in a Markdown table row ("| SGLang | 0.2.6 |") or a `pip list` row ("torch    2.5.1")
# (a table copied from a rendered page has no outer bars: "DeepEP | 1.2.1")
_TABLE_ROW = re.compile(r"^\s*(?:\|\s*)?(?:\*\*)?([A-Za-z][\w .-]{1,24}?)(?:\*\*)?\s*\|\s*`?" + _VERSION + r"`?\s*(?:\||$)")
_LISTED = re.compile(r"^\s*([A-Za-z][\w.-]{1,40})\s+" + _VERSION + r"\s*$")
# a `conda list` row: name, version, build string, channel ("nvidia-nccl-cu12   2.26.2   pypi_0   pypi", "pytorch  2.5.1
# py3.12_cuda12.4_cudnn9.1.0_0  pytorch"); torch's collect_env.py prints the same rows after "[conda] "
_CONDA_ROW = re.compile(r"^\s*(?:\[conda\]\s+)?([A-Za-z][\w.-]{1,40})\s+" + _VERSION + r"\s+(?:[\w.]*_)?\d+\s+[a-z][\w./:-]*\s*$")
# "- SGLang: 0.5.4.post1", "**PyTorch**: 2.8.0+cu129", "- **CUDA Version:** 12.1", "SGLang: v0.5.4 (pip)", a bold
# label and an em dash for the colon ("- **Transformers** — `5.14.1`", "- **CUDA** — 13.0"), "-
# **SGLang**: 0.5.6.post2, installed from `refs/pull/20547/head`", "- SGLang: `0.5.17.dev30+g3003d70f6` from pinned
# commit `3003d70`": a parenthesis, a comma's clause or, after a version in a code span, any words are a remark (one
# that names no other version); the value may name the distribution first ("NCCL: nvidia-nccl-cu13 2.30.4"). The label
# may be a package's pip name in words ("SGLang kernel"), several wheels of one version ("FlashInfer
# Python/cubin/CUDA-13 JIT cache"), qualified ("Transformers in the SGLang environment", "CUDA runtime reported by
# PyTorch") or in Chinese ("驱动版本：570.124.06", "CUDA版本：12.9": 版本 is "version", 驱动 "driver")
# the value as `pip show` prints it after the package's name ("SGLang: Version: 0.5.6.post1": pip's
# commands/show.py writes "Version: %s")
_PIP_FIELD = r"Version:\s*"
_REMARK = r"(?:\s*\([^)]*\)|,\s+(?![^\d]*\d+\.\d)\S.*|(?<=`)\s+(?![^\d]*\d+\.\d)\S.*)?"
_LABELLED = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?`?(?P<label>[^\W\d_][\w ./-]{0,48}?)`?(?:\*\*)?\s*(?::|(?<=\*\*)\s\u2014)\s*(?:\*\*\s*)?`?"
    rf"(?:{_PIP_FIELD})?(?:(?P<dist>{_PACKAGE})\s+)?" + _VERSION + r"`?" + _REMARK + r"\s*$"
)
# a qualifier naming the run's own environment ("in the SGLang environment", "reported by PyTorch"); another scope ("on
# the working machine", "in the old environment") is not the run's, and its label is no key
_QUALIFIER = re.compile(
    r"\s+(?:(?:in|inside)\s+(?:the\s+)?(?:sglang\s+|server\s+|docker\s+)?(?:environment|env|container|image)"
    r"|(?:reported|used|shown|printed|given) by\s+\S+)$"
)
_FULL_WIDTH_COLON = str.maketrans({"\uff1a": ":"})  # "：", as a hand-written line in Chinese separates key and value
# "GPUs: NVIDIA H20-3e (x4)", "GPU: 8 x NVIDIA H200", "GPUs: 4x H100 80GB HBM3", "GPUs: NVIDIA H200 x 8", "GPU型号：8 × NVIDIA
# L20" (型号 "model"; 显卡 "graphics card")
_GPUS = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?(?:GPUs?(?:\s*(?:型号|[Mm]odel))?|显卡(?:型号)?)(?:\*\*)?\s*:\s*(?:\*\*)?"
    r"(?:(\d+)\s*[x×]\s*(\S.*?)|(\S.*?)\s*(?:\(\s*[x×]\s*(\d+)\s*\)|[x×]\s*(\d+)))\s*$"
)
# one card's memory stated by hand as nvidia-smi prints it, in MiB ("显存：46,068 MiB (约45GB)": 显存 is "GPU memory")
_CARD_MEMORY = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?(?:显存|GPU [Mm]emory|VRAM)(?:\*\*)?\s*:\s*(\d{1,3}(?:,\d{3})+|\d+)\s*MiB(?:\s*\([^)]*\))?\s*$"
)
CARD_MEMORY_MIB = "card_memory_mib"  # the event's key for it (an int, no check_env value): a stated GPU's total
MAX_GPUS = 1024


# the official image's release tags (lmsysorg/sglang:v0.5.12-cu130, v0.4.2.post2-rocm630), not latest / nightly / dev
# (the namespace may be left out, as a local tag or a title names it: "error sglang:v0.4.10.post2-cu128-gb200 on B200",
# never another publisher's "myorg/sglang:v0.5.3")
IMAGE_TAG = re.compile(r"(?:lmsysorg/|(?<![\w./-]))sglang:v(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?![\w.])")
# an image of another publisher that bundles SGLang names the release in its tag, after "sglang": GPUStack's runners
# ("quay.io/gpustack/runner:cann8.3-910b-sglang0.5.7"), AMD's ROCm images ("rocm/sgl-dev:sglang-0.5.6.post1-rocm700-mi35x",
# and Docker Hub's page of such a tag, ".../layers/rocm/sgl-dev/sglang-0.5.6.post1-rocm700-mi35x-mori-0113/images/...");
# the tag is one word: "sglang" starts a part of it (after ":", "-", "_" or "."), never the image's own name
BUNDLED_TAG = re.compile(
    r"(?:(?<![\w./-])[\w.-]+(?:/[\w.-]+)+:|hub\.docker\.com/layers/[\w.-]+/[\w.-]+/)"
    r"(?:[\w.-]*?[-_.])?sglang[-_]?v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?![\w.])"
)
# a source checkout mounted over the image's code ("unmodified source at `b8a6adad` mounted read-only into the official
# `lmsysorg/sglang:v0.5.17` image"): the tag is not the release that runs (form seen in pastes: sglang-40125)
_MOUNTED_INTO = re.compile(r"(?i)\bmount(?:ed|ing)?\b[^.;]{0,60}\binto\b[^.;]{0,40}$")
# the same tag written without the image's name ("the v0.5.10-cu130 image"): the -cuNNN / -rocmNNN suffix of the
# official image's tags, read only on a line that names SGLang or an image (lmdeploy's tags end in -cu12)
_BARE_TAG = re.compile(r"(?<![\w./:-])v(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)-(?:cu|rocm)\d{3}(?![\w.])")
_IMAGE_WORDS = re.compile(r"(?i)\b(?:sglang|image|docker|container|tag)\b")
# how each form states the version (the launch's sglang_version says it)
PIN, FIELD, PIP_SHOW, PRINTED, IMAGE = "pip_pin", "issue_template", "pip_show", "version_print", "image_tag"
BARE_TAG, SENTENCE, PIP_INSTALL, BUILD = "bare_image_tag", "sentence", "pip_install", "build"
BUNDLED, UNOWNED = "bundled_image_tag", "unowned_release"
# `git clone -b v0.4.9 --depth 1 https://github.com/sgl-project/sglang.git`: git clone's -b/--branch names the tag
# checked out (git-clone(1): "--branch <name>, -b <name> ... can also take tags"); SGLang tags its releases v<version>
# (the released wheels' versions); a branch name ("main") is no release and is not read
# (each gap stays inside one command and is bounded: a long line of repeats must not backtrack)
_CLONE = re.compile(
    r"\bgit\s+clone\b[^\n|;&]{0,200}?(?:\s-b\s*|\s--branch[=\s]\s*)v(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?![\w.])"
    r"[^\n|;&]{0,300}?[/:]sgl-project/sglang(?:\.git)?/?(?:\s|$)"
)
# a pip install or pip freeze line of SGLang's repository at a release tag ("sglang @ git+https://github.com/sgl-project/
# sglang.git@v0.5.3#subdirectory=python", pip's direct reference; "pip install git+https://github.com/sgl-project/sglang.git
# @v0.5.3#subdirectory=python"): the tag installed (a branch or a commit names no release and is not read)
_VCS_TAG = re.compile(
    r"\bgit\+(?:https?|ssh)://(?:git@)?github\.com[/:]sgl-project/sglang(?:\.git)?@v(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)"
    r"(?![\w.])"
)
# `pip install "sglang[all]==0.5.9"`, `uv pip install sglang==0.5.9 ...`: the release installed
_INSTALL = re.compile(r"\bpip3?\s+install\b.*?[\s\"']sglang(?:\[[\w,-]+\])?==v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?![\w.])")
WEAK = frozenset({BARE_TAG, SENTENCE, UNOWNED})  # forms that any other statement of the version outranks

# a version in a sentence, tied to SGLang: "SGLang v0.5.15", "sglang 0.5.15", "upgraded SGLang to v0.5.15",
# "SGLang version: 0.5.15", "on sglang==0.5.15". Only these words may stand between the name and the version ("from"
# may not: "from v0.5.14 to v0.5.15" names the old one first)
# (ASCII word edges: a sentence in Chinese runs the name and the version into the words around them)
# (the version in a code span after the name, as other packages' are read: "- sglang `0.5.17` (image ...)")
_RELEASE = r"v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+|\.dev\d+(?:\+[\w.]+)?)?)(?![A-Za-z0-9_.-]*[A-Za-z0-9_])"
_TIED = re.compile(
    r"(?<![A-Za-z0-9_])(?i:sglang)(?:\s*(?:[(:=]|==|版本)|\s+(?:version|release|is|was|to|at|of|v)|-(?=v?\d))*\s*`?"
    r"(?:(?i:sglang)[._-])?" + _RELEASE
)
_ANY_RELEASE = re.compile(r"(?<![A-Za-z0-9_.])" + _RELEASE)
# a version with a package or tool name right before it is that one's ("torch 2.9.1", "CUDA 12.8", "flashinfer==0.6.2",
# "sgl-kernel version: 0.3.16.post4": the name, then "version")
_OWNER_NAME = r"(?:[A-Za-z][\w-]*[A-Za-z]|[A-Za-z])"
_OWNER_JOIN = r"(?:\s+(?i:version)|\s*版本)?(?:\s*(?:==|[:=(])\s*|\s+|-)v?$"
# the owner at a given offset, and the first owner whose name starts a run of letters: tried only there, the search
# is linear in the window (from every letter of a word it was quadratic in the word's length: review13b item 10). The
# same match: a name that matches from a word's second letter on matches from its first
_OWNED_AT = re.compile(_OWNER_NAME + _OWNER_JOIN)
_OWNED = re.compile(r"(?<![A-Za-z])" + _OWNER_NAME + _OWNER_JOIN)
_CONNECTORS = frozenset({"to", "from", "in", "on", "at", "and", "or", "with", "is", "was", "of", "version", "release", "v"})
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
# a sentence that recommends a release rather than stating the one in use: a maintainer's answer pasted with the log
# ("Use the latest sglang release (0.5.4.post2) which should already include this pr", "fixed in sglang 0.5.6")
# (and a proposed change: "Change sglang version to 0.5.3 will solve this problem.")
# (a start word before a colon is a label, not an order: "Update: I reinstalled with torch 2.8.0", "Use case: serving
# Qwen3 with torch 2.8.0", "Add: I use torch 2.8.0": review14a item 3)
_ADVICE_START = r"^\W*(?:please\s+)?(?:use|try|upgrade|update|install|change|switch|downgrade|pin|add|bump)\b(?!\s*:|\s+case\b)"
_ADVICE_WORDS = r"\bshould (?:already )?(?:include|contain|have|fix)|\b(?:will|would|could|may|might) (?:solve|fix|resolve)\b"
_ADVICE = re.compile(r"(?i)" + _ADVICE_WORDS + r"|\bfixed (?:in|by|since)\b|" + _ADVICE_START)
# for another package's version the advice must govern the version's own clause (review14a item 3: "My env: torch
# 2.8.0 and transformers 4.57.1, which should already include the fix" states both): an order opening the sentence
# reaches up to the first break of its clause ("Please install sgl-kernel==0.3.21 (found sgl-kernel 0.3.16)": the
# version found is stated), and "should fix" / "will solve" stand after the version in its clause ("torch 2.8.0 should
# fix this"); "fixed in torch 2.8.0" is a requirement's word before the version (_REQUIREMENT_WORDS' "fix")
_ADVICE_OPENS = re.compile(r"(?i)" + _ADVICE_START)
# (a colon is none: "Please use these versions: torch 2.8.0, transformers 4.57.1" orders both)
_CLAUSE_BREAK = re.compile(r"(?i)[(;)\[\]]|\bbut\b|,\s*(?:I|we|my|our|it|which|that)\b")
_ADVICE_AFTER = re.compile(r"(?i)(?:[^,;()!?.]|\.(?=\S)){0,40}?(?:" + _ADVICE_WORDS + r")")  # matched at the version's end

# the version of another package where a sentence or a hand-written line names it: "driver 580.173.02, CUDA 13.0",
# "My torch version: 2.5.0+cu121", "CUDA version: cuda_12.1", "sglang+ mooncake v0.3.9", "python 3.12",
# "flashinfer-python：0.2.5", a pin with a remark ("- torch==2.11.0+cu130 (cuda 13.0, nccl 2.28.9)"), torch's "..., NCCL
# version 2.18.3" at the end of an NCCL error. Each name → the key
# check_env (or a pip list) gives that package
_NAMED_PACKAGES = {
    "pytorch": "torch",
    "torch": "torch",
    "cuda": "cuda",
    "nvidia driver": "driver",
    "driver": "driver",
    "驱动": "driver",  # "driver" in a sentence in Chinese ("驱动版本：570.124.06，CUDA版本：12.9": 版本 is "version")
    "nccl": "nccl",
    "python": "Python",
    "flashinfer-python": "flashinfer-python",
    "flashinfer_python": "flashinfer-python",
    "flashinfer python": "flashinfer-python",  # its PyPI name in two words: "FlashInfer Python `0.6.15.post1`"
    "flashinfer": "flashinfer-python",
    "mooncake-transfer-engine": "mooncake",
    "mooncake_transfer_engine": "mooncake",
    **{name: "mooncake" for name, key in PACKAGES.items() if key == "mooncake-transfer-engine"},
    "mooncake": "mooncake",
    "nixl": "nixl",
    "nixl-cu12": "nixl",
    "nixl-cu13": "nixl",
    "triton": "triton",
    "transformers": "transformers",
    "sgl-kernel": "sgl-kernel",
    "sgl_kernel": "sgl-kernel",
    # the same kernels' distribution from 0.4.0 on (PyPI: sgl-kernel 0.1.0 .. 0.3.21, then sglang-kernel 0.4.0 ..
    # 0.4.10): "sglang-kernel 0.4.5, sgl-deep-gemm 0.1.4.post1" in a hand-written environment list
    "sglang-kernel": "sgl-kernel",
    "sglang_kernel": "sgl-kernel",
    "deepep": "deep_ep",
    "deep_ep": "deep_ep",
    "deep-ep": "deep_ep",
}
_WHEEL_KEYS = {**_NAMED_PACKAGES, "sglang": "sglang"}
_NAMED_NAME = "|".join(re.escape(n) for n in sorted(_NAMED_PACKAGES, key=len, reverse=True))
# (the name joined to its version by a hyphen, as a distribution's file names it, is one too: "I install the latest
# nixl-0.3.0", "sglang-0.4.9.post5 mooncake-0.3.5 pd disaggregation ... failed"; a wheel's or a path's is not: the
# lookarounds below leave "torch-2.8.0+cu128-cp312-...whl" and "/usr/local/cuda-12.4" alone)
# name, a build qualifier ("Mooncake-master"), "version", a colon (full width too), then the version, perhaps with
# the name again in front ("cuda_12.1", "sglang.v0.4.7"); never a path ("python3.10/site-packages": no space) and
# never a requirement or a fix (">=", "requires torch 2.6", "CUDA 12.8 or later", "pip install torch==2.7.0"); a
# CUDA release is written glued to its name with its two parts only ("cuda12.4", "CUDA12.8": CUDA's releases are
# major.minor, 10 .. 13), as an environment list in a sentence or a list item gives it; never a package's local version
# ("libnccl2=2.7.3-1+cuda10.1", "NCCL 2.7.8+cuda11.0": the CUDA that package was built for)
_NAMED = re.compile(
    rf"(?<![A-Za-z0-9_./-])(?i:({_NAMED_NAME}))(?:-(?i:master|nightly|dev))?"
    r"(?:\s+(?i:version|ver\.?)|\s*\((?i:version)\)|\s*版本)?(?:\s*(?:==|[:：=])\s*|\s+(?:is\s+)?|-(?=v?\d)|(?=\d+\.\d+\.\d)"
    r"|(?<![+][Cc][Uu][Dd][Aa])(?<=[Cc][Uu][Dd][Aa])(?=1\d\.\d))`?"
    r"(?i:v|(?:cuda|python)[_-])?"
    r"(\d+\.\d+(?:\.\d+)*(?:\.post\d+|rc\d+|\.dev\d+|[ab]\d+)?(?:\+[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)?)"
    r"(?P<revision>-\d{1,2}(?:\+cuda\d+\.\d+)?)?(?![A-Za-z0-9_/-]|\.\w)"
)
# (NCCL's release written as its tag names it: NVIDIA/nccl tags its releases v{major}.{minor}.{patch}-{revision}, v1.3.0-1
# .. v2.30.7-1, and its Debian packages add +cuda{major}.{minor}: "CUDA 13.0.1, NCCL 2.28.3-1" states 2.28.3. Only
# NCCL's: another package's version followed by "-1" is no release of it, and is not read)
# the glued CUDA form ("cuda12.4") is read only at a field's start, as an environment list gives it: a list item's text
# ("3. cuda12.4", "- CUDA12.8"), a line's start, after a label's colon or a list's comma ("env: CUDA12.8, torch2.7.1");
# after other words it is a name people give things ("conda create -n cuda12.4", "conda activate cuda12.4", "my env
# name is cuda12.4": an environment named after the toolkit wanted, not the one installed)
# (or after another field of the list, a word holding a number: "H100 cuda12.4", "torch2.5.1 cuda12.4")
# (or joined to the list's fields by a word or sign: "torch 2.5.1 + cuda12.4", "H100 and cuda12.4", "on cuda12.4")
_FIELD_START = re.compile(
    r"(?:^|[,;:：(|/+&、，]|^\s*(?:[-*+]|\d+[.)])|\b[A-Za-z_-]*\d[\w.+-]*|\b(?:and|on|under|using))\s*`?$", re.MULTILINE
)


def _glued_cuda(text: str, m: re.Match[str]) -> bool:
    """The _NAMED match is CUDA glued to its release ("cuda12.4")."""
    end = m.end(1)
    return m.group(1).lower() == "cuda" and end < len(text) and text[end].isdigit()


# (a local version's segments are joined by dots, never ended by one: "Current torch version is 2.9.1+cu129." ends its
# sentence there)
# the version in parentheses after the name ("with PyTorch v2.8.0 and FlashInfer (0.4.1)", "CUDA (12.8)")
_PAREN_NAMED = re.compile(
    rf"(?<![A-Za-z0-9_./-])(?i:({_NAMED_NAME}))\s*\(\s*`?(?i:v)?"
    r"(\d+\.\d+(?:\.\d+)*(?:\.post\d+|rc\d+|\.dev\d+|[ab]\d+)?(?:\+[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)?)`?\s*\)"
)
# a change of a package's version the writer made: "After downgrade flashinfer from 0.2.4 to 0.2.3, I got:", "I upgraded
# torch to 2.8.0 and ...": the version after "to" is the one that runs (an order, "upgrade torch to 2.8.0", or advice,
# "try upgrading", is no change made: those words are not read, and _ADVICE skips the sentence)
_CHANGED = re.compile(
    rf"(?i:\b(?:(?:up|down)grad|switch|revert|roll)ed(?:\s+back)?|\bafter\s+(?:up|down)grad(?:e|ing))\s+(?:the\s+)?"
    rf"(?i:({_NAMED_NAME}))(?:\s+(?i:version|package))?(?:\s+(?i:from)\s+`?v?\d+\.\d+[\w.+-]*`?)?\s+(?i:to)\s+`?v?"
    r"(\d+\.\d+(?:\.\d+)*(?:\.post\d+|rc\d+|\.dev\d+|[ab]\d+)?(?:\+[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)?)(?![A-Za-z0-9_/-]|\.\w)"
)
# the writer's own change only: "I upgraded", "we've downgraded", "After upgrading" opening the sentence (not "they
# downgraded", "vLLM users switched", "Has anyone upgraded", review12a item 21)
_OWN_CHANGE = re.compile(r"(?i)\b(?:I|we)(?:'ve|\s+have|\s+had)?(?:\s+(?:also|just|then|first|later|finally))?\s+$")
# a sentence that asks or supposes, not one that states what runs ("Has anyone upgraded torch to 2.9.0?", "If you
# upgraded torch to 2.9.0, reinstall sgl-kernel.", "Is sglang:v0.4.10.post2-cu128-gb200 supposed to work on H100?")
_ASKED = re.compile(r"[?？]\W{0,5}$|^\W*(?i:has|have|had|did|does|do|is|are|was|were|can|could|should|would)\b")
_SUPPOSES_TAG = re.compile(r"(?i)\b(?:support|would|should|supposed|if|whether)\b")
# a version in Chinese that a condition, a question or a requirement names ("如果 torch版本：2.9.0 的话会报错吗": "if
# torch is 2.9.0, would it fail?"; 需要/要求/至少: "needs", "requires", "at least")
# (如果 alone is no condition here: "如果我使用flashinfer-python：0.2.5会报错如下：", "when I use 0.2.5 it errors as
# follows:", flashtts-40's line, states the version it ran; 的话 or a question makes it one)
_CJK_SUPPOSED = re.compile(r"假如|是否|的话|吗\s*[？?]?\s*$|需要|要求|至少")
# a version the sentence contrasts with the one that fails ("It works with FlashInfer (0.4.1) but not with the latest")
_BUT_NOT = re.compile(r"(?i)^[^.;]{0,40}\bbut not\b")
_REQUIREMENT_WORDS = (
    r"requir|need|support|compatib|at least|minimum|upgrad|downgrad|instead of|[<>]=?|~=|\binstall\b|\bfix|tried"
    # a dependency a package declares, as a resolver reports it (pip 25.0 resolvelib/factory.py: "{parent.name}
    # {parent.version} depends on {req}", "The user requested {req}"; uv: "sglang[all]==0.4.2 depends on
    # flashinfer==0.1.6") or a writer names it ("has a dependency of torch==2.1.2"): what a package asks, none installed
    r"|\bdepend|\brequested\b"
    # a release a project drops or does not have ("torch 2.5+ drops cuda 12.1", "pytorch do not have an official cuda
    # 12.5 release"): what is built or supported, no environment's
    r"|\bdrop(?:s|ped|ping)?\b|\bdeprecat|(?:\bnot|n't|\bnever)\s+(?:have|has|had|ship|provide|offer|build)\b"
)
_REQUIREMENT = re.compile(r"(?i)(?:" + _REQUIREMENT_WORDS + r")[^.;,]{0,24}$")
# a release of a project's history ("introduced in torch 2.8.0", "since triton 3.4.0", "as of transformers 4.57.1",
# "starting with torch 2.8.0"): the words right before the name, as _HISTORY reads them before SGLang's; anywhere in a
# window they took the release that runs ("It has crashed since moving to torch 2.8.0", "Starting the server with torch
# 2.8.0 fails", "We run it as of now on torch 2.8.0": review14a item 16)
_NAMED_HISTORY = re.compile(
    r"(?i)\b(?:since|as of|starting(?:\s+(?:from|with|in|at))?|beginning\s+(?:with|in)"
    r"|(?:introduced|added|removed|deprecated)\s+(?:in|since|with))\s+(?:the\s+)?$"
)
_NAMED_HISTORY_WORD = re.compile(r"(?i)since|as of|starting|beginning|introduced|added|removed|deprecated")

# the writer's own install of the version named right after, in the present tense as many write it: "I install the
# latest nixl-0.3.0. However, I met following issues" states what runs as "I installed ..." does ("installed" is no
# requirement's word); "install" after anything else ("please install", "need to install", "tried to install") still
# asks for it, and a question or a condition ("How do I install ...?", "If I install ...") states nothing
_OWN_INSTALL = re.compile(r"(?i)\b(?:I|we)(?:\s+(?:also|just|then|first|now))?\s+install\s+(?:the\s+(?:latest\s+|newest\s+)?)?$")

# where one of those words may start in a line (no word boundary asked: a window's edge is one), found once a line: a
# version whose 40 characters before hold none is no requirement's, and the window is not searched (review13b item 10)
_REQUIREMENT_START = re.compile(_REQUIREMENT_WORDS.replace(r"\b", ""))
REQUIREMENT_WINDOW = 40


def _starts(words: re.Pattern[str], text: str) -> list[int]:
    """Where one of the (lower-case) words starts in the text, case ignored: one scan of the lower-cased text (a
    case-blind alternation is several times slower), or of the text itself where lower-casing moves an offset."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return [m.start() for m in re.finditer(words.pattern, text, re.I)]
    return [m.start() for m in words.finditer(lowered)]


class _RequirementWords:
    """The offsets of a line where a requirement's word may start (one scan), asked per version by bisection."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = _starts(_REQUIREMENT_START, text)

    def before(self, start: int) -> bool:
        """A requirement's words end right before text[start] ("requires torch 2.5.1"): only the window is searched,
        and only where one of the words starts in it."""
        pos = max(0, start - REQUIREMENT_WINDOW)
        i = bisect.bisect_left(self.starts, pos)
        if i == len(self.starts) or self.starts[i] >= start:
            return False
        return _REQUIREMENT.search(self.text[pos:start]) is not None


# SGLang's MoE config fallback (get_moe_configs, 0.4.7 .. 0.5.23, the newest catalogued: "Config file not found at
# {config_file_path}. Fallback to triton version {try_triton_version} and use MoE kernel config from ...";
# layers/moe/fused_moe_triton/fused_moe.py to 0.5.1.post3, fused_moe_triton_config.py from 0.5.2, moe_runner/
# triton_utils/fused_moe_triton_config.py from 0.5.11; 0.4.6.post5 has none): the Triton whose configs it borrows, not
# the installed one. Its own wording only: a writer's "falling back to flashinfer 0.2.3 fixed it" is a change made
_MOE_CONFIG_FALLBACK = re.compile(r"Fallback to $")
_AFTER_REQUIREMENT = re.compile(
    r"(?i)^`?\s*(?:or\s+(?:higher|later|newer|above|greater)|\+|and\s+(?:above|later)|->|→|=>|to\s+v?\d+\.\d"
    # a requirement after the value, in the sentence or the table's next cell ("NCCL: 2.27.3 is required by DeepEP.",
    # "| NCCL | 2.27.3 | required |", "| CUDA | 12.8 | minimum |")
    r"|(?:is\s+|are\s+)?(?:required|needed)\b|\|\s*(?:\*\*)?(?:required|minimum|min\.?|needed|at least)\b"
    # named as one ("CUDA 13.2.1 is the correct requirement", "2.8.0 is the minimum")
    r"|(?:is|are)\s+(?:the\s+|a\s+)?(?:\w+\s+){0,2}(?:requirement|minimum|prerequisite)s?\b"
    # a resolver's candidate ("sglang 0.4.2 depends on flashinfer==0.1.6": pip 25.0's conflict report, uv's): tried, not
    # installed
    r"|depends\s+on\b)"
)
# torch's NCCL errors end with the NCCL the process runs: "NCCL error in: ...cpp:1197, unhandled cuda error (...),
# NCCL version 2.18.3" (c10d's ncclGetErrorWithVersion; its build suffix, "+cuda12.4", is no part of the version)
TORCH_NCCL_ERROR = re.compile(r", NCCL version (\d+\.\d+\.\d+)(?:\+\S+)?\s*$")
# SGLang's check of a package's version (sglang/srt/utils.py assert_pkg_version, 0.3 .. 0.5.x: f"{pkg} is installed with
# version {installed_version}, which is less than the minimum required version {min_version}. " + message): the
# version installed, read off the exception's message ("sgl-kernel is installed with version 0.0.5, which is less than
# the minimum required version 0.0.5.post3")
INSTALLED_BELOW = re.compile(
    r"(?<![\w.-])([A-Za-z][\w.-]*) is installed with version (\d+\.\d+[\w.+]*), which is less than the minimum required"
    r" version "
)


def exception_versions(message: str) -> dict[str, str]:
    """{check_env's key: version} that a library's own version check states in its exception's message: the version
    installed, never the one it requires."""
    m = INSTALLED_BELOW.search(message)
    if m and m.group(1).lower() in PACKAGES:
        return {PACKAGES[m.group(1).lower()]: m.group(2)}
    return {}


# a line that reports a failure is read for its failure, never for a version it mentions (torch's NCCL errors end
# with ", NCCL version 2.18.3": read as a version, the line would no longer be listed as an unread failure)
_FAILURE_WORDS = re.compile(r"(?:Error|Exception)\b|\berror\b|Traceback|\bWARN\b|\bfail", re.I)
_UNICODE_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-"})


# an NVIDIA driver's release has a three-digit branch number (nvidia-smi's "Driver Version: 570.133.20", R418 .. R580);
# a two-digit major is the CUDA version the driver supports (nvidia-smi's "CUDA Version: 12.9")
_DRIVER_RELEASE = re.compile(r"\d{3,}\.")
# nvcc --version: "Cuda compilation tools, release 12.4, V12.4.131" (the toolkit, as check_env's NVCC line gives it)
_NVCC = re.compile(r"Cuda compilation tools, release (\d+\.\d+)\b")


# a line is asked twice in a row: by fits() (is it a candidate?), then by parse_line() (what does it state?); a line
# longer than this is asked afresh (the memo stays small in a long-running bot)
_NAMED_MEMO_CHARS = 2000


def named_versions(text: str) -> dict[str, str]:
    """The versions of packages other than SGLang a line names, under check_env's keys (a package named with two
    different versions in the line states neither)."""
    if len(text) > _NAMED_MEMO_CHARS:
        return _named_versions(text)
    return dict(_named_versions_memo(text))


@functools.lru_cache(maxsize=64)
def _named_versions_memo(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(_named_versions(text).items())


def _named_versions(text: str) -> dict[str, str]:
    if _PIP_REPLACES.search(text):
        return {}
    nvcc = _NVCC.search(text)
    if nvcc:
        return {"cuda": nvcc.group(1)}
    failure = _FAILURE_WORDS.search(text)
    whole = text.translate(_UNICODE_HYPHENS)
    if failure:  # what a failure's words say is no statement; what the line said before them still is
        text = text[: failure.start()]
    text = text.translate(_UNICODE_HYPHENS)
    found: dict[str, set[str]] = {}
    series: dict[str, set[str]] = {}
    sentences = _Sentences(text)
    required = _RequirementWords(text)
    advice: bool | None = None  # once a line, and only for a line with a change (a 24 KB line: ~2.5 ms a search)
    for m in _CHANGED.finditer(text):
        if advice is None:
            advice = _ADVICE.search(text) is not None  # in the loop it made a long line quadratic (item 22)
        if advice or sentences.supposes(m.start()) or not _own_change(text, sentences.start(m.start()), m.start()):
            continue
        found.setdefault(_NAMED_PACKAGES[m.group(1).lower()], set()).add(m.group(2))
    for m in [*_NAMED.finditer(text), *_PAREN_NAMED.finditer(text)]:
        # a version already read, or a package with two versions already (it states neither): nothing the checks
        # below find can change the answer, so a dense line ("torch2.4.0+rocmabc torch2.7.1+rocmxyz ..." x1500: 40 µs
        # a name) pays a lookup a name (review14a item 8)
        if m.groupdict().get("revision") and _NAMED_PACKAGES[m.group(1).lower()] != "nccl":
            continue
        read = found.get(_NAMED_PACKAGES[m.group(1).lower()])
        if read is not None and (len(read) > 1 or m.group(2) in read):
            continue
        after = text[m.end() : m.end() + 80]
        if _AFTER_REQUIREMENT.match(after):
            continue
        if required.before(m.start()) and not (
            _OWN_INSTALL.search(text, max(0, m.start() - REQUIREMENT_WINDOW), m.start()) and not sentences.supposes(m.start())
        ):
            continue
        window = text[max(0, m.start() - REQUIREMENT_WINDOW) : m.start()]
        if _NAMED_HISTORY_WORD.search(window) and _NAMED_HISTORY.search(window):
            continue
        if _removed(text, m.start()) or (_hyphen_joined(text, m) and _a_name(text, m.start(), m.end())):
            continue  # pip's "uninstall torch-2.5.1", a chart's or a container's name (review13a items 1, 2)
        if _glued_cuda(text, m) and not _FIELD_START.search(text, max(0, m.start() - 40), m.start()):
            continue  # "conda create -n cuda12.4", "my env name is cuda12.4": a name, not the release (review15b item 2)
        if m.group(1).lower() == "triton" and _MOE_CONFIG_FALLBACK.search(text, max(0, m.start() - 12), m.start()):
            continue
        if sentences.cjk_supposes(m.start()) or _BUT_NOT.match(after) or _NOT_IN_USE_AFTER.match(after):
            continue
        if sentences.advises(m.start(), m.end()):
            continue
        key = _NAMED_PACKAGES[m.group(1).lower()]
        if key == "driver" and not _DRIVER_RELEASE.match(m.group(2)):
            continue  # "cuda driver 12.9": the CUDA version the driver supports, no driver release
        if _a_series(key, m.group(2)) or _python_in_passing(text, m.start(), key, m.group(2)):
            series.setdefault(key, set()).add(m.group(2))  # no release, yet a second version beside one ("Python
            continue  # 3.13.2 by default ..., I used a Python 3.12 environment": neither is said to run)
        version = m.group(2).split("+")[0] if key == "nccl" else m.group(2)  # NCCL's "2.21.5+cuda12.4": its build
        found.setdefault(key, set()).add(version)
    # a package named with two versions in the whole line, past the failure's words too ("Triton: 3.4.0 fails,
    # Triton: 3.3.1 works"): neither is said to run (review12a item 26)
    every: dict[str, set[str]] = {}
    if failure:
        for m in _NAMED.finditer(whole):
            every.setdefault(_NAMED_PACKAGES[m.group(1).lower()], set()).add(m.group(2).split("+")[0])
    return {
        key: next(iter(versions))
        for key, versions in found.items()
        if len(versions) == 1 and len(every.get(key, set())) <= 1 and not series.get(key, set()) - versions
    }


# the packages whose every release has three numbers at least (their PyPI release histories: torch 1.0.0 .. 2.11.0,
# transformers, triton, flashinfer-python, sgl-kernel, deep_ep, mooncake-transfer-engine, nixl): two numbers in a
# sentence name a series, not the release installed ("SGLang currently uses torch 2.5, so you need the flashinfer
# version for torch 2.5", "matching the image's triton (3.7.0 for torch 2.12)")
_THREE_PART = frozenset({"torch", "transformers", "triton", "flashinfer-python", "sgl-kernel", "deep_ep", "mooncake", "nixl"})
_TWO_PARTS = re.compile(r"^\d+\.\d+$")
# a word of a running sentence right before the name ("in a python 3.12 venv", "with CUDA 13 and python 3.12",
# "Installed via pip in python 3.10 as readme says"): not a list of the environment ("PTA: python 3.11，torch 2.8.0",
# "Ubuntu 22.04.3 LTS, python 3.12, Driver Version: ...", a line "Python 3.10" alone)
_WORD_BEFORE = re.compile(r"[A-Za-z]\s+$")


def _a_series(key: str, version: str) -> bool:
    """Two numbers for a package whose releases have three: the series a sentence names ("torch 2.5")."""
    return key in _THREE_PART and _TWO_PARTS.match(version.split("+")[0]) is not None


def _python_in_passing(text: str, start: int, key: str, version: str) -> bool:
    """Python's minor series named inside a running sentence ("installed in a python 3.12 venv"): which series the writer
    chose, not the interpreter's release (its own report, a list of the environment or check_env's line give that)."""
    if key != "Python" or _TWO_PARTS.match(version) is None:
        return False
    return _WORD_BEFORE.search(text[max(0, start - 20) : start]) is not None


def _sentence_at(text: str, start: int, end: int) -> str:
    """The sentence of the line that holds text[start:end] (a line may hold several)."""
    opened = max((m.end() for m in _SENTENCE_OPEN.finditer(text, 0, start)), default=0)
    closed = _SENTENCE_CLOSE.search(text, end)
    return text[opened : closed.end() if closed else len(text)]


class _Sentences:
    """A line's sentences, found once (a long line with many matches stays linear): where the one holding an offset
    starts, and whether it asks or supposes (each sentence tested once)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _SENTENCE_OPEN.finditer(text))]
        self._asks: dict[int, bool] = {}
        self._cjk: dict[int, bool] = {}
        self._advice: dict[int, int] = {}  # a sentence's start -> where its order's reach ends

    def start(self, offset: int) -> int:
        return self.starts[bisect.bisect_right(self.starts, offset) - 1]

    def _sentence(self, offset: int) -> str:
        i = bisect.bisect_right(self.starts, offset)
        return self.text[self.starts[i - 1] : self.starts[i] if i < len(self.starts) else len(self.text)]

    def supposes(self, offset: int) -> bool:
        key = self.start(offset)
        if key not in self._asks:
            sentence = self._sentence(offset)
            self._asks[key] = bool(
                _ASKED.search(sentence.rstrip()) or CONDITION.search(sentence) or _CJK_SUPPOSED.search(sentence)
            )
        return self._asks[key]

    def advises(self, start: int, end: int) -> bool:
        """The clause holding text[start:end] recommends rather than states ("Try transformers==4.56.2", "Use torch
        2.8.0 instead", "torch 2.8.0 should fix this"): an order opening the sentence up to its clause's first break, or
        advice's words after the version in its clause (a later clause's advice, or a label, is no order's)."""
        key = self.start(start)
        if key not in self._advice:  # where the order's reach ends (the sentence's start: none), once a sentence
            sentence = self._sentence(start)
            opened = _ADVICE_OPENS.match(sentence)
            reach = 0
            if opened:
                cut = _CLAUSE_BREAK.search(sentence, opened.end())
                reach = cut.start() if cut else len(sentence)
            self._advice[key] = key + reach
        if start < self._advice[key]:
            return True
        return _ADVICE_AFTER.match(self.text, end, min(len(self.text), end + 80)) is not None

    def cjk_supposes(self, offset: int) -> bool:
        key = self.start(offset)
        if key not in self._cjk:
            self._cjk[key] = bool(_CJK_SUPPOSED.search(self._sentence(offset)))
        return self._cjk[key]


def _own_change(text: str, sentence_start: int, start: int) -> bool:
    """The change is the writer's: "I/we (have) upgraded" right before it, or the words open the sentence."""
    if start - sentence_start <= 8 and re.fullmatch(r"[\W_]*", text[sentence_start:start]):
        return True
    return _OWN_CHANGE.search(text[max(sentence_start, start - 40) : start]) is not None


_SENTENCE_OPEN = re.compile(r"[.!?;。！？；]\s+|[。！？；]")
_SENTENCE_CLOSE = re.compile(r"[.!?;](?=\s|$)|[。！？；]")


def parse_line(text: str) -> Parsed | None:
    """A pip pin, an environment field of the issue template, its GPU field, or an image tag → the values
    check_env would give (its keys, so the launch's versions and GPUs are read as check_env's are)."""
    text = text.translate(_FULL_WIDTH_COLON)
    m = _PIN.match(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {PACKAGES[m.group(1)]: m.group(2)}, "stated_by": PIN})
    if _RUN_INSTALL.match(text):
        pins = {PACKAGES[p.group(1)]: p.group(2) for segment in _install_commands(text) for p in _INSTALLED_PIN.finditer(segment)}
        if pins:
            return Parsed(kinds.STATED_ENV, {"values": pins, "stated_by": PIP_INSTALL})
        # the pins of the line's other commands (a download, an echo, a fallback) install nothing: no reader below takes them
        text = _INSTALLED_PIN.sub(lambda p: p.group(1), text)
    m = _APT_NCCL.search(text) or _INSTALLED_NCCL.match(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {"nccl": m.group(1)}, "stated_by": PIN})
    m = _KERNEL_MODULE.search(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {"driver": m.group(1)}, "stated_by": BUILD})
    m = _ATTRIBUTE_VALUE.match(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {_MODULE_PACKAGE[m.group(1)]: m.group(2)}, "stated_by": PRINTED})
    m = _PY_SPY.match(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {"Python": m.group(1)}, "stated_by": BUILD})
    m = _BUILT_FOR.match(text)
    if m:
        key = "torch" if m.group("name") == "PyTorch" else "Python"
        return Parsed(kinds.STATED_ENV, {"values": {key: m.group("version")}, "stated_by": BUILD})
    frozen = frozen_wheel(text, _WHEEL_KEYS)
    if frozen is not None:
        return Parsed(kinds.STATED_ENV, {"values": frozen, "stated_by": PIN})
    if text.lstrip().startswith("Requirement already satisfied: "):  # pip's own line: its requirement is no statement
        satisfied = already_satisfied(text, _WHEEL_KEYS)
        return Parsed(kinds.STATED_ENV, {"values": satisfied, "stated_by": PIP_INSTALL}) if satisfied else None
    label = _labelled(text)
    if label is not None:
        return Parsed(kinds.STATED_ENV, {"values": {label[0]: label[1]}, "stated_by": FIELD})
    if mounted_over(text):  # the image's tag is no release that runs, in any form below
        text = IMAGE_TAG.sub("lmsysorg/sglang", text)
    m = _unchanged_tag(IMAGE_TAG, text)
    tag_sentence = _sentence_at(text, m.start(), m.end()) if m else ""
    if m and not m.group(0).startswith("lmsysorg/") and (_ASKED.search(tag_sentence) or _SUPPOSES_TAG.search(tag_sentence)):
        # the tag without its namespace in a question or a wish names no image that runs (review12a item 21), and no
        # reader below takes its version either ("Support for sglang:v0.5.3 images on B200 would be nice.")
        text, m = text[: m.start()] + "sglang image" + text[m.end() :], None
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {"sglang": m.group(1)}, "stated_by": IMAGE})
    m = _unchanged_tag(BUNDLED_TAG, text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {"sglang": m.group(1)}, "stated_by": BUNDLED})
    m = _unchanged_tag(_BARE_TAG, text)
    if m and _IMAGE_WORDS.search(text):
        return Parsed(kinds.STATED_ENV, {"values": {"sglang": m.group(1)}, "stated_by": BARE_TAG})
    m = _INSTALL.search(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {"sglang": m.group(1)}, "stated_by": PIP_INSTALL})
    m = _CLONE.search(text) or _VCS_TAG.search(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {"sglang": m.group(1)}, "stated_by": BUILD})
    built = cmake_found(text) or installed_wheel(text, _WHEEL_KEYS) or pip_installed(text, _WHEEL_KEYS)
    if built is not None:
        return Parsed(kinds.STATED_ENV, {"values": built, "stated_by": PIP_INSTALL if ".whl" in text else BUILD})
    version = sentence_version(text)
    named = named_versions(text)
    if version is not None or named:
        values = {**named, **({"sglang": version} if version is not None else {})}
        return Parsed(kinds.STATED_ENV, {"values": values, "stated_by": SENTENCE})
    version = unowned_release(text)
    if version is not None:
        return Parsed(kinds.STATED_ENV, {"values": {"sglang": version}, "stated_by": UNOWNED})
    m = _GPUS.match(text)
    if m:
        count = int(m.group(1) or m.group(4) or m.group(5))
        name = (m.group(2) or m.group(3)).strip().strip("`*")
        if 0 < count <= MAX_GPUS and name:
            indexes = ",".join(str(i) for i in range(count))  # check_env's "GPU 0,1,2,3" key; the count is stated
            return Parsed(kinds.STATED_ENV, {"values": {f"GPU {indexes}": name}, "gpu_count": count, "stated_by": FIELD})
    m = _CARD_MEMORY.match(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {}, CARD_MEMORY_MIB: int(m.group(1).replace(",", "")), "stated_by": FIELD})
    return None


# the old tag of a change: "from v0.5.11-cu130 to v0.5.12-cu130", "from **`lmsysorg/sglang:v0.5.11-cu130`** to **`v0.5.12`**",
# "lmsysorg/sglang:v0.5.11 -> v0.5.12" (the words after it, past Markdown's emphasis and code marks)
_MARKUP = re.compile(r"[\w.+-]*[*`_\s]*")  # the tag's own suffix ("-cu130"), then the marks
# (the new tag after "to" is a release or a tag, never a count: "deployed lmsysorg/sglang:v0.5.11-cu129 to 4 H100 nodes"
# runs that tag, review14a item 7)
_TAG_REPLACED = re.compile(r"(?i)^(?:to[\s*`_]+(?:[\w./-]+:v?\d|v?\d+\.\d)|->|→|=>)")


def _replaced(text: str, m: re.Match[str]) -> bool:
    after = text[m.end() : m.end() + 80]
    after = after[_MARKUP.match(after).end() :]  # type: ignore[union-attr]  # matches the empty string
    return bool(_AFTER_REQUIREMENT.match(after) or _TAG_REPLACED.match(after))


def _unchanged_tag(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first tag of the line that no change replaces ("from A to B": A is no longer the image)."""
    return next((m for m in pattern.finditer(text) if not _replaced(text, m)), None)


def tag_replaced(text: str) -> bool:
    """The line names an image tag that a change replaces: a code span holding that tag, read alone, would lose the
    words after it."""
    return any(_replaced(text, m) for pattern in (IMAGE_TAG, BUNDLED_TAG, _BARE_TAG) for m in pattern.finditer(text))


def holds_tag(text: str) -> bool:
    """A tag of any form (the official image's, a bundling image's, a bare -cuNNN tag) in the text."""
    return any(pattern.search(text) for pattern in (IMAGE_TAG, BUNDLED_TAG, _BARE_TAG))


def mounted_over(text: str) -> bool:
    """The line names an official image whose code a source checkout mounted into it replaces: its tag is no release
    that runs (a code span of the tag alone is read with the line's words)."""
    m = IMAGE_TAG.search(text)
    return bool(m and _MOUNTED_INTO.search(text[: m.start()]))


# after a label's value (review12a item 26): a remark naming another environment ("- NCCL: 2.27.3 (vLLM env, not the one
# that fails)") or a compatibility matrix's next cell ("| Triton | 3.4.0 | broken |", "| DeepEP | 1.2.1 | n/a |")
# The remark says the value is another's where it opens with that other ("(vLLM env", "(in another container", "(not the
# one that fails") or calls it an environment ("(the old env)"); a remark about something else ("(we use the lmdeploy
# image for the other job)") leaves the value ours.
_NOT_IN_USE_AFTER = re.compile(
    rf"(?i)^\s*(?:\(\s*(?:(?:in|on|from|of|for)\s+)?(?:the\s+|an?\s+)?(?:{OTHER_ENGINES}|another|other|not)\b"
    r"|\([^)]*\b(?:env|environment)\s*[,;)]"
    r"|\|\s*(?:broken|works?|working|fails?|failed|failing|ok|n/a|yes|no|✅|❌|✔️?|✗|x)\s*(?:\||$))"
)


def _labelled(text: str) -> tuple[str, str] | None:
    """(check_env's key, version) of a labelled version: "- SGLang: 0.5.4", "| PyTorch | 2.3.1+cu121 |",
    "torch    2.5.1", "NCCL: nvidia-nccl-cu13 2.30.4" (the distribution named is the label's, or nothing is read)."""
    for rx in (_LABELLED, _TABLE_ROW, _LISTED, _CONDA_ROW):
        m = rx.match(text)
        key = _label_key(m.group(1)) if m else None
        if m is None or key is None:
            continue
        after = text[m.end(rx.groups) :].lstrip("`*")
        if _AFTER_REQUIREMENT.match(after) or _CJK_SUPPOSED.search(text) or _NOT_IN_USE_AFTER.match(after):
            return None  # a requirement, a condition, another environment, a matrix's cell: no version in use
        if len(re.findall(r"(?i)(?<![\w-])" + re.escape(m.group(1).strip()) + r"\s*(?:\*\*)?\s*[:|]", text)) > 1:
            return None  # "Triton: 3.4.0 fails, Triton: 3.3.1 works": two values of one label, neither is said to run
        dist = m.groupdict().get("dist")
        if dist is None:
            return key, m.group(rx.groups)
        label = m.group(1).strip().lower()
        if _simple(label) in _simple(dist) or key == PACKAGES[dist]:
            return PACKAGES[dist], m.group(rx.groups)
        return None
    return None


def _label_key(label: str) -> str | None:
    """check_env's key for a label: as written, its first part of several ("FlashInfer Python/cubin"), without a
    qualifier ("Transformers in the SGLang environment") or "版本" / "version", or a pip name in words ("SGLang kernel")."""
    label = label.strip().lower()
    for candidate in (label, label.split("/")[0].strip(), _QUALIFIER.sub("", label)):
        candidate = candidate.removesuffix("版本").strip()
        if candidate != "cuda runtime version":  # torch's collect_env.py line: the nvcc on PATH, no runtime's label
            candidate = candidate.removesuffix(" version")  # "DeepEP version": DeepEP's
        if candidate in _LABELS:
            return _LABELS[candidate]
        dashed = re.sub(r"\s+", "-", candidate)
        if dashed in PACKAGES:
            return PACKAGES[dashed]
    return None


def _simple(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _in_a_path(text: str, m: re.Match[str]) -> bool:
    """The name joined to its version by a hyphen where it names a thing, not the release in use: a folder in a path
    ("/root/.virtualenvs/sglang-0.5.6/lib/python3.10/..."), a conda prompt's environment, an option's value, a table's
    cell (_a_name); or the version pip or a sentence names as removed (_removed)."""
    joined = re.search(r"(?i)sglang-v?$", text[m.start() : m.start(1)]) is not None
    if joined and _a_name(text, m.start(), m.end()):
        return True
    return _removed(text, m.start())


# a conda (or virtualenv) prompt opening the line: "(sglang-0.4.6) root@gpu:~# ls", "(sglang-0.4.6) $ python3 ...": the
# environment's name, which its creator chose
_PROMPT_OPEN = re.compile(r"\s*\(")
_PROMPT_CLOSE = re.compile(r"\)\s+(?:\S+@\S+|[$#%>](?:\s|$))")
# an option's value: "docker run --name sglang-0.5.4 ...", "--name=sglang-0.5.4" (a container's, a job's name)
_OPTION_BEFORE = re.compile(r"(?:^|\s)--?[A-Za-z][\w-]*(?:=|\s+)$")
# a column-aligned table's row (cells two spaces or a tab apart) is a listing's when one of its cells has a shape no
# statement of a version has: `helm list`'s "sglang  default  1  2025-06-01 10:00:00 UTC   deployed  sglang-0.1.0" (a
# revision number, a date and time, a release's status: helm v3 pkg/release/status.go, "unknown", "deployed",
# "uninstalled", "superseded", "failed", "uninstalling", "pending-install/-upgrade/-rollback"), `ls`'s columns
# "bin  cuda  cuda-12.4  etc" (a bare lower-case name); then its name-version cells are charts', folders', files' names.
# A row of name-version cells after a label ("Environment:  sglang-0.4.6  flashinfer-0.2.3  torch-2.5.1") is none:
# decided once a row, never by the cell's column (review13b item 4)
_WIDE_GAP = re.compile(r"\t| {2,}")
_CELL_AFTER = re.compile(r"(?:\t| {2,}|\s*$)")
_LISTING_CELL = re.compile(
    r"\d+|\d{4}-\d\d-\d\d \d\d:\d\d\b.*|[a-z][a-z0-9_.]*"
    r"|unknown|deployed|uninstalled|superseded|failed|uninstalling|pending-(?:install|upgrade|rollback)"
)
# a row of `ls -l` ("drwxr-xr-x 2 root root 4096 Jun  1 10:00 cuda-12.4"): a file's name
_LS_ROW = re.compile(r"\s*[-dlcbps][rwxsStT-]{9}[.@+]?\s")
_HYPHEN_JOIN = re.compile(r"-`?[vV]?")


def _hyphen_joined(text: str, m: re.Match[str]) -> bool:
    """The name and the version of a _NAMED match are joined by a hyphen ("nixl-0.3.0", "torch-v2.5.1")."""
    return _HYPHEN_JOIN.fullmatch(text, m.end(1), m.start(2)) is not None


@functools.lru_cache(maxsize=16)
def _listing_row(text: str) -> bool:
    """The line is a row of a listing (`ls -l`, a column-aligned table with a cell of a listing's shape): its
    name-version cells name things. Asked once a row (cached: a long row of many such words stays linear)."""
    if _LS_ROW.match(text):
        return True
    if "\t" not in text and "  " not in text:
        return False  # no column gap: no table (the cheap test first)
    cells = [cell.strip() for cell in _WIDE_GAP.split(text.strip())]
    return len(cells) > 2 and any(_LISTING_CELL.fullmatch(cell) for cell in cells)


def _a_name(text: str, start: int, end: int) -> bool:
    """The name-version word at text[start:end] (a hyphen joins them) names a folder, an environment, a container, a
    chart or a file: no statement of the version in use."""
    before, after = text[start - 1 : start], text[end : end + 1]
    if before in ("/", "\\", ".", "~", "-") or after in ("/", "\\"):
        return True
    if _PROMPT_OPEN.fullmatch(text, 0, start) and _PROMPT_CLOSE.match(text, end):
        return True
    if _OPTION_BEFORE.search(text, max(0, start - 40), start):
        return True
    if not _listing_row(text):
        return False
    if _LS_ROW.match(text):
        return True
    gap_before = start == 0 or text[start - 1] == "\t" or text[max(0, start - 2) : start] == "  "
    return gap_before and _CELL_AFTER.match(text, end) is not None


# pip's lines for the installed version it replaces (pip/_internal/req/req_install.py "Found existing installation: %s",
# req/__init__.py "Attempting uninstall: %s", req_uninstall.py "Uninstalling %s:" and "Successfully uninstalled %s", the
# same in pip 23.2.1 and 26.3): the version named is the one removed, never the one in use
_PIP_REPLACES = re.compile(
    r"(?:^|\s)(?:Found existing installation: |Attempting uninstall: |Successfully uninstalled |Uninstalling \S+:\s*$)"
)
# a removal the words right before the name state ("pip uninstall flashinfer-python-0.2.3", "I removed torch 2.5.1")
_REMOVAL_BEFORE = re.compile(r"(?i)\b(?:uninstall|remov|delet|purg)\w*\s+(?:the\s+)?(?:old\s+)?$")


_REMOVAL_WORD = re.compile(r"uninstall|remov|delet|purg")


@functools.lru_cache(maxsize=16)
def _removal_words(text: str) -> list[int]:
    """Where a removal's word starts in the line (one scan a line, cached)."""
    return _starts(_REMOVAL_WORD, text)


def _removed(text: str, start: int) -> bool:
    pos = max(0, start - 40)
    starts = _removal_words(text)
    i = bisect.bisect_left(starts, pos)
    if i == len(starts) or starts[i] >= start:
        return False  # no removal's word in the window: nothing to search
    return _REMOVAL_BEFORE.search(text, pos, start) is not None


# how far before a version its owner is looked for: the name and its joiner ("flashinfer-python version: "), never the
# whole sentence before it (searched over the whole prefix for each version, a long line of name-version words was
# quadratic: review13a item 10)
OWNER_WINDOW = 80


def _owned_at(sentence: str, start: int) -> bool:
    """A package's or a tool's name right before the version at sentence[start] owns it (a connector, "to v0.5.4", or
    nothing, does not). Only the OWNER_WINDOW characters before it are searched: the cost per version is bounded."""
    pos = max(0, start - OWNER_WINDOW)
    owner = None
    if pos > 0 and sentence[pos - 1] in string.ascii_letters:  # the window opens inside a word: its first owner may
        owner = _OWNED_AT.match(sentence, pos, start)  # start at the window's edge
    if owner is None:
        owner = _OWNED.search(sentence, pos, start)
    if owner is None:
        return False
    if owner.start() == pos and pos > 0 and re.match(r"[\w-]", sentence[pos - 1]):
        return True  # a name longer than the window: a name, never one of the short connectors
    return owner.group(0).split()[0].lower().rstrip(":=") not in _CONNECTORS


# a release of the project's history, not the one installed: the words right before the name say when something came
# or went ("introduced in SGLang v0.5.2", "Starting from sglang 0.5.3, the default changed", "As of SGLang 0.5.4 this
# flag is removed", "required since sglang 0.5.6", "switched from sglang 0.5.2")
_HISTORY = re.compile(
    r"(?i)(?:\b(?:introduced|added|removed|deprecated|changed|dropped)\s+(?:in|since)"
    r"|\b(?:since|as of|prior to|before|after|until|up to|starting(?:\s+(?:from|with|in|at))?|beginning(?:\s+(?:with|in))?)"
    r"|\b(?:switch|upgrad|downgrad|mov|migrat|chang)(?:ed|ing|e|es)?\s+from)"
    r"\s+$"
)
# a release that is planned or awaited, not run ("We plan to release this in v0.5.5", "Will this be backported to
# sglang 0.5.3?", "it will be included in v0.5.5"): the words in the version's clause, right before it, or after it
# ("sglang 0.5.5 will be released next week"); "will" of the failure elsewhere in the sentence ("I am running sglang
# 0.5.3 and the server will crash") says nothing of the release (review14a item 2)
_FUTURE = re.compile(
    r"(?i)\b(?:will\s+(?:\w+\s+)?(?:be|get|ship|land|include|come)|plan(?:s|ned|ning)?\s+to|upcoming|next release"
    r"|backport(?:s|ed|ing)?|(?:be|been|get|gets)\s+(?:released|included|merged|shipped))\b(?![^,;:()]*[,;:()])"
)
_FUTURE_AFTER = re.compile(
    r"(?i)[\s`*]*(?:(?:will|is\s+going\s+to)\s+(?:be\s+)?(?:released|out|shipped|available|published|included|landed?"
    r"|come)|is\s+(?:planned|upcoming|not\s+(?:yet\s+)?(?:out|released)))\b"
)
_FUTURE_WINDOW = 40
# "after"/"before"/"until" the name when the process does something at that release's step ("right after sglang
# 0.5.3 finishes loading the weights": a moment of the run, the release it runs; review14a item 4)
_MOMENT_WORD = re.compile(r"(?i)\b(?:after|before|until)\s+$")
_PROCESS_VERB = re.compile(
    r"(?i)[\s`*]+(?:finish|start|load|launch|boot|begin|began|complet|crash|initiali[sz]|warm|hang|hung|runs|running"
    r"|ran|serv|spawn|allocat|captur|compil|process|handl|receiv|return|exit|die|print|log|report|fail)\w*"
)


def _history(sentence: str, start: int, end: int) -> bool:
    """Words of the project's history end right before sentence[start] (within 40 characters); "after"/"before"
    followed by what the process does at the version's end (sentence[end:]) is a moment of the run."""
    found = _HISTORY.search(sentence, max(0, start - 40), start)
    if found is None:
        return False
    return not (_MOMENT_WORD.search(found.group(0)) and _PROCESS_VERB.match(sentence, end))


def _future(sentence: str, start: int, end: int) -> bool:
    """The clause of sentence[start:end] plans or awaits that release: the words within 40 characters before it (in
    its clause), or right after it."""
    return (
        _FUTURE.search(sentence, max(0, start - _FUTURE_WINDOW), start) is not None
        or _FUTURE_AFTER.match(sentence, end) is not None
    )


def sentence_version(text: str) -> str | None:
    """The SGLang version a sentence states, or None: one version tied to the name, and no other version in the
    same sentence that no other name owns ("it worked in v0.5.14, SGLang v0.5.15 fails" states neither)."""
    if _PIP_REPLACES.search(text):
        return None
    for sentence in _SENTENCE_END.split(text):
        # a range's bound is no release in use ("upgrading sglang to 0.4.3 or above", "sglang 0.5.3+", "sglang 0.5.3 ->
        # 0.5.4"): the words after the version say so, as they do for the other packages (named_versions)
        tied = {
            m.group(1)
            for m in _TIED.finditer(sentence)
            if not _in_a_path(sentence, m)
            and not _AFTER_REQUIREMENT.match(sentence[m.end() : m.end() + 80])
            and not _history(sentence, m.start(), m.end())
            and not _future(sentence, m.start(), m.end())
        }
        if len(tied) != 1 or _ADVICE.search(sentence):
            continue
        version = next(iter(tied))
        for m in _ANY_RELEASE.finditer(sentence):
            if m.group(1) == version:
                continue
            if not _owned_at(sentence, m.start()):
                break
        else:
            return version
    return None


# a release named with no package in a sentence ("Same thing happened to me when using v0.5.4.post1:", "I am using the
# latest release 0.4.7"): "v" before it, or "release" (an issue of SGLang's calls its own releases so)
_UNOWNED = re.compile(
    r"(?i:\b(?:using|in|on|with|tried|run(?:ning)?)\s+v|\brelease\s+v?)(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)"
    r"(?![A-Za-z0-9_.-]*[A-Za-z0-9_])"
    # "v0.4.0 of the helm chart", "release 0.3.1 of our internal router": the sentence names its owner after it
    r"(?!\s+of\s)"
)


def unowned_release(text: str) -> str | None:
    """An SGLang release (one the catalogue holds) that a sentence names with no package's name, the only version of
    the sentence, or None."""
    for sentence in _SENTENCE_END.split(text):
        found = {m.group(1) for m in _UNOWNED.finditer(sentence) if not _future(sentence, m.start(), m.end())}
        if len(found) != 1 or _ADVICE.search(sentence):
            continue
        if len(set(_ANY_RELEASE.findall(sentence))) != 1:
            continue
        if _PACKAGE_NAMED.search(sentence):  # "fails in v0.5.3 of flashinfer": the version may be that package's
            continue
        version = found.pop()
        if _a_release(version):
            return version
    return None


_PACKAGE_NAMED = re.compile(rf"(?<![A-Za-z0-9_])(?i:{_NAMED_NAME}|sglang|vllm|tensorrt[-_]llm|lmdeploy)(?![A-Za-z0-9_])")
_POST = re.compile(r"^(\d+\.\d+\.\d+)(?:\.post(\d+)|rc\d+)?$")


def _a_release(version: str) -> bool:
    """A release of SGLang's: the catalogue keeps each release line's last post release (0.5.4.post3), so a line it holds
    and a post number up to that one's (0.5.4, 0.5.4.post1, 0.5.4rc0)."""
    m = _POST.match(version)
    if m is None:
        return False
    for release in upstream.catalogued_versions():
        held = _POST.match(release)
        if held and held.group(1) == m.group(1):
            return int(m.group(2) or 0) <= int(held.group(2) or 0)
    return False


def version_before_failure(text: str) -> str | None:
    """The SGLang version a sentence states before it describes a failure ("With SGLang v0.5.3, the server crashes
    with `AssertionError: ...`"): a line another reader takes for its failure still states the release in use."""
    failure = _FAILURE_WORDS.search(text)
    return sentence_version(text[: failure.start()]) if failure and "sglang" in text[: failure.start()].lower() else None


def fits(text: str) -> bool:
    """The shape of a pin, a labelled version or the GPU field (a line that mentions "sglang:" in prose, an
    image tag say, is no candidate)."""
    text = text.translate(_FULL_WIDTH_COLON)
    return bool(
        _PIN.match(text)
        or _APT_NCCL.search(text)
        or _INSTALLED_NCCL.match(text)
        or _KERNEL_MODULE.search(text)
        or _labelled(text) is not None
        or _GPUS.match(text)
        or _CARD_MEMORY.match(text)
        or IMAGE_TAG.search(text)
        or BUNDLED_TAG.search(text)
        or _BARE_TAG.search(text)
        or _INSTALL.search(text)
        or _CLONE.search(text)
        or _VCS_TAG.search(text)
        or _PY_SPY.match(text)
        or _ATTRIBUTE_VALUE.match(text)
        or _BUILT_FOR.match(text)
        or cmake_found(text) is not None
        or frozen_wheel(text, _WHEEL_KEYS) is not None
        or already_satisfied(text, _WHEEL_KEYS) is not None
        or installed_wheel(text, _WHEEL_KEYS) is not None
        or pip_installed(text, _WHEEL_KEYS) is not None
        or (not _PIP_REPLACES.search(text) and any(not _in_a_path(text, m) for m in _TIED.finditer(text)))
        or _UNOWNED.search(text)
        or bool(named_versions(text))
    )


_PIP_NAME = re.compile(rf"^\s*Name:\s*({_PACKAGE})\s*$")
_PIP_VERSION = re.compile(rf"^\s*Version:\s*{_VERSION}\s*$")
# the command itself, one package named ("$ pip show sglang", Xinference's template "*[pip show sglang]"): the paste
# may keep only its Version line (pip/_internal/commands/show.py prints "Name: %s", then "Version: %s")
# (the whole line: a sentence that quotes the command is read as a sentence)
_PIP_SHOW = re.compile(
    rf"^\s*(?:[-*+>]\s*)?\[?`?(?:{SHELL_PROMPT})?(?:python3?\s+-m\s+)?pip3?\s+show\s+({_PACKAGE})"
    r"(?:\s*\|\s*grep\s.*?)?`?\]?\s*$"
)


class _VersionLineReader(BlockReader):
    """A line that names a package, then the next line with text, which states its version."""

    grammar = kinds.STATED_ENV_GRAMMAR
    joiner = " / "
    stated_by = ""

    def package_named(self, text: str) -> str | None:
        raise NotImplementedError

    def version_in(self, text: str) -> str | None:
        raise NotImplementedError

    def skips(self, text: str) -> bool:
        """A line that may stand between the one naming the package and its version (none by default)."""
        return False

    def open(self, lineno: int, text: str) -> BlockReader:
        package = self.package_named(text)
        assert package is not None
        self.first_line, self.package = lineno, package
        self.version: str | None = None
        self.skipped = 0
        self.text = text.strip()
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if self.version is not None:
            return False
        self.version = self.version_in(text)
        if self.version is None:
            self.skipped += 1
            return self.skipped <= 2 and self.skips(text)
        self.text += self.joiner + text.strip()
        return True

    def close(self) -> list[Event]:
        if self.version is None:
            return []
        data: dict[str, Any] = {"values": {self.package: self.version}, "stated_by": self.stated_by}
        return [Event(kinds.STATED_ENV, self.source, self.first_line, self.text, None, None, data, self.grammar)]


class PipShowReader(_VersionLineReader):
    """`pip show sglang`: the Name line (or the command, one package named), then its Version line."""

    literals = ("Name: ", "pip show ", "pip3 show ")
    stated_by = PIP_SHOW

    def starts(self, text: str) -> bool:
        return bool(_PIP_NAME.match(text) or _PIP_SHOW.match(text))

    def package_named(self, text: str) -> str | None:
        m = _PIP_NAME.match(text) or _PIP_SHOW.match(text)
        return PACKAGES[m.group(1)] if m else None

    def skips(self, text: str) -> bool:
        m = _PIP_NAME.match(text)  # the command's Name line
        return m is not None and PACKAGES[m.group(1)] == self.package

    def version_in(self, text: str) -> str | None:
        m = _PIP_VERSION.match(text)
        return m.group(1) if m else None


# `print(sglang.__version__)`, `python -c "import sglang; print(sglang.__version__)"`, `>>> sglang.__version__`, and
# `torch.version.cuda` (the CUDA torch was built with, check_env's "CUDA used to build PyTorch")
_MODULE_PACKAGE = {
    "sglang.__version__": "sglang",
    "torch.__version__": "torch",
    "sgl_kernel.__version__": "sgl-kernel",
    "flashinfer.__version__": "flashinfer-python",
    "transformers.__version__": "transformers",
    "triton.__version__": "triton",
    "deep_ep.__version__": "deep_ep",
    "torch.version.cuda": "cuda",
    # torch/cuda/nccl.py version() (torch 2.x): the tuple (major, minor, patch), a suffix string fourth where NCCL has one
    "torch.cuda.nccl.version()": "nccl",
}
_ASKS = re.compile(r"\b(" + "|".join(re.escape(asked) for asked in _MODULE_PACKAGE) + r")(?![\w.])")
_PRINTED = re.compile(rf"^\s*(?:Out\[\d+\]:\s*)?['\"]?{_VERSION}['\"]?\s*$")
# the attribute and its value on one line, as a script prints them ("torch.__version__: 2.8.0+cu128", "torch.version.cuda =
# 12.8", "sglang.__version__ = '0.5.4'"): the value the module gives
_ATTRIBUTE_VALUE = re.compile(
    r"^\s*[-*]?\s*`?("
    + "|".join(re.escape(asked) for asked in _MODULE_PACKAGE if asked.endswith(("__version__", ".cuda")))
    + rf")`?\s*[:=]\s*['\"`]?{_VERSION}['\"`]?\s*$"
)
_NCCL_TUPLE = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?\((\d+), (\d+), (\d+)(?:, '[^']*')?\)\s*$")
# several asked in one print ("print(torch.__version__, torch.version.cuda)" → "2.8.0+cu128 12.8"): print's separator is
# one space, so the printed line has one word per value asked, in the order asked
_PRINTED_WORD = re.compile(r"['\"]?" + _VERSION + r"['\"]?")


class VersionPrintReader(_VersionLineReader):
    """A line that asks a module's __version__ and, on the next line with text, the version it printed."""

    literals = ("__version__", "torch.version.cuda", "nccl.version()")
    joiner = " → "
    stated_by = PRINTED

    def starts(self, text: str) -> bool:
        # (an attribute with its value on the same line is a line's statement: parse_line reads it)
        return bool(_ASKS.search(text)) and _PRINTED.match(text) is None and _ATTRIBUTE_VALUE.match(text) is None

    def package_named(self, text: str) -> str | None:
        m = _ASKS.search(text)
        return _MODULE_PACKAGE[m.group(1)] if m else None

    def open(self, lineno: int, text: str) -> BlockReader:
        self.asked = [_MODULE_PACKAGE[m.group(1)] for m in _ASKS.finditer(text)]
        self.values: dict[str, str] = {}
        return super().open(lineno, text)

    def version_in(self, text: str) -> str | None:
        words = text.split()
        if len(self.asked) > 1 and len(words) > 1:  # one word per value asked, or nothing is read (one word: the first's)
            printed = [_PRINTED_WORD.fullmatch(word) for word in words]
            if len(words) != len(self.asked) or not all(printed):
                return None
            self.values = {package: m.group(1) for package, m in zip(self.asked, printed, strict=True) if m}
            return self.values.get(self.package)
        if self.package == "nccl":
            m = _NCCL_TUPLE.match(text)
            return ".".join(m.groups()) if m else None
        m = _PRINTED.match(text)
        return m.group(1) if m else None

    def close(self) -> list[Event]:
        events = super().close()
        if events and len(self.values) > 1:
            events[0].data["values"] = dict(self.values)
        return events


# a section that names a package, then its version on the next line with text: a GitHub issue form's field, rendered
# "### NCCL Version" / blank / "2.21.5-1+cuda12.4", and verl's scripts/diagnose.py, which prints
# "----------Python Info----------" then "Version      :", platform.python_version()
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?:\*\*)?([A-Za-z][\w .-]{0,30}?)\s+(?i:version)(?:\*\*)?\s*:?\s*$")
_BANNER = re.compile(r"^\s*-{3,}\s*([A-Za-z][\w.-]*)\s+Info\s*-{3,}\s*$")
_SECTION_VALUE = re.compile(rf"^\s*(?:Version\s*:\s*)?`?{_VERSION}`?\s*$")
# NCCL's Debian package version (NVIDIA/nccl pkg/debian changelog.in: ${nccl:Major}.${nccl:Minor}.${nccl:Patch}
# ${nccl:Suffix}-${pkg:Revision}+cuda${cuda:Major}.${cuda:Minor}) and the version string the library prints, its build
# suffix after it (libnccl.so.2 of nvidia-nccl-cu12 2.32.3: "NCCL version 2.32.3+cuda12.9"): the release is its first
# three numbers
_NCCL_PACKAGE_VERSION = re.compile(r"^(\d+\.\d+\.\d+)[a-z0-9]*(?:-\d+)?\+cuda\d+\.\d+$")
SECTION = "section"


class SectionVersionReader(_VersionLineReader):
    """A heading that names a package ("### SGLang Version", "----------Python Info----------"), then the version
    on the next line with text (bare, or "Version : X")."""

    literals = (" Version", " version", " VERSION", " Info---")
    joiner = " / "
    stated_by = SECTION

    def starts(self, text: str) -> bool:
        return self.package_named(text) is not None

    def package_named(self, text: str) -> str | None:
        m = _HEADING.match(text) or _BANNER.match(text)
        return _LABELS.get(m.group(1).strip().lower()) if m else None

    def version_in(self, text: str) -> str | None:
        m = _SECTION_VALUE.match(text)
        if m is None:
            return None
        nccl = _NCCL_PACKAGE_VERSION.match(m.group(1)) if self.package == "nccl" else None
        return nccl.group(1) if nccl else m.group(1)

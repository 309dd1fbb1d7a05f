"""The folders a native library's repository keeps its code in: catalog/checkout_folders.json, read from each library's
git source at its release tags (the release a checkout is made of), never written by hand.

logscope/core/native_libraries.py checkout_library reads it: a frame's file in a folder named after a library is that
library's checkout only when the folder under it is one of these (`/sgl-workspace/DeepGEMM/tests/test_fp8.py`, a
test of DeepGEMM's tree); a user's script right under a folder of the library's name (`/home/user/nccl/bench.py`) is
none (review13b item 7).

A folder counts when it is a top-level folder of a release's tree (not a hidden one: `.github`, `.ci`) that holds a
script or a source file (CODE: Python, shell, C, C++, CUDA) at some depth: a vendored repository is a git submodule,
which holds no file of the tree (FlashInfer's `3rdparty/cutlass`, Mooncake's `extern`), and a folder of figures or
licences holds no code. Per folder, the repositories whose releases hold it, each with the first and last release
read that do.

The repositories are the git directories of `fetch github:<owner>/<name>` (or clones: set the variables). sgl-kernel's
source is a folder of SGLang's own repository, which is not read here (too large to fetch): its checkout is named by
the folder names all the others use.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from logscope.core.native_libraries import CHECKOUT_FILE
from tools.upstream.write import ROOT, write_generated


class Repository(NamedTuple):
    library: str  # as catalog/libraries.json names it
    github: str  # owner/name
    env: str  # the variable naming its git directory

    def git_dir(self) -> Path:
        owner, name = self.github.split("/")
        return Path(os.environ.get(self.env, f"/work/.mirror/{owner}+{name}/repo"))


REPOSITORIES: tuple[Repository, ...] = (
    Repository("NCCL", "NVIDIA/nccl", "LOGSCOPE_NCCL_GIT"),
    # NCCL's performance tests, run from their own checkout (`/workspace/nccl-tests/build/all_reduce_perf`)
    Repository("NCCL", "NVIDIA/nccl-tests", "LOGSCOPE_NCCL_TESTS_GIT"),
    Repository("UCX", "openucx/ucx", "LOGSCOPE_UCX_GIT"),
    Repository("NVSHMEM", "NVIDIA/nvshmem", "LOGSCOPE_NVSHMEM_GIT"),
    Repository("NIXL", "ai-dynamo/nixl", "LOGSCOPE_NIXL_GIT"),
    Repository("Mooncake", "kvcache-ai/Mooncake", "LOGSCOPE_MOONCAKE_GIT"),
    Repository("FlashInfer", "flashinfer-ai/flashinfer", "LOGSCOPE_FLASHINFER_GIT"),
    Repository("FlashMLA", "deepseek-ai/FlashMLA", "LOGSCOPE_FLASHMLA_GIT"),
    Repository("DeepGEMM", "deepseek-ai/DeepGEMM", "LOGSCOPE_DEEPGEMM_GIT"),
    Repository("DeepEP", "deepseek-ai/DeepEP", "LOGSCOPE_DEEPEP_GIT"),
)

# a release tag: `v2.30.7-1` (NCCL), `v1.22.0`, `0.1.0`, `v2.1.1.post3`; not a release candidate (`v1.4.0-rc3`) nor a
# branch build (`nv_dev_950d31a`, `nccl4py-v0.3.1`, `v1.2.1-1+cuda7.5`)
RELEASE_TAG = re.compile(r"^v?\d+(?:\.\d+)+(?:-\d+)?(?:\.post\d+)?$")
# a script or a source file
CODE = re.compile(r"\.(?:py|sh|c|cc|cpp|cxx|cu|cuh|h|hh|hpp|inl)$")


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True).stdout


def _release_key(tag: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", tag))


def releases(git_dir: Path) -> list[str]:
    """The release tags, oldest first; a repository that tags none (FlashMLA) is read at its snapshot's commit."""
    tags = sorted((t for t in _git(git_dir, "tag").split() if RELEASE_TAG.match(t)), key=_release_key)
    return tags or [_git(git_dir, "rev-parse", "--short=12", "HEAD").strip()]


def code_folders(paths: Iterable[str]) -> set[str]:
    """The top-level folders (not hidden) of a tree's file paths that hold a script or a source file."""
    return {path.split("/", 1)[0] for path in paths if "/" in path and not path.startswith(".") and CODE.search(path)}


def fold(trees: dict[str, list[tuple[str, Iterable[str]]]]) -> dict[str, dict[str, str]]:
    """Per repository, its releases (oldest first) and each one's file paths -> per folder, per repository, the first
    and last release that hold it ("v2.1.0 .. v2.1.1.post3", one release alone as itself)."""
    found: dict[str, dict[str, list[str]]] = {}
    for repository, tree in trees.items():
        for release, paths in tree:
            for folder in code_folders(paths):
                found.setdefault(folder, {}).setdefault(repository, []).append(release)
    return {folder: {repo: _span(held) for repo, held in sorted(by_repo.items())} for folder, by_repo in sorted(found.items())}


def _span(held: list[str]) -> str:
    return held[0] if held[0] == held[-1] else f"{held[0]} .. {held[-1]}"


def extract() -> dict[str, Any]:
    trees: dict[str, list[tuple[str, Iterable[str]]]] = {}
    read: dict[str, str] = {}
    for repo in REPOSITORIES:
        tags = releases(repo.git_dir())
        trees[repo.github] = [(tag, _git(repo.git_dir(), "ls-tree", "-r", "--name-only", tag).splitlines()) for tag in tags]
        read[repo.github] = f"{repo.library}: {_span(tags)} ({len(tags)} release{'s' if len(tags) > 1 else ''})"
    return {"read": read, "folders": fold(trees)}


def write(path: Path = ROOT / "catalog" / CHECKOUT_FILE) -> None:
    write_generated(
        path,
        "The top-level folders of the native libraries' repositories that hold code (a script or a source file) in a "
        "release: a frame's file under one of them, below a folder named after a library, is that library's checkout "
        "(its tests, benchmarks, examples run from its tree). folder -> repository -> the first and last release tag "
        "that hold it; `read`: each repository's library and the releases read. Read from their git sources at their "
        "release tags by tools/upstream/checkout_folders.py (python -m tools.upstream checkout-folders). Generated.",
        extract(),
    )

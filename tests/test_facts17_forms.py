"""Forms of the facts a failure paste states, read off fresh probe pastes of session 17 (the shapes, not their words):
the sgl-kernel wheels' newer distribution name "sglang-kernel" in a hand-written environment list, and NCCL's release
written as its git tag names it ("NCCL 2.28.3-1")."""

from __future__ import annotations

import pytest

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from tests.helpers import stated_versions

# the shape of a reporter's environment list (a list item per group, versions after names, commas between)
_ENV = (
    "### Environment\n"
    "\n"
    "- sglang-kernel 0.4.5, sgl-deep-gemm 0.1.4.post1\n"
    "- torch 2.11.0+cu130, torchvision 0.26.0+cu130, triton 3.6.0\n"
    "- CUDA 13.0.1, NCCL 2.28.3-1\n"
)


def test_environment_list_names_sglang_kernel_and_nccl_tag():
    assert stated_versions(_ENV) == {
        "sgl_kernel": "0.4.5",
        "torch": "2.11.0+cu130",
        "triton": "3.6.0",
        "cuda": "13.0.1",
        "nccl": "2.28.3",
    }


@pytest.mark.parametrize(
    ("line", "versions"),
    [
        ("I run sglang-kernel 0.4.8 with torch 2.9.1.", {"sgl_kernel": "0.4.8", "torch": "2.9.1"}),
        ("env: torch 2.9.1, sglang_kernel 0.4.10", {"torch": "2.9.1", "sgl_kernel": "0.4.10"}),
        # a Debian package's version of NCCL: the release, its revision and the CUDA it was built for
        ("torch 2.9.1 and nccl 2.27.5-1+cuda12.9", {"torch": "2.9.1", "nccl": "2.27.5"}),
        # a hand-written block's "NCCL:" value in the tag's form
        ("NCCL: 2.28.3-1", {"nccl": "2.28.3"}),
        ("- NCCL: 2.27.5-1+cuda12.9", {"nccl": "2.27.5"}),
    ],
)
def test_named_forms(line, versions):
    assert stated_versions(line + "\n") == versions


@pytest.mark.parametrize(
    "line",
    [
        # advice to install is no version in use
        "Please install sglang-kernel 0.4.6 to fix this.",
        # two versions of one package in the line: neither is said to run
        "sglang-kernel 0.4.5 fails, sglang-kernel 0.4.3 works",
    ],
)
def test_sglang_kernel_not_stated(line):
    assert "sgl_kernel" not in stated_versions(line + "\n")


def test_a_revision_after_another_packages_version_is_not_its_release():
    # only NCCL's releases carry a "-N" revision: "triton 3.5.0-1" names no triton release (torch's still reads)
    assert stated_versions("torch 2.9.1 and triton 3.5.0-1\n") == {"torch": "2.9.1"}


# a kernel library's own CUDA check appends the runtime's string to its op's wording (FlashInfer's
# `"BatchPrefillWithPagedKVCache failed with error " + cudaGetErrorString(status)`, sgl-kernel's copies of its norm
# checks): the wording (catalog/library_messages.json) names the library even where the runtime's error has a
# signature of its own (process-cuda-illegal-address)
def _named(text: str) -> list[tuple[str | None, str | None]]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    return [(f.mechanism, f.library) for fs in analysis.failures.values() for f in fs]


@pytest.mark.parametrize(
    ("line", "named"),
    [
        (
            "RuntimeError: BatchPrefillWithPagedKVCache failed with error an illegal memory access was encountered",
            ("flashinfer", "FlashInfer"),
        ),
        ("RuntimeError: TopK failed with error code an illegal memory access was encountered", ("flashinfer", "FlashInfer")),
        (
            "RuntimeError: GemmaRMSNorm failed with error code an illegal memory access was encountered",
            ("sgl_kernel", "sgl-kernel"),
        ),
    ],
)
def test_a_library_s_check_wording_before_the_cuda_error_names_the_library(line, named):
    assert _named(line + "\n") == [named]


@pytest.mark.parametrize(
    "line",
    [
        # the runtime's error alone: CUDA's
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        # a library's wording elsewhere in the line, not the check that reports this error
        "RuntimeError: CUDA error: an illegal memory access was encountered (after GemmaRMSNorm failed with error code before)",
    ],
)
def test_a_cuda_error_no_library_check_reports_stays_cuda_s(line):
    assert _named(line + "\n") == [("cuda", "CUDA")]

"""The torch wordings the OOM signatures match are torch's own, in the releases their sources name
(catalog/oom_wordings.json, read from the released wheels by tools/upstream/oom_wordings.py)."""

from __future__ import annotations

import json

import pytest

from logscope.core.resources import data_dir
from logscope.pipeline.parse.signatures.loader import bundled_signatures

# signature id -> (a string of torch's libraries its pattern holds, the library, the releases its source names)
TORCH_SIGNATURES = {
    "oom-torch-caching-allocator": ("CUDA out of memory. Tried to allocate ", "libc10_cuda.so", ("2.5.1", "2.9.1", "2.12.0")),
    "oom-torch-async-allocator": (
        " would exceed allowed memory. (out of memory)",
        "libc10_cuda.so",
        ("2.5.1", "2.9.1", "2.12.0"),
    ),
    "host-torch-cpu-allocator": (
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate ",
        "libc10.so",
        ("2.5.1", "2.9.1", "2.12.0"),
    ),
    "host-torch-mmap-enomem": ("unable to mmap ", "libtorch_cpu.so", ("2.5.1", "2.9.1", "2.12.0")),
}


def _wordings() -> dict:
    return json.loads((data_dir("catalog") / "oom_wordings.json").read_text())["wordings"]


@pytest.mark.parametrize("sig_id", sorted(TORCH_SIGNATURES))
def test_a_torch_oom_signature_matches_torch_s_own_wording_in_the_releases_it_names(sig_id):
    text, library, releases = TORCH_SIGNATURES[sig_id]
    assert set(releases) <= set(_wordings()[text][library])
    (sig,) = [s for s in bundled_signatures().signatures if s.id == sig_id]
    assert any(text.strip() in literal or literal.strip() in text for literal in sig.pattern.literals())
    assert all(release in sig.source for release in releases)


def test_the_newest_caching_allocator_wording_is_still_read_as_an_oom():
    # torch 2.12.0 only: the caching allocator's rejection under a per-process memory fraction
    (text,) = [t for t in _wordings() if t.startswith("CUDA out of memory. Allocation was preemptively rejected")]
    assert _wordings()[text] == {"libc10_cuda.so": ["2.12.0"]}

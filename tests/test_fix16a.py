"""review16a's medium and low items fixed by fix16a (session 16): each paste or call the reviewer reproduced, and the
positive cases beside it that must keep their reading."""

from __future__ import annotations

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source

_LAUNCH = "I launched the server with python -m sglang.launch_server --model-path Qwen/Qwen2-7B --tp 2.\n"


def _rules(text: str) -> list[tuple[str, str | None]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return [(f["rule"], f.get("phase")) for f in document["findings"]]


# review16a item 4: a one-line failure with a span claim (an issue's title pasted first) was read as the claim only, an
# all-clear; the claim is the failure's time
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Segmentation fault after 3 hours of generation.", [("runtime-crash", "serving")]),
        ("Segmentation fault after 3 hours of serving.", [("runtime-crash", "serving")]),
        ("Killed after 2 hours of inference.", [("unrecognized-failure", "unknown")]),
        # (the form that already kept both)
        ("The server crashed with Segmentation fault after 3 hours of generation.", [("runtime-crash", "serving")]),
    ],
)
def test_a_failure_line_with_a_span_claim_keeps_its_failure(line: str, expected: list[tuple[str, str | None]]) -> None:
    assert _rules(_LAUNCH + line + "\n") == expected


@pytest.mark.parametrize(
    "line", ["The server ran fine for 3 hours of serving.", "It worked after 3 hours of generation of the dataset."]
)
def test_a_span_claim_with_no_failure_is_still_no_failure(line: str) -> None:
    assert _rules(_LAUNCH + line + "\n") == []


# review16a item 5: NCCL's message alone (its class cut off), bare or labelled, was a catalogued non-failure: an all-clear
@pytest.mark.parametrize(
    "text",
    [
        "NCCL error: unhandled system error\n",
        "`NCCL error: unhandled system error`\n",
        _LAUNCH + "Error message: `NCCL error: unhandled system error`\n",
        _LAUNCH + "NCCL error: remote process exited or there was a network error\n",
    ],
)
def test_nccl_s_message_alone_is_an_nccl_failure(text: str) -> None:
    assert _rules(text) == [("nccl-error", "unknown")]


def test_nccl_s_message_with_its_class_keeps_its_reading() -> None:
    assert _rules("RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n") == [
        ("nccl-error", "unknown")
    ]


def test_a_sentence_about_nccl_errors_is_no_nccl_failure() -> None:
    assert _rules(_LAUNCH + "The docs list what an NCCL error: message means.\n") == []


# review16a item 10: an identifier ending in "_error:" is a setting's key, not a message's head
@pytest.mark.parametrize(
    ("span", "message"),
    [
        ("on_error: skip", False),
        ("max_retries_on_error: 3", False),
        ("ignore_error: true", False),
        ("NCCL error: remote process exited, status: 1", True),
        ("error: no kernel image is available", True),
        ("CUDA error: an illegal memory access was encountered", True),
    ],
)
def test_a_key_ending_in_error_is_no_message_span(span: str, message: bool) -> None:
    from logscope.core.code_spans import message_span

    assert message_span(span) is message


# review16a item 9: a folder only another library's repository keeps code in, under a folder named after this library,
# is a user's folder (UCX's config/, nccl-tests' os/, FlashInfer's docker/)
@pytest.mark.parametrize(
    ("path", "library"),
    [
        ("/home/user/mooncake/config/run.py", None),
        ("/home/u/nixl/os/x.py", None),
        ("/home/user/nccl/config/run.py", None),
        ("/home/user/deepgemm/docker/run.sh", None),
        # (each under its own repository's folder: still that library's checkout)
        ("/home/u/ucx/config/x.py", "UCX"),
        ("/workspace/flashinfer/docker/x.sh", "FlashInfer"),
        ("/sgl-workspace/DeepGEMM/tests/test_fp8.py", "DeepGEMM"),
        ("/workspace/FlashMLA/benchmark/bench_flash_mla.py", "FlashMLA"),
        ("/opt/nvshmem/perftest/host/pt-to-pt/bw.py", "NVSHMEM"),
        # (sgl-kernel, whose repository the table did not read, keeps every repository's folders)
        ("/sgl-workspace/sgl-kernel/tests/test_x.py", "sgl-kernel"),
    ],
)
def test_a_checkout_folder_counts_only_for_a_library_whose_repository_holds_it(path: str, library: str | None) -> None:
    from logscope.core.native_libraries import checkout_library

    assert checkout_library(path) == library

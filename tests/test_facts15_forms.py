"""Facts written in forms the readers missed (issue 43, session 15): a CUDA release in a hand-written block's lowercase
label or glued to its name. Each text is written here in the real shape."""

from __future__ import annotations

import pytest

from logscope.core.redact import redact
from tests.helpers import analyze_text

# an issue's environment list (sgl-project/sglang#2619, built: "1. Ubuntu 22.04 / 2. PyTorch 2.4.1 / 3. cuda12.4")
SPECS = "Specs:\n\n1. Ubuntu 22.04\n2. PyTorch 2.4.1\n3. cuda12.4\n"
# a hand-written block of lowercase labels, the CUDA line on its own
BLOCK = "- ubuntu: 20.04\n- python: 3.11\n- cuda: 12.1\n- GPU: RTX 3090\n"


def test_a_cuda_release_glued_to_its_name_is_read():
    assert analyze_text(SPECS)["versions"] == {"torch": "2.4.1", "cuda": "12.4"}
    assert analyze_text("env: CUDA12.8, torch2.7.1\n")["versions"] == {"cuda": "12.8", "torch": "2.7.1"}


def test_a_lowercase_cuda_label_of_a_hand_written_block_is_read():
    assert analyze_text(BLOCK)["versions"] == {"python": "3.11", "cuda": "12.1"}


@pytest.mark.parametrize(
    "text",
    [
        # a package's local version names the CUDA it was built for (nccl's deb, NCCL's own banner)
        "apt-get install -y libcudnn7=7.6.0.64-1+cuda10.1 libnccl2=2.7.3-1+cuda10.1\n",
        "I ran XGBoost with NCCL(2.7.8+cuda11.0) static linked on 2 nodes.\n",
        # a path, a device string: no label, no release
        "/usr/local/cuda12.4/bin/nvcc -V\n",
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n",
    ],
)
def test_a_cuda_build_tag_path_or_device_states_no_cuda_release(text):
    assert "cuda" not in analyze_text(text)["versions"]


# FlashInfer's error naming its dispatch function (flashinfer-ai/flashinfer#807, built)
SM90 = "RuntimeError: BatchPrefillWithPagedKVCacheSM90Run failed with error: operation not supported"


def test_a_camel_case_function_name_in_an_error_is_no_secret():
    assert redact(SM90) == SM90
    assert redact("what(): BatchDecodeWithPagedKVCacheDispatched failed") == (
        "what(): BatchDecodeWithPagedKVCacheDispatched failed"
    )
    (finding,) = analyze_text(SM90 + "\n")["findings"]
    assert "BatchPrefillWithPagedKVCacheSM90Run failed with error: operation not supported" in finding["message"]


@pytest.mark.parametrize(
    "value",
    [
        "Xk9fLmQ2vB7nRt4ZpW8sYc1D",  # mixed case and digits, no words
        "Zq7TfeztdxqwXqgpLuvQlinCxbO3",  # lower-case runs without vowels or with four consonants in a row
        "AbcDefGhiJklMnoPqrStuVwxYz12",  # three-letter pieces, but not a quarter of it spelled like words
    ],
)
def test_a_random_value_is_still_redacted(value):
    assert redact(f"session {value} closed") == "session <redacted:secret> closed"


# SGLang's capture wrapper around FlashInfer's failed JIT build (the form of flashinfer-ai/flashinfer#1892 and
# THUDM/slime#1314, built: cuda_graph_runner.py raises "Capture cuda graph failed: ..." from the CalledProcessError)
CHAIN = [
    "[2025-10-09 04:13:06 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 485, in capture',
    "    ) = self.capture_one_batch_size(bs, forward)",
    '  File "/usr/local/lib/python3.10/dist-packages/flashinfer/jit/cpp_ext.py", line 299, in run_ninja',
    "    subprocess.run(",
    '  File "/usr/lib/python3.10/subprocess.py", line 571, in run',
    "    raise CalledProcessError(retcode, process.args,",
    "subprocess.CalledProcessError: Command '['ninja', '-v', '-C', '/root/.cache/flashinfer/0.5.3/90/cached_ops']' "
    "returned non-zero exit status 1.",
    "",
    "The above exception was the direct cause of the following exception:",
    "",
    "Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 380, in __init__',
    "    raise Exception(",
    "Exception: Capture cuda graph failed: Ninja build failed.",
]


@pytest.mark.parametrize("joined", ["\n", "\\n"])
def test_the_exception_a_chain_wraps_is_the_failure_on_one_line_too(joined):
    # a chain flattened onto one line with literal "\n" (a log shipper, a repr) is read in the chain's order, as its
    # lines are: the library's CalledProcessError first, SGLang's wrapper after it
    (finding,) = analyze_text(joined.join(CHAIN) + "\n")["findings"]
    assert (finding["rule"], finding["phase"], finding["mechanism"]) == ("startup-crash", "capture", "flashinfer")
    assert "CalledProcessError" in finding["message"]


# `logger.exception(repr(e))` of an engine loop, every line under the formatter's prefix, the paste cut before the
# traceback's exception line (ai-dynamo/dynamo#306, built)
LOGGED_REPR = """Dequeued prefill request: 796460ab-e3ce-45d4-bb3e-d18309750355
ERROR 03-20 02:45:15 engine.py:244] nixlUnknownError('NIXL_ERR_UNKNOWN')
ERROR 03-20 02:45:15 engine.py:244] Traceback (most recent call last):
ERROR 03-20 02:45:15 engine.py:244]   File "/opt/dynamo/venv/lib/python3.12/site-packages/vllm/engine/multiprocessing/engine.py", line 312, in run_engine_loop
ERROR 03-20 02:45:15 engine.py:244]     self.handle_new_input()
ERROR 03-20 02:45:15 engine.py:244]   File "/opt/dynamo/venv/lib/python3.12/site-packages/vllm/engine/multiprocessing/engine.py", line 343, in handle_new_input
ERROR 03-20 02:45:15 engine.py:244]     self.engine.add_remote_nixl_metadata(nixl_metadata)
"""  # noqa: E501 - the lines as printed


def test_an_exception_repr_logged_before_a_cut_traceback_is_its_exception():
    (finding,) = analyze_text(LOGGED_REPR)["findings"]
    assert (finding["rule"], finding["mechanism"], finding["library"]) == ("runtime-crash", "nixl", "NIXL")
    assert "nixlUnknownError: NIXL_ERR_UNKNOWN" in finding["message"]


def test_a_repr_of_another_record_or_a_traceback_with_its_own_exception_line_is_not_joined():
    # a record between them: the repr is not this traceback's message
    other = LOGGED_REPR.replace("')\n", "')\nINFO 03-20 02:45:15 engine.py:101] Added request 7.\n", 1)
    (finding,) = [f for f in analyze_text(other)["findings"] if f["rule"] == "runtime-crash"]
    assert "cut before its exception line" in finding["message"]
    # the traceback's own exception line is its exception
    own = "ERROR 03-20 02:45:15 engine.py:244] RuntimeError: CUDA error: an illegal memory access was encountered\n"
    whole = LOGGED_REPR + own
    (finding,) = analyze_text(whole)["findings"]
    assert finding["mechanism"] == "cuda" and "nixlUnknownError" not in finding["message"]

"""The piecewise CUDA graph runner's progress bar (sglang 0.5.3.post3-0.5.9 piecewise_cuda_graph_runner.py "Capturing
num tokens (...)", 0.5.23 prefill_cuda_graph_runner.py "Capturing prefill shape (...)") is a capture reading, and a
traceback glued onto it that ends at torch's OOM class alone (its message cut) is an OOM in capture (sglang-14476's
shape, mine7a built)."""

from __future__ import annotations

from tests.helpers import analyze_text

_FRAMES = (
    '  File "/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1786, in _call_impl\n'
    "    return forward_call(*args, **kwargs)\n"
    '  File "<eval_with_key>.3", line 11, in forward\n'
    "    linear_1 = torch._C._nn.linear(add, weight, None)\n"
)


def _phases(report: dict) -> list[tuple]:
    return [(p["phase"], p.get("num_tokens"), p["avail_gib"]) for r in report["launches"][0]["ranks"] for p in r["phases"]]


def test_a_bare_oom_class_glued_after_the_piecewise_bar_is_a_capture_oom():
    text = (
        "python3 -m sglang.launch_server --model /models/OLMo-2 --enable-piecewise-cuda-graph\n\n"
        "Capturing num tokens (num_tokens=3968 avail_mem=0.05 GB):   2%|██▎      | 1/58 [00:00<00:56,  1.01it/s]"
        "Traceback (most recent call last):\n" + _FRAMES + "torch.OutOfMemoryError:\n"
    )
    report = analyze_text(text)
    assert _phases(report) == [("capture_progress", 3968, 0.05)]
    assert [(f["rule"], f["mechanism"], f["phase"]) for f in report["findings"]] == [("capture-oom", "memory", "capture")]


def test_the_newest_prefill_shape_bar_and_glued_updates_are_readings():
    text = (
        "Capturing prefill shape (num_tokens=8192 avail_mem=20.31 GB):   0%|      | 0/4 [00:00<?, ?it/s]"
        "Capturing prefill shape (num_tokens=4096 avail_mem=20.11 GB):  25%|▎     | 1/4 [00:01<00:03,  1.0it/s]\n"
    )
    assert _phases(analyze_text(text)) == [("capture_progress", 8192, 20.31), ("capture_progress", 4096, 20.11)]


def test_the_oom_class_with_its_message_is_still_the_allocators_wording():
    oom = "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB.\n"
    text = "Traceback (most recent call last):\n" + _FRAMES + oom
    finding = analyze_text(text)["findings"][0]
    assert (finding["rule"], finding["signature"]) == ("oom-time-unknown", "oom-hip")

"""Unknown is null, never 0 (docs/design.md): the ledger's residual when nothing can be reconciled, and the cap on
comm_eager said in its basis when it binds."""

from __future__ import annotations

from tests.helpers import analyze_text

READINGS_ONLY = (
    "[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=78.40 GB\n"
    "[2026-11-20 10:00:41 TP0] Load weight end. type=LlamaForCausalLM, avail mem=45.60 GB, mem usage=32.80 GB.\n"
)


def _ledger(text: str) -> dict[str, dict]:
    rank = analyze_text(text)["launches"][0]["ranks"][0]
    return {item["item"]: item for item in rank["ledger"]}


def test_no_card_and_no_init_reading_leaves_the_residual_unknown():
    residual = _ledger(READINGS_ONLY)["unexplained"]
    assert residual["gib"] is None and residual["basis"].startswith("unknown")  # was 0.00 (estimated)


def test_the_cap_on_comm_eager_is_said():
    """0.5.13.post1 TP2 on an H200: the eager cells (pynccl 0.758 + custom AR) exceed an init delta of 0.10."""
    text = (
        "GPU 0,1: NVIDIA H200\nGPU 0,1 Compute Capability: 9.0\nsglang: 0.5.13.post1\n"
        "[2026-11-20 10:00:00] server_args=ServerArgs(model_path='/m/x', tp_size=2)\n"
        "[2026-11-20 10:00:02 TP0] Init torch distributed begin.\n"
        "[2026-11-20 10:00:05 TP0] Init torch distributed ends. mem usage=0.10 GB\n" + READINGS_ONLY
    )
    eager = _ledger(text)["comm_eager"]
    assert eager["gib"] == 0.10 and eager["cells_gib"] > 0.7
    assert f"sum to {eager['cells_gib']:.3f} GiB; capped at the measured init-distributed delta 0.10 GiB" in eager["basis"]


def test_a_measurement_standing_for_an_unnamed_gpu_says_assumed():
    """#45: the NCCL communicator rows were measured on an H200; where the input names no GPU the basis says the
    card is assumed, never plainly "NVIDIA H200"."""
    text = (
        "sglang: 0.5.23\n[2026-11-20 10:00:00] server_args=ServerArgs(model_path='/m/x', tp_size=2)\n"
        "[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=78.40 GB\n"
    )
    cells = {c["mechanism"]: c for c in analyze_text(text)["launches"][0]["ranks"][0]["cells"]}
    assert "NVIDIA H200 (assumed: the input names no GPU)" in cells["pynccl"]["basis"]
    smi = (
        "==============NVSMI LOG==============\nGPU 00000000:00:06.0\n    Product Name : NVIDIA H200\n"
        "    FB Memory Usage\n        Total : 143771 MiB\n        Reserved : 616 MiB\n"
    )
    named = analyze_text(smi + text)["launches"][0]["ranks"][0]["cells"]
    assert not any("assumed: the input names no GPU" in c["basis"] for c in named)

"""Failures that mine7a's built pastes stated in forms nobody had read: an abridged KV transfer error, the diffusion
runtime's missing model info in prose, a crash named by its step ("Startup crash occurred")."""

from __future__ import annotations

from tests.helpers import analyze_text


def _findings(text: str) -> list[tuple]:
    return [(f["rule"], f["mechanism"], f["phase"]) for f in analyze_text(text)["findings"]]


def test_a_kv_transfer_error_with_its_room_abridged_is_a_pd_transfer_failure():
    # sglang 0.5.23 disaggregation/common/conn.py KVTransferError.__str__; sglang-26486 abridged it with "..."
    text = "```\nDecode transfer failed ... KVTransferError(...): Aborted by AbortReq\n```\n"
    # KVTransferError is raised only for a request's transfer, the PD warmup's is fake (pd_transfer.yaml): serving
    assert _findings(text) == [("pd-transfer-failed", "pd_transfer", "serving")]


def test_no_model_info_stated_in_prose_is_sglangs_failure_placed_by_its_sentence():
    # sglang 0.5.6.post2-0.5.9 multimodal_gen/registry.py get_model_info raises it; sglang-17454 says so in prose, and
    # its sentence's cue ("I start the server") places it at startup, inferred (parse/parsers/time_cues.py), as its
    # label does; without the cue the time stays unknown
    text = "I start the server, but it raised a error:No model info found for model path: /data/Qwen-Image-2512\n"
    assert _findings(text) == [("startup-crash", "sglang", "startup")]
    text = "It raised a error:No model info found for model path: /data/Qwen-Image-2512\n"
    assert _findings(text) == [("failure-time-unknown", "sglang", "unknown")]


def test_the_newer_debug_line_of_the_same_words_is_no_failure():
    # 0.5.10.post1-0.5.23 log the words at debug level, the sentence going on, and return None
    text = (
        "[2026-03-01 10:00:00] No model info found for model path: /data/Qwen-Image-2512. Please check the model path "
        "or specify the model_id explicitly.\n"
    )
    assert _findings(text) == []


def test_a_crash_named_by_its_step_places_the_stated_failure_at_startup():
    for claim in ("Startup crash occurred", "A start-up crash happened again"):
        text = f"{claim}\n```\nMOONCAKE_MASTER=10.0.0.2:50051 MOONCAKE_PROTOCOL=rdma \\\nMOONCAKE_TE_META_DATA_SERVER\n```\n"
        assert [(rule, phase) for rule, _, phase in _findings(text)] == [("startup-crash", "startup")], claim

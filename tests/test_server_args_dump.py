"""A server_args dump cut over lines (a terminal, an issue editor, a fixed-width paste cut it anywhere) and a piece
of one whose head the paste does not hold: read as the dump's fields (constructed in the shapes pasted)."""

from __future__ import annotations

from tests.helpers import analyze_text

DUMP = (
    "server_args=ServerArgs(model_path='/models/Qwen2-72B', tokenizer_path='/models/Qwen2-72B', tokenizer_mode='auto', "
    "load_format='auto', trust_remote_code=True, dtype='auto', kv_cache_dtype='auto', quantization=None, "
    "context_length=None, device='cuda', host='127.0.0.1', port=30000, mem_fraction_static=0.83, "
    "max_running_requests=None, max_total_tokens=None, chunked_prefill_size=4096, max_prefill_tokens=16384, "
    "schedule_policy='fcfs', page_size=1, tp_size=4, stream_interval=1, random_seed=42, watchdog_timeout=300)"
)
CONFIG = {
    "model_path": "/models/Qwen2-72B",
    "trust_remote_code": True,
    "mem_fraction_static": 0.83,
    "chunked_prefill_size": 4096,
    "max_prefill_tokens": 16384,
    "tp_size": 4,
}


def _cut(text: str, width: int) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width)) + "\n"


def _config(report: dict) -> dict:
    config = report["launches"][0]["config"]
    return {key: config[key] for key in CONFIG if key in config}


def test_a_dump_cut_at_a_fixed_width_is_read_whole():
    """Cut inside names ("token" / "izer_mode") and numbers, at 158 columns (no terminal width)."""
    text = "[2025-03-18 02:52:08] " + DUMP
    report = analyze_text(_cut(text, 158) + "[2025-03-18 02:52:20 TP0] Load weight begin. avail mem=62.00 GB\n")
    assert _config(report) == CONFIG
    assert report["launches"][0]["config_source"]["tp_size"] == "server_args"
    assert [p["phase"] for p in report["launches"][0]["ranks"][0]["phases"]] == ["load_weight_begin"]


def test_a_dump_cut_before_its_commas_and_at_the_end_of_the_paste():
    head, rest = DUMP.split(", tokenizer_mode", 1)
    text = f"[2025-02-18 09:33:55] {head}\n, tokenizer_mode{rest[:250]}"
    config = analyze_text(text)["launches"][0]["config"]
    assert config["model_path"] == "/models/Qwen2-72B"
    assert config["trust_remote_code"] is True
    assert "tp_size" not in config  # after the cut


def test_a_piece_of_a_dump_without_its_head_gives_its_fields():
    piece = DUMP[DUMP.index("e, device=") :]  # "e, device='cuda', host=..." the paste begins inside a value
    config = analyze_text(_cut(piece, 120))["launches"][0]["config"]
    assert config["tp_size"] == 4
    assert config["mem_fraction_static"] == 0.83
    assert "model_path" not in config


def test_a_python_repr_of_other_names_is_no_dump():
    line = "Namespace(alpha=1, beta=None, gamma=False, delta=2, epsilon=None, zeta=3, eta=False, theta=None, iota=4)\n"
    assert analyze_text(line)["launches"] == []


def test_a_dump_behind_a_log_collector_s_pod_and_container_names_is_read_whole():
    # stern's and kubectl's multi-pod output puts the pod's and the container's names before each line: words no
    # prefix reader knows, so the line once read as prose and the catalogue's wording cut the dump at its first comma
    text = "sglang-deploy-7d9f8c-abcde sglang [2025-03-18 02:52:08] " + DUMP + "\n"
    report = analyze_text(text)
    assert _config(report) == CONFIG
    assert report["launches"][0]["config_source"]["tp_size"] == "server_args"

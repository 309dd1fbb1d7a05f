"""Lines in CPython logging's default format (issue 43 item 2): logging.BASIC_FORMAT = "%(levelname)s:%(name)s:%(message)s"
(Lib/logging/__init__.py), what a root logger never configured or logging.basicConfig() prints, also SGLang's own
loggers when SGLang runs inside another program ("INFO:sglang.srt.mem_cache.memory_pool:KV Cache is allocated. ...").
The level and the logger are the line's prefix; the message after them is read as SGLang's line would be, an ERROR or
CRITICAL one is a failure candidate, and its message is matched against the signatures and the catalogue."""

from __future__ import annotations

from logscope.pipeline.parse.parsers.base import strip_prefix
from logscope.pipeline.parse.parsers.sglang_line import parse_line
from tests.helpers import analyze_text


def _rules(report: dict) -> list[str]:
    return [f["rule"] for f in report["findings"]]


def test_the_level_and_the_logger_are_the_prefix_and_the_message_after_them_is_read():
    prefix, kind, data = parse_line(
        "INFO:sglang.srt.model_executor.model_runner:Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
        "avail mem=63.21 GB, mem usage=15.29 GB."
    )
    assert prefix == {"time": None, "rank": None, "level": "INFO", "logger": "sglang.srt.model_executor.model_runner"}
    assert (kind, data["avail_gib"], data["usage_gib"]) == ("load_weight_end", 63.21, 15.29)
    assert strip_prefix("ERROR:root:ValueError: x") == "ValueError: x"
    assert strip_prefix("WARNING:sglang.jit_kernel.hicache:Unsupported") == "Unsupported"


def test_an_exception_logged_at_error_by_the_root_logger_is_a_failure_with_its_message():
    report = analyze_text("ERROR:root:ValueError: Global server args is not set yet!\n")
    assert _rules(report) == ["failure-time-unknown"]
    [finding] = report["findings"]
    assert "ValueError: Global server args is not set yet!" in finding["message"]
    # listed as an exception no signature names (as with SGLang's own prefix), not as an unread line
    assert [u["kind"] for u in report["coverage"]["unmatched_failures"]] == ["exception"]


def test_a_critical_record_is_a_failure_candidate_whatever_its_words():
    report = analyze_text("CRITICAL:root:Worker process died unexpectedly with exit code -9\n")
    assert _rules(report) == ["unrecognized-failure"]
    [unmatched] = report["coverage"]["unmatched_failures"]
    assert unmatched["text"].startswith("CRITICAL:root:Worker process died")
    # an INFO record with the same words is no failure
    assert analyze_text("INFO:root:Worker process died unexpectedly with exit code -9\n")["findings"] == []


def test_sglang_phase_lines_under_the_default_format_are_read_by_the_sglang_grammar():
    report = analyze_text(
        "INFO:sglang.srt.model_executor.model_runner:Load weight begin. avail mem=78.50 GB\n"
        "INFO:sglang.srt.mem_cache.memory_pool:KV Cache is allocated. #tokens: 412345, K size: 24.51 GB, V size: 24.51 GB\n"
    )
    [rank] = report["launches"][0]["ranks"]
    phases = {p["phase"]: p for p in rank["phases"]}
    assert phases["load_weight_begin"]["avail_gib"] == 78.5
    assert (phases["kv_cache_allocated"]["tokens"], phases["kv_cache_allocated"]["k_gib"]) == (412345, 24.51)
    assert report["coverage"]["grammars"]["sglang"] == {"seen": 2, "recognized": 2}

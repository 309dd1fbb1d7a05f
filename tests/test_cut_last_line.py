"""A log whose last line is an SGLang line cut mid-way (review11 item 1): a copy cut by whoever copied it (the cut
line still ends in a newline) does not show where the log ended, so startup-incomplete is not claimed; a file whose
last line has no newline is what a writer stopped mid-line leaves (a killed process's log), and the log did end there."""

from pathlib import Path

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source, expand_inputs

LOG = (
    "[2025-06-01 10:00:00 TP0] Load weight begin. avail mem=78.50 GB\n"
    "[2025-06-01 10:00:09 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=60.10 GB,"
    " mem usage=18.40 GB.\n"
    "[2025-06-01 10:00:10 TP0] KV Cache is allocated. #tokens: 100000, K size: 5.00 GB, V size: 5.00 GB\n"
    "[2025-06-01 10:00:10 TP0] Memory pool end. a"
)


def _rules(report: dict) -> set[str]:
    return {f["rule"] for f in report["findings"]}


def test_a_log_file_stopped_mid_line_stopped_before_ready(tmp_path: Path):
    log = tmp_path / "rank0.log"
    log.write_text(LOG)
    assert "startup-incomplete" in _rules(analyze_sources(expand_inputs([str(log)])))


def test_a_copy_cut_in_a_line_that_still_ends_in_a_newline_shows_no_end(tmp_path: Path):
    log = tmp_path / "paste.txt"
    log.write_text(LOG + "\n")
    assert "startup-incomplete" not in _rules(analyze_sources(expand_inputs([str(log)])))


def test_text_given_in_memory_is_judged_by_its_last_byte_too():
    cut = Source(name="<stdin>", path=None, data=LOG.encode())
    ended = Source(name="<stdin>", path=None, data=(LOG + "\n").encode())
    assert "startup-incomplete" in _rules(analyze_sources([cut]))
    assert "startup-incomplete" not in _rules(analyze_sources([ended]))

"""The upstream catalogue as a reader (core/upstream.find_wordings, parse/parsers/catalogue.py): 200 templates taken at
random from catalog/sglang.json, their placeholders filled, each line put after a log prefix and inside a sentence,
and every field read back; the real shapes of issue 43 (a level and source prefix, an issue title, a rank tag
with no time, a pool line of a newer model) read end to end."""

from __future__ import annotations

import json
import random
import re

import pytest

from logscope.core import kinds, templates, upstream
from logscope.core.model import Coverage
from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.classify import SourceClassifier
from logscope.pipeline.parse.wordings import judge

_PREFIXES = ("[2026-10-01 12:00:00 TP3] ", "[2026-02-12 14:28:58] INFO server_args.py:1483: ", "[TP0] ")


def _fillable(row: dict) -> bool:
    """A one-line template whose placeholders each stand between literal text (two placeholders side by side print
    one run of text that no reader can split)."""
    if row["kind"] not in ("log", "print", "raise") or "\n" in row["template"].strip():
        return False
    parts = templates.pieces(row["template"].strip(), row["style"])
    if len("".join(p for p in parts if isinstance(p, str)).strip()) < 6:
        return False
    return all(isinstance(a, str) or isinstance(b, str) and b != "" for a, b in zip(parts, parts[1:]))


def _fill(row: dict, n: int) -> tuple[str, list[str]]:
    """The line the template prints with distinct values, and the values in order (a choice of literal text is none)."""
    out, values = [], []
    for k, piece in enumerate(templates.pieces(row["template"].strip(), row["style"])):
        if isinstance(piece, str):
            out.append(piece)
            continue
        expr, _conv, spec = piece
        choice = re.match(r"""^\s*(['"])(.*?)\1\s+if\s+.+\s+else\s+(['"])(.*?)\3\s*$""", expr)
        if choice:
            out.append(choice.group(4))
            continue
        if expr.rstrip().endswith("=") and not expr.rstrip().endswith("=="):
            out.append(expr.strip()[:-1].strip() + "=")
        decimals = re.search(r"\.(\d+)[fe%]", spec)
        if decimals:
            value = f"{1000 + n * 7 + k + 0.25:.{int(decimals.group(1))}f}"
        elif spec[-1:] in ("d", "i", "n", "x", "g", "f", "e", "E"):
            value = str(4000 + n * 11 + k)
        else:
            value = f"val{n}x{k}"
        out.append(value + ("%" if spec.endswith("%") else ""))
        values.append(value)
    return "".join(out), values


def _population() -> list[dict]:
    return [row for row in upstream.catalog()["messages"] if _fillable(row)]


SAMPLED = random.Random(43).sample(_population(), 200)


def _read_back(line: str, row: dict, values: list[str]) -> bool:
    wanted = [templates.typed(v) for v in values]
    for match in upstream.find_wordings(line):
        if match.template == row["template"].strip() and list(match.fields.values()) == wanted:
            return True
    return False


@pytest.mark.parametrize("n", range(len(SAMPLED)))
def test_a_random_template_is_read_after_a_prefix_and_inside_a_sentence(n):
    row = SAMPLED[n]
    message, values = _fill(row, n)
    after_prefix = _PREFIXES[n % len(_PREFIXES)] + message
    in_sentence = f"[Bug] On H200 we see {message} and then nothing more"
    assert _read_back(after_prefix, row, values), (row["template"], after_prefix)
    assert _read_back(in_sentence, row, values), (row["template"], in_sentence)
    assert judge(after_prefix.split("] ", 1)[1]) == "catalogued"


def _events(text: str):
    return SourceClassifier(Source(name="paste.md", path=None, data=text.encode()), Coverage()).run()


def test_a_pool_line_of_a_newer_model_after_a_rank_tag_is_a_read_fact_with_its_releases():
    line = (
        "[TP0] Initialize DeepSeekV4TokenToKVPool with max_num_reqs=256 swa_size=329472 c4_size=0 c4_logical_size=0 "
        "c128_size=2574 c4_state_pool_size=1024 c128_state_pool_size=512 unified=True unified_fp8=False"
    )
    (event,) = _events(line)
    assert event.kind == kinds.CATALOGUED_LINE and event.grammar == kinds.CATALOGUE_GRAMMAR
    assert event.data["fields"] == {
        "max_num_reqs": 256,
        "swa_size": 329472,
        "c4_size": 0,
        "c4_logical_size": 0,
        "c128_size": 2574,
        "c4_state_pool_size": 1024,
        "c128_state_pool_size": 512,
        "unified": True,
        "unified_fp8": False,
    }
    assert event.data["releases"] == ["0.5.21", "0.5.23"] and event.data["rank"] == "TP0"


def test_a_phase_line_after_a_level_and_source_prefix_is_read_by_its_grammar():
    line = (
        "[2026-02-12 14:28:58] INFO scheduler.py:412: max_total_num_tokens=2086558, chunked_prefill_size=8192, "
        "max_prefill_tokens=16384, max_running_requests=4096, context_len=163840, available_gpu_mem=12.50 GB"
    )
    (event,) = _events(line)
    assert event.kind == kinds.SCHEDULER_SUMMARY and event.time == "2026-02-12 14:28:58"
    assert event.data["tokens"] == 2086558 and event.data["avail_gib"] == 12.5


def test_a_summary_line_inside_an_issue_title_is_read():
    line = (
        "[Bug] [2026-06-28 15:16:45] max_total_num_tokens=2086558, chunked_prefill_size=8192, max_prefill_tokens=8192, "
        "max_running_requests=2048, context_len=131072, available_gpu_mem=20.31 GB means the KV cache is 2M?"
    )
    (event,) = _events(line)
    assert event.kind == kinds.SCHEDULER_SUMMARY
    assert event.data["tokens"] == 2086558 and event.data["avail_gib"] == 20.31


def test_a_catalogued_wording_after_a_level_prefix_is_never_new():
    text = "[2026-02-12 14:28:58] INFO server_args.py:1483: Use flashinfer_trtllm as MoE runner backend on sm100 for X\n"
    coverage = Coverage()
    SourceClassifier(Source(name="a.log", path=None, data=text.encode()), coverage).run()
    # read by the catalogue's reader: recognised, so counted among no unread lines (new or explained)
    assert coverage.prefixed["new_wording"] == 0 and coverage.prefixed["catalogued"] == 0
    assert coverage.recognized["catalogue"] == 1 and coverage.recognized_lines == 1
    assert not [u for u in coverage.unrecognized if u.grammar == "new_wording"]


def test_the_json_lists_the_read_facts_with_their_line(tmp_path):
    from logscope.pipeline.analyze import analyze_inputs

    log = tmp_path / "rank0.log"
    log.write_text(
        "[2026-06-02 11:20:01 TP0] Initialize DeepSeekV4TokenToKVPool with max_num_reqs=256 swa_size=329472 "
        "c4_size=0 c4_logical_size=0 c128_size=2574 c4_state_pool_size=1024 c128_state_pool_size=512 unified=True "
        "unified_fp8=False\n"
    )
    document = json.loads(json.dumps(analyze_inputs([str(log)], []), default=str))
    (fact,) = document["launches"][0]["ranks"][0]["read"]  # the file's rank (rank0.log)
    assert fact["line"] == 1 and fact["fields"]["swa_size"] == 329472 and fact["releases"] == ["0.5.21", "0.5.23"]


def test_a_summary_line_cut_with_an_ellipsis_in_an_issue_title_reads_the_fields_before_the_cut():
    line = "[Bug] [2026-06-28 15:16:45] max_total_num_tokens=2086558, chunked_prefill_size=8192, ... means the KV cache is 2M?"
    (event,) = _events(line)
    assert event.kind == kinds.CATALOGUED_LINE and event.data["cut"] is True
    assert event.data["fields"] == {"max_total_num_tokens": 2086558, "chunked_prefill_size": 8192}
    # every release whose summary line starts so: 0.4.2.post4 added chunked_prefill_size, the newest still prints it
    assert event.data["releases"] == ["0.4.2.post4", "0.5.23"]


def test_a_wording_inside_a_sentence_reads_its_last_field_as_one_word():
    (match, *_) = upstream.find_wordings("we got Registering 2760 cuda graph addresses twice")
    assert match.fields == {"arg0": 2760} or list(match.fields.values()) == [2760]
    assert not match.at_start


def test_the_pools_free_tokens_after_a_failed_prefill_allocation_are_read():
    # sglang 0.5.23 mem_cache/allocation.py: the message, then unified_radix_cache.py's lines for each pool
    text = (
        "[2026-09-01 10:00:00 TP0] Prefill out of memory. Try to lower your batch size.\n"
        "Try to allocate 8192 tokens.\n"
        "Available full tokens: 12288 (full_available_size=8192 + full_evictable_size_=4096)\n"
        "Available mamba: 760 (available_size=760 + component_evictable_size_=0)\n"
    )
    events = _events(text)
    # the message itself is a failure (rules/signatures/serving.yaml: raised only by a running server)
    assert [(e.line, e.kind) for e in events] == [
        (1, kinds.FAILURE_LINE),
        (2, kinds.CATALOGUED_LINE),
        (3, kinds.POOL_AVAILABLE),
        (4, kinds.POOL_AVAILABLE),
    ]
    assert events[1].data["fields"] == {"num_tokens": 8192}
    assert events[3].data == {"pool": "mamba", "tokens": 760, "available": 760, "evictable": 0}
    assert events[2].data == {"pool": "full", "tokens": 12288, "available": 8192, "evictable": 4096}


def test_a_phase_line_pasted_alone_is_a_reading_yet_no_startup_that_stopped_there():
    # a whole SGLang phase line without its prefix is the line as printed: its numbers are the pool's reading; one
    # such line with no time is no log whose end can be read (rules/startup-incomplete.yaml stays quiet)
    text = "For SGLang I saw this:\nKV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n"
    (event,) = _events(text)
    assert event.kind == kinds.KV_CACHE_ALLOCATED and event.time is None
    assert (event.data["tokens"], event.data["k_gib"], event.data["v_gib"]) == (367404, 8.23, 8.23)
    document = analyze_sources([Source(name="paste.md", path=None, data=text.encode())], cases=False)
    assert document["findings"] == []


@pytest.mark.parametrize(
    ("message", "catalogued"),
    [
        ("Loading weights to", True),  # 'Loading weights took %.2f seconds', cut (h-013's last line)
        ("Unsupported element_size = 656 for J", True),  # cut inside the literal after a value
        ("Load weight end. elapsed=3.05", True),  # cut inside a value
        ("Load weight end. elapsed=3 s, and then a wording no release prints", False),
        ("Beginning to load weights", False),  # no catalogued release prints it, whole or cut
    ],
)
def test_a_cut_copy_of_a_catalogued_wording_is_never_new(message, catalogued):
    assert (judge(message) == "catalogued") is catalogued


def test_lines_after_a_rank_tag_with_no_time_are_read_and_never_new():
    text = (
        "[TP0] Using default HuggingFace chat template with detected content format: openai\n"
        "[TP1] Load weight begin. avail mem=78.38 GB\n"
    )
    coverage = Coverage()
    events = SourceClassifier(Source(name="paste.md", path=None, data=text.encode()), coverage).run()
    assert [(e.kind, e.data.get("rank")) for e in events] == [(kinds.CATALOGUED_LINE, "TP0"), (kinds.LOAD_WEIGHT_BEGIN, None)]
    assert events[0].data["fields"] == {"format": "openai"}
    assert events[1].rank is not None and events[1].rank.label == "TP1" and events[1].data["avail_gib"] == 78.38
    assert coverage.prefixed["new_wording"] == 0


def test_nearly_every_fillable_template_of_the_catalogue_reads_back():
    """All of them, not a sample: the only misses are two one-word values side by side ("%sx%s", "{name} {head}"),
    which no reader can split when the values hold the text between them."""
    population = _population()
    missed = []
    for n, row in enumerate(population):
        message, values = _fill(row, n)
        after_prefix = _PREFIXES[n % len(_PREFIXES)] + message
        if not (_read_back(after_prefix, row, values) and _read_back(f"we see {message} and then", row, values)):
            missed.append(row["template"])
    assert len(population) > 6000 and len(missed) <= len(population) // 500, missed


def test_a_line_repeating_a_wordings_pieces_is_read_in_linear_time():
    """A 4,000-character line that repeats a summary line's keys with a bad last value: each placeholder stops at the
    first place its next literal stands, and the prefix run is possessive, so nothing backtracks over every split
    (the first versions took 30 s and over a minute on it; a return is the test, never a timer)."""
    unit = (
        "max_total_num_tokens=1, chunked_prefill_size=2, max_prefill_tokens=3, max_running_requests=4, context_len=5, "
        "available_gpu_mem=x "
    )
    for line in ((unit * 40)[:4000], "1" * 4000 + "x"):
        assert isinstance(upstream.find_wordings(line), list)
        assert upstream.releases_printing(line) is None or line.startswith("max_total_num_tokens=")
        assert judge(line) in ("catalogued", "new_wording")


@pytest.mark.parametrize(
    ("line", "rules"),
    [
        # sglang.srt.managers.scheduler logs it with logger.error and then sends SIGQUIT to its parent
        # (run_scheduler_process; catalog/error_outcomes.json: dies): the failure itself, though no failure word
        (
            "[2025-10-01 12:00:00] Scheduler hit an exception: 'NoneType' object has no attribute 'shape'",
            ["failure-time-unknown"],
        ),
        # logger.info and logger.warning wordings are no failure
        ("[2025-10-01 12:00:00 TP0] Decode out of memory happened. #retracted_reqs: 4, #new_token_ratio: 0.5000 -> 0.8000", []),
        ("[2025-10-01 12:00:00 TP0] Detected errors during sampling! NaN in the logits.", []),
        # an error-level wording that says the process goes on (sglang.multimodal_gen registry, 0.5.5.post3-0.5.23)
        ("[2025-10-01 12:00:00] Ignore import error when loading 'sglang.multimodal_gen.models.wanvideo'", []),
        # review7 item 6: logger.exception that goes on with what it assumes (multimodal_gen platforms/cuda.py), and
        # the diagnostics the watchdog logs at error level before its own timeout line (utils/watchdog.py,
        # utils/cudacore_pyspy_dump_utils.py, sglang 0.5.23)
        (
            "[2025-01-01 10:00:00] NVLink detection not possible, as context support was not found. Assuming no NVLink "
            "available.",
            [],
        ),
        ("[2025-01-01 10:00:00 TP0] Pyspy dump for PID 1234:", []),
        ("[2025-01-01 10:00:00] Triggered CUDA user coredump for PID 12 via /tmp/x", []),
        # "assumes" is no going on: the Mooncake connector returns -1 after it (disaggregation/mooncake/conn.py: an
        # error code its caller decides on, unsure in catalog/error_outcomes.json, so flagged)
        (
            "[2025-01-01 10:00:00] [abc] head-sliced transfer assumes one item length for every KV entry, got {1, 2}",
            ["unrecognized-failure"],
        ),
    ],
)
def test_a_catalogued_wording_logged_at_error_level_is_a_failure_line(line, rules):
    document = analyze_sources([Source(name="paste.log", path=None, data=(line + "\n").encode())])
    assert [f["rule"] for f in document["findings"]] == rules

"""Failing-level log records in their printers' own shapes: the message is the failure when no signature reads it and it
is no traceback line; SGLang's records (its format prints no level) by what its released code does after logging them
(catalog/error_outcomes.json, tools/upstream/error_outcomes.py)."""

from __future__ import annotations

import ast
import json
from typing import Any

import pytest

from logscope.core import error_outcomes
from logscope.core.resources import data_dir
from logscope.pipeline.parse import failing_records
from tests.helpers import analyze_text
from tools.upstream.error_outcomes import DIES, GOES_ON, UNSURE, release_sites


def _findings(text: str) -> list[dict[str, Any]]:
    return list(analyze_text(text)["findings"])


# ---------------------------------------------------------------- the tool and its table
_SOURCE = """
import logging, signal, sys
logger = logging.getLogger(__name__)

def raises_after():
    try:
        run()
    except Exception as e:
        logger.error(f"Run failed: {e}")
        raise

def aborts_one_request(reqs):
    for req in reqs:
        if req.bad:
            logger.error("Request %s aborted by the client", req.rid)
            continue

def signals_the_parent(parent):
    try:
        loop()
    except Exception:
        logger.exception("Loop hit an exception")
        parent.send_signal(signal.SIGQUIT)

def falls_through_then_exits():
    try:
        logger.error("Could not reach the store")
    except Exception:
        pass
    sys.exit(1)

def raises_on_a_condition(strict):
    logger.critical("Check came out wrong")
    if strict:
        raise ValueError("strict")

def hands_an_error_code_back():
    logger.error("Transfer assumes one length")
    return -1
"""


def test_the_tool_reads_what_the_code_does_after_each_failing_level_call():
    sites = {
        s["template"]: (s["outcome"], s["line"], s["decided_at"], s["function"]) for s in release_sites("m", "m.py", _SOURCE)
    }
    assert sites == {
        # a raise goes to a caller, which may catch it and go on (pynccl's NCCLLibrary load, review10)
        "Run failed: {e}": (UNSURE, 9, 10, "raises_after"),
        "Request %s aborted by the client": (GOES_ON, 15, 16, "aborts_one_request"),
        "Loop hit an exception": (DIES, 22, 23, "signals_the_parent"),
        "Could not reach the store": (DIES, 27, 30, "falls_through_then_exits"),
        "Check came out wrong": (UNSURE, 33, 34, "raises_on_a_condition"),
        "Transfer assumes one length": (UNSURE, 38, 39, "hands_an_error_code_back"),
    }
    ast.parse(_SOURCE)  # the sample is real Python


def test_the_table_holds_sglangs_call_sites_with_their_releases():
    rows = json.loads((data_dir("catalog") / error_outcomes.CATALOG_FILE).read_text())["records"]
    by_key = {(r["template"], r["module"]): r for r in rows}
    died = by_key[("DataParallelController hit an exception: {traceback}", "sglang.srt.managers.data_parallel_controller")]
    assert died["outcome"] == DIES
    assert {s["first"] for s in died["sites"]} == {"0.3.6.post3"} and died["sites"][-1]["last"] == "0.5.23"
    went_on = by_key[("Pyspy failed to dump PID {pid}. Error: {e.stderr}", "sglang.srt.utils.common")]
    assert went_on["outcome"] == GOES_ON
    assert [(s["first"], s["last"], s["file"], s["function"]) for s in went_on["sites"]] == [
        ("0.5.3.post3", "0.5.10.post1", "sglang/srt/utils/common.py", "pyspy_dump_schedulers")
    ]
    # logged, then re-raised to a caller that catches it (0.5.23 pynccl_wrapper.py:440-451, pynccl.py:73-80): unsure
    reraised = [r for r in rows if r["template"].startswith("Failed to load NCCL library from")]
    assert reraised and all(r["outcome"] != DIES for r in reraised)
    # an error code handed back to the caller (disaggregation/mooncake/conn.py returns -1): the caller decides
    handed_back = [r for r in rows if "head-sliced transfer assumes one item length" in r["template"]]
    assert handed_back and all(r["outcome"] == UNSURE for r in handed_back)


def test_a_wording_of_too_few_literal_words_names_no_call_site():
    # "error: {e}" is any program's words: its outcome is not SGLang's to say
    assert error_outcomes.outcome("error: {e}", "sglang.srt.entrypoints.http_server") is None


# ---------------------------------------------------------------- one case per printer, in its real shape
# ERROR records: the level is kept and the record flagged (unrecognized-failure, its words quoted), never "nothing"; an
# ERROR record of a printer whose code is not catalogued may be one it carries on after, so it is no failure by itself
@pytest.mark.parametrize(
    ("line", "words"),
    [
        # vLLM 0.11.0 logger.py "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s", behind the process
        # prefix of utils _add_prefix "({worker_name} pid={pid}) " (two when a Ray actor runs the engine); the message
        # a continued exception message (ninja's "[1/11] " progress, vllm-36077's shape)
        ("(EngineCore_DP0 pid=1) ERROR 12-07 10:11:12 [core.py:788] Unrecognized input request type: <x>", "Unrecognized input"),
        ("(Worker pid=7) (Worker_TP1 pid=7) ERROR 03-05 09:56:09 [multiproc_executor.py:880] [1/11] nvcc -c a.cu", "nvcc"),
        ("ERROR 02-09 16:43:26 tp_worker_overlap_thread.py:112] Worker loop stopped unexpectedly", "Worker loop stopped"),
        # loguru 0.7.3 _defaults.py LOGURU_FORMAT
        ("2025-10-01 12:00:00.123 | ERROR    | app.client:run:57 - model server is not responding", "not responding"),
        # spdlog's "%+" pattern
        ("[2026-01-01 10:00:00.123] [transfer] [error] rdma handshake broke off", "handshake broke off"),
        # glog's ERROR line of a file no catalogued library holds (its level letter E)
        ("E1125 01:42:29.248487 13170 client.cpp:1186] Failed to submit transfer operation", "submit transfer"),
        # tracing-subscriber's Full format with its span context before the target (SGLang's router, sgl-router)
        (
            "2025-10-29T12:00:00.123456Z ERROR http_request{method=POST uri=/generate}: "
            "sglang_router_rs::routers::http::pd_router: src/routers/http/pd_router.rs:142: Failed to select PD pair",
            "Failed to select PD pair",
        ),
        # torch's c10 MessageLogger (c10/util/Logging.cpp: "[rank<N>]:" + "[" + a letter of "FEWIV" + month*100+day +
        # " HH:MM:SS.<ns> " + file:line + "] "), which no literal of its words let through before
        (
            "[rank0]:[E1207 10:11:12.123456789 ProcessGroupNCCL.cpp:1234] [PG ID 0 PG GUID 0(default_pg) Rank 0]"
            " Process group watchdog thread terminated with exception: boom",
            "watchdog thread terminated",
        ),
        # CRITICAL records whose words state no failure: "the program itself may be unable to continue" (CPython's
        # logging HOWTO), may; flagged as an ERROR record is (review10: "CRITICAL: disk usage above 95%" goes on)
        ("2025-10-01 12:00:00.123 | CRITICAL | app.client:run:57 - giving up on the model server", "giving up"),
        ("[2026-01-01 10:00:00.123] [critical] segment table corrupt", "segment table corrupt"),
        ("2025-03-25 10:00:00,123 worker.supervisor 393543 CRITICAL    Supervisor lost its workers", "lost its workers"),
        ("2025-10-29 10:00:00,001 - app.engine - CRITICAL - engine state corrupt", "engine state corrupt"),
        ("2025-04-13 14:53:43 CRITICAL 509 [ TP0 scheduler.py:2655] Something strange broke the batch", "broke the batch"),
        ("[2025-03-09 14:40:52] CRITICAL: disk usage above 95%, consider cleaning up /tmp", "disk usage"),
    ],
)
def test_a_record_that_states_no_failure_is_flagged_with_its_level(line, words):
    (finding,) = _findings(line + "\n")
    assert finding["rule"] == "unrecognized-failure"
    assert words in finding["message"]


# FATAL records (the printer ends the process), and CRITICAL ones whose words state a failure: the message is the
# failure's words
@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("(EngineCore_DP0 pid=1) CRITICAL 12-07 10:11:12 [core.py:710] Engine loop died, shutting down", "loop died"),
        # a console encoder's tab-joined record (time, level, caller, message), its level word opening it once the
        # time stamp is taken off
        ("2025-07-07T02:34:31.685Z\tFATAL\tmodel-agent/main.go:333\tFailed to initialize components", "initialize components"),
        # torch's c10 FATAL (its MessageLogger aborts after it), January's day unpadded (month*100+day)
        ("[rank1]:[F107 10:11:12.123456789 ProcessGroupNCCL.cpp:1234] [PG ID 0 Rank 1] Terminating the process", "Terminating"),
    ],
)
def test_a_record_at_an_ending_level_is_the_failure(line, words):
    (finding,) = _findings(line + "\n")
    assert finding["rule"] == "failure-time-unknown"
    assert words in finding["message"]


def test_an_error_record_that_says_it_goes_on_is_no_failure():
    line = (
        "2025-03-09 14:40:52,123 - sglang_router - ERROR - Worker http://127.0.0.1:30001 failed to start within the"
        " health check window, retrying\n"
    )
    rules = [f["rule"] for f in _findings(line)]
    assert rules != ["startup-crash"]
    assert "failure-time-unknown" not in rules


# ERROR records whose message states a failure in words (stated_failure.py's forms): the printer says something failed
# (a record whose words say when, "failed to start", is placed by them: time_claims.py)
@pytest.mark.parametrize(
    ("line", "rule", "words"),
    [
        # vllm 0.11.0 v1/engine/core.py:710 logger.exception("EngineCore encountered a fatal error.")
        (
            "(EngineCore_DP0 pid=1) ERROR 12-07 10:11:12 [core.py:710] EngineCore encountered a fatal error.",
            "failure-time-unknown",
            "fatal error",
        ),
        # vllm 0.11.0 v1/engine/core.py:708 logger.exception("EngineCore failed to start.")
        (
            "(EngineCore_DP0 pid=1) ERROR 12-07 10:11:12 [core.py:708] EngineCore failed to start.",
            "startup-crash",
            "failed to start",
        ),
        ("[2026-01-01 10:00:00.123] [transfer] [error] transfer engine failed to start on mlx5_0", "startup-crash", "mlx5_0"),
    ],
)
def test_an_error_record_that_states_a_failure_is_the_failure(line, rule, words):
    (finding,) = _findings(line + "\n")
    assert finding["rule"] == rule
    assert words in finding["message"]
    if rule == "startup-crash":
        assert "the record's own words 'failed to start'" in finding["message"]


def test_an_sglang_wording_its_code_dies_after_is_a_failure():
    # the weight-cache daemon logs it and exits (catalog/error_outcomes.json: dies, decided by the exit after it)
    (finding,) = _findings("[2026-01-01 10:00:00] [weight_cache] cluster readiness barrier failed; exiting without serving.\n")
    assert finding["rule"] == "failure-time-unknown"
    assert "cluster readiness barrier failed" in finding["message"]


def test_an_sglang_wording_its_code_raises_after_is_flagged():
    # sglang 0.5.3.post3-0.5.23 server_args_config_parser.py: logger.error(f"Failed to read config file ..."), then raise:
    # a caller may catch it (unsure), so the record is flagged, not the failure
    (finding,) = _findings("[2026-01-01 10:00:00] Failed to read config file /etc/sglang.yaml: [Errno 2] No such file\n")
    assert finding["rule"] == "unrecognized-failure"
    assert "Failed to read config file" in finding["message"]


def test_a_record_placed_after_the_ready_line_is_a_runtime_failure():
    log = (
        "[2026-01-01 10:00:00] The server is fired up and ready to roll!\n"
        "(EngineCore_DP0 pid=1) CRITICAL 12-07 10:11:12 [core.py:710] Engine loop died, shutting down\n"
    )
    assert [f["rule"] for f in _findings(log)] == ["runtime-crash"]


# ---------------------------------------------------------------- quiet: no failure of its own
@pytest.mark.parametrize(
    "log",
    [
        # an SGLang wording its released code logs at error level and then carries on (goes_on in every release)
        "[2025-07-11 17:40:14 DP0 TP2] Pyspy failed to dump PID 546. Error: /bin/sh: 1: py-spy: not found\n",
        # other levels of the same printers
        "(APIServer pid=1) INFO 12-07 10:11:12 [api_server.py:1000] Starting vLLM API server 0 on http://0.0.0.0:8000\n"
        "(APIServer pid=1) WARNING 12-07 10:11:12 [api_server.py:1000] Default sampling parameters have been overridden\n"
        "[2026-01-01 10:00:00.123] [transfer] [warning] slow handshake\n"
        "2025-10-01 12:00:00.123 | WARNING  | app.client:run:57 - retrying the model server\n"
        "[rank1]:[W107 10:11:12.123456789 ProcessGroupNCCL.cpp:1234] Warning: the process group was not destroyed\n",
    ],
)
def test_records_that_report_no_failure_give_none(log):
    assert _findings(log) == []


def test_a_record_gives_way_to_the_traceback_it_logs():
    # vLLM prefixes every line of the traceback it logs: the record's first line says only that something failed
    log = "".join(
        "(EngineCore_DP0 pid=1) ERROR 12-07 10:11:12 [core.py:710] " + line + "\n"
        for line in (
            "EngineCore encountered a fatal error.",
            "Traceback (most recent call last):",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core',
            "    engine_core.run_busy_loop()",
            "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^",
            "RuntimeError: CUDA error: an illegal memory access was encountered",
        )
    )
    (finding,) = _findings(log)
    assert "an illegal memory access was encountered" in finding["message"]


def test_a_record_that_reports_a_process_end_stays_flagged_though_its_logger_goes_on():
    # sglang 0.5.23 engine.py block_until_scheduler_exits logs it and joins the next process (goes_on), but the line
    # says a scheduler ended (review10 item 3)
    text = (
        "[2025-03-09 14:40:40] server_args=ServerArgs(model_path='m', tp_size=1)\n"
        "[2025-03-09 14:40:46 TP0] Load weight begin. avail mem=78.50 GB\n"
        "[2026-01-01 10:00:05] Scheduler or DataParallelController 1234 terminated with -9\n"
    )
    assert "unrecognized-failure" in [f["rule"] for f in _findings(text)]


@pytest.mark.parametrize(
    ("line", "verdict"),
    [
        ("[2025-03-09 14:40:52] CRITICAL: disk usage above 95%, consider cleaning up /tmp", failing_records.FLAGGED),
        ("FATAL\tFailed to initialize components", failing_records.FAILURE),
        (
            "2025-03-09 14:40:52,123 - sglang_router - ERROR - Worker http://127.0.0.1:30001 failed to start within the"
            " health check window, retrying",
            None,
        ),
    ],
)
def test_one_function_says_what_a_failing_record_means(line, verdict):
    """review10 item 11: what a failing-level record means is one job (failing_records.py), classify calls it once."""
    meaning = failing_records.record_meaning(line, None)
    assert (meaning and meaning.verdict) == verdict
    if verdict == failing_records.FAILURE:
        assert meaning.message == "Failed to initialize components"
        assert meaning.data == {"level": "FATAL", "printer": "level", "message": "Failed to initialize components"}

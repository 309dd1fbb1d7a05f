"""The unwrapping step (logscope/pipeline/ingest/unwrap.py), the serving markers
(logscope/pipeline/parse/serving.py) and the evidence cut (logscope/core/excerpt.py), on the wordings people paste."""

from __future__ import annotations

import json

import pytest

from logscope.core.excerpt import cut_around
from logscope.pipeline.ingest.unwrap import (
    API_ERROR_RECORD,
    FLATTENED,
    JSON_RECORD,
    JSON_STRING,
    LOGFMT_RECORD,
    Rewrap,
    expand,
    needs_more,
    quoted_spans,
    terminal_wraps,
)
from logscope.pipeline.parse.serving import first_serving_line
from logscope.report.view import short_sentence

OOM = (
    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB "
    "is free. Process 5403 has 21.69 GiB memory in use. Including non-PyTorch memory, this process has 56.10 GiB "
    "memory in use. Of the allocated memory 50.00 GiB is allocated by PyTorch, and 2.00 GiB is reserved by PyTorch "
    "but unallocated."
)


def test_a_json_error_body_is_read_as_its_message():
    line = json.dumps({"error": {"message": OOM, "type": "BadRequestError", "code": 400}})
    pieces = expand(line)
    assert [(p.text, p.how) for p in pieces] == [(OOM, JSON_STRING)]


def test_a_traceback_in_a_json_string_is_read_as_its_lines():
    msg = 'Traceback (most recent call last):\n  File "/x/scheduler.py", line 9, in run\nRuntimeError: boom'
    pieces = expand(json.dumps({"level": "ERROR", "msg": msg}))
    assert [p.text for p in pieces] == msg.splitlines()


def test_a_flattened_traceback_is_split_at_its_literal_newlines():
    line = r"ERROR worker: Traceback (most recent call last):\n  File \"/x/y.py\", line 3, in f\nKeyError: 1"
    pieces = expand(line)
    assert [p.text for p in pieces] == [
        "ERROR worker: Traceback (most recent call last):",
        '  File "/x/y.py", line 3, in f',
        "KeyError: 1",
    ]
    assert {p.how for p in pieces} == {FLATTENED}


@pytest.mark.parametrize(
    "line",
    ["plain log line with no wrapping", '{"model": "meta-llama/Llama-3.1-8B"}', r"a path C:\new\file that is no traceback"],
)
def test_a_line_that_holds_no_other_line_is_itself(line):
    assert [(p.text, p.how) for p in expand(line)] == [(line, None)]


def test_an_oom_broken_over_lines_is_joined_until_its_last_sentence():
    pieces = [OOM[:90], OOM[90:170], OOM[170:]]
    assert needs_more(pieces[0]) and not needs_more(OOM)
    held = Rewrap(1, pieces[0], len(pieces[0]))
    for piece in pieces[1:]:
        held.add(piece)
    assert held.complete()
    assert "Process 5403 has 21.69 GiB memory in use." in held.text


def test_lines_a_terminal_cut_at_80_columns_are_joined():
    line = "E0602 10:16:02.301002   512 transfer_metadata.cpp:612] Failed to retrieve segment descriptor, name 10.0.0.5:1"
    lines = [line[:80], line[80:], "[2026-01-01 00:00:00 TP0] next record"]
    assert terminal_wraps(lines, lambda t: "segment descriptor" in t, lambda t: t.startswith("[")) == {0: (line, 2)}
    # a line of another width, or continued by a record, is no cut
    assert terminal_wraps([line[:79], line[79:]], lambda t: "segment" in t, lambda t: False) == {}


def test_quoted_prose_gives_the_quoted_message():
    text = (
        'a minute later SGLang logs "Setup Custom allreduce failed with CUDA error: peer access is not supported '
        'between these two devices. To silence this warning, ..." and goes on'
    )
    assert quoted_spans(text)[0].startswith("Setup Custom allreduce failed with CUDA error")


@pytest.mark.parametrize(
    ("line", "serving"),
    [
        ('INFO:     10.0.3.4:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK', True),
        ("POST /v1/chat/completions 200 OK", True),
        ("[2026-01-01 00:00:00 TP0] Decode batch. #running-req: 4, #token: 812, token usage: 0.01", True),
        ('INFO:     127.0.0.1:40000 - "GET /get_model_info HTTP/1.1" 200 OK', False),  # SGLang's own warmup
        # a batch ran (issue 34): the verdict adds that SGLang's warmup request is one too
        ('INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 200 OK', True),
        ("[2026-01-01 00:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 6", True),
        # an error answer to a client's generation request: the server was up, answering (place12, review12a item 13)
        ('INFO:     10.0.3.4:51234 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request', True),
        ('INFO:     10.0.3.4:51234 - "POST /v1/chat/completions HTTP/1.1" 503 Service Unavailable', False),
    ],
)
def test_serving_markers(line, serving):
    assert (first_serving_line(line.encode()) == (0, line)) is serving


def test_the_first_serving_line_of_a_chunk():
    data = b'"GET /get_model_info HTTP/1.1" 200 OK\nx\nPOST /v1/completions 200 OK\r\nDecode batch. #running-req: 1\n'
    assert first_serving_line(data) == (2, "POST /v1/completions 200 OK")
    assert first_serving_line(b'"GET /health HTTP/1.1" 200 OK\n') is None


def test_evidence_is_cut_around_its_focus_between_words():
    text = "(from a JSON string) " + OOM
    cut = cut_around(text, ["Process 5403 has", "CUDA out of memory"], 120)
    assert cut.startswith("(from a JSON string) [...]") and cut.endswith("[...]")
    assert "Process 5403 has 21.69 GiB memory in use." in cut
    assert len(cut) <= 120
    for piece in cut.removeprefix("(from a JSON string) [...]").removesuffix("[...]").split():
        assert piece in OOM.split()  # whole words of the input only
    assert cut_around("short line", ["x"], 80) == "short line"


def test_the_verdict_sentence_drops_the_phase_basis_and_fits_two_lines():
    message = (
        "Out of memory during an unknown phase (no phase line of this rank before it, and no frame that locates "
        "it): tried to allocate 1.00 GiB with 300.00 MiB free of 79.15 GiB; this process held 57.10 GiB, of "
        "which PyTorch held 52.00 GiB and 5.10 GiB was outside the allocator."
    )
    short = short_sentence(message, 130)
    assert short == "Out of memory during an unknown phase: tried to allocate 1.00 GiB with 300.00 MiB free of 79.15 GiB [...]"
    # whole sentences first, and never a cut at the colon that introduces the point (h-001's phases seen)
    incomplete = (
        "The log stops before the server was ready; last phases seen: capture_begin, memory_pool_end, "
        "load_weight_begin. Weight loading had reached shard 7 of 13 (54%)."
    )
    assert short_sentence(incomplete, 120) == incomplete[: incomplete.index(" Weight")] + " [...]"
    assert (
        short_sentence("NCCL failed during serving (after the ready line at line 4): boom", 130)
        == "NCCL failed during serving: boom"
    )
    # a basis with a parenthesis of its own goes whole (it left "while serving): ..." behind)
    uvicorn = (
        "The server crashed while serving (after line 5, uvicorn up: SGLang starts its HTTP server once every "
        "scheduler finished startup (its warmup request comes next)): RuntimeError: boom"
    )
    assert short_sentence(uvicorn, 130) == "The server crashed while serving: RuntimeError: boom"


def test_an_unknown_failure_line_is_quoted_as_a_finding_and_exits_1():
    from tests.helpers import run

    proc = run(
        "analyze",
        "-",
        "--format",
        "json",
        input=b"[2026-01-05 09:00:07 TP0] ERROR: Failed to open tokenizer cache /data/tok.bin: I/O error\n",
    )
    assert proc.returncode == 1
    finding = json.loads(proc.stdout)["findings"][0]
    assert finding["rule"] == "unrecognized-failure" and finding["severity"] == "warning"
    assert "Failed to open tokenizer cache /data/tok.bin: I/O error" in finding["message"]


def test_a_json_oom_names_the_other_process_and_shows_it_in_the_evidence():
    from tests.helpers import run

    body = json.dumps({"object": "error", "message": OOM, "code": 400}).encode() + b"\n"
    proc = run("analyze", "-", "--width", "200", input=body)
    out = proc.stdout.decode()
    assert proc.returncode == 1
    # SGLang's OpenAI error body ({"object": "error", ...}) is a request's answer: the server was serving
    assert out.splitlines()[0].startswith("verdict: error [runtime-oom] Out of memory while serving: tried")
    assert "OOM text processes: 5403 (21.69 GiB)" in out
    assert "(from an API error response) [...]" in out and "Process 5403 has 21.69 GiB memory in use." in out


def test_a_full_width_line_followed_by_a_prefixed_record_is_not_joined():
    from logscope.pipeline.analyze import analyze_sources
    from logscope.pipeline.ingest.ingest import Source

    head = "worker-0  | [2026-04-01 12:00:09 TP1] Scheduler hit an exception: Traceback (most recent call last):"
    head = head.replace("Scheduler", "Scheduler" + " " * (100 - len(head)), 1) if len(head) < 100 else head[:100]
    assert len(head) == 100
    log = (
        head + "\nworker-0  | torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 1 has a "
        "total capacity of 79.15 GiB of which 1.01 GiB is free.\n"
    )
    report = analyze_sources([Source(name="compose.log", path=None, data=log.encode())])
    assert [f["rule"] for f in report["findings"]] == ["oom-time-unknown"]  # no line places it (issue 34)


# a Kubernetes controller's zap record (rbg-12's shape, shortened): level, message and error keys
ZAP_ERROR = (
    '{"level":"ERROR","time":"2025-09-02T01:12:47.892Z","caller":"workloads/rolebasedgroupset_controller.go:97",'
    '"message":"create rbg failed.","controller":"workloads-rolebasedgroupset","error":"create rbg error: '
    'rolebasedgroups.workloads.x-k8s.io is forbidden: User \\"system:serviceaccount:rbgs-system:sa\\" cannot create '
    'resource \\"rolebasedgroups\\"","stacktrace":"sigs.k8s.io/rbgs/internal/controller.Reconcile\\n\\t/workspace/c.go:97"}'
)


@pytest.mark.parametrize(
    ("line", "read"),
    [
        (ZAP_ERROR, "create rbg failed: create rbg error: rolebasedgroups.workloads.x-k8s.io is forbidden: User"),
        # zap's production encoder (lower-case levels, "msg"), slog's JSONHandler ("ERROR"), a fatal record
        (
            '{"level":"error","ts":1725239567.89,"msg":"Reconciler error","error":"context deadline exceeded"}',
            "Reconciler error: context",
        ),
        ('{"time":"2026-01-02T03:04:05Z","level":"ERROR","msg":"worker exited with status 1"}', "worker exited"),
        ('`{"level":"fatal","msg":"unable to start manager: listen tcp :8080: bind: address in use"}`', "unable to start"),
    ],
)
def test_a_json_log_record_at_a_failing_level_is_read_as_its_message_and_error(line, read):
    pieces = expand(line)
    assert pieces[0].how == JSON_RECORD and pieces[0].text.startswith(read)


@pytest.mark.parametrize(
    "line",
    [
        '{"level":"info","ts":1725239567.89,"msg":"Starting workers","controller":"rolebasedgroup","worker count":1}',
        '{"level":"warn","msg":"retrying after a failed request to the master, attempt 2 of 5"}',
        '{"object":"error","message":"The model does not exist.","type":"NotFoundError","code":404}',
        '{"level":"ERROR","msg":"Traceback (most recent call last):\\n  File \\"/x.py\\", line 1\\nKeyError: 1"}',
    ],
)
def test_a_json_record_at_another_level_or_of_several_lines_is_no_record_line(line):
    assert all(p.how != JSON_RECORD for p in expand(line))


def test_a_json_error_record_with_no_known_wording_is_an_unrecognized_failure():
    from tests.helpers import run

    paste = "The controller lacks the permission. The specific error is as follows\n`" + ZAP_ERROR + "`\n"
    proc = run("analyze", "-", "--format", "json", input=paste.encode())
    assert proc.returncode == 1
    assert [f["rule"] for f in json.loads(proc.stdout)["findings"]] == ["unrecognized-failure"]
    quiet = b'{"level":"info","msg":"Starting workers for the RoleBasedGroup controller","worker count":1}\n'
    proc = run("analyze", "-", "--format", "json", input=quiet)
    assert proc.returncode == 0 and json.loads(proc.stdout)["findings"] == []


@pytest.mark.parametrize(
    ("line", "read"),
    [
        # logrus's TextFormatter without a terminal, Go's log/slog TextHandler
        ('time="2025-10-01T12:00:00Z" level=fatal msg="cannot start manager" error="listen tcp :8080: bind"', "cannot start"),
        ("time=2025-10-01T12:00:00.000Z level=ERROR msg=reconcile err=timeout", "reconcile: timeout"),
    ],
)
def test_a_logfmt_record_at_a_failing_level_is_read_as_its_message_and_error(line, read):
    (piece,) = expand(line)
    assert piece.how == LOGFMT_RECORD and piece.text.startswith(read)


def test_a_logfmt_record_at_another_level_is_the_line_itself():
    line = 'time="2025-10-01T12:00:00Z" level=info msg="Starting workers" controller=rolebasedgroup'
    assert [p.how for p in expand(line)] == [None]


def test_an_api_error_body_with_a_message_no_reader_knows_is_an_unrecognized_failure():
    # SGLang's ErrorResponse to a request it refused (sglang#33504's shape): the message is short and names no known
    # failure, yet the body says the request failed; a document of the format, with "..." for the message, says nothing
    from tests.helpers import run

    # (a 5xx, or no code: the server's failure; constructed in the body's shape)
    body = '{"object":"error","message":"the scheduler returned no output for the request","code":500}'
    assert [(p.text, p.how) for p in expand(body)] == [("the scheduler returned no output for the request", API_ERROR_RECORD)]
    proc = run("analyze", "-", "--format", "json", input=("**Actual response:**\n" + body + "\n").encode())
    assert proc.returncode == 1
    (finding,) = json.loads(proc.stdout)["findings"]
    assert finding["rule"] == "unrecognized-failure"
    assert "the scheduler returned no output for the request" in finding["message"]
    no_code = body.replace(',"code":500', "")
    assert [p.how for p in expand(no_code)] == [API_ERROR_RECORD]
    # review12a item 19: a 400 is the client's bad request the server answered as designed, no failure of the server
    refused = (
        '{"object":"error","message":"max_tokens=999999 cannot exceed the context length","type":"BadRequestError","code":400}'
    )
    assert API_ERROR_RECORD not in [p.how for p in expand(refused)]
    proc = run("analyze", "-", "--format", "json", input=("**Actual response:**\n" + refused + "\n").encode())
    assert proc.returncode == 0 and json.loads(proc.stdout)["findings"] == []
    placeholder = b'{"object": "error", "message": "...", "type": "BadRequestError", "param": null, "code": 400}\n'
    proc = run("analyze", "-", "--format", "json", input=placeholder)
    assert proc.returncode == 0 and json.loads(proc.stdout)["findings"] == []

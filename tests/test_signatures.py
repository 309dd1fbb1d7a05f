"""Failure signatures: every case file, each case re-run as people paste it (quoted, in prose, with a rank
prefix), coverage of the finding ids, the loader's errors, the pattern language, and honest messages."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from logscope.core.errors import RuleError
from logscope.pipeline.parse.signatures.loader import SignatureSet, bundled_signatures, load_signature_file
from logscope.pipeline.parse.signatures.pattern import compile_pattern
from logscope.pipeline.parse.status_lines import is_a_status_line
from logscope.tooling.signature_cases import check_case, load_signature_cases, pinned_signatures, signature_case_files
from logscope.tooling.signature_docs import render_signatures_doc
from tests.helpers import ROOT, analyze_text, run

CASES = [(path.name, case) for path in signature_case_files() for case in load_signature_cases(path)]
SINGLE_LINE = [(name, case) for name, case in CASES if "\n" not in case["log"].strip()]
FAILURE_IDS = (
    "capture-oom",
    "startup-oom",
    "kv-pool-too-small",
    "custom-ar-failed",
    "custom-ar-disabled",
    "nccl-error",
    "deepep-buffer",
    "pd-transfer-failed",
    "memory-imbalance",
    "startup-crash",
)


@pytest.mark.parametrize(("file", "case"), CASES, ids=[f"{f}::{c['name']}" for f, c in CASES])
def test_signature_case(file, case):
    assert check_case(case) == []


def _variants(line: str) -> dict[str, str]:
    return {
        "quoted": f"> {line}\n",
        # (no time word: "on startup" would place the case by the cue lexicon, parse/parsers/time_cues.py)
        "in_prose": f"The server crashed with `{line}` today.\n",
        "rank_prefix": f"[2025-06-01 10:00:00 TP3] {line}\n",
    }


@pytest.mark.parametrize(("file", "case"), SINGLE_LINE, ids=[f"{f}::{c['name']}" for f, c in SINGLE_LINE])
def test_signature_case_as_people_paste_it(file, case):
    line = case["log"].strip()
    for name, text in _variants(line).items():
        if name == "rank_prefix" and line.startswith("["):
            continue
        problems = check_case(case, text)
        assert problems == [], (name, text, problems)


def _wrappings(line: str) -> dict[str, str]:
    """The same line as other tools and people wrap it (the unwrapping step reads each back)."""
    forms = {
        "compose_prefix": f"sglang-1  | {line}\n",
        "kubectl_timestamp": f"2026-05-01T10:00:00.123456789Z {line}\n",
        "ray_prefix": f"(SGLangWorker pid=4411, ip=10.1.2.3) {line}\n",
        "json_body": json.dumps({"level": "ERROR", "message": line}) + "\n",
    }
    if '"' not in line:
        forms["quoted_in_a_sentence"] = f'A minute later SGLang logs "{line}" and then nothing.\n'
    if len(line) > 80:  # a terminal cut it at 80 columns
        forms["rewrapped_at_80"] = "".join(line[i : i + 80] + "\n" for i in range(0, len(line), 80))
    return forms


@pytest.mark.parametrize(("file", "case"), SINGLE_LINE, ids=[f"{f}::{c['name']}" for f, c in SINGLE_LINE])
def test_signature_case_in_every_wrapping(file, case):
    line = case["log"].strip()
    failed = {name: check_case(case, text) for name, text in _wrappings(line).items()}
    assert {name: problems for name, problems in failed.items() if problems} == {}


MULTI_LINE = [(name, case) for name, case in CASES if "\n" in case["log"].strip()]


@pytest.mark.parametrize(("file", "case"), MULTI_LINE, ids=[f"{f}::{c['name']}" for f, c in MULTI_LINE])
def test_multi_line_case_flattened_onto_one_line(file, case):
    """A traceback or backtrace that a log shipper put on one line: in a JSON body, or with literal \\n."""
    log = case["log"].strip()
    forms = {"json_body": json.dumps({"level": "ERROR", "msg": log}) + "\n", "literal_newlines": log.replace("\n", "\\n") + "\n"}
    failed = {name: check_case(case, text) for name, text in forms.items()}
    assert {name: problems for name, problems in failed.items() if problems} == {}


def test_each_failure_id_has_three_cases_from_different_messages():
    by_finding: dict[str, set[str]] = defaultdict(set)
    for _, case in CASES:
        by_finding[case["finding"]].add(case["log"].strip().splitlines()[-1][:60])
    for finding in FAILURE_IDS:
        assert len(by_finding[finding]) >= 3, (finding, by_finding[finding])


def test_a_source_message_cut_after_its_wording_still_names_the_mechanism():
    cut = "E0605 10:48:27.885119 10136 rdma_context.cpp:203] Failed to register memory 0x7b375b400000: Inva"
    assert check_case({"log": cut, "finding": "pd-transfer-failed"}) == []
    cut = "RuntimeError: NCCL error: unhandled sys"
    assert check_case({"log": cut, "finding": "nccl-error"}) == []
    # cut inside the wording itself: no mechanism is claimed, but the failure is still reported
    cut = "RuntimeError: NCCL err"
    assert check_case({"log": cut, "finding": "failure-time-unknown"}) == []


def test_a_paste_with_only_a_quoted_error_exits_1_with_its_finding():
    proc = run(
        "analyze",
        "-",
        "--format",
        "json",
        input=b"it crashed with `RuntimeError: CUDART error: peer access is not supported between these two devices`\n",
    )
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    finding = report["findings"][0]
    assert finding["rule"] == "custom-ar-failed" and finding["phase"] == "unknown"
    assert finding["evidence"][0]["text"].startswith("(quoted in prose) RuntimeError")


def test_unmatched_failure_lines_are_listed_first_in_coverage():
    proc = run(
        "analyze", "-", input=b"Traceback (most recent call last):\n  File \"/x/y.py\", line 3, in f\nKeyError: 'frobnicate'\n"
    )
    out = proc.stdout.decode()
    assert proc.returncode == 1
    coverage = out[out.index("Coverage") :]
    assert coverage.index("match no signature") < coverage.index("lines read")
    assert "KeyError: 'frobnicate'" in coverage


def test_the_fallback_warning_is_not_the_cause_of_a_crash_elsewhere():
    text = (
        "[2026-04-14 16:08:44 TP1] Setup Custom allreduce failed with CUDART error: peer access is not supported "
        "between these two devices. To silence this warning, specify --disable-custom-all-reduce explicitly.\n"
        "[2026-04-14 16:09:12 TP0] RuntimeError: NCCL error: unhandled system error\n"
    )
    report = json.loads(run("analyze", "-", "--format", "json", input=text.encode()).stdout)
    rules = {f["rule"]: f for f in report["findings"]}
    assert set(rules) == {"custom-ar-disabled", "nccl-error"}
    assert rules["custom-ar-disabled"]["severity"] == "info"


def test_a_later_failure_names_the_first_one():
    text = (
        "[2026-04-14 16:08:40 TP0] Load weight begin. avail mem=78.00 GB\n"
        "[2026-04-14 16:08:44 TP1] RuntimeError: NCCL error: remote process exited or there was a network error\n"
        "[2026-04-14 16:08:50 TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has "
        "a total capacity of 79.15 GiB of which 1.00 GiB is free.\n"
    )
    report = json.loads(run("analyze", "-", "--format", "json", input=text.encode()).stdout)
    oom = next(f for f in report["findings"] if f["rule"] == "startup-oom")
    assert "It follows an earlier nccl-error on TP1." in oom["message"]


@pytest.mark.parametrize("golden", sorted((ROOT / "fixtures" / "golden").glob("*.json")), ids=lambda p: p.name)
def test_no_placeholder_or_unknown_number_in_a_golden_message(golden: Path):
    for finding in json.loads(golden.read_text())["findings"]:
        for text in (finding["message"], finding["hint"]):
            assert "?" not in text and "a smaller value" not in text, text
            assert "unknown GiB" not in text and "None" not in text, text


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (
            "mechanism: x\ntitle: t\nsignatures: [{id: a-b, on: line, pattern: 'abcd', source: s, finding: nope}]\n",
            "finding 'nope' is no rule id",
        ),
        (
            "mechanism: x\ntitle: t\nsignatures: [{id: a-b, on: wire, pattern: 'abcd', source: s, finding: nccl-error}]\n",
            "on should be one of",
        ),
        (
            "mechanism: x\ntitle: t\n"
            "signatures: [{id: a-b, on: line, pattern: 'abcd *{x:int}', source: s, finding: nccl-error}]\n",
            "a capture must follow literal text",
        ),
        (
            "mechanism: x\ntitle: t\nsignatures: [{id: a-b, on: line, pattern: 'abc', source: s, finding: nccl-error}]\n",
            "at least 4 characters",
        ),
        ("mechanism: x\ntitle: t\nsignatures: [{id: a-b, on: line, pattern: 'abcd', source: s}]\n", "must locate a phase"),
        ("mechanism: x\ntitle: t\nbogus: 1\nsignatures: []\n", "unknown key 'bogus'"),
        (
            "mechanism: x\ntitle: t\n"
            "signatures: [{id: a-b, on: line, pattern: 'abcd {x:float}', source: s, finding: nccl-error}]\n",
            "unknown capture type 'float'",
        ),
        (
            "mechanism: x\ntitle: t\n"
            "signatures: [{id: a-b, on: line, pattern: 'abcd {x:int}', unless: {y: 0}, source: s, finding: nccl-error}]\n",
            "unless: expected a mapping of the pattern's captures",
        ),
        (
            "mechanism: x\ntitle: t\n"
            "signatures: [{id: a-b, on: frame, pattern: 'abcd', status_line: at_start, source: s, finding: nccl-error}]\n",
            "status_line: one of after_script, after_name, at_start, with on: line",
        ),
        (
            "mechanism: x\ntitle: t\n"
            "signatures: [{id: a-b, on: line, pattern: 'abcd', gives_way: later, source: s, finding: nccl-error}]\n",
            "gives_way: one of next_line, other_failure, earlier_failure",
        ),
    ],
)
def test_signature_loader_errors_name_file_line_and_column(tmp_path, body, error):
    path = tmp_path / "x.yaml"
    path.write_text(body)
    with pytest.raises(RuleError) as exc:
        load_signature_file(path, {"nccl-error", "startup-crash"})
    assert error in str(exc.value) and str(path) in str(exc.value)


def test_pattern_captures_and_gaps():
    pattern = compile_pattern("Failed: Cuda error *custom_all_reduce*'{error:text}'", "t")
    assert pattern.match("Failed: Cuda error /w/custom_all_reduce.cuh:307 'peer access'") == {"error": "peer access"}
    assert pattern.match("Failed: Cuda error /w/other.cuh:307 'peer access'") is None
    sized = compile_pattern("Tried to allocate {size:size}. GPU {gpu:int}", "t")
    assert sized.match("x Tried to allocate 448.00 MiB. GPU 7 has") == {"size": "448.00 MiB", "gpu": 7}
    # a segment is retried at every occurrence of its first literal, never by backtracking inside it
    many = compile_pattern("abcd {n:int} cd", "t")
    assert many.match("abcd x " * 20000 + "abcd 5 cd") == {"n": 5}


def test_a_final_dollar_anchors_the_end_and_unless_vetoes_a_capture(tmp_path):
    alone = compile_pattern("^Killed$", "t")
    assert alone.match("Killed") == {} and alone.match("Killed  ") == {}
    assert alone.match("Killed process 336943 (python)") is None
    path = tmp_path / "x.yaml"
    path.write_text(
        "mechanism: x\ntitle: t\nsignatures: [{id: a-b, on: line, pattern: '^{c:word} exited with code {code:int}',"
        " unless: {code: 0}, source: s, finding: startup-crash}]\n"
    )
    (sig,) = load_signature_file(path, {"startup-crash"})
    assert sig.match("sglang-1 exited with code 137") == {"c": "sglang-1", "code": 137}
    assert sig.match("sglang-1 exited with code 0") is None


def test_only_keeps_a_match_whose_capture_has_one_of_its_values(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text(
        "mechanism: x\ntitle: t\nsignatures: [{id: a-b, on: line, pattern: 'Error code: {status:int}',"
        " only: {status: [500, 501]}, source: s, finding: startup-crash}]\n"
    )
    (sig,) = load_signature_file(path, {"startup-crash"})
    assert sig.match("InternalServerError: Error code: 500 - {}") == {"status": 500}
    assert sig.match("InternalServerError: Error code: 504 - {}") is None
    # a later occurrence with an allowed value still matches
    assert sig.match("Error code: 502; retried: Error code: 501") == {"status": 501}
    path.write_text(
        "mechanism: x\ntitle: t\nsignatures: [{id: a-b, on: line, pattern: 'Error code: {status:int}',"
        " only: {code: 500}, source: s, finding: startup-crash}]\n"
    )
    with pytest.raises(RuleError, match="only: expected a mapping of the pattern's captures"):
        load_signature_file(path, {"startup-crash"})


def _status_line_opener(tmp_path, entries: str):
    """is_a_status_line over the signatures of a file holding `entries` (YAML list items under `signatures:`)."""
    path = tmp_path / "x.yaml"
    path.write_text("mechanism: x\ntitle: t\nsignatures:\n" + entries)
    signatures = SignatureSet(tuple(load_signature_file(path, {"startup-crash"})))
    return lambda text: is_a_status_line(text, signatures)


def test_a_status_line_opens_with_its_signature_wording_after_the_name_or_at_the_start(tmp_path):
    opens = _status_line_opener(
        tmp_path,
        "- {id: a-b, on: line, pattern: ' exited with code {code:int}', status_line: after_name, source: s,"
        " finding: startup-crash}\n"
        "- {id: a-c, on: line, pattern: \"thread '{t:text}' panicked at {w:text}\", status_line: at_start, source: s,"
        " finding: startup-crash}\n"
        "- {id: a-d, on: line, pattern: 'Killed process {pid:int}', source: s, finding: startup-crash}\n",
    )
    assert opens("sglang-1 exited with code 137") and opens("thread 'main' panicked at src/main.rs:5:1:")
    assert not opens("the container sglang-1 exited with code 137") and not opens("Killed process 3 (python)")
    assert not is_a_status_line("sglang-1 exited with code 137", SignatureSet())


def test_a_status_line_head_is_matched_by_the_pattern_engine(tmp_path):
    # review 5's issue 4: a head of two text captures is tried as a pattern's segment (each capture runs to the first
    # occurrence of the literal after it), never as a backtracking regex (2.9 s a line on this one)
    opens = _status_line_opener(
        tmp_path,
        "- {id: a-b, on: line, pattern: 'thread {a:text} foo {b:text} bar', status_line: at_start, source: s,"
        " finding: startup-crash}\n",
    )
    assert opens("thread x foo y bar") and not opens("see thread x foo y bar")
    assert not opens("thread x" + " foo " * 8000)


# review 5's issue 3: bash's job report opens with the script's name and a colon ("%s: line %d: "); a sentence with one
# word before "line 3:" is prose, and the failure it states is read from it
@pytest.mark.parametrize(
    ("text", "findings"),
    [
        ("see line 3: Segmentation fault happened\n", ["failure-time-unknown"]),
        ("run.sh: line 4:  3319 Segmentation fault      sh -c x\n", ["failure-time-unknown"]),
    ],
)
def test_a_shell_job_report_opens_with_the_script_name_and_a_colon(text, findings):
    assert [f["rule"] for f in analyze_text(text)["findings"]] == findings
    assert is_a_status_line(text) is text.startswith("run.sh:")


# a bare script name (`bash run.sh`) is no compose/k8s field whose value is the launch: it gave "nothing found", exit 0
@pytest.mark.parametrize("script", ["./run.sh", "/opt/serve/run.sh", "run.sh"])
def test_a_shell_job_report_of_the_launch_gives_the_launch_and_its_end(script):
    # bash prints the command a signal ended after the job's pid: the launch is read, and so is how it ended
    text = f"{script}: line 4:  3319 Segmentation fault      python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n"
    report = analyze_text(text)
    assert report["launches"][0]["config"] == {"model_path": "Qwen/Qwen3-8B", "tp_size": 2}
    assert [(f["rule"], f["signature"]) for f in report["findings"]] == [("failure-time-unknown", "process-shell-job-segfault")]


def test_the_bundled_announcer_and_echo_are_marked_in_the_yaml():
    bundled = bundled_signatures()
    assert bundled.giving_way("next_line") == {"process-cpp-terminate"}
    assert bundled.giving_way("other_failure") == {
        "process-child-sigquit",
        "process-scheduler-dead",
        "process-vllm-engine-core-init",
        "nccl-socket-closed",
        "serving-asgi-exception",
    }
    assert bundled.giving_way("earlier_failure") == {"process-shell-killed", "process-shell-job-status-killed"}


# what giving way does (review 5's issue 12): the announcer yields to the what() line after it, the parent's echo to
# the child's own failure; each alone is still a failure
TERMINATE = "terminate called after throwing an instance of 'c10::Error'\n"
WHAT = "  what():  CUDA error: an illegal memory access was encountered\n"
CHILD = "[2025-08-19 21:19:18 TP1] RuntimeError: CUDA error: an illegal memory access was encountered\n"
SIGQUIT = "[2025-08-19 21:19:19] Received sigquit from a child process. It usually means the child failed.\n"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (TERMINATE + WHAT, [("failure-time-unknown", "process-cuda-error", 2)]),
        (TERMINATE, [("failure-time-unknown", "process-cpp-terminate", 1)]),
        (CHILD + SIGQUIT, [("failure-time-unknown", "process-cuda-error", 1)]),
        (SIGQUIT, [("failure-time-unknown", "process-child-sigquit", 1)]),
    ],
)
def test_an_announcer_and_an_echo_give_way_to_the_failure_they_report(text, found):
    findings = analyze_text(text)["findings"]
    assert [(f["rule"], f["signature"], f["evidence"][0]["line"]) for f in findings] == found


def test_a_rejected_occurrence_does_not_hide_a_later_one():
    ended = compile_pattern("status {n:int}$", "t")
    assert ended.match("status 1 then status 2") == {"n": 2}
    assert ended.match("status 1 then status 2 and more") is None
    vetoing = compile_pattern("CUDA_ERROR_{name:word}", "t")
    assert vetoing.match("CUDA_ERROR_A then CUDA_ERROR_B", accept=lambda v: v["name"] != "A") == {"name": "B"}
    anchored = compile_pattern("^CUDA_ERROR_{name:word}", "t")
    assert anchored.match("CUDA_ERROR_A then CUDA_ERROR_B", accept=lambda v: v["name"] != "A") is None


def test_signatures_doc_is_current():
    committed = (ROOT / "docs" / "signatures.md").read_text(encoding="utf-8")
    assert committed == render_signatures_doc() + "\n", "run: logscope signatures docs > docs/signatures.md"


def test_each_failure_id_has_a_case_cut_by_the_paste():
    cut = {case["finding"] for _, case in CASES if case["name"].startswith("cut-")}
    assert cut >= set(FAILURE_IDS), set(FAILURE_IDS) - cut


def test_every_signature_is_pinned_by_a_case():
    """Each signature id is named by a case, as the mechanism's match (`signature`) or the frame that located the
    failure (`located_by`): deleting or shadowing a signature fails its case."""
    ids = {sig.id for sig in bundled_signatures().signatures}
    assert sorted(ids - pinned_signatures()) == []
    assert pinned_signatures() <= ids


def test_the_attribution_memo_answers_each_signature_set_for_itself():
    from logscope.core.events import Event
    from logscope.pipeline.parse.signatures.loader import SignatureSet
    from logscope.pipeline.parse.signatures.match import attribute

    bundled = bundled_signatures()
    line = "RuntimeError: NCCL error: unhandled cuda error, NCCL version 2.21.5"
    event = Event("exception", "a.log", 1, line, None, None, {"exception": "RuntimeError", "message": line[14:]}, "exception")
    first = attribute(event, bundled)
    assert first is not None and attribute(event, bundled) == first  # the memo's answer is the same
    assert attribute(event, SignatureSet(())) is None  # another set, same text: its own answer
    first[1]["changed"] = True  # a caller's copy: the memo's values are not touched
    assert "changed" not in attribute(event, bundled)[1]


def test_a_loader_error_inside_a_wording_sglang_logs_as_a_warning_is_no_failure_of_its_own():
    # sglang 0.4.1.post7-0.5.3.post3 _custom_ops.py: logger.warning("Failed to import from vllm._C with %r", e); SGLang's
    # prefix prints no level, the catalogue's wording says warning (review10 item 1)
    line = (
        "[2025-10-01 09:00:00 TP0] Failed to import from vllm._C with ImportError('/usr/lib/python3/dist-packages/vllm/"
        "_C.abi3.so: undefined symbol: _ZN3c10')\n"
    )
    assert "process-undefined-symbol" not in {f.get("signature") for f in analyze_text(line)["findings"]}
    relayed = "Server error: 500 - [address=0.0.0.0:42651, pid=775] /opt/sgl_kernel/ops.so: undefined symbol: _ZN3c10\n"
    assert "process-undefined-symbol" in {f.get("signature") for f in analyze_text(relayed)["findings"]}


def test_vllms_engine_core_report_is_a_startup_failure_that_gives_way_to_the_cause_it_points_to():
    # vllm 0.10.2-0.34.0 v1/engine/utils.py wait_for_engine_startup; quoted alone (xorbitsai/inference#1172's comment)
    # it is the failure and places it in startup; with the engine core's own exception before it, that one is the failure
    report = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"
    alone = analyze_text(report)["findings"]
    assert [(f["rule"], f["signature"], f["phase"]) for f in alone] == [
        ("startup-crash", "process-vllm-engine-core-init", "startup")
    ]
    cause = "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`.\n"
    found = analyze_text(cause + report)["findings"]
    # (review15a item 6: strict, the engine core's finding is not reported at all, second or otherwise)
    assert "process-vllm-engine-core-init" not in {f.get("signature") for f in found}
    assert [f["rule"] for f in found] == ["failure-time-unknown"] and "No available memory" in found[0]["message"]
    # the real multi-process shape: the engine core's logged traceback (logger.exception("EngineCore failed to
    # start."), each line behind its process's and the record's prefix), then the API server's traceback
    core = "(EngineCore_DP0 pid=245) ERROR 10-01 10:00:00 [core.py:718] "
    processes = (
        f"{core}EngineCore failed to start.\n"
        f"{core}Traceback (most recent call last):\n"
        f'{core}  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 700, in '
        "check_enough_kv_cache_memory\n"
        f"{core}    raise ValueError(\n"
        f"{core}ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache "
        "is needed, which is larger than the available KV cache memory (9.50 GiB).\n"
        "(APIServer pid=1) Traceback (most recent call last):\n"
        '(APIServer pid=1)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py", line 1179, in '
        "wait_for_engine_startup\n"
        "(APIServer pid=1)     raise RuntimeError(\n"
        "(APIServer pid=1) " + report
    )
    found = analyze_text(processes)["findings"]
    assert "process-vllm-engine-core-init" not in {f.get("signature") for f in found}
    assert [(f["rule"], f.get("signature")) for f in found] == [("startup-crash", None)]
    assert "ValueError: To serve at least one request" in found[0]["message"]

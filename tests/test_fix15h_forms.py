"""review15b items 5, 10, 12, 15, 16, 17 (fix15h): each input of the review, as a negative and a positive."""

from __future__ import annotations

import pytest

from logscope.core.redact import redact
from tests.helpers import analyze_text

# review15b item 5: a hand-made CamelCase key is a secret wherever it stands outside code
KEY = "MyCompanyProductionApiSecretKeyV2"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"python -m sglang.launch_server --api-key {KEY} --port 30000", "--api-key <redacted> --port 30000"),
        (f"--admin-api-key={KEY}", "--admin-api-key=<redacted>"),
        (f'ServerArgs(api_key="{KEY}")', "api_key=<redacted>"),
        (f"ValueError: invalid key {KEY} for admin", "invalid key <redacted:secret> for admin"),
        (f"export MY_SERVICE_KEY={KEY}", "MY_SERVICE_KEY=<redacted>"),
        (f"token={KEY}", "token=<redacted>"),
        (f"Authorization: {KEY}", "Authorization: <redacted>"),
        # a version at its end: not spared even before "failed"
        (f"login: {KEY} failed", "login: <redacted:secret> failed"),
    ],
)
def test_a_camel_case_secret_is_redacted(text, expected):
    out = redact(text)
    assert expected in out
    assert "MyCompanyProductionApiSecretKey" not in out


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: BatchPrefillWithPagedKVCacheSM90Run failed with error: operation not supported",
        "what(): BatchDecodeWithPagedKVCacheDispatched failed",
        "Error in function 'BatchPrefillWithPagedKVCacheDispatched' at /usr/local/lib/x.cuh",
        "--kt-max-deferred-experts-per-token 2 --max-total-tokens 4096",
    ],
)
def test_an_identifier_in_a_code_position_is_kept(text):
    assert redact(text) == text


# review15b item 12: the caller's sgl.Engine(...) frame never outranks SGLang's serving frame under it, and a line that
# calls generate on the engine it built is no constructor call
_CUDA = "RuntimeError: CUDA error: an illegal memory access was encountered"
_CHAINED = [
    "Traceback (most recent call last):",
    '  File "/home/u/run.py", line 10, in <module>',
    '    out = sgl.Engine(model_path="X").generate(prompts)',
]
_ENGINE_GENERATE = [
    '  File "/usr/lib/python3/site-packages/sglang/srt/entrypoints/engine.py", line 200, in generate',
    "    return loop.run_until_complete(generator.__anext__())",
]


def _error(text: str) -> dict:
    (finding,) = [f for f in analyze_text(text)["findings"] if f["severity"] == "error"]
    return finding


def test_the_engines_serving_frame_under_the_callers_engine_line_places_the_failure():
    finding = _error("\n".join([*_CHAINED, *_ENGINE_GENERATE, _CUDA]) + "\n")
    assert finding["rule"] == "runtime-crash"
    assert "engine.py:200 generate" in finding["message"]


def test_the_engines_async_generate_frame_under_the_callers_engine_line_is_serving_too():
    caller = [
        "Traceback (most recent call last):",
        '  File "/home/u/run.py", line 12, in main',
        '    out = await sgl.Engine(model_path="X").async_generate(prompt)',
        '  File "/usr/lib/python3/site-packages/sglang/srt/entrypoints/engine.py", line 545, in async_generate',
        "    return await generator.__anext__()",
    ]
    finding = _error("\n".join([*caller, _CUDA]) + "\n")
    assert finding["rule"] == "runtime-crash"
    assert "engine.py:545 async_generate" in finding["message"]


def test_a_chained_generate_on_the_built_engine_is_no_startup_frame():
    assert _error("\n".join([*_CHAINED, _CUDA]) + "\n")["rule"] == "failure-time-unknown"


def test_the_callers_engine_constructor_line_still_places_startup():
    text = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "/home/u/run.py", line 10, in <module>',
            '    llm = sgl.Engine(model_path="X", tp_size=4)',
            _CUDA,
        ]
    )
    finding = _error(text + "\n")
    assert finding["rule"] == "startup-crash"
    assert "run.py:10 <module>" in finding["message"]


# review15b item 17: a job report or a bare Killed line never hides SGLang's unread failure line right before it
@pytest.mark.parametrize("end", ["[1]+  Killed                  python3 -m sglang.launch_server --model-path X --tp 8", "Killed"])
def test_a_kill_end_does_not_hide_sglangs_unread_failure_before_it(end):
    document = analyze_text(f"[2025-01-01 10:00:00 TP0] Scheduler hit an exception: RuntimeError: x\n{end}\n")
    (finding,) = [f for f in document["findings"] if f["severity"] == "error"]
    assert finding["rule"] == "failure-time-unknown"
    assert finding["signature"] is None
    assert finding["evidence"][0]["line"] == 1
    (unread,) = document["coverage"]["unmatched_failures"]
    assert (unread["line"], unread["kind"]) == (1, "logged_failure")


def test_a_kill_end_alone_is_still_the_failure():
    document = analyze_text("[1]+  Killed                  python3 -m sglang.launch_server --model-path X --tp 8\n")
    (finding,) = document["findings"]
    assert finding["signature"] == "process-shell-job-status-killed"


# review15b item 10: a compiler's "fatal error:" (gcc/nvcc, a JIT build's ninja output) is no Go runtime fatal error
@pytest.mark.parametrize(
    "log",
    [
        ["fatal error: cutlass/cutlass.h: No such file or directory", "compilation terminated."],
        [
            "      /tmp/build/csrc/kernel_file_name.cu:12:10:",
            "fatal error: cutlass/cutlass.h: No such file or directory",
            "compilation terminated.",
            "ninja: build stopped: subcommand failed.",
        ],
    ],
)
def test_a_compilers_fatal_error_is_no_go_runtime_fatal_error(log):
    findings = analyze_text("\n".join(log) + "\n")["findings"]
    assert [f for f in findings if f.get("signature") == "process-go-fatal-error"] == []


@pytest.mark.parametrize(
    ("line", "goroutine"),
    [
        ("fatal error: all goroutines are asleep - deadlock!", "goroutine 1 [chan receive]:"),
        ("fatal error: concurrent map writes", "goroutine 7 [running]:"),
    ],
)
def test_the_go_runtimes_fatal_error_is_still_read(line, goroutine):
    (finding,) = analyze_text(f"{line}\n\n{goroutine}\n")["findings"]
    assert (finding["rule"], finding["signature"]) == ("failure-time-unknown", "process-go-fatal-error")


# review15b item 16: zap's and slog's flat JSON records at error level are read like the nested "fields" one
@pytest.mark.parametrize(
    "line",
    [
        '{"level":"error","ts":"2025-01-01T10:00:00Z","caller":"x.go:12","msg":"failed to start container"}',
        '{"time":"2025-01-01T10:00:00Z","level":"ERROR","msg":"failed to start container"}',
        '{"timestamp":"2025-01-01T10:00:00Z","level":"ERROR","fields":{"message":"failed to start container"}}',
    ],
    ids=["zap", "slog", "nested"],
)
def test_a_json_record_at_error_level_is_an_unread_failure(line):
    document = analyze_text(line + "\n")
    (finding,) = document["findings"]
    assert finding["rule"] == "unrecognized-failure"
    assert '"failed to start container"' in finding["message"]
    (unread,) = document["coverage"]["unmatched_failures"]
    assert (unread["line"], unread["text"]) == (1, "failed to start container")


def test_a_flat_json_record_at_info_level_is_quiet():
    line = '{"time":"2025-01-01T10:00:00Z","level":"INFO","msg":"waiting for the container to start"}'
    assert analyze_text(line + "\n")["findings"] == []

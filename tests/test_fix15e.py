"""Five leftovers of session 15 (fix15e): each in the real shape a paste shows, each with its negative."""

from __future__ import annotations

from typing import Any

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source

SITE = "/usr/local/lib/python3.11/site-packages"


def _findings(text: str) -> list[dict[str, Any]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return list(document["findings"])


# sglang 0.5.x entrypoints/http_server.py _execute_server_warmup: the traceback printed after "warmup error: "
_WARMUP_FAILED = (
    "[2026-01-10 13:23:27] Initialization failed. warmup error: Traceback (most recent call last):\n"
    f'  File "{SITE}/sglang/srt/entrypoints/http_server.py", line 1434, in _execute_server_warmup\n'
    '    assert res.status_code == 200, f"{res=}, {res.text=}"\n'
    "AssertionError: res=<Response [502]>, res.text=''\n"
)


def test_the_warmup_verdict_quotes_the_exception_line_not_the_traceback_header():
    (finding,) = [f for f in _findings(_WARMUP_FAILED) if f["rule"] == "startup-crash"]
    assert "AssertionError: res=<Response [502]>, res.text=''" in finding["message"]
    assert "Traceback (most recent call last)" not in finding["message"]


def test_a_warmup_error_with_its_own_message_keeps_it():
    text = "[2026-01-10 13:23:27] Initialization failed. warmup error: Connection refused by 127.0.0.1:30000\n"
    (finding,) = [f for f in _findings(text) if f["rule"] == "startup-crash"]
    assert "Connection refused by 127.0.0.1:30000" in finding["message"]


def _stated(text: str) -> list[dict[str, Any]]:
    return [f for f in _findings(text) if "the paste's own words" in f["message"] or "rank failed" in f["message"]]


def test_a_progressive_failing_alone_on_its_line_reaches_the_stated_failure_reader():
    for text in (
        "My deployment keeps failing in the capture step.\n",
        "The launch was failing with tp 8 on two nodes.\n",
        "The router is still failing with a broken pipe.\n",
    ):
        (finding,) = _findings(text)
        assert finding["rule"] == "failure-time-unknown", text
        assert text.strip()[:30] in finding["message"], text


def test_a_test_runners_failing_count_reaches_no_failure_reader():
    for text in ("  3 failing\n", "3 failing tests: test_a, test_b\n", "Failing that, use the other image.\n"):
        assert _findings(text) == [], text


_TRACE = (
    "[2025-03-01 10:00:05 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    f'  File "{SITE}/sglang/srt/managers/scheduler.py", line 1800, in run_scheduler_process\n'
    "    scheduler.event_loop_normal()\n"
    "RuntimeError: CUDA error: device-side assert triggered\n"
)


def test_the_device_assert_verdict_keeps_the_kernels_file_line_and_function():
    text = (
        "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1237: indexSelectLargeIndex: block: [0,0,0], thread: [0,0,0]"
        " Assertion `srcIndex < srcSelectDimSize` failed.\n" + _TRACE
    )
    (finding,) = _findings(text)
    assert (
        "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1237: indexSelectLargeIndex: block: [0,0,0], thread: [0,0,0]"
        " Assertion `srcIndex < srcSelectDimSize` failed" in finding["message"]
    )


def test_a_device_assert_without_its_place_is_quoted_from_its_block():
    text = "[TP0] block: [3,0,0], thread: [64,0,0] Assertion `index out of bounds` failed.\n" + _TRACE
    (finding,) = _findings(text)
    assert "block: [3,0,0], thread: [64,0,0] Assertion `index out of bounds` failed" in finding["message"]
    assert "[TP0] block" not in finding["message"]


def _import_failure(outer: str) -> str:
    return (
        "Traceback (most recent call last):\n" + outer + f'  File "{SITE}/sglang/srt/server_args.py", line 30, in <module>\n'
        "    from sglang.srt.utils import get_device\n"
        "ModuleNotFoundError: No module named 'sgl_kernel'\n"
    )


def test_an_import_failure_under_sglang_serves_launcher_is_a_startup_failure():
    for outer in (
        f'  File "{SITE}/sglang/cli/serve.py", line 9, in <module>\n    from sglang.srt.server_args import prepare_server_args\n',
        '  File "/usr/local/bin/sglang", line 5, in <module>\n    from sglang.cli.main import main\n'
        f'  File "{SITE}/sglang/cli/main.py", line 4, in <module>\n    from sglang.cli.serve import serve\n'
        f'  File "{SITE}/sglang/cli/serve.py", line 8, in <module>\n    from sglang.srt.utils import kill_process_tree\n',
        f'  File "{SITE}/sglang/launch_server.py", line 7, in <module>\n'
        "    from sglang.srt.server_args import prepare_server_args\n",
    ):
        (finding,) = _findings(_import_failure(outer))
        assert finding["rule"] == "startup-crash", outer
        assert "ModuleNotFoundError: No module named 'sgl_kernel'" in finding["message"]


def test_an_import_failure_typed_by_hand_or_in_a_users_script_stays_unknown():
    for outer in (
        '  File "<string>", line 1, in <module>\n'
        f'  File "{SITE}/sglang/cli/serve.py", line 9, in <module>\n'
        "    from sglang.srt.server_args import prepare_server_args\n",
        '  File "/home/me/bench/run_client.py", line 3, in <module>\n    from sglang.srt.server_args import ServerArgs\n',
    ):
        (finding,) = _findings(_import_failure(outer))
        assert finding["rule"] == "failure-time-unknown", outer


def test_uvicorns_asgi_report_alone_is_a_failure_while_serving():
    text = "INFO:     Application startup complete.\nERROR:    Exception in ASGI application\n"
    (finding,) = _findings(text)
    assert finding["rule"] == "runtime-crash"
    assert "uvicorn's 'Exception in ASGI application', logged only while it answers an HTTP request" in finding["message"]


def test_uvicorns_asgi_report_gives_way_to_the_traceback_it_logged():
    text = (
        "ERROR:    Exception in ASGI application\n"
        "Traceback (most recent call last):\n"
        f'  File "{SITE}/sglang/srt/entrypoints/http_server.py", line 300, in generate_request\n'
        "    ret = await _global_state.tokenizer_manager.generate_request(obj, request).__anext__()\n"
        f'  File "{SITE}/sglang/srt/managers/tokenizer_manager.py", line 400, in generate_request\n'
        '    raise ValueError("The input (40000 tokens) is longer than the model\'s context length (32768 tokens).")\n'
        "ValueError: The input (40000 tokens) is longer than the model's context length (32768 tokens).\n"
    )
    (finding,) = _findings(text)
    assert finding["rule"] == "runtime-crash"
    assert "ValueError: The input (40000 tokens) is longer than the model's context length (32768 tokens)" in finding["message"]
    assert "serving-asgi-exception" not in finding["message"]


def test_uvicorns_lifespan_report_is_no_serving_failure():
    # uvicorn 0.55.0 lifespan/on.py LifespanOn.main: msg = "Exception in 'lifespan' protocol\n" (the app's startup hook)
    text = "INFO:     Waiting for application startup.\nERROR:    Exception in 'lifespan' protocol\n"
    assert all("serving-asgi-exception" not in f["message"] and f["rule"] != "runtime-crash" for f in _findings(text))

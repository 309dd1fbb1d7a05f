"""runtime16: a client program's own failure (its stack runs SGLang's frontend language, sglang/lang/, and no server
code, and it raised in the frontend or in the script) is none of a server rank's: listed as an unread line, not "a rank
failed" (probe sgl-project/sglang#22716: the gsm8k benchmark script's KeyError reading a generated variable)."""

from __future__ import annotations

from logscope.pipeline.analyze import analyze_model, analyze_sources
from logscope.pipeline.ingest.ingest import Source

SCRIPT = (
    "Traceback (most recent call last):\n"
    '  File "/home/t/sglang/benchmark/gsm8k/bench_sglang.py", line 199, in <module>\n'
    "    main(args)\n"
    '  File "/home/t/sglang/benchmark/gsm8k/bench_sglang.py", line 131, in main\n'
    '    preds.append(get_answer_value(states[i]["answer"]))\n'
    '  File "/home/t/.venv/lib/python3.13/site-packages/sglang/lang/interpreter.py", line 993, in __getitem__\n'
    "    return self.get_var(name)\n"
    '  File "/home/t/.venv/lib/python3.13/site-packages/sglang/lang/interpreter.py", line 333, in get_var\n'
    "    return self.variables[name]\n"
    "KeyError: 'answer'\n"
)
# the frontend's backend posting to a server that refused the connection (requests' ConnectionError under it)
REFUSED = (
    "Traceback (most recent call last):\n"
    '  File "/home/t/run.py", line 12, in <module>\n'
    "    state = multi_turn_question.run(question_1=q1, question_2=q2)\n"
    '  File "/home/t/.venv/lib/python3.10/site-packages/sglang/lang/backend/runtime_endpoint.py", line 61, in generate\n'
    "    res = http_request(self.base_url + '/generate', json=data)\n"
    '  File "/home/t/.venv/lib/python3.10/site-packages/requests/adapters.py", line 519, in send\n'
    "    raise ConnectionError(e, request=request)\n"
    "requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=30000): Max retries exceeded\n"
)


def _analysis(text: str):
    return analyze_model([Source(name="paste.log", path=None, data=text.encode())])


def test_a_frontend_scripts_own_failure_is_no_ranks():
    analysis = _analysis(SCRIPT)
    assert [f for fs in analysis.failures.values() for f in fs] == []
    assert [(u.line, u.text) for u in analysis.unmatched_failures] == [(10, "KeyError: 'answer'")]
    # still a failure the user pasted: the unrecognized-failure warning quotes it (exit 1), no all-clear
    assert [u.unrecognized for u in analysis.unmatched_failures] == [True]


def test_a_frontend_scripts_own_failure_gets_the_unrecognised_warning():
    report = analyze_sources([Source(name="paste.log", path=None, data=SCRIPT.encode())])
    assert [(f["rule"], f["severity"]) for f in report["findings"]] == [("unrecognized-failure", "warning")]
    assert "KeyError: 'answer'" in report["findings"][0]["message"]


def test_a_client_librarys_error_under_the_frontend_stays_a_failure():
    analysis = _analysis(REFUSED)
    assert [f for fs in analysis.failures.values() for f in fs] != []


# the frontend's Runtime launching a server whose startup failed (built inference-3745's shape: the launcher's frames
# down to runtime_endpoint.py's __init__, raising "Initialization failed")
LAUNCHER = (
    "Traceback (most recent call last):\n"
    '  File "/opt/app/launch.py", line 40, in <module>\n'
    "    runtime = sgl.Runtime(model_path=path)\n"
    '  File "/opt/conda/lib/python3.10/site-packages/sglang/api.py", line 39, in Runtime\n'
    "    return Runtime(*args, **kwargs)\n"
    '  File "/opt/conda/lib/python3.10/site-packages/sglang/lang/backend/runtime_endpoint.py", line 410, in __init__\n'
    '    raise RuntimeError("Initialization failed. Please see the error messages above.")\n'
    "RuntimeError: Initialization failed. Please see the error messages above.\n"
)


def test_the_frontends_runtime_launching_a_server_stays_a_failure():
    analysis = _analysis(LAUNCHER)
    assert [f for fs in analysis.failures.values() for f in fs] != []


# review16a item 8: `python -m sglang.launch_server` and `sglang serve` import the package first, whose __init__ imports
# the frontend's modules: an import error there is the server's install failing at its start, not a client program's
IMPORT_AT_LAUNCH = (
    "$ python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n"
    "Traceback (most recent call last):\n"
    '  File "<frozen runpy>", line 189, in _run_module_as_main\n'
    '  File "<frozen runpy>", line 112, in _get_module_details\n'
    '  File "/usr/local/lib/python3.12/dist-packages/sglang/__init__.py", line 5, in <module>\n'
    "    from sglang.lang.api import (\n"
    '  File "/usr/local/lib/python3.12/dist-packages/sglang/lang/api.py", line 9, in <module>\n'
    "    from sglang.lang.ir import (\n"
    '  File "/usr/local/lib/python3.12/dist-packages/sglang/lang/ir.py", line 10, in <module>\n'
    "    from sglang.lang.choices import ChoicesSamplingMethod\n"
    "ModuleNotFoundError: No module named 'sglang.lang.choices'\n"
)
SERVE_IMPORT = (
    "Traceback (most recent call last):\n"
    '  File "/usr/local/bin/sglang", line 5, in <module>\n'
    "    from sglang.cli.main import main\n"
    '  File "/usr/local/lib/python3.12/dist-packages/sglang/lang/chat_template.py", line 6, in <module>\n'
    "    from sglang.utils import get_bool_env_var\n"
    "ImportError: cannot import name 'get_bool_env_var' from 'sglang.utils'\n"
)


def test_an_import_error_in_the_frontends_modules_at_launch_is_the_servers_startup_failure():
    report = analyze_sources([Source(name="paste.log", path=None, data=IMPORT_AT_LAUNCH.encode())])
    assert [(f["rule"], f.get("phase")) for f in report["findings"]] == [("startup-crash", "startup")]
    analysis = _analysis(SERVE_IMPORT)
    # (a rank's failure, placed as the reader of `sglang serve`'s frames places it; no client program's)
    assert [f.finding for fs in analysis.failures.values() for f in fs] == ["failure-time-unknown"]
    assert [u.unrecognized for u in analysis.unmatched_failures] == [False]


# review16a item 8 (LOW): a Windows client's paths keep their drive letter (the frame's ":<line>" is cut, not "C:")
WINDOWS = (
    "Traceback (most recent call last):\n"
    '  File "C:\\Users\\bob\\bench\\bench_sglang.py", line 120, in <module>\n'
    "    main(args)\n"
    '  File "C:\\Users\\bob\\bench\\bench_sglang.py", line 80, in main\n'
    "    states = few_shot_gsm8k.run_batch(arguments)\n"
    '  File "C:\\Python311\\Lib\\site-packages\\sglang\\lang\\ir.py", line 222, in run_batch\n'
    "    return run_program_batch(\n"
    '  File "C:\\Python311\\Lib\\site-packages\\sglang\\lang\\interpreter.py", line 138, in run_program_batch\n'
    "    rets = [run_program(program, backend, (), arguments) for arguments in batch_arguments]\n"
    '  File "C:\\Python311\\Lib\\site-packages\\sglang\\lang\\interpreter.py", line 333, in get_var\n'
    "    return self.variables[name]\n"
    "KeyError: 'answer'\n"
)


def test_a_windows_frontend_scripts_own_failure_is_no_ranks():
    analysis = _analysis(WINDOWS)
    assert [f for fs in analysis.failures.values() for f in fs] == []
    assert [(u.line, u.text) for u in analysis.unmatched_failures] == [(12, "KeyError: 'answer'")]

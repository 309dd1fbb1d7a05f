"""Failure forms read in session 17 (issue 43, "a failure paste must never get nothing found"): each case is the real
shape of a probe thread's paste (named at each, split=built), with the quiet cases that prove what is not claimed."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers.stated_failure import parse


def _findings(text: str) -> list[dict[str, Any]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return list(document["findings"])


def _read(text: str) -> list[tuple[str, str | None, str | None, str | None]]:
    return [(f["rule"], f.get("mechanism"), f.get("signature"), f.get("phase")) for f in _findings(text)]


# CPython's runpy (Lib/runpy.py 3.11.7, _run_module_as_main): `python -m <module>` that cannot find its module exits
# with "<sys.executable>: <error>", no traceback, before any of the module's code runs. Before session 17 the first
# form gave nothing at all and the second only "a line logscope does not know".
@pytest.mark.parametrize(
    ("paste", "signature"),
    [
        # micytao/vllm-playground#7 (built): a launcher's time prefix, a venv's interpreter, the parent package missing
        (
            "but when i go to start the server I get an error:\n\n```\n[14:41:59] /home/user/vllm-playground-venv/bin/"
            "python: Error while finding module specification for 'vllm.entrypoints.openai.api_server' "
            "(ModuleNotFoundError: No module named 'vllm')\n```\n\nThe server does not start\n",
            "python-runpy-module-spec",
        ),
        # SafeAILab/EAGLE#197 (built): the error alone in a fence under "got error:"
        (
            "got error:\n```\nError while finding module specification for 'eagle.ge_data.allocation' "
            "(ModuleNotFoundError: No module named 'eagle.ge_data')\n```\n",
            "python-runpy-module-spec",
        ),
        (
            "$ python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n"
            "/usr/bin/python3: No module named sglang.launch_server\n",
            "python-runpy-no-module",
        ),
        ("/opt/conda/envs/sglang/bin/python: No module named sglang.launch_server\n", "python-runpy-no-module-bare"),
        ("C:\\Users\\me\\venv\\Scripts\\python.exe: No module named sglang\n", "python-runpy-no-module"),
        (
            "/usr/bin/python3: No module named sglang.__main__; 'sglang' is a package and cannot be directly executed\n",
            "python-runpy-package",
        ),
        ("python3: can't open file '/workspace/serve.py': [Errno 2] No such file or directory\n", "python-cannot-open-file"),
    ],
)
def test_the_interpreter_that_could_not_start_its_program_is_a_startup_crash(paste, signature):
    assert _read(paste) == [("startup-crash", "python", signature, "startup")]


@pytest.mark.parametrize(
    "paste",
    [
        # runpy's own source pasted (a template, not an error it printed)
        '        msg = "Error while finding module specification for {!r} ({}: {})"\n'
        '        raise error("No module named %s" % mod_name)\n',
        # an optional import a warning reports and the run goes on from (the module name is not the line's end)
        "[2025-06-01 10:00:00] WARNING: python3: No module named flash_attn_3; falling back to the triton backend\n"
        "[2025-06-01 10:00:01] Load weight begin. avail mem=78.50 GB\n",
        # a feature request that names the wording without its module
        "Feature request: print a hint when python -m fails with Error while finding module specification.\n",
    ],
)
def test_runpy_look_alikes_are_not_read_as_the_interpreters_error(paste):
    assert all(f.get("signature", "") is None or not str(f.get("signature")).startswith("python-") for f in _findings(paste))


# an import error inside the program (quoted module name, a traceback's last line) stays what it was: the runpy
# signatures read only runpy's unquoted name and its own sentence
def test_an_import_error_of_the_program_is_not_runpys():
    paste = (
        "Traceback (most recent call last):\n"
        '  File "eagle-eye.py", line 8, in <module>\n'
        "    import utils.console as console\n"
        "ModuleNotFoundError: No module named 'utils.console'\n"
    )
    assert [(rule, mechanism, signature) for rule, mechanism, signature, _ in _read(paste)] == [
        ("failure-time-unknown", "python", None)
    ]


# the kernel's report of a process it killed for a fault the process did not handle (arch/x86/mm/fault.c
# show_signal_msg, arch/x86/kernel/traps.c do_trap), as dmesg, kern.log or journalctl print it: before session 17 no
# failure at all (vladmandic/sdnext#913, built: the syslog's "kernel: " records, one of them a segfault in libamdhip64)
@pytest.mark.parametrize(
    ("paste", "signature"),
    [
        (
            "kernel: amdgpu: Failed to map wptr bo to GART\n"
            "kernel: python3[40923]: segfault at 100 ip 00007f2711b2d282 sp 00007fffa29a1530 error 4 in "
            "libamdhip64.so[7f2711a00000+3f3000] likely on CPU 9 (core 1, socket 0)\n",
            "process-kernel-segfault",
        ),
        (
            "Jun  2 10:11:12 gpu-node-3 kernel: sglang::schedul[4567]: segfault at 18 ip 00007f00aa000000 sp "
            "00007ffd00000000 error 4 in libnccl.so.2.21.5[7f00a9000000+1000000] likely on CPU 12 (core 4, socket 0)\n",
            "process-kernel-segfault",
        ),
        (
            "[ 8123.456789] python[2817] trap invalid opcode ip:7f3a1c2b4e10 sp:7ffd3e8c1a20 error:0 in "
            "libtorch_cpu.so[7f3a18000000+1e000000]\n",
            "process-kernel-trap",
        ),
    ],
)
def test_the_kernels_segfault_record_is_a_native_crash_read_from_a_log_line(paste, signature):
    findings = _findings(paste)
    assert [(f["rule"], f.get("signature")) for f in findings] == [("failure-time-unknown", signature)]
    assert "quoted in prose" not in findings[0]["message"]  # a syslog record, not a sentence


def test_a_segfault_in_nccl_names_nccl():
    paste = (
        "[ 1234.567890] sglang::schedul[4567]: segfault at 18 ip 00007f00aa000000 sp 00007ffd00000000 error 4 in "
        "libnccl.so.2[7f00a9000000+1000000]\n"
    )
    assert "raised in NCCL" in _findings(paste)[0]["message"]


@pytest.mark.parametrize(
    "paste",
    [
        # the kernel's format strings quoted from its source
        '\t\tpr_info("%s[%d] trap %s ip:%lx sp:%lx error:%lx",\n',
        # a kernel version in an environment listing is no kernel record, and prose about a segfault names no record
        "kernel: 5.15.0-161-generic\n",
        "I sometimes see a segfault at startup when the driver is old, but a restart fixes it.\n",
    ],
)
def test_kernel_fault_look_alikes_are_quiet(paste):
    assert _findings(paste) == []


# a failure's label and its message under an issue template's heading of what happened (silent16's leftover, "a noun
# phrase under an Actual Behavior heading"): langgenius/dify#19288 (built) gave nothing found
@pytest.mark.parametrize(
    "paste",
    [
        "### ✔️ Expected Behavior\n\nrun success\n\n### ❌ Actual Behavior\n\nRun failed: [models] Server Unavailable Error, "
        "HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded with url: /chat/completions (Caused by "
        'NameResolutionError("<urllib3.connection.HTTPSConnection object at 0x7f37e31ca870>: Failed to resolve '
        "'api.example.com' ([Errno -2] Name or service not known)\"))\n\nsometimes it will success, but today always failed.\n",
        "**Actual behavior**\n\nRequest failed: 500 Internal Server Error\n",
        "### What happened?\n\nDeployment failure: the pod never became ready\n",
    ],
)
def test_a_failure_label_under_the_heading_of_what_happened_is_stated(paste):
    findings = _findings(paste)
    assert [f["rule"] for f in findings] == ["failure-time-unknown"]
    assert "stated in the issue's own words" in findings[0]["message"]


@pytest.mark.parametrize(
    "paste",
    [
        "### Expected Behavior\n\nRun failed: this should not happen in the new version\n",  # what should happen
        "### Actual Behavior\n\nErrors: 0\n",  # a count
        "### Actual result\n\nNo error: the request succeeds but the output is empty.\n",  # denied
        "### Actual behavior\n\nThe error message is confusing and does not name the flag.\n",  # no label, a complaint
        "### Describe the bug\n\nRun failed: something broke\n",  # the label outside the section of what happened
    ],
)
def test_failure_labels_elsewhere_or_denied_state_nothing(paste):
    assert _findings(paste) == []


# a terse report that opens with the step and ends with its failure (sgl-project/sglang-jax#366, built: "launch server
# with load-format=dummy failed" under "Describe the bug" gave nothing found)
@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("launch server with load-format=dummy failed", "startup-crash"),  # ("launch server" places it)
        ("deploy Qwen2.5-72B on 2 nodes failed.", "failure-time-unknown"),
        ("Launching the server with --tp 8 failed.", "startup-crash"),  # (the time placed from "Launching the server")
    ],
)
def test_a_step_first_report_states_the_failure(sentence, rule):
    parsed = parse(sentence)
    assert parsed is not None and parsed.data["said"] == sentence.rstrip(".")
    assert [f["rule"] for f in _findings("### Describe the bug\n\n" + sentence + "\n")] == [rule]


@pytest.mark.parametrize(
    "sentence",
    [
        "Loading from the local cache never failed.",  # denied
        "Start the server and check whether the launch failed",  # a condition
        "Loading weights did not fail.",  # denied
        "Launch the server; if the warmup failed, retry.",  # a supposition, and the verb is not last
        "Running the unit tests failed.",  # "run" is said of tests: no step of the server's
    ],
)
def test_step_first_look_alikes_state_nothing(sentence):
    assert parse(sentence) is None

"""Forms of batch mine16's built pastes (fixtures/mined, branch mine16): a launch command after a Chinese label whose
first word heads a catalogued message ("启动指令：sglang serve ..."; 启动 "start"), nvidia-container-cli's CUDA requirement,
and SGLang's version in a code span after its name ("- sglang `0.5.17`")."""

from __future__ import annotations

from tests.helpers import analyze_text, stated_versions


def _launches(text: str) -> list[tuple[dict, dict]]:
    return [(launch["config"], launch.get("server_args", {})) for launch in analyze_text(text)["launches"]]


def test_a_launch_after_a_chinese_label_that_opens_with_a_message_head():
    # glm-ocr-232's shape: "启动指令：" ("start command:") with an assignment before `sglang serve` and a redirect after
    text = (
        "sglang版本：0.5.15\n"
        "启动指令：SGLANG_ENABLE_SPEC_V2=1 sglang serve --model-path /nas/disk1/GLM-OCR/ --port 8898 --speculative-algorithm"
        " NEXTN --speculative-num-steps 3 --served-model-name GLM-OCR > glm_ocr_sglang.log 2>&1 &\n"
    )
    [(config, server_args)] = _launches(text)
    assert config["model_path"] == "/nas/disk1/GLM-OCR/"
    assert config["speculative_num_steps"] == 3
    assert server_args["port"] == "8898"
    assert server_args["speculative_algorithm"] == "NEXTN"
    assert server_args["served_model_name"] == "GLM-OCR"
    # the same label before `python3 -m sglang.launch_server` was read before and still is
    [(config, _)] = _launches("启动指令：python3 -m sglang.launch_server --model-path /m --tp 2\n")
    assert config == {"model_path": "/m", "tp_size": 2}
    # a line that opens with the same word and names no launcher is no command
    assert _launches("启动指令：见附件\n") == []


def test_the_container_runtimes_cuda_requirement_is_a_driver_mismatch_at_startup():
    # kserve-4513's shape: a kubelet's Failed event quoting nvidia-container-cli's prestart hook
    text = (
        "  Warning  Failed     62s (x4 over 105s)  kubelet            Error: failed to create containerd task: failed to"
        " create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during"
        " container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as"
        " 'legacy'\n"
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer"
        " version, or use an earlier cuda container: unknown\n"
        "  Warning  BackOff  29s (x8 over 104s)  kubelet  Back-off restarting failed container kserve-container\n"
    )
    [finding] = [f for f in analyze_text(text)["findings"] if f.get("mechanism")]
    assert (finding["rule"], finding["mechanism"], finding["signature"]) == (
        "cuda-driver-mismatch",
        "cuda_driver",
        "cuda-driver-container-requirement",
    )
    assert finding["phase"] == "startup"
    # another requirement the hook checks (no "cuda>=" predicate: no driver advice in its words) is not this one
    other = "nvidia-container-cli: requirement error: unsatisfied condition: brand = tesla\n"
    assert all(f.get("signature") != "cuda-driver-container-requirement" for f in analyze_text(other)["findings"])


def test_sglangs_version_in_a_code_span_after_its_name():
    # sglang-38022's shape: an environment list item, the version in a code span after the name and an image after it
    text = "- sglang `0.0.0.dev1+g033446bb05` (image `lmsysorg/sglang:glm-5.3-flash`)\n- Model: GLM-5.3-Flash\n"
    assert stated_versions(text) == {"sglang": "0.0.0.dev1+g033446bb05"}
    assert stated_versions("- SGLang `v0.5.17`\n") == {"sglang": "0.5.17"}
    # as for the bare form, a range's bound, a fix and a change of release state no version in use
    assert stated_versions("sglang `0.5.3` or above fixes it\n") == {}
    assert stated_versions("fixed in sglang `0.5.18`\n") == {}
    assert stated_versions("I upgraded sglang from `0.5.16` to `0.5.17` and it still fails\n") == {}


_VIEWER_TABLE = (
    "```\n"
    '2026-06-04 03:58:55.423 | File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 3616,'
    " in run_scheduler_process |  \n"
    "-- | -- | --\n"
    "  |   | 2026-06-04 03:58:55.423 | scheduler.run_event_loop() |  \n"
    '  |   | 2026-06-04 03:58:55.423 | File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1300,'
    " in run_event_loop |  \n"
    "  |   | 2026-06-04 03:58:55.423 | dispatch_event_loop(self) |  \n"
    '  |   | 2026-06-04 03:58:55.423 | File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler_pp_mixin.py",'
    " line 108, in event_loop_pp |  \n"
    "  |   | 2026-06-04 03:58:55.423 | result, self.launch_event = self._pp_launch_batch( |  \n"
)


def test_a_log_viewers_table_pasted_as_markdown_rows_is_read_as_its_messages():
    # sglang-22607's shape: a viewer's rows (time stamp, message) that GitHub turned into Markdown table rows
    [crash] = [f for f in analyze_text(_VIEWER_TABLE)["findings"] if f["rule"] in ("runtime-crash", "failure-time-unknown")]
    assert (crash["rule"], crash["phase"]) == ("runtime-crash", "serving")
    assert "scheduler_pp_mixin.py:108 event_loop_pp" in crash["message"]
    # a Markdown table whose rows hold no log line (a benchmark's results by date) is left as it is: no failure
    results = "| date | throughput |\n|---|---|\n| 2026-06-04 03:58:55 | 1200 tok/s |\n| 2026-06-05 03:58:55 | 1180 tok/s |\n"
    assert [f["rule"] for f in analyze_text(results)["findings"] if f.get("severity") == "error"] == []


def _failure_rules(text: str) -> list[tuple[str, str | None]]:
    return [(f["rule"], f.get("phase")) for f in analyze_text(text)["findings"] if f.get("severity") == "error"]


def test_a_failure_inside_a_when_clause_of_any_instance_is_a_rules_condition():
    # miles-572's shape: a pull request's summary item says what the code does when any server process dies
    summary = (
        "- **Added crash diagnostics to `_wait_server_healthy`**: When an SGLang server process dies during startup, the"
        " error now includes the exit code, signal name (e.g. `SIGKILL` for OOM), elapsed time, and server URL.\n"
    )
    assert _failure_rules(summary) == []
    # a run's report ("When I started the server ...") keeps its placed failure
    report = "When I started the server, it died during startup with exit code 1.\n"
    assert _failure_rules(report) == [("startup-crash", "startup")]

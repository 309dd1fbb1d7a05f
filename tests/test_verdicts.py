"""Failure verdicts claim no more than the paste shows (issue 34): when it happened, what the exception said."""

from __future__ import annotations

from logscope.core.events import Event
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.failures import exception_quote
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.signatures.match import frame_quote
from tests.helpers import analyze_text


def _findings(text: str) -> list[dict]:
    return analyze_text(text)["findings"]


def test_a_markdown_heading_is_no_unrecognised_failure():
    report = analyze_text("### Error Log\n\nIt hangs.\n## Failed attempts\n# Error Log\n")
    assert report["findings"] == []
    assert report["coverage"].get("unmatched_failures", []) == []


def test_a_root_prompt_with_a_command_is_still_read():
    report = analyze_text("# python3 -m sglang.launch_server --model-path /m --mem-fraction-static 0.8\n")
    assert report["launches"][0]["config"]["mem_fraction_static"] == 0.8


def test_the_quote_is_the_innermost_message_without_sglangs_capture_wrapper():
    text = (
        "Exception: Capture cuda graph failed: Cannot call CUDAGeneratorImpl::current_seed during CUDA graph capture. "
        "If you need this call to be captured, please file an issue. "
        "Current cudaStreamCaptureStatus: cudaStreamCaptureStatusActive"
    )
    event = Event("exception", "x.log", 1, text, None, None, {})
    assert exception_quote(event) == (
        "Exception: Cannot call CUDAGeneratorImpl::current_seed during CUDA graph capture. If you need this call to be "
        "captured, please file an issue. Current cudaStreamCaptureStatus: cudaStreamCaptureStatusActive"
    )


def test_a_bare_class_name_says_the_paste_shows_no_message():
    assert (
        exception_quote(Event("exception", "x.log", 1, "RuntimeError:", None, None, {}))
        == "RuntimeError (the paste shows no message)"
    )


def test_a_ray_task_error_is_quoted_with_its_cause_torch_s_oom():
    # ray exceptions.py: RayTaskError.as_instanceof_cause names the class f"RayTaskError({cause_cls.__name__})" but
    # returns Ray's own errors unwrapped ("don't try to wrap ray internal errors"): Ray's node-memory OutOfMemoryError
    # is a RayError, so the OutOfMemoryError a task raised is torch's (the oom-ray-task-torch signature)
    text = (
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.10/site-packages/ray/_private/worker.py", line 906, in get_objects\n'
        "    raise value.as_instanceof_cause()\n"
        "ray.exceptions.RayTaskError(OutOfMemoryError): ray::main_task() (pid=508648, ip=10.1.200.6)\n"
        '  File "/work/verl/verl/trainer/ppo/ray_trainer.py", line 901, in fit\n'
    )
    (finding,) = _findings(text)
    assert (finding["rule"], finding["signature"]) == ("oom-time-unknown", "oom-ray-task-torch")
    assert "RayTaskError(OutOfMemoryError): ray::main_task() (pid=508648" in finding["message"]
    assert "cut before its exception line" not in finding["message"]


_VIEWER_SORTED = (
    "[2026-06-15 14:10:40] The server is fired up and ready to roll!\n"
    "AssertionError: Committed KV cache already freed (self.kv_committed_len=1)\n"
    "[2026-06-15 14:10:59 TP7] Scheduler hit an exception: Traceback (most recent call last):\n"
    'File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1024, in event_loop_overlap\n'
    "batch = self.get_next_batch_to_run()\n"
    'File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/common.py", line 412, in release_kv_cache\n'
)


def test_an_exception_line_printed_just_before_its_traceback_ends_it():
    (finding,) = analyze_text(_VIEWER_SORTED + "[2026-06-15 14:11:00] Killed the scheduler.\n")["findings"]
    assert finding["rule"] == "runtime-crash" and finding["signature"] == "sglang-raised-srt"
    assert "AssertionError: Committed KV cache already freed (self.kv_committed_len=1)" in finding["message"]
    assert "common.py:412 release_kv_cache" in finding["message"]


def test_a_cut_frame_under_a_traceback_names_no_raising_frame():
    (finding,) = analyze_text(_VIEWER_SORTED + 'File "/sgl-workspace/sglang/python/sglang\n')["findings"]
    assert finding["rule"] == "runtime-crash" and finding.get("signature") is None
    assert "AssertionError: Committed KV cache already freed" in finding["message"]


def test_an_exception_line_before_a_complete_traceback_is_not_taken_into_it():
    text = (
        "ValueError: first failure\n"
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/managers/scheduler.py", line 10, in event_loop_overlap\n'
        "RuntimeError: second failure\n"
    )
    messages = [f["message"] for f in analyze_text(text)["findings"]]
    assert any("RuntimeError: second failure" in m for m in messages)
    assert not any("ValueError: first failure" in m and "scheduler.py:10" in m for m in messages)


def test_a_frame_line_with_its_source_line_glued_on_is_read():
    text = (
        "[2025-03-03 06:49:20] The server is fired up and ready to roll!\n"
        "[2025-03-03 06:49:28 TP5] Scheduler hit an exception: Traceback (most recent call last):\n"
        'File "/usr/lib/python3/site-packages/sglang/srt/managers/scheduler.py", line 1796, in run_scheduler_process schedule\n'
    )
    (finding,) = analyze_text(text)["findings"]
    assert finding["rule"] == "runtime-crash"
    assert "scheduler.py:1796 run_scheduler_process" in finding["message"]


def test_an_exception_in_parentheses_in_a_sentence_is_a_failure_quoted_in_prose():
    text = (
        "When launched with LMCache it crashed with assertion without sending any request (AssertionError: "
        "Committed KV cache already freed (self.kv_committed_len=14)).\n"
    )
    (finding,) = _findings(text)
    assert finding["rule"] == "failure-time-unknown"
    assert "AssertionError: Committed KV cache already freed (self.kv_committed_len=14)" in finding["message"]
    assert finding["evidence"][0]["text"].startswith("(quoted in prose) AssertionError: Committed KV cache")


def test_a_sentence_cut_inside_the_parenthesis_still_names_the_exception():
    (finding,) = _findings("It crashed right away (AssertionError: Committed KV cache\n")
    assert "AssertionError: Committed KV cache" in finding["message"]


def test_parentheses_without_an_exception_in_prose_are_no_failure():
    assert _findings("It works (see the Error handling section: nothing failed) with --tp 2.\n") == []


def test_a_header_whose_traceback_follows_is_no_crash_of_its_own_whatever_the_rank_order():
    # TP0's header and cut traceback come after TP7's whole traceback; the ranks are listed TP7, TP0 or TP0, TP7
    text = (
        "[2025-12-06 02:08:51 TP0] Init torch distributed begin.\n"
        "[2025-12-06 02:08:52 TP7] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2656, in run_scheduler_process\n'
        "    scheduler = Scheduler(\n"
        '  File "/sgl/python/sglang/srt/mem_cache/mamba_radix_cache.py", line 324, in __init__\n'
        "AssertionError\n"
        "[2025-12-06 02:08:52 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2656, in run_scheduler_process\n'
        "    scheduler = Scheduler(\n"
        '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 430, in __init__\n'
    )
    report = analyze_text(text)
    assert [f["rule"] for f in report["findings"]] == ["startup-crash"]
    analysis = analyze_model([Source(name="p.log", path=None, data=text.encode())])
    found = [(f.finding, f.event.line) for fs in analysis.failures.values() for f in fs]
    assert found == [("startup-crash", 6), ("startup-crash", 10)]  # TP7's exception line, TP0's innermost frame


def test_a_scheduler_header_cut_inside_traceback_is_still_a_crash():
    text = "[2026-06-25 02:11:17 PP1 TP3] Scheduler hit an exception: Traceback (most recen\n"
    (finding,) = _findings(text)
    assert finding["rule"] == "failure-time-unknown"
    assert "Scheduler hit an exception (no traceback read after it)" in finding["message"]


def test_a_traceback_exported_newest_line_first_is_read_in_order():
    text = (
        '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 1645, in prepare_dp_attn_batch\n'
        "    batch, _ = self.prepare_dp_attn_batch(batch)\n"
        '  File "/sgl/python/sglang/srt/disaggregation/decode.py", line 592, in _prepare_idle_batch_and_run\n'
        "    batch, result = self._prepare_idle_batch_and_run(\n"
        '  File "/sgl/python/sglang/srt/disaggregation/decode.py", line 691, in event_loop_overlap_disagg_decode\n'
        "    return func(*args, **kwargs)\n"
        '  File "/usr/lib/python3/dist-packages/torch/utils/_contextlib.py", line 116, in decorate_context\n'
        "    scheduler.event_loop_overlap_disagg_decode()\n"
        '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2311, in run_scheduler_process\n'
        "[2025-06-30 16:57:53 DP7 TP7] Scheduler hit an exception: Traceback (most recent call last):\n"
    )
    (finding,) = _findings(text)
    assert finding["rule"] == "runtime-crash"
    assert "(innermost frame: scheduler.py:1645 prepare_dp_attn_batch)" in finding["message"]


def test_a_recursive_frame_in_order_is_not_taken_for_a_reversed_export():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/managers/scheduler.py", line 10, in run_scheduler_process\n'
        "    walk(tree)\n"
        '  File "/x/sglang/srt/mem_cache/radix_cache.py", line 20, in walk\n'
        "    walk(child)\n"
        '  File "/x/sglang/srt/mem_cache/radix_cache.py", line 20, in walk\n'
        "    walk(child)\n"
        '  File "/x/sglang/srt/mem_cache/radix_cache.py", line 22, in walk\n'
    )
    analysis = analyze_model([Source(name="p.log", path=None, data=text.encode())])
    (failure,) = [f for fs in analysis.failures.values() for f in fs]
    assert failure.event.data["frames"][-1] == "radix_cache.py:22 walk"
    assert "lines_reversed" not in failure.event.data


def test_an_exception_named_after_a_sentences_words_is_a_failure_quoted_in_prose():
    # the shape of LlamaFactory#8544 (a chat UI switched to SGLang): the exception after a full-width comma and words
    text = (
        "\uff0cinstalled and chat again, RuntimeError: SGLang server initialization failed: name 'launch_server_cmd' "
        "is not defined.\n"
    )
    (finding,) = _findings(text)
    assert finding["rule"] == "startup-crash"
    assert "SGLang server initialization failed: name 'launch_server_cmd' is not defined" in finding["message"]
    assert finding["evidence"][0]["text"].startswith("(quoted in prose) RuntimeError: SGLang server initialization")
    (finding,) = _findings("to chat, show logs is importlib.metadata.PackageNotFoundError: No package metadata was found\n")
    assert "PackageNotFoundError: No package metadata" in finding["message"]


def test_an_exception_a_sentence_asks_about_fixes_or_denies_is_no_failure():
    assert _findings("How do I get past RuntimeError: the value was wrong here?\n") == []
    assert _findings("It runs and there is no RuntimeError: the value was wrong here this time.\n") == []
    assert _findings("This PR fixes ValueError: bad value in the config parser.\n") == []


def test_another_engines_exception_or_a_designed_answer_named_in_a_sentence_is_no_failure():
    # review12a item 19
    text = "On vLLM this gives ValueError: The model's max seq len is larger than KV cache, but SGLang works.\n"
    assert _findings(text) == []
    text = "The router now returns HTTPException: 400 Bad Request for an empty prompt, which is what we want.\n"
    assert _findings(text) == []
    # (the same exception said of this run still reads)
    (finding,) = _findings("On H20 this gives ValueError: The model's max seq len is larger than KV cache.\n")
    assert "max seq len is larger than KV cache" in finding["message"]


def test_a_fenced_note_of_a_policy_and_a_documented_error_body_are_no_failure():
    # review12a item 19
    assert _findings("```\nTimeout waiting for the server to start; failed health checks are retried\n```\n") == []
    text = (
        "Error handling docs:\n```json\n"
        '{"object": "error", "message": "The input is too long for this model", "type": "BadRequestError", "code": 400}\n'
        "```\nThis is the format the router returns; I suggest adding the request id.\n"
    )
    # (the heading line "Error handling docs:" is read as before; the example body adds no failing line)
    assert all("more such line" not in f["message"] and "too long" not in f["message"] for f in _findings(text))


def test_an_exception_named_in_a_sentence_gives_way_to_the_logs_own_failure():
    text = (
        "I started the server and got KeyError: 'model' in the end.\n"
        "[2026-01-04 03:36:55 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2655, in run_scheduler_process\n'
        "    scheduler.event_loop_normal()\n"
        "ValueError: the log's own failure\n"
    )
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    failures = [f for found in analysis.failures.values() for f in found]
    assert [f.event.text for f in failures] == ["ValueError: the log's own failure"]


def test_a_failure_line_in_a_code_fence_with_no_known_head_is_an_unrecognized_failure():
    # mattshma/bigdata#118's shape: a kubelet event copied into a fence, no log prefix; read as prose it said nothing
    line = (
        'Exec lifecycle hook (xxx) for Container "xxxx" in Pod "xxx" failed - error: command \'xxxx\' exited with 137: ,'
        " message: ''"
    )
    (finding,) = _findings("The container fails when it starts:\n```\n" + line + "\n```\n")
    assert finding["rule"] == "unrecognized-failure"
    assert "Exec lifecycle hook (xxx) for Container" in finding["message"]


def test_a_failure_line_among_log_records_of_a_paste_without_fences_is_an_unrecognized_failure():
    # a fence's content pasted without its fence (the verbs' wording of deepseek-v4-flash-dspark-2x-dgx-spark-259's
    # memory registration): the line no head announces sits between the rank's records, so it is output, not prose
    log = (
        "[2026-09-11 10:00:05 TP0] Load weight begin. avail mem=78.00 GB\n"
        "ibv_reg_mr_iova2 failed: Cannot allocate memory\n"
        "[2026-09-11 10:00:07 TP0] Init torch distributed begin.\n"
    )
    rules = [f["rule"] for f in _findings(log)]
    assert "unrecognized-failure" in rules
    (finding,) = [f for f in _findings(log) if f["rule"] == "unrecognized-failure"]
    assert '"ibv_reg_mr_iova2 failed: Cannot allocate memory"' in finding["message"]
    # below a record only (the log's last line) too
    assert "unrecognized-failure" in [f["rule"] for f in _findings(log.rsplit("[2026", 1)[0])]


def test_a_line_beside_a_record_in_a_paste_with_fences_or_away_from_records_stays_prose():
    # a paste that fences its output says the unfenced lines are its prose
    fenced = (
        "```\n[2026-09-11 10:00:05 TP0] Load weight begin. avail mem=78.00 GB\n```\n"
        "[2026-09-11 10:00:06 TP0] Load weight begin. avail mem=78.00 GB\n"
        "ibv_reg_mr_iova2 failed: Cannot allocate memory\n"
    )
    assert "unrecognized-failure" not in [f["rule"] for f in _findings(fenced)]
    # three blank lines or a sentence away from any record: prose
    record = "[2026-09-11 10:00:05 TP0] Load weight begin. avail mem=78.00 GB\n"
    far = record + "\n\n\nibv_reg_mr_iova2 failed: Cannot allocate memory\n"
    assert "unrecognized-failure" not in [f["rule"] for f in _findings(far)]


def test_the_writer_s_sentence_right_under_an_unfenced_log_is_no_unread_failure():
    # review14b item 4: a pronoun or an article opening a sentence under a bare log is the writer's, no record
    log = (
        "[2025-10-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, mem_fraction_static=0.85)\n"
        "[2025-10-01 10:00:30] The server is fired up and ready to roll!\n"
    )
    said = "The earlier connection failed error is gone with this version, throughput is the only problem.\n"
    assert _findings(log + said) == []
    assert _findings(log + "It is the same with the old image, the earlier shard index failed message is gone.\n") == []
    # the program's own line there still reads as one
    (finding,) = _findings(log + "ibv_reg_mr_iova2 failed: Cannot allocate memory\n")
    assert finding["rule"] == "unrecognized-failure"


def test_kubectl_exec_s_report_of_a_user_s_stop_is_no_failure():
    # client-go's "command terminated with exit code %d": 137 (SIGKILL) is a failure, 130 / 143 a user's or an
    # orchestrator's stop
    (finding,) = _findings("command terminated with exit code 137\n")
    assert finding["signature"] == "process-kubectl-exec-exited"
    assert _findings("command terminated with exit code 130\n") == []


def test_a_diagnostic_kubectl_exec_s_exit_code_is_no_failure_of_the_server():
    # review14b item 11: grep's "no match" (exit code 1) under kubectl exec is a diagnostic's answer; the user's own
    # sentence stays the startup crash's message
    paste = (
        "```\n"
        '$ kubectl exec -it sglang-0 -- bash -c "pip list | grep flashinfer-jit"\n'
        "command terminated with exit code 1\n"
        '$ kubectl exec -it sglang-0 -- python3 -c "import sglang; print(sglang.__version__)"\n'
        "0.5.3\n"
        "```\n"
        "The server itself crashes at startup with no error.\n"
    )
    found = _findings(paste)
    assert [f.get("signature") for f in found] == [None]
    assert "command terminated" not in str(found[0])
    assert _findings("command terminated with exit code 1\n") == []
    (segv,) = _findings("command terminated with exit code 139\n")
    assert segv["signature"] == "process-kubectl-exec-exited"


def test_triton_2_s_own_out_of_resources_class_is_an_exception_line():
    # state-spaces/mamba#387 (probe): triton 2.1.0 defined OutOfResources in triton/runtime/autotuner.py, a module whose
    # name says nothing of errors; the exception line alone, in inline code after a sentence
    text = (
        "I always run into the following error:\n"
        "`triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: 663808, Hardware limit:"
        " 101376. Reducing block sizes or `num_stages` may help.`\n"
    )
    (finding,) = _findings(text)
    assert finding["rule"] == "failure-time-unknown"
    assert "out of resource: shared memory, Required: 663808, Hardware limit: 101376" in finding["message"]
    assert "raised in Triton" in finding["message"]


def test_an_api_trace_of_calls_that_read_the_last_error_is_no_failure():
    # ROCm/legacy-rocm-build#2804 (probe): AMD_LOG_LEVEL=3's trace; hipGetLastError is a call that reads the last error,
    # the calls returned hipSuccess
    trace = (
        "```\n"
        ":3:hip_module.cpp           :679 : 0893897958 us: [pid:110   tid:0x7f5fe9669740] hipLaunchKernel: "
        "Returned hipSuccess : \n"
        ":3:hip_error.cpp            :27  : 0893897962 us: [pid:110   tid:0x7f5fe9669740]  hipGetLastError (  ) \n"
        ":3:hip_device_runtime.cpp   :561 : 0893897967 us: [pid:110   tid:0x7f5fe9669740]  hipSetDevice ( 0 ) \n"
        "```\n"
    )
    assert _findings(trace) == []
    # a line that reports an error is still one
    assert [f["rule"] for f in _findings("```\nRuntimeError: HIP error: invalid device function\n```\n")] == [
        "failure-time-unknown"
    ]


def test_a_sentence_pointing_at_attachments_behind_a_line_that_says_so_states_the_failure():
    # sgl-project/sglang#23574 (probe): the sentence ends with a colon, then "... logs are attached." and the links
    text = (
        "After some time, the decode server crashes with a CUDA device-side assert:\n\n"
        "Decode/prefill/router logs are attached.\n\n"
        "[decode-qwen.log](https://github.com/user-attachments/files/27014726/decode-qwen.log)\n"
    )
    (finding,) = _findings(text)
    assert finding["rule"] == "failure-time-unknown"
    assert "the decode server crashes with a CUDA device-side assert" in finding["message"]
    # no link after the line that says so: the text it points at may be the paste's own, the sentence states nothing
    link = "[decode-qwen.log](https://github.com/user-attachments/files/27014726/decode-qwen.log)"
    assert _findings(text.replace(link, "ok")) == []


def test_a_failure_message_no_signature_knows_quoted_in_a_reporting_sentence_is_an_unread_failure():
    # the quoted verbs' wording of deepseek-v4-flash-dspark-2x-dgx-spark-259 (built), said with "failed": a program's
    # failure message in a code span of a sentence that reports it
    (finding,) = _findings("I got `ibv_reg_mr_iova2 failed: Cannot allocate memory` on this node.\n")
    assert finding["rule"] == "unrecognized-failure"
    assert '"ibv_reg_mr_iova2 failed: Cannot allocate memory"' in finding["message"]
    # a fix, a condition, a command's settings and a lone word state none
    assert _findings("This PR fixes `ibv_reg_mr_iova2 failed: Cannot allocate memory` on arm64.\n") == []
    assert _findings("If you see `ibv_reg_mr_iova2 failed: Cannot allocate memory`, raise the memlock limit.\n") == []
    assert _findings("I ran `mpirun -np 16 -x NCCL_DEBUG=WARN ./all_reduce_perf -b 8 -e 8G` on two nodes.\n") == []
    assert _findings("The log shows `Error` twice.\n") == []
    # review14b item 5: a sentence that documents the message quotes it without having met it
    docs = "In the docs, `worker heartbeat failed: connection refused` is the message you see when the router restarts.\n"
    assert _findings(docs) == []
    assert _findings("The error message `worker heartbeat failed: connection refused` is documented in the README.\n") == []


def test_a_launcher_s_report_of_a_stop_signal_is_no_failure():
    # srun's "Terminated" and mpirun's signal 15 are a cancel's or a user's stop; SIGKILL is a failure
    assert _findings("srun: error: node12: task 3: Terminated\n") == []
    assert _findings("mpirun noticed that process rank 3 with PID 0 on node n1 exited on signal 15 (Terminated).\n") == []
    (finding,) = _findings("srun: error: node12: tasks 0-7: Killed\n")
    assert finding["signature"] == "process-slurm-task-signaled"


def test_source_code_and_list_items_in_a_fence_are_no_failure():
    code = '```python\nif not loaded:\n    raise RuntimeError("Failed to load")\nexcept Exception as e:\n```\n'
    assert _findings(code) == []
    assert _findings("```\n### Error handling\n- Failed requests are retried.\n```\n") == []


def test_a_docker_ps_row_of_a_container_stopped_cleanly_or_by_a_user_is_no_failure():
    rows = (
        '3945a56e7530   nginx:1.12.0             "nginx"                  8 days ago    Exited (0) 27 hours ago     nginx_1\n'
        '5b1c9e0d2a11   lmsysorg/sglang:latest   "python3 -m sglang.l…"   2 hours ago   Exited (143) 5 minutes ago  sglang\n'
    )
    assert _findings(rows) == []
    killed = rows.replace("Exited (143)", "Exited (137)")
    (finding,) = _findings(killed)
    assert finding["signature"] == "process-docker-ps-exited"
    assert "Exited (137) 5 minutes ago" in finding["message"]


def test_a_native_frame_is_quoted_without_addresses():
    frame = (
        "/usr/local/lib/python3.12/dist-packages/nvidia/nccl/lib/libnccl.so.2(+0x8d1c2) [0x7f01d9e8d1c2] SaveProxy() "
        "/dvs/p4/build/sw/gpgpu/nccl/gitfusion/stable/src/proxy.cc:518"
    )
    assert frame_quote(frame) == ".../lib/libnccl.so.2 SaveProxy() .../src/proxy.cc:518"


def test_a_prefill_batch_line_places_a_crash_in_serving_and_says_the_warmup_caveat():
    found = _findings(
        "[2026-08-14 09:31:44 TP0] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.62, "
        "#running-req: 11, #queue-req: 3\n"
        "[2026-08-14 09:31:46 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        "KeyError: 'rid'\n"
    )
    assert [f["rule"] for f in found] == ["runtime-crash"]
    assert "after line 1 showed the scheduler running a batch (SGLang's warmup request is one too)" in found[0]["message"]


def test_the_overlap_worker_header_gives_serving_and_the_rank():
    found = _findings(
        "[2026-08-14 09:31:46 DP0 TP0 EP0] TpModelWorkerClient hit an exception: Traceback (most recent call last):\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.25 GiB. GPU 0 has a total capacity of 139.81 GiB "
        "of which 2.07 GiB is free.\n"
    )
    assert [(f["rule"], f["ranks"]) for f in found] == [("runtime-oom", ["DP0 TP0 EP0"])]
    assert "tried to allocate 5.25 GiB with 2.07 GiB free of 139.81 GiB" in found[0]["message"]


def test_an_oom_after_startups_last_phase_line_alone_has_an_unknown_time():
    found = _findings(
        "[2026-05-19 03:22:45 TP0] Capture cuda graph end. Time elapsed: 12.31 s. mem usage=1.20 GB. avail mem=8.40 GB.\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 has a total capacity of 79.19 GiB "
        "of which 1.10 GiB is free.\n"
    )
    assert [f["rule"] for f in found] == ["oom-time-unknown"]
    assert (
        "after the rank's last phase line, capture_end (startup's end); nothing shows whether requests had begun"
        in found[0]["message"]
    )


def test_an_oom_in_an_api_error_body_is_serving():
    found = _findings(
        '{"object":"error","message":"CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of '
        '79.15 GiB of which 1.02 GiB is free.","type":"BadRequestError","param":null,"code":400}\n'
    )
    assert [f["rule"] for f in found] == ["runtime-oom"]
    assert "tried to allocate 2.00 GiB with 1.02 GiB free of 79.15 GiB" in found[0]["message"]

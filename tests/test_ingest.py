"""Paste wrappers are removed before parsing, and never fatal."""

from __future__ import annotations

from logscope.pipeline.ingest.ingest import clean, rank_hint_from_name
from tests.helpers import analyze_text

LINE = "[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB"


def test_wrappers_are_stripped():
    for wrapped in (
        f"sglang-1  | {LINE}",
        f"2025-10-16T09:06:22.123456789Z {LINE}",
        f"(WorkerDict pid=1234, ip=10.0.0.1) {LINE} [repeated 7x across cluster]",
        f"(model_worker/12 pid=43581, ip=10.208.16.54) {LINE}",  # an actor named by its user (areal#3)
        f"(pid=4411) {LINE}",
        f"> > {LINE}",
        f"\x1b[32m{LINE}\x1b[0m",
        f"<details>{LINE}</details>",
        f"{LINE}\r",
    ):
        assert clean(wrapped) == [LINE], wrapped


def test_a_parenthesis_of_prose_is_no_ray_prefix():
    assert clean("(see the log below pid=12) x") == ["(see the log below pid=12) x"]


def test_carriage_returns_split_progress_bar_updates():
    bar = "Capturing batches (bs=32 avail_mem=27.49 GB):   0%|\rCapturing batches (bs=24 avail_mem=21.80 GB):  12%|"
    assert len(clean(bar)) == 2


def test_log_line_glued_to_a_progress_bar_is_split():
    glued = "Multi-thread loading shards:  94% Completed | 15/16 [00:04<00:00,  3.89it/s]" + LINE
    assert clean(glued)[-1] == LINE


def test_rank_from_file_name():
    assert rank_hint_from_name("logs/rank3.log") == {"rank": 3}
    assert rank_hint_from_name("node1_tp8.log") == {"tp": 8, "node": 1}


def test_wrapped_terminal_line_is_rejoined_only_when_unambiguous():
    report = analyze_text("[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.8\n7 GB\n")
    phase = report["launches"][0]["ranks"][0]["phases"][0]
    assert phase["avail_gib"] == 11.87 and phase["line"] == 1


def test_several_launches_in_one_file_are_kept_apart():
    text = (
        "[2025-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n"
        "[2025-01-01 10:00:09] The server is fired up and ready to roll!\n"
        "[2025-01-01 11:00:00 TP0] Init torch distributed begin.\n"
        "[2025-01-01 11:00:01 TP0] Load weight begin. avail mem=60.00 GB\n"
    )
    report = analyze_text(text)
    assert [[p["avail_gib"] for p in launch["ranks"][0]["phases"] if "avail_gib" in p] for launch in report["launches"]] == [
        [70.0],
        [60.0],
    ]


def test_draft_model_phases_are_kept_apart_from_the_target():
    text = (
        "[2025-01-01 10:00:00 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=40.00 GB\n"
        "[2025-01-01 10:00:05 TP0] Capture cuda graph end. Time elapsed: 3.00 s. mem usage=1.00 GB. avail mem=9.00 GB.\n"
        "[2025-01-01 10:00:06 TP0] Load weight begin. avail mem=9.00 GB\n"
        "[2025-01-01 10:00:07 TP0] Load weight end. type=DeepseekV3ForCausalLMNextN, dtype=torch.bfloat16, avail mem=8.00 GB\n"
    )
    phases = analyze_text(text)["launches"][0]["ranks"][0]["phases"]
    assert [(p["phase"], p["model"]) for p in phases] == [
        ("load_weight_end", "target"),
        ("capture_end", "target"),
        ("load_weight_begin", "draft"),
        ("load_weight_end", "draft"),
    ]


def test_lines_split_across_reads_are_joined_exactly(monkeypatch):
    import logscope.pipeline.ingest.ingest as ingest

    monkeypatch.setattr(ingest, "CHUNK_BYTES", 7)  # tiny reads: every line straddles a boundary
    text = (
        "Capturing batches (bs=8 avail_mem=9.00 GB): ██ 1/2\r\n\n"
        "[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\n" + "x" * 40 + "\nlast line without newline"
    )
    source = ingest.Source(name="t", path=None, data=text.encode())
    got = []
    for chunk in source.chunks(("Memory pool end", "Capturing")):
        got += [(chunk.first + i, chunk.line(i)) for i in range(chunk.size)]
    assert [t.rstrip("\r") for _, t in got] == [t.rstrip("\r") for t in text.split("\n")]
    assert [n for n, _ in got] == list(range(1, len(text.split("\n")) + 1))


def test_cloud_log_export_prefixes_are_stripped_and_newest_first_is_reversed():
    from tests.helpers import analyze_text

    lines = [
        "[2026-01-01 10:00:01 TP0] Load weight begin. avail mem=70.00 GB",
        "[2026-01-01 10:00:03 TP0] Load weight end. type=LlamaForCausalLM, avail mem=40.00 GB, mem usage=30.00 GB.",
        "[2026-01-01 10:00:04 TP0] Memory pool end. avail mem=10.20 GB",
    ]
    severities = ("INFO", "NOTICE", "ERROR")
    exported = [f"{sev} 2026-01-01T10:00:0{i}.123Z {line}" for i, (sev, line) in enumerate(zip(severities, lines))]
    for text in (
        "\n".join(exported),
        "\n".join(reversed(exported)),
        "\n".join(f"2026-01-01T10:00:0{i}+00:00 WARNING {line}" for i, line in enumerate(lines)),
    ):
        (rank,) = analyze_text(text + "\n")["launches"][0]["ranks"]
        assert [(p["phase"], p.get("drop_gib")) for p in rank["phases"]] == [
            ("load_weight_begin", None),
            ("load_weight_end", 30.0),
            ("memory_pool_end", 29.8),
        ]


def test_cloud_logging_severity_label_after_the_export_prefix_is_stripped():
    from tests.helpers import analyze_text

    prefix = "ERROR 2026-02-18T14:43:05.821451064Z [severity: ERROR] "
    assert clean(prefix + "[2026-02-18 14:43:05 TP1] Scheduler hit an exception: Traceback (most recent call last):") == [
        "[2026-02-18 14:43:05 TP1] Scheduler hit an exception: Traceback (most recent call last):"
    ]
    text = "".join(
        prefix + line + "\n"
        for line in (
            "[2026-02-18 14:43:05 TP1] Scheduler hit an exception: Traceback (most recent call last):",
            'File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1123, in event_loop_overlap',
            "batch_result = self.run_batch(batch)",
            'File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2279, in run_batch',
        )
    )
    ids = [f["rule"] for f in analyze_text(text)["findings"]]
    assert ids == ["runtime-crash"]


def test_cri_log_file_and_tab_separated_timestamps_are_stripped():
    line = "[2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):"
    assert clean("2025-07-25T07:53:08.21748708+08:00 stdout F " + line) == [line]
    assert clean("2025-07-25T07:53:08.21748708+08:00 stderr P " + line) == [line]
    assert clean("2025-07-01T00:57:53+08:00\t" + line) == [line]
    assert clean("2025-07-01T00:57:53+08:00 stdoutF x") == ["stdoutF x"]  # no stream field: the time only


def test_kubectl_logs_prefix_is_stripped_and_the_rank_tag_read():
    text = (
        "[pod/sglang-lws-0-1/sglang] [2025-12-01 02:14:55 TP9] Init torch distributed begin.\n"
        "[pod/sglang-lws-0-1/sglang] [2025-12-01 02:14:56 TP9] Load weight begin. avail mem=70.00 GB\n"
    )
    assert clean("[pod/sglang-lws-0-1/sglang] [2025-12-01 02:14:55 TP9] Init torch distributed begin.") == [
        "[2025-12-01 02:14:55 TP9] Init torch distributed begin."
    ]
    ranks = analyze_text(text)["launches"][0]["ranks"]
    assert [r["rank"] for r in ranks] == ["TP9"] and ranks[0]["phases"][-1]["avail_gib"] == 70.0


def test_an_oom_text_pasted_twice_makes_one_gpu_record():
    oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.25 GiB. GPU 3 has a total capacity of 79.11 GiB"
        " of which 1.87 GiB is free. Including non-PyTorch memory, this process has 77.22 GiB memory in use.\n"
    )
    gpus = analyze_text("[2026-01-01 10:00:00 TP3] Load weight begin. avail mem=70.00 GB\n" + oom + oom)["gpus"]
    assert [(g["index"], g["card_total_gib"]) for g in gpus] == [(3, 79.11)]


def test_a_tracing_formatters_target_after_the_time_and_level_is_stripped():
    # ai-dynamo/dynamo's SGLang worker (Rust tracing's format: time, level, then the emitting function)
    line = (
        "2025-12-10T13:50:14.788089Z  INFO model_runner.load_model: Load weight end. type=DeepseekV3ForCausalLM, "
        "dtype=torch.bfloat16, avail mem=36.44 GB, mem usage=41.58 GB."
    )
    assert clean(line) == [line.split("model_runner.load_model: ", 1)[1]]
    # an exception's class is never taken for the target
    error = "2025-12-10T13:50:14.788089Z ERROR torch.distributed.DistBackendError: NCCL error in: x"
    assert clean(error) == ["torch.distributed.DistBackendError: NCCL error in: x"]


def test_a_tracing_record_at_error_level_keeps_its_level_word():
    # tracing-subscriber's Full format states the record's own level (SGLang's router: sgl-router, Rust): an ERROR record
    # whose message names no known failure is still read as a failure, a WARN or INFO record is not
    from tests.helpers import analyze_text

    error = "2025-10-29T21:49:19.123456Z ERROR sglang_router_rs::core::worker: Worker http://10.0.0.1:30000 health check failed"
    assert clean(error) == ["ERROR Worker http://10.0.0.1:30000 health check failed"]
    assert [f["rule"] for f in analyze_text(error + "\n")["findings"]] == ["unrecognized-failure"]
    warn = error.replace(" ERROR ", "  WARN ")
    assert clean(warn) == ["Worker http://10.0.0.1:30000 health check failed"]
    assert analyze_text(warn + "\n")["findings"] == []
    # a traceback or an exception line after it is read as it stands; a cloud export's severity (its stream's) is dropped
    assert clean("2025-10-29T21:49:19Z ERROR dynamo.sglang: Traceback (most recent call last):") == [
        "Traceback (most recent call last):"
    ]
    assert clean("ERROR 2026-02-18T14:43:05.821451064Z [severity: ERROR] batch_result = self.run_batch(batch)") == [
        "batch_result = self.run_batch(batch)"
    ]


def test_a_loguru_record_is_read_as_its_message_and_an_error_record_keeps_its_level():
    # loguru 0.7.3's default format: time | level padded to 8 | name:function:line - message
    from tests.helpers import analyze_text

    info = "2025-10-01 12:00:00.123 | INFO     | app.client:run:42 - sent 128 requests to http://10.0.0.1:30000"
    assert clean(info) == ["sent 128 requests to http://10.0.0.1:30000"]
    error = "2025-10-01 12:00:00.123 | ERROR    | app.client:run:57 - model server is not responding"
    assert clean(error) == ["ERROR model server is not responding"]
    assert [f["rule"] for f in analyze_text(error + "\n")["findings"]] == ["unrecognized-failure"]
    assert analyze_text(error.replace("ERROR   ", "WARNING ") + "\n")["findings"] == []


def test_vllms_prefix_on_every_line_of_a_logged_traceback_keeps_no_level():
    # vLLM's formatter puts its prefix on each line of a record, a traceback's code lines included: its ERROR is the
    # record's, not each line's
    line = "ERROR 04-27 19:04:27 [core.py:1100]     fp8_gemm_nt("
    assert clean(line) == ["    fp8_gemm_nt("]


def test_compose_prefix_of_the_longest_service_name_has_one_space_before_the_bar():
    # docker-compose v1 log_printer.build_log_prefix: name.ljust(max_name_width) + " | " (sglang-15868's form)
    frame = '  File "/sgl/srt/model_executor/model_runner.py", line 2064, in init_device_graphs'
    assert clean(f"qwen3-next-80b-a3b | {frame}") == [frame]
    assert clean(f"qwen3-next-80b-a3b | {LINE}") == [LINE]
    assert clean("qwen3-next-80b-a3b | RuntimeError: x") == ["RuntimeError: x"]
    # a Markdown table's row without its leading bar stays as written
    for row in ("DeepEP | 1.2.1", "torch | [2.8.0] | cu128", "name | value"):
        assert clean(row) == [row]


def test_a_traceback_behind_the_longest_compose_name_is_placed_at_capture():
    frames = [
        ("sglang/srt/model_executor/model_runner.py", 518, "initialize", "self.init_device_graphs()"),
        ("sglang/srt/model_executor/model_runner.py", 2064, "init_device_graphs", "self.graph_runner = x(self)"),
    ]
    lines = ["qwen3-next-80b-a3b | Traceback (most recent call last):"]
    for path, lineno, func, code in frames:
        lines.append(f'qwen3-next-80b-a3b |  File "/usr/lib/python3.11/site-packages/{path}", line {lineno}, in {func}')
        lines.append(f"qwen3-next-80b-a3b |    {code}")
    report = analyze_text("\n".join(lines))
    assert [(f["rule"], f.get("phase")) for f in report["findings"]] == [("startup-crash", "capture")]


# GitHub's autolinks of "#N" in a copy of a rendered issue (awesome-ml-sys-tutorial-106, built): the frame numbers of
# torch's C++ backtrace became links; the number alone is what the program printed
AUTOLINKED = (
    "(WorkerDict pid=616, ip=192.168.149.159) frame [#44](https://github.com/zhaochenyang20/Awesome-ML-SYS-Tutorial/pull/44):"
    " + 0x29ac5d (0x55ba19095c5d in sglang::scheduler_TP0)"
)


def test_a_github_autolink_of_a_number_is_the_number_again():
    assert clean(AUTOLINKED) == ["frame #44: + 0x29ac5d (0x55ba19095c5d in sglang::scheduler_TP0)"]
    # a link to another number is a link someone wrote, kept
    other = "see [#12](https://github.com/sgl-project/sglang/issues/13) for the fix"
    assert clean(other) == [other]


def test_a_backtrace_whose_frame_numbers_were_autolinked_is_a_failure():
    frames = [
        AUTOLINKED,
        "(WorkerDict pid=616, ip=192.168.149.159) frame [#45](https://github.com/zhaochenyang20/Awesome-ML-SYS-Tutorial/pull/45):"
        " PyEval_EvalCode + 0x9f (0x55ba1909539f in sglang::scheduler_TP0)",
        "(WorkerDict pid=616, ip=192.168.149.159) frame [#46](https://github.com/zhaochenyang20/Awesome-ML-SYS-Tutorial/issues/46):"
        " + 0x2b831a (0x55ba190b331a in sglang::scheduler_TP0)",
    ]
    findings = analyze_text("\n".join(frames) + "\n")["findings"]
    assert [(f["rule"], f["phase"]) for f in findings] == [("failure-time-unknown", "unknown")]
    # (before the links were undone, the same frames read as nothing: exit 0)
    assert "+ 0x29ac5d (0x55ba19095c5d" in findings[0]["message"]


def test_a_log_record_set_in_strong_emphasis_is_read_when_it_holds_an_exception_line():
    # a vLLM ERROR record bolded whole in an issue (kvcache-ai/Mooncake#23's shape, the log below its traceback's frames):
    # the emphasis goes when the record's prefix leaves an exception's line, and the failure names what raised it
    record = (
        "ERROR 12-08 22:01:13 engine.py:135] ValueError: Error in model execution (input dumped to /tmp/x.pkl): "
        "not enough values to unpack (expected 4, got 2)"
    )
    assert clean(f"**{record}**") == [record.split("] ", 1)[1]]
    frames = (
        'ERROR 12-08 22:01:13 engine.py:135]   File "/opt/vllm/vllm/worker/model_runner_base.py", line 152, in _wrapper\n'
        "ERROR 12-08 22:01:13 engine.py:135]     raise type(err)(\n"
    )
    bold = [(f["rule"], f["message"]) for f in analyze_text(frames + f"**{record}**\n")["findings"]]
    plain = [(f["rule"], f["message"]) for f in analyze_text(frames + record + "\n")["findings"]]
    assert bold == plain and "ValueError: Error in model execution" in bold[0][1]
    # a bold line of other words, or a bold record that is no exception's, stays as written
    for kept in ("**Feature request**", "**ERROR 12-08 22:01:13 engine.py:135] the engine is shut down**"):
        assert clean(kept) == [kept]


def test_a_banner_of_stars_around_an_exception_line_is_read_in_linear_time_without_recursion():
    # review15a item 3: each `**` layer of a line of stars re-entered the bold strip (a recursion and a regex pass per
    # four stars): a 4 KiB banner with a word in it ended the analysis with RecursionError; one layer is stripped now
    import time

    from logscope.pipeline.ingest.ingest import unwrap

    stars = "*" * 10_000
    assert unwrap(stars) == stars
    banner = f"{stars} RuntimeError: x {stars}"
    assert clean(banner) == [banner]  # stars around a word: a banner, kept as written
    findings = analyze_text(f"[2026-01-01 00:00:00] start\n{banner}\n")["findings"]
    assert [f["rule"] for f in findings] == ["failure-time-unknown"] and "RuntimeError: x" in findings[0]["message"]

    # linear: a 32 KiB line of stars costs about what two 16 KiB lines cost (quadratic was 4x per doubling)
    def cost(n: int) -> float:
        line = "*" * n + " ValueError: y " + "*" * n
        started = time.process_time()
        for _ in range(20):
            unwrap(line)
        return time.process_time() - started

    assert cost(16_384) < 0.5 and cost(16_384) * 2 * 2.5 > cost(32_768) - 0.01
    # one layer still goes: a bold record whose inside is an exception line
    assert unwrap("**ValueError: z**") == "ValueError: z"


def test_a_tracing_record_in_an_indented_block_is_read_as_the_record():
    # a Markdown indented code block (four blanks before each line) of Dynamo's relayed lines (ai-dynamo/dynamo#1422)
    line = "    2025-06-06T19:02:34.252Z DEBUG dynamo_run::subprocess:     raise e"
    assert clean(line) == ["    raise e"]
    # only with the whole prefix (time, level and target) standing after the blanks; a deeper indent is left alone
    assert clean("    2025-06-06T19:02:34.252Z some prose") == ["    2025-06-06T19:02:34.252Z some prose"]
    deep = " " * 12 + "2025-06-06T19:02:34.252Z DEBUG dynamo_run::subprocess: x"
    assert clean(deep) == [deep]


def test_dynamo_runs_relay_of_vllms_lines_leaves_vllms_message():
    # dynamo-run's vLLM engine (ai-dynamo/dynamo lib/llm/src/engines/vllm/worker.rs start_vllm) drops a stdout line's
    # first three words but the level, relays "VLLM: {rest}" through tracing, and a worker's "(VllmWorkerProcess pid=N)
    # ERROR" line loses its pid and level (ai-dynamo/dynamo#430's shape)
    target = "2025-03-31T03:33:02.720245Z  INFO dynamo_llm::engines::vllm::worker: "
    worker = "VLLM: (VllmWorkerProcess 03-31 03:33:02 multiproc_worker_utils.py:242] "
    assert clean(target + worker + "Traceback (most recent call last):") == ["Traceback (most recent call last):"]
    assert clean(target + "VLLM: model_runner.py:1111] Loading model weights took 1.2 GB") == [
        "Loading model weights took 1.2 GB"
    ]
    # a level other than DEBUG, INFO, WARNING is kept by the relay, and read as the record's own
    assert clean(target + "VLLM: ERROR engine.py:135] the engine died") == ["ERROR the engine died"]
    # stderr's lines come through whole
    assert clean(target.replace(" INFO ", " WARN ") + 'VLLM:   File "x.py", line 1, in f') == ['  File "x.py", line 1, in f']
    # another target's "VLLM: " stays as written (an environment list's "VLLM: 0.8.4" is no relay)
    assert clean("2025-03-31T03:33:02.720245Z  INFO dynamo_llm::engines::sglang::worker: VLLM: 0.8.4") == ["VLLM: 0.8.4"]
    assert clean("VLLM: 0.8.4") == ["VLLM: 0.8.4"]


DYNAMO_SGLANG = "2025-03-12T10:00:01.123456Z  INFO dynamo_llm::engines::sglang::worker: "


def test_dynamo_runs_relay_of_sglangs_lines_leaves_sglangs_line():
    # dynamo-run's SGLang engine (ai-dynamo/dynamo lib/llm/src/engines/sglang/worker.rs start_sglang, 2025-03) relays
    # each line as "SGLANG{tp_rank} {line}", a leading "[date time] " stamp dropped, a rank-tagged stamp kept
    tagged = "[2025-03-12 10:00:01 TP0] Load weight begin. avail mem=78.50 GB"
    assert clean(DYNAMO_SGLANG + "SGLANG0 " + tagged) == [tagged]
    assert clean(DYNAMO_SGLANG + "SGLANG3 Traceback (most recent call last):") == ["Traceback (most recent call last):"]
    # the relay's own level is no record's: a WARN relay line is SGLang's line as it stands
    warn = DYNAMO_SGLANG.replace(" INFO ", " WARN ")
    assert clean(warn + "SGLANG1 Loading safetensors checkpoint shards") == ["Loading safetensors checkpoint shards"]
    # negative: another target's "SGLANG0 " stays, and a word that only begins with SGLANG is no relay
    other = "2025-03-12T10:00:01.123456Z  INFO dynamo_run::input::http: SGLANG0 x"
    assert clean(other) == ["SGLANG0 x"]
    assert clean(DYNAMO_SGLANG + "SGLANG_USE_X=1") == ["SGLANG_USE_X=1"]


def test_a_failure_relayed_by_dynamo_run_is_read_as_sglangs():
    log = "\n".join(
        DYNAMO_SGLANG + "SGLANG0 " + line
        for line in [
            "[2025-03-12 10:00:01 TP0] Load weight begin. avail mem=78.50 GB",
            "[2025-03-12 10:00:09 TP0] Scheduler hit an exception: Traceback (most recent call last):",
            '  File "/venv/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py", line 1787, in run_scheduler_process',
            "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)",
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.10 GiB"
            " of which 1.02 GiB is free.",
        ]
    )
    report = analyze_text(log + "\n")
    rules = [f["rule"] for f in report["findings"]]
    assert "startup-oom" in rules, rules


def test_escaped_backticks_in_pairs_are_code_spans():
    # fix15b (megatron-bridge-3704's shape): a comment written through a tool that escapes Markdown's backticks
    escaped = r"The DeepEP \`timeout (dispatch CPU)\` recurred verbatim, \`num_recv_tokens = -1\`."
    assert clean(escaped) == ["The DeepEP `timeout (dispatch CPU)` recurred verbatim, `num_recv_tokens = -1`."]
    # negatives: one escaped backtick, or a line with a bare backtick too, stays as written
    assert clean(r"a \` b") == [r"a \` b"]
    mixed = r"run `x` then \`y\` and \`z"
    assert clean(mixed) == [mixed]


def test_an_escaped_quote_of_a_library_s_failure_said_to_recur_is_read_as_that_library_s():
    report = analyze_text("With the new build the DeepEP \\`timeout (dispatch CPU)\\` recurred on every node.\n")
    assert sorted((f["rule"], f["library"]) for f in report["findings"]) == [
        ("deepep-buffer", "DeepEP"),
        ("failure-time-unknown", "DeepEP"),
    ]

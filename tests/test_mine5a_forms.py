"""Forms the mine5a batch showed on its one scoring (issue 43), each in the real shape of a built paste
(fixtures/mined): a Kubernetes `args:` list of quoted items, a flag and its value on one line and no interpreter
(sglang-18300); a launch's words in a bash array (sglang-19104); the older scheduler summary ending at context_len
(sglang-6291); a crash after the draft model's capture line, in a log viewer's export that puts each line's time
stamp on a line of its own (sglang-6496); argparse's usage error of a launch (sglang-34226); a time said only as a
possibility (sglang-8654)."""

from __future__ import annotations

import pytest

from tests.helpers import ROOT, analyze_text

MINED = ROOT / "fixtures" / "mined"


def _args(report: dict) -> dict:
    (launch,) = report["launches"]
    return launch["server_args"]


def _phases(report: dict, phase: str) -> list[dict]:
    return [p for launch in report["launches"] for rank in launch["ranks"] for p in rank["phases"] if p["phase"] == phase]


def _rules(report: dict) -> list[str]:
    return [f["rule"] for f in report["findings"]]


# ------------------------------------------------------------ a Kubernetes args list, several items a line


# sglang-18300's container spec (its fence ate `command: ["python3"]`): Kubernetes passes `args` to the container's
# command, the interpreter, so "-m", "sglang.launch_server" are python's arguments
K8S_ARGS = """          args: [
                  "-m",
                  "sglang.launch_server",
                  "--model", "Qwen3-Coder-Next-FP8",
                  "--trust-remote-code",
                  "--tp-size", "2",
                  "--tool-call-parser","qwen3_coder",
                  "--mem-fraction-static","0.9",
                  "--enable-metrics",
"""


def test_an_args_list_with_a_flag_and_its_value_on_one_line_and_no_interpreter_is_the_launch():
    args = _args(analyze_text(K8S_ARGS))
    assert args == {
        "model_path": "Qwen3-Coder-Next-FP8",
        "trust_remote_code": True,
        "tp_size": "2",
        "tool_call_parser": "qwen3_coder",
        "mem_fraction_static": "0.9",
        "enable_metrics": True,
    }


def test_the_paste_s_cut_args_list_gives_its_launch():
    args = _args(analyze_text((MINED / "sglang-18300.txt").read_text()))
    assert args["model_path"] == "Qwen3-Coder-Next-FP8" and args["chunked_prefill_size"] == "4096"
    assert args["max_total_tokens"] == args["max_prefill_tokens"] == "262144"


# Kubernetes' command (the interpreter) and args (python's arguments) in each way a manifest writes a list
INTERPRETER_ARGS = {
    "flow list": '      command: ["python3"]\n      args: ["-m", "sglang.launch_server", "--tp", "2", "--model-path", "/m"]\n',
    "block list": '        command: ["python3"]\n        args:\n          - -m\n          - sglang.launch_server\n'
    '          - --tp\n          - "2"\n          - --model-path\n          - /m\n',
    "flow list over lines": '        command: ["python3"]\n        args: [\n          "-m", "sglang.launch_server",\n'
    '          "--tp", "2", "--model-path", "/m"\n        ]\n',
    "json": '  "command": ["python3"],\n  "args": ["-m", "sglang.launch_server", "--tp", "2", "--model-path", "/m"],\n',
}


@pytest.mark.parametrize("form", INTERPRETER_ARGS)
def test_the_interpreter_s_arguments_as_a_manifest_s_args_are_the_launch(form):
    assert _args(analyze_text(INTERPRETER_ARGS[form])) == {"tp_size": "2", "model_path": "/m"}


def test_an_args_list_of_another_module_is_no_launch():
    text = '          args: [\n            "-m", "vllm.entrypoints.openai.api_server",\n            "--tp", "2",\n          ]\n'
    assert analyze_text(text)["launches"] == []


# ------------------------------------------------------------ a bash array expanded into the launch


SERVER_ARRAY = """```bash
SERVER_ARGS=(
  --model-path black-forest-labs/FLUX.2-klein-4B
  --text-encoder-cpu-offload
  --pin-cpu-memory
  --num-gpus 1
  --ulysses-degree=1
  --ring-degree=1
  --port 30010
)

sglang serve "${SERVER_ARGS[@]}"
```
"""


def test_a_bash_array_expanded_into_the_launch_gives_its_words_as_flags():
    assert _args(analyze_text(SERVER_ARRAY)) == {
        "model_path": "black-forest-labs/FLUX.2-klein-4B",
        "text_encoder_cpu_offload": True,
        "pin_cpu_memory": True,
        "num_gpus": "1",
        "ulysses_degree": "1",
        "ring_degree": "1",
        "port": "30010",
    }


def test_array_words_are_read_as_bash_reads_them():
    text = (
        "COMMON=(--model-path '/models/my model'  # the checkpoint\n"
        "  --tp 8)\n"
        "# appended later\n"
        'COMMON+=( --mem-fraction-static 0.8 --chat-template "$(cat tpl.jinja)" )\n'
        'CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server "${COMMON[@]}" \\\n'
        "    --port 30000 2>&1 | tee server.log\n"
    )
    (launch,) = analyze_text(text)["launches"]
    assert launch["config"]["model_path"] == "/models/my model"
    assert launch["config"]["tp_size"] == 8 and launch["config"]["mem_fraction_static"] == 0.8
    assert launch["server_args"]["port"] == "30000"
    assert launch["environment"] == {"CUDA_VISIBLE_DEVICES": "0,1"}


def test_a_declared_array_expanded_unquoted_is_read_too():
    text = "declare -a ARGS=(--tp 4 --model-path /m)\npython3 -m sglang.launch_server ${ARGS[@]}\n"
    assert _args(analyze_text(text)) == {"tp_size": "4", "model_path": "/m"}


def test_an_array_no_launch_expands_gives_nothing():
    text = 'ARGS=(\n  --model-path x\n  --tp 8\n  --port 1\n)\necho "${ARGS[@]}"\nsglang serve "${OTHER[@]}"\n'
    assert all(not launch["server_args"] for launch in analyze_text(text)["launches"])


def test_an_array_cut_open_leaves_the_records_under_it_alone():
    text = (
        "ARGS=(\n  --tp 8\n"
        "[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n"
        "Traceback (most recent call last):\n"
        '  File "/x/scheduler.py", line 1, in run\n'
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    report = analyze_text(text)
    assert [p["avail_gib"] for p in _phases(report, "load_weight_begin")] == [70.0]
    assert report["findings"] and report["findings"][0]["rule"] == "startup-crash"


# ------------------------------------------------------------ the older scheduler summary, ended at context_len


SUMMARY = (
    "[2025-05-14 09:29:10] max_total_num_tokens=404890, chunked_prefill_size=8192, max_prefill_tokens=16384, "
    "max_running_requests=4097, context_len=8096"
)


def test_the_older_summary_s_last_value_is_read_when_a_record_follows_it():
    # and a longer line of the paste shows that no column cut (cut -c, less -S) shortened it (review6 item 12)
    text = SUMMARY + "\n[2025-05-14 09:29:11] INFO:     Started server process [15955]\n" + "x" * 200 + "\n"
    (summary,) = _phases(analyze_text(text), "scheduler_summary")
    assert summary["context_len"] == 8096 and summary["max_running_requests"] == 4097


def test_the_older_summary_s_last_value_is_left_out_where_a_cut_may_have_shortened_it():
    at_the_end = _phases(analyze_text(SUMMARY + "\n"), "scheduler_summary")
    wrapped = _phases(analyze_text(SUMMARY[:-2] + "\n96\n"), "scheduler_summary")
    assert [p.get("context_len") for p in at_the_end + wrapped] == [None, None]
    assert at_the_end[0]["max_running_requests"] == 4097


def test_the_paste_s_summary_gives_context_len():
    (summary,) = _phases(analyze_text((MINED / "sglang-6291.txt").read_text()), "scheduler_summary")
    assert summary["context_len"] == 8096


# ------------------------------------------------------------ a crash during the draft model's capture


def test_a_crash_after_the_draft_model_s_capture_line_is_placed_in_capture():
    report = analyze_text((MINED / "sglang-6496.txt").read_text())
    (crash,) = [f for f in report["findings"] if f["rule"] == "startup-crash"]
    assert crash["phase"] == "capture"
    assert "failure-time-unknown" not in _rules(report)
    # the viewer's stamp lines part no block: the native backtrace is read whole, its frame named
    assert "Segmentation fault in __sigaction()" in crash["message"]


def test_a_time_stamp_alone_on_its_line_parts_no_block():
    block = "==== backtrace (tid:    116) ====\n 0 0x0000000000042520 __sigaction()  ???:0\n=================================\n"
    stamped = "".join(f"2025-05-21 16:20:15\t\n{line}\n" for line in block.splitlines())
    plain, split = analyze_text(block)["findings"], analyze_text(stamped)["findings"]
    assert [f["message"] for f in split] == [f["message"] for f in plain]
    assert "Segmentation fault in __sigaction()" in split[0]["message"] or "__sigaction()" in split[0]["message"]


# ------------------------------------------------------------ argparse's usage error of a launch


def test_argparse_s_report_under_sglang_serve_is_a_failure_not_a_launch():
    text = "sglang serve: error: argument --tp-size/--tp: invalid int value: 'eight'\n"
    report = analyze_text(text)
    assert report["coverage"]["grammars"]["launch_command"]["recognized"] == 0 and report["launches"][0]["server_args"] == {}
    (finding,) = report["findings"]
    assert finding["rule"] == "startup-crash" and finding["phase"] == "startup"
    assert finding["signature"] == "sglang-serve-argparse-error"


def test_the_paste_s_usage_error_names_sglang_at_startup():
    report = analyze_text((MINED / "sglang-34226.txt").read_text())
    first = report["findings"][0]
    assert (first["rule"], first["phase"], first["mechanism"]) == ("startup-crash", "startup", "launch_arguments")
    assert first["evidence"][0]["text"] == "error: unrecognized arguments: --served-model-name minimax-h3"


def test_another_program_s_usage_error_is_no_launch_failure():
    report = analyze_text("bench_serving.py: error: unrecognized arguments: --foo\n")
    assert "startup-crash" not in _rules(report)


# ------------------------------------------------------------ a time said only as a possibility


def test_a_time_said_as_a_possibility_places_nothing():
    report = analyze_text((MINED / "sglang-8654.txt").read_text())
    assert _rules(report)[0] == "failure-time-unknown"
    said = "ImportError: cannot import name 'x' from 'sgl_kernel'\n"
    placed = analyze_text("The server fails during startup with this error:\n" + said)
    assert _rules(placed)[0] == "startup-crash"

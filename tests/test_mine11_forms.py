"""Forms of mine11's built misses that hold for a family of outputs: a backend a server option chooses by a library's
name, the image tag of a third party's image that bundles SGLang, a launcher inside a tool's unquoted argument list.
(The values of whole pastes are in fixtures/pastes: image-tag-bundled, launch-tool-argument-list,
launch-interpreter-options, collect-env-gpus, collect-env-one-gpu.)"""

from __future__ import annotations

from logscope.pipeline.ingest.ingest import unwrap
from logscope.pipeline.parse.parsers.command_text import parse_command
from logscope.pipeline.parse.parsers.stated_env import parse_line
from logscope.pipeline.parse.signatures.stated_library import stated_raiser
from tests.helpers import analyze_text


def test_a_backend_chosen_by_a_librarys_name_names_that_library_in_a_stated_failure():
    # the releases' ServerArgs choices (catalog/server_flags.json): flashinfer_trtllm is FlashInfer's TRTLLM MoE
    text = "With `--moe-runner-backend flashinfer_trtllm` the server crashes during CUDA graph capture.\n"
    errors = [f for f in analyze_text(text)["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["mechanism"], f.get("library")) for f in errors] == [("startup-crash", "flashinfer", "FlashInfer")]


def test_a_backend_whose_words_begin_two_libraries_names_neither():
    # "triton_kernel" begins Triton's name and sgl-kernel's triton_kernels module: neither is named by it
    assert stated_raiser("The server crashes when I use `--moe-runner-backend triton_kernel`.") is None
    raiser = stated_raiser("The server crashes when I use `--moe-runner-backend flashinfer_cutlass`.")
    assert raiser is not None and raiser.library == "FlashInfer"


def test_a_bundling_images_tag_states_the_release_and_the_official_name_alone_does_not():
    parsed = parse_line("image: quay.io/gpustack/runner:cuda12.8-sglang0.5.7")
    assert parsed is not None and parsed.data["values"] == {"sglang": "0.5.7"}
    assert parsed.data["stated_by"] == "bundled_image_tag"
    parsed = parse_line("docker pull rocm/sgl-dev:sglang-0.5.6.post1-rocm700-mi35x")
    assert parsed is not None and parsed.data["values"] == {"sglang": "0.5.6.post1"}
    # the image's own name holds "sglang": no release in it (lmsysorg/sglang:latest, a path named sglang-0.5.2)
    assert parse_line("image: lmsysorg/sglang:latest") is None
    assert parse_line("cd /opt/sglang-0.5.2/python && ls") is None


def test_a_launcher_in_an_unquoted_list_ends_at_the_lists_bracket_and_not_inside_its_values():
    text = "arguments: [python -m sglang.launch_server --model-path /m --tp-size 2 --port 40024], ports: [40024]"
    data = parse_command(text)
    assert data is not None and data["args"] == {"model_path": "/m", "tp_size": "2", "port": "40024"}
    # a bracket the command opens itself is no end: the options after its "]" are still the command's
    text = "args: [python -m sglang.launch_server --model-path /m --cuda-graph-bs [1,2,4] --tp 2]"
    data = parse_command(text)
    assert data is not None and data["args"]["tp"] == "2"
    # no list opened before the launcher: a "]" is the command's
    data = parse_command("python -m sglang.launch_server --model-path /m] --tp 2")
    assert data is not None and data["args"]["tp"] == "2"


def _failures(text: str) -> list[tuple[str | None, str | None]]:
    return [(f.get("mechanism"), f.get("library")) for f in analyze_text(text)["findings"] if "mechanism" in f]


_SERVED = "[2026-03-19 13:32:53 TP0] POST /generate HTTP/1.1 200 OK\n"


def test_a_traceback_cut_before_its_exception_line_is_the_innermost_frames_package():
    # sglang-21004's shape: the scheduler's traceback cut in the frame under SGLang's model runner
    sglang = (
        _SERVED + "[2026-03-19 13:32:54 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2055, in run_batch\n'
        "    batch_result = self.model_worker.forward_batch_generation(\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 2679, in forward\n'
        "    self.eplb_manager.on_forward_pass_end()\n"
        '  File "/sgl\n'
    )
    assert _failures(sglang) == [("sglang", "SGLang")]
    # sglang-24834-2's shape: torch.compile's frames only, cut: another Python package (torch, outside the table)
    torch = (
        "Traceback (most recent call last):\n"
        '  File "/workspace/venv/lib/python3.12/site-packages/torch/_dynamo/output_graph.py", line 2664, in '
        "_call_user_compiler\n"
        "    compiled_fn = compiler_fn(gm, example_inputs)\n"
        '  File "/workspace/venv/lib/python3.12/site-packages/torch/_dynamo/repro/after_dynamo.py", line 156, in __call__\n'
        "    compiled_gm = compiler_fn(gm, example_inputs)\n"
    )
    assert _failures(torch) == [("python", "torch")]


def test_a_frame_of_a_src_layout_checkout_is_its_package():
    # dynamo-6273's shape: Dynamo run from its checkout (components/src/dynamo/...), the traceback cut in its frame
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/work/dynamo/components/src/dynamo/vllm/multimodal_handlers/worker_handler.py", line 206, '
        "in generate\n"
        "    ) in await self.decode_worker_client.round_robin(\n"
    )
    assert _failures(text) == [("python", "dynamo")]


def test_a_release_named_with_no_package_is_sglangs_only_where_the_catalogue_holds_it_and_no_package_is_named():
    # sglang-6309-2's, sglang-7223's and sglang-34235's forms
    for text, version in (
        ("Same thing happened to me when using v0.5.4.post1:", "0.5.4.post1"),
        ("I am using the latest release 0.4.7 but encountered an issue", "0.4.7"),
        ("i find the same error in v0.5.17 with pr30393.", "0.5.17"),
    ):
        parsed = parse_line(text)
        assert parsed is not None and parsed.data == {"values": {"sglang": version}, "stated_by": "unowned_release"}
    # a package named in the sentence may own it; a post release past the catalogue's last of its line is none;
    # two versions in the sentence state neither; advice names no release in use
    assert parse_line("it fails in v0.5.3 of flashinfer") is None
    assert parse_line("it works in v0.5.4.post9") is None
    assert parse_line("it worked in v0.5.3, fails in v0.5.4") is None
    assert parse_line("Please upgrade, it is fixed in release 0.5.9") is None
    # review11: the sentence names the version's owner after it
    assert parse_line("We deploy with the k8s operator, when using v0.4.0 of the helm chart the pod restarts.") is None
    assert parse_line("Tested with the latest release 0.3.1 of our internal router, the server crashed.") is None


def test_the_lines_of_a_process_ai_dynamos_test_harness_ran_are_read_under_its_prefix():
    # ai-dynamo tests/utils/managed_process.py: f"[{command[0].upper()}] {line}" (dynamo-7153's shape: a native
    # segfault in UCX's memory pool under "[BASH] "); a level word or an error code in brackets stays
    text = (
        "[BASH] !!!!!!! Segfault encountered !!!!!!!\n"
        '[BASH]   File "<unknown>", line 0, in ucs_mpool_grow\n'
        '[BASH]   File "<unknown>", line 0, in ucs_mpool_get_grow\n'
    )
    assert _failures(text) == [("ucx", "UCX")]
    assert unwrap("[PYTHON3] Traceback (most recent call last):") == "Traceback (most recent call last):"
    assert unwrap("[ERROR] Segfault encountered") == "[ERROR] Segfault encountered"
    assert unwrap("[NV_ERR_FABRIC_STATE_OUT_OF_SYNC] fabric") == "[NV_ERR_FABRIC_STATE_OUT_OF_SYNC] fabric"

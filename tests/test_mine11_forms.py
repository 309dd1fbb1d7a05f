"""Forms of mine11's built misses that hold for a family of outputs: a backend a server option chooses by a library's
name, the image tag of a third party's image that bundles SGLang, a launcher inside a tool's unquoted argument list.
(The values of whole pastes are in fixtures/pastes: image-tag-bundled, launch-tool-argument-list,
launch-interpreter-options, collect-env-gpus, collect-env-one-gpu.)"""

from __future__ import annotations

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

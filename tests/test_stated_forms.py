"""Facts stated in forms that were misread (issue 43): a maintainer's answer that recommends a release, a host
name before every line (pdsh, mpirun --tag-output), a one-word flag and its value in one code span of a list. Each
text is written here in the real shape."""

from __future__ import annotations

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.assemble.launch_facts import global_versions
from logscope.pipeline.ingest.ingest import Source, clean
from logscope.pipeline.parse.parsers.stated_env import sentence_version


def _launches(text: str) -> list[dict[str, object]]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    return [{"config": dict(launch.config), "versions": dict(launch.versions)} for launch in analysis.launches]


def test_a_release_recommended_in_an_answer_is_not_the_version_in_use():
    assert sentence_version("Use the latest sglang release (0.5.4.post2) which should already include this pr.") is None
    assert sentence_version("Please upgrade sglang to 0.5.6, this was fixed there.") is None
    assert sentence_version("This is fixed in sglang 0.5.6.") is None
    assert sentence_version("Use sglang 0.5.6 instead.") is None
    assert sentence_version("I run sglang 0.5.4.post1 on 8xH100.") == "0.5.4.post1"
    assert sentence_version("I am using the latest sglang release 0.4.7 on H20.") == "0.4.7"
    assert sentence_version("After I upgraded SGLang to v0.5.15 the server fails.") == "0.5.15"


# pdsh / mpirun --tag-output: the host before each line, and NCCL's own "<host>:<pid>:<tid> [dev]" after it
HOST_LABELLED = """gpu-node-07: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3
gpu-node-07: ncclUnhandledCudaError: Call to CUDA function failed.
gpu-node-07: gpu-node-07:4121:4388 [3] transport/nvls.cc:245 NCCL WARN Cuda failure 'initialization error'
"""  # noqa: E501 - torch's exception line as printed


def test_a_host_name_before_every_line_is_a_wrapper():
    assert clean("gpu-node-07: ncclUnhandledCudaError: Call to CUDA function failed.") == [
        "ncclUnhandledCudaError: Call to CUDA function failed."
    ]
    assert clean("gpu-node-07: gpu-node-07:4121:4388 [3] NCCL INFO x")[0].startswith("gpu-node-07:4121:4388 [3]")
    assert clean("note: [this] stays") == ["note: [this] stays"]  # a word of prose, no host name
    (launch,) = _launches(HOST_LABELLED)
    assert launch["versions"]["nccl"] == "2.19.3"


def test_a_one_word_flag_in_a_code_span_of_a_list_is_read_when_serverargs_has_it():
    (launch,) = _launches("Decode flags:\n- `quantization: modelopt_fp4`\n- `tp-size: 16`\n- `colour: blue`\n")
    assert launch["config"] == {"quantization": "modelopt_fp4", "tp_size": 16}


# SGLang before 0.4.8 prints no batch size in its capture bar; several engines' bars under Ray carry no rank tag
UNTAGGED_BARS = """Capturing batches (avail_mem=40.12 GB):   0%|          | 0/23 [00:00<?, ?it/s]
Capturing batches (avail_mem=39.87 GB):  43%|████▎     | 10/23 [00:03<00:04,  3.10it/s]
Capturing batches (avail_mem=40.12 GB):   0%|          | 0/23 [00:00<?, ?it/s] [repeated 3x across cluster]
Capturing batches (avail_mem=39.61 GB): 100%|██████████| 23/23 [00:07<00:00,  3.05it/s]
"""


def test_each_distinct_reading_of_an_untagged_capture_bar_without_a_batch_size_is_kept():
    analysis = analyze_model([Source(name="paste.log", path=None, data=UNTAGGED_BARS.encode())])
    readings = [p.values["avail_gib"] for launch in analysis.launches for r in launch.ranks.values() for p in r.phases]
    assert readings == [40.12, 39.87, 39.61]


def test_an_sglang_phase_line_pasted_without_its_prefix_is_read():
    text = "For SGLang I saw this:\n```\nKV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n```\n"
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    (reading,) = [p for launch in analysis.launches for r in launch.ranks.values() for p in r.phases]
    assert (reading.phase, reading.values["tokens"], reading.values["k_gib"], reading.values["v_gib"]) == (
        "kv_cache_allocated",
        367404,
        8.23,
        8.23,
    )
    assert reading.time is None


def test_torch_s_nccl_error_inside_a_line_no_grammar_reads_states_the_nccl_version_and_stays_unread():
    # an RL trainer logging the message SGLang's init_weights_update_group returns, torch's NCCL error at its end
    # (c10d ncclGetErrorWithVersion: "..., NCCL version 2.21.5"); no traceback and no exception line of its own
    # (NCCL's result texts with their hint, "invalid usage (run with NCCL_DEBUG=WARN for details)", are read by the
    # nccl-result-* signatures; this one has none)
    text = (
        "[2025-09-02 11:40:07] Failed to initialize custom process group: NCCL error in: "
        "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, "
        "NCCL version 2.26.2\n"
    )
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    assert [dict(launch.versions) for launch in analysis.launches] == [{"nccl": "2.26.2"}]
    assert [m.line for m in analysis.unmatched_failures] == [1]  # still listed as a failure no signature reads
    # a typed row, written into the document as the logscope/1 contract lists its keys
    assert list(analysis.unmatched_failures[0].document()) == ["source", "line", "text", "kind"]
    assert analysis.unmatched_failures[0].unrecognized


def test_a_sentence_whose_code_span_pins_a_release_still_states_the_other_versions_it_names():
    # rl-3091's comment (built): the pin in a code span, torch and NCCL in the words of the same sentence
    text = (
        "I ran this PR's design on a GB200 NVL72 cluster (stock `sglang==0.5.12.post1`, torch 2.11.0 / NCCL 2.28.9 on "
        "both sides) as part of `weight_transfer_mode: broadcast` enablement work.\n"
    )
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    assert global_versions(analysis.global_events) == {"sglang": "0.5.12.post1", "torch": "2.11.0", "nccl": "2.28.9"}

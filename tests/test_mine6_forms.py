"""Forms the reserved mine6a/mine6b batches showed once released for built use (issue 43), each written here in the
real shape of a built paste (fixtures/mined), with the released source that prints it."""

from __future__ import annotations

from logscope.core.events import RankId
from logscope.core.native_libraries import library_of
from logscope.pipeline.parse.parsers.base import prefix_of
from tests.helpers import analyze_text

# vllm-49051: DeepGEMM's host assert (DGException: "Assertion" " error (" file ":" line "): " cond, strings of
# sgl-kernel 0.3.21 deep_gemm_cpp.abi3.so) quoted with the build's folders elided in front of jit/compiler.hpp
DEEPGEMM_ELIDED = """```
RuntimeError: Assertion error (.../jit/compiler.hpp:187):
(major > 12 or (major == 12 and minor >= 3)) and "NVCC version should be >= 12.3"
```
"""


def test_a_source_path_elided_in_front_names_the_one_library_whose_file_ends_in_its_last_two_parts():
    assert library_of("Assertion error (.../jit/compiler.hpp:187):") == "DeepGEMM"
    (finding,) = [f for f in analyze_text(DEEPGEMM_ELIDED)["findings"] if f.get("mechanism")]
    assert finding["mechanism"] == "deepgemm"
    # a folder and file name that no catalogued library's path ends in names nobody
    assert library_of("Assertion error (.../jit/unknown_file.hpp:187):") is None


def test_a_whole_source_path_no_library_holds_names_nobody_though_its_last_two_parts_are_one_library_s():
    # review7 item 2: "src/config.cpp" ends only Mooncake's catalogued paths, but this path is written whole, in the
    # user's own project; the same tail elided in front is still the library's
    assert library_of("RuntimeError: Error in /home/u/myproj/src/config.cpp:42: bad config") is None
    assert library_of("Error in /home/u/p/src/config.cpp") is None
    assert library_of("Assertion error (\u2026/jit/compiler.hpp:187):") == "DeepGEMM"


# dynamo-940: the failure only in a sentence, which quotes NIXL's status name (nixl_status_t)
NIXL_STATUS_IN_PROSE = """### Describe the Bug

When running the disaggregated graph, I encounter a NIXL backend connection error due to an invalid or stale UCX \
address. The process fails with NIXL_ERR_BACKEND.
"""


def test_a_sentence_quoting_nixl_s_status_name_names_nixl():
    (finding,) = [f for f in analyze_text(NIXL_STATUS_IN_PROSE)["findings"] if f.get("mechanism")]
    assert (finding["mechanism"], finding["library"]) == ("nixl", "NIXL")
    # with neither the status name nor NIXL's name in the stating sentence (stated_library.py), nobody is named
    unnamed_text = NIXL_STATUS_IN_PROSE.replace("NIXL_ERR_BACKEND", "an error").replace("a NIXL backend", "a backend")
    unnamed = analyze_text(unnamed_text)["findings"]
    assert [(f["rule"], f["mechanism"]) for f in unnamed if "mechanism" in f] == [("failure-time-unknown", None)]


# sglang-16526: a startup copied from the middle of a line, its first prefix's opening bracket cut off
CUT_BRACKET = """`
2026-01-04 03:36:55 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=29.60 GB, mem usage=31.01 GB.
[2026-01-04 03:36:55 TP0] Using KV cache dtype: torch.bfloat16
[2026-01-04 03:36:55 TP1] KV Cache is allocated. #tokens: 143104, K size: 8.74 GB, V size: 8.74 GB
[2026-01-04 03:36:55 TP0] KV Cache is allocated. #tokens: 143104, K size: 8.74 GB, V size: 8.74 GB
"""


def test_a_prefix_whose_opening_bracket_the_copy_cut_still_names_its_rank():
    assert prefix_of("2026-01-04 03:36:55 TP0] Load weight end.") == {
        "time": "2026-01-04 03:36:55",
        "rank": RankId.from_tags(["TP0"]),
    }
    assert prefix_of("03:36:55 TP0] Load weight end.") is None  # without the date, no prefix of SGLang's is known
    (rank,) = [r for r in analyze_text(CUT_BRACKET)["launches"][0]["ranks"] if r["rank"] == "TP0"]
    (weights,) = [p for p in rank["phases"] if p["phase"] == "load_weight_end"]
    assert (weights["avail_gib"], weights["usage_gib"]) == (29.6, 31.01)

"""Forms that mine9b's built pastes (libraries and downstream projects, fixtures/mined) showed and nobody had read, each
in the real shape of its paste: collect_env's "Python version:" line, a Markdown list's bold or code-span labels, a
package's `pip show` field after its name."""

from __future__ import annotations

import pytest

from logscope.pipeline.ingest.ingest import unwrap
from tests.helpers import analyze_text, stated_versions


# torch's utils/collect_env.py (2.5.1 .. 2.10.0; vLLM's copy prints the same): "Python version: " + sys.version, with
# a conda build's "| packaged by ... |" (vllm-16255) or the interpreter's plain "(main, date)" (vllm-7951)
@pytest.mark.parametrize(
    ("line", "python"),
    [
        (
            "Python version: 3.9.21 | packaged by conda-forge | (main, Dec  5 2024, 13:51:40)  [GCC 13.3.0] (64-bit runtime)",
            "3.9.21",
        ),
        ("Python version: 3.9.19 (main, May  6 2024, 19:43:03)  [GCC 11.2.0] (64-bit runtime)", "3.9.19"),
    ],
)
def test_collect_env_s_python_version_line_gives_the_python_version(line, python):
    text = f"Collecting environment information...\nPyTorch version: 2.6.0+cu124\nIs debug build: False\n\n{line}\n"
    assert stated_versions(text) == {"torch": "2.6.0+cu124", "python": python}


def test_markdown_env_bullets_with_a_bold_label_and_colon_or_a_code_span_label():
    # openrlhf-679's "Environment Details" list: the colon inside the bold, the package names as code spans
    text = (
        "Environment Details:\n\n- **CUDA Version:** 12.1\n- **Python Packages:**\n  - `torch`: 2.5.1+cu121\n"
        "  - `vllm`: 0.6.5\n  - `deepspeed`: 0.15.0\n"
    )
    assert stated_versions(text) == {"cuda": "12.1", "torch": "2.5.1+cu121"}


def test_a_package_name_then_pip_show_s_version_field():
    # ktransformers-1694's environment block: "SGLang: " then pip show's "Version: 0.5.6.post1"
    text = "KTransformers/kt-kernel: latest main pulled today\nSGLang: Version: 0.5.6.post1\ntorch: 2.9.1\n"
    assert stated_versions(text) == {"sglang": "0.5.6.post1", "torch": "2.9.1"}


# dynamo-3360's review thread: a ```diff fence whose added lines hold an ai-dynamo SGLang worker's launch
DIFF_LAUNCH = """recipes/llama-3-70b/sglang/disagg/deploy.yaml:111
```diff
+              exec python3 -m dynamo.sglang \\
+                --model-path RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic \\
+                --served-model-name RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic \\
+                --tp 4 \\
+                --trust-remote-code \\
+                --skip-tokenizer-init \\
+                --disaggregation-mode prefill \\
+                --disaggregation-transfer-backend nixl
```
"""


def test_a_launch_in_a_diff_fence_s_added_lines_is_read():
    launch = analyze_text(DIFF_LAUNCH)["launches"][0]
    assert launch["config"] == {
        "model_path": "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic",
        "tp_size": 4,
        "trust_remote_code": True,
        "disaggregation_mode": "prefill",
        "disaggregation_transfer_backend": "nixl",
    }
    assert launch["server_args"]["served_model_name"] == "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic"
    assert launch["server_args"]["skip_tokenizer_init"] is True


@pytest.mark.parametrize(
    ("line", "unwrapped"),
    [
        ("+              exec python3 -m dynamo.sglang \\", "              exec python3 -m dynamo.sglang \\"),
        ("+exec python3 -m sglang.launch_server --tp 4", "exec python3 -m sglang.launch_server --tp 4"),
        ("+ python3 -m sglang.launch_server --tp 4", "+ python3 -m sglang.launch_server --tp 4"),  # a shell trace
        ("+-----------------------------------------------------------------------------+", None),  # a table border
        ("+1, I'm having the same problem", None),
    ],
)
def test_only_a_diff_s_added_line_loses_its_plus(line, unwrapped):
    assert unwrap(line) == (line if unwrapped is None else unwrapped)


def _failures(text: str) -> list[tuple[str, str]]:
    return [(f["rule"], f["message"]) for f in analyze_text(text)["findings"]]


# lmcache-ascend-37: a traceback logged by vLLM's worker (its "(VllmWorker rank=0 pid=...)" prefix, then vLLM's logger
# prefix on every line), the paste starting mid-traceback and cut before its exception line
VLLM_WORKER_FRAGMENT = "".join(
    f"(VllmWorker rank=0 pid=4893) ERROR 10-23 10:41:13 [multiproc_executor.py:487] {line}\n"
    for line in (
        "    super().__init__(vllm_config=vllm_config, role=role)",
        '  File "/codes/LMCache/lmcache/integration/vllm/lmcache_connector_v1.py", line 34, in __init__',
        "    self._lmcache_engine = LMCacheConnectorV1Impl(vllm_config, role, self)",
        "                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/codes/LMCache/lmcache/integration/vllm/vllm_v1_adapter.py", line 608, in __init__',
        "    self.lmcache_engine = _init_lmcache_engine(",
        '  File "/codes/LMCache-Ascend/lmcache_ascend/integration/vllm/vllm_v1_adapter.py", line 158, in init_lmcache_engine',
    )
)


def test_a_vllm_worker_s_headless_traceback_fragment_is_a_startup_failure():
    (rule, message), *rest = _failures(
        VLLM_WORKER_FRAGMENT + "(VllmWorker rank=0 pid=4893) ERROR 10-23 10:41:13 [multiproc_executor.py:48"
    )
    assert rest == [] and rule == "startup-crash"
    assert "vllm_v1_adapter.py:608 __init__" in message and "cut before its exception line" in message


@pytest.mark.parametrize("name", ["VllmWorker TP0", "VllmWorker rank=0", "EngineCore_DP0"])
def test_vllm_s_process_prefix_is_a_wrapper(name):
    # vllm 0.10.1.1 utils _add_prefix: f"({worker_name} pid={pid}) "
    assert unwrap(f"({name} pid=4893) RuntimeError: boom") == "RuntimeError: boom"


# openrlhf-679: Ray's report of an actor whose constructor raised, the actor building vLLM's offline engine
RAY_CREATION_TASK = """```plaintext
(LLMRayActor pid=427151) Exception raised in creation task: The actor died because of an error raised in its creation \
task, ray::LLMRayActor.__init__() (pid=427151, ip=10.181.130.26, actor_id=739ab55c49a4e484b354eb9d02000000, repr=<openrlhf.tr
(LLMRayActor pid=427151)   File "/Developer/OpenRLHF/openrlhf/trainer/ray/vllm_engine.py", line 54, in __init__
(LLMRayActor pid=427151)     self.llm = vllm.LLM(*args, **kwargs)
(LLMRayActor pid=427151)   File "/envs/bc_310/lib/python3.10/site-packages/vllm/utils.py", line 990, in inner
(LLMRayActor pid=427151)     return fn(*args, **kwargs)
(LLMRayActor pid=427151)   File "/envs/bc_310/lib/python3.10/site-packages/vllm/entrypoints/llm.py", line 230, in __init__
(LLMRayActor pid=427151)     self.llm_engine = self.engine_class.from_engine_args(
(LLMRayActor pid=427151)   File "/cpfs01/shar
```
"""


def test_vllm_s_llm_constructor_frame_places_the_failure_at_startup():
    (rule, message), *rest = _failures(RAY_CREATION_TASK)
    assert rest == [] and rule == "startup-crash" and "llm.py:230 __init__" in message


def test_ninja_s_status_line_alone_is_no_failure():
    # a FlashInfer JIT step's ninja status line is printed live by every build run with FLASHINFER_JIT_VERBOSE=1
    # (flashinfer 0.7.4 jit/cpp_ext.py run_ninja: stdout=None if verbose), a build that may well succeed: only the
    # "Ninja build failed" error that captures it says it failed (the signature reading it alone was reverted)
    line = "[1/11] /usr/local/cuda-12.8/bin/nvcc -c /root/.cache/flashinfer/0.6.4/90/cached_ops/batch_prefill/x.cu\n"
    assert _failures(line) == []
    assert _failures("[1/11] /usr/local/cuda/bin/nvcc -c kernel.cu -o build/kernel.cuda.o\n") == []

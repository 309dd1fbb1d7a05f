"""A failure placed in time (startup, with its step, or serving) from the released source (issue 43): the frames of
its traceback and the message it prints, through catalog/stages.json (tools/upstream/stages.py). Each case is a
constructed traceback in the shape SGLang prints; the quiet cases prove that a stack pointing both ways, or frames
the catalogue cannot place, stay `unknown`."""

from __future__ import annotations

import json

import pytest

from logscope.core import stage_functions
from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from tools.upstream import stages

SITE = "/usr/local/lib/python3.12/dist-packages"


def _failure(text: str) -> Failure:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    found = [f for fs in analysis.failures.values() for f in fs]
    assert len(found) == 1, found
    return found[0]


def _traceback(
    frames: list[tuple[str, int, str, str]], last: str, head: str = "[2026-01-05 10:00:00 TP0] Scheduler hit an exception: "
) -> str:
    lines = [f"{head}Traceback (most recent call last):"]
    for path, line, func, code in frames:
        lines += [f'  File "{path}", line {line}, in {func}', f"    {code}"]
    return "\n".join([*lines, last]) + "\n"


# a startup helper only the launch reaches (sglang 0.5.3.post3+ utils/common.py assert_pkg_version, called from the
# engine's _set_envs_and_config), under importlib's frames
PKG_CHECK = _traceback(
    [
        (f"{SITE}/sglang/srt/utils/common.py", 2422, "assert_pkg_version", "installed_version = version(pkg)"),
        ("/usr/lib/python3.12/importlib/metadata/__init__.py", 889, "version", "return distribution(distribution_name).version"),
    ],
    "importlib.metadata.PackageNotFoundError: No package metadata was found for sgl-kernel",
    head="",
)


def test_a_startup_only_frame_places_the_failure_at_startup():
    failure = _failure(PKG_CHECK)
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert "assert_pkg_version runs only at startup" in failure.phase_basis
    assert "catalog/stages.json" in failure.phase_basis


# the request handler of a weight-update group (the scheduler's dispatcher runs it per request: sglang 0.4.0.post2-
# 0.5.12.post1 ModelRunner.init_weights_update_group), under torch.distributed's frames
WEIGHT_GROUP = _traceback(
    [
        (f"{SITE}/sglang/srt/model_executor/model_runner.py", 1921, "init_weights_update_group", "dist.barrier(group=g)"),
        (f"{SITE}/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
        (f"{SITE}/torch/distributed/distributed_c10d.py", 4159, "barrier", "work = group.barrier(opts=opts)"),
    ],
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:268, unhandled system error",
)


def test_a_serving_only_frame_places_the_failure_while_serving():
    failure = _failure(WEIGHT_GROUP)
    assert (failure.finding, failure.phase) == ("nccl-error", "serving")
    assert "init_weights_update_group runs only while the scheduler serves" in failure.phase_basis


# a frame of the pool set-up (0.3.0-0.5.6.post2 ModelRunner.init_memory_pool) under a torch allocation
POOL_OOM = _traceback(
    [
        (f"{SITE}/sglang/srt/model_executor/model_runner.py", 1620, "init_memory_pool", "self.req_to_token_pool = X("),
        (f"{SITE}/torch/cuda/memory.py", 100, "empty", "return torch.empty(size)"),
    ],
    "RuntimeError: something failed",
)


def test_a_startup_step_frame_names_the_step():
    failure = _failure(POOL_OOM)
    assert failure.phase == "memory_pool"


@pytest.mark.parametrize(
    "frames",
    [
        # a startup-only frame and a serving-only frame on one stack: the catalogue cannot be trusted there
        [
            (f"{SITE}/sglang/srt/utils/common.py", 2422, "assert_pkg_version", "check()"),
            (f"{SITE}/sglang/srt/managers/scheduler.py", 1461, "_extend_requests_to_queue", "x = f()"),
        ],
        # model code runs at capture and while serving alike: no placement (a module's forward is `both` or unread)
        [
            (f"{SITE}/sglang/srt/models/llama.py", 300, "forward", "h = self.mlp(h)"),
            (f"{SITE}/torch/nn/functional.py", 1, "f", "g()"),
        ],
    ],
    ids=["both-ways", "unplaced"],
)
def test_frames_that_do_not_agree_or_are_not_placed_stay_unknown(frames):
    assert _failure(_traceback(frames, "RuntimeError: boom", head="")).phase == "unknown"


# the decode side's per-request transfer failure (sglang 0.4.7+ disaggregation/decode.py DecodeTransferQueue
# .pop_transferred, reached only from the PD event loops): the wording's code runs only while serving
DECODE_TRANSFER = (
    "[2026-01-05 10:00:00 DP1 TP1 EP1] Decode transfer failed for request rank=1 decode_req.req.rid='abc' "
    "decode_req.req.bootstrap_room=123 with exception KVTransferError(bootstrap_room=123): Request abc timed out\n"
)


def test_a_serving_only_wording_places_a_pd_transfer_failure_while_serving():
    failure = _failure(DECODE_TRANSFER)
    assert (failure.finding, failure.phase) == ("pd-transfer-failed", "serving")
    assert "Decode transfer failed for request" in failure.phase_basis


def test_place_stack_takes_the_innermost_step_and_refuses_disagreement():
    pool = f"{SITE}/sglang/srt/model_executor/model_runner.py:1620 init_memory_pool"
    serve = f"{SITE}/sglang/srt/managers/scheduler.py:4614 run_batch"
    placed = stage_functions.place_stack([pool, f"{SITE}/torch/x.py:1 f"])
    assert placed is not None and (placed[0].stage, placed[0].phase, placed[1]) == ("startup", "memory_pool", pool)
    assert stage_functions.place_stack([serve, pool]) is None
    assert stage_functions.place_stack([f"{SITE}/vllm/x.py:1 run_batch"]) is None  # not SGLang's


# --- the catalogue tool, on a small package in SGLang's shape
SCHEDULER = """
import threading
class Scheduler:
    def __init__(self):
        self.tp_worker = TpModelWorker()
        self._request_dispatcher = TypeBasedDispatcher([(A, self.update_weights)])
        threading.Thread(target=self.watchdog).start()
    def event_loop_normal(self):
        self.run_batch()
    def run_batch(self):
        shared_helper()
        raise RuntimeError("Batch failed while running the scheduler loop")
    def update_weights(self, req):
        return 1
    def watchdog(self):
        pass
def shared_helper():
    pass
"""
WORKER = """
class TpModelWorker:
    def __init__(self):
        self.model_runner = ModelRunner()
"""
RUNNER = """
class ModelRunner:
    def __init__(self):
        self.initialize()
    def initialize(self):
        self.load_model()
        self.init_memory_pool()
        shared_helper()
    def load_model(self):
        weights_iterator()
    def init_memory_pool(self):
        raise ValueError("Not enough memory for the pool, lower the fraction")
def weights_iterator():
    pass
"""


def test_the_catalogue_tool_places_functions_and_wordings_by_their_roots():
    files = [
        ("sglang/srt/managers/scheduler.py", SCHEDULER),
        ("sglang/srt/managers/tp_worker.py", WORKER),
        ("sglang/srt/model_executor/model_runner.py", RUNNER),
    ]
    out = stages.release_stages(files)
    stage = {key: (e["stage"], e.get("phase")) for key, e in out.items()}
    assert stage["sglang.srt.managers.scheduler:run_batch"] == ("serving", None)
    assert stage["sglang.srt.managers.scheduler:update_weights"] == ("serving", None)  # a dispatched request handler
    assert stage["sglang.srt.managers.scheduler:shared_helper"] == ("both", None)
    assert stage["sglang.srt.managers.scheduler:watchdog"] == ("none", None)  # a thread's target: no root reaches it
    assert stage["sglang.srt.model_executor.model_runner:initialize"] == ("startup", None)
    assert stage["sglang.srt.model_executor.model_runner:weights_iterator"] == ("startup", "load_weight")
    assert stage["sglang.srt.model_executor.model_runner:init_memory_pool"] == ("startup", "memory_pool")
    assert stage["wording:Batch failed while running the scheduler loop"] == ("serving", None)
    assert stage["wording:Not enough memory for the pool, lower the fraction"] == ("startup", "memory_pool")
    assert out["sglang.srt.managers.scheduler:run_batch"]["line"] == 10


# sglang 0.5.17's shape: get_global_server_args() reads its context's `server_args` property (another object's
# attribute, not `self.x`), from startup and serving code alike; the property raises the wording
CONTEXT = """
class RuntimeContext:
    @property
    def server_args(self):
        raise ValueError("Global server args is not set yet!")
_ctx = RuntimeContext()
def get_global_server_args():
    return _ctx.server_args
"""
CONTEXT_USERS = """
class Scheduler:
    def __init__(self):
        get_global_server_args()
    def event_loop_normal(self):
        return self.tp_worker.runner.server_args
"""


def test_a_property_read_on_another_object_is_reached_from_both_sides():
    out = stages.release_stages([("sglang/srt/runtime_context.py", CONTEXT), ("sglang/srt/managers/scheduler.py", CONTEXT_USERS)])
    assert out["sglang.srt.runtime_context:server_args"]["stage"] == "both"
    assert out["wording:Global server args is not set yet!"]["stage"] == "both"  # printed by code of both times


def test_the_catalogue_tool_folds_releases_into_runs():
    first = {"m:f": {"stage": "startup", "phase": None, "qualname": "f", "line": 1, "root": "r"}}
    second = {"m:f": {"stage": "startup", "phase": None, "qualname": "f", "line": 5, "root": "r"}}
    third = {"m:f": {"stage": "both", "qualname": "f", "line": 7}}
    folded = stages.fold([("0.1", first), ("0.2", second), ("0.3", third)])
    assert folded["m:f"] == [["startup", None, "0.1", "0.2", "f", 5, "r"], ["both", None, "0.3", "0.3", "f", 7, None]]


# --- readings that place serving, in the prefixed and cut shapes people paste
CRASH = (
    "Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/layers/activation.py", line 88, in forward_cuda\n'
    "    silu_and_mul(x, out)\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n"
)


def _prefixed(prefix: str, ready: str = "The server is fired up and ready to roll!\n") -> str:
    return "".join(prefix + line + "\n" for line in (ready + CRASH).splitlines())


def test_a_launcher_task_label_before_every_line_keeps_the_ready_line_and_the_traceback():
    text = _prefixed("0: ", "[2025-03-05 03:50:00] The server is fired up and ready to roll!\n")
    failure = _failure(text.replace("0: Scheduler hit", "0: [2025-03-05 03:55:55 TP0] Scheduler hit"))
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert failure.event.data["frames"] == ["activation.py:88 forward_cuda"]


def test_vllm_logger_prefix_keeps_the_ready_line_and_the_traceback():
    failure = _failure(_prefixed("ERROR 02-09 16:43:26 tp_worker_overlap_thread.py:112] "))
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")


def test_a_ready_line_without_any_prefix_is_a_record_not_prose():
    failure = _failure("The server is fired up and ready to roll!\n" + CRASH)
    assert failure.phase == "serving"


def test_a_task_label_before_prose_stays_prose():
    # an issue's numbered list item is no launcher label: its sentence is not read as a log record
    analysis = analyze_model([Source(name="paste.log", path=None, data=b"1: The server is fired up and ready to roll!\n")])
    assert not any(p.phase == "server_ready" for r in analysis.launches for t in r.ranks.values() for p in t.phases)


def test_a_process_header_cut_inside_its_traceback_word_is_a_failure():
    failure = _failure("[2026-05-20 02:29:31 TP3] Scheduler hit an exception: Tra\n")
    assert failure.event.data.get("process") == "Scheduler"
    assert failure.finding == "failure-time-unknown"


def test_an_sglang_module_run_as_a_script_or_a_test_places_nothing():
    # `python -m sglang.srt.mem_cache...` (a unit test in the module's __main__): its functions run outside a server
    script = _traceback(
        [
            ("<frozen runpy>", 88, "_run_code", "exec(code, run_globals)"),
            (f"{SITE}/sglang/srt/utils/common.py", 4000, "<module>", 'assert_pkg_version("x", "1.0", "")'),
            (f"{SITE}/sglang/srt/utils/common.py", 2422, "assert_pkg_version", "installed_version = version(pkg)"),
        ],
        "AttributeError: 'NoneType' object has no attribute 'get_kvcache'",
        head="",
    )
    assert _failure(script).phase == "unknown"
    pool = f"{SITE}/sglang/srt/model_executor/model_runner.py:1620 init_memory_pool"
    assert stage_functions.place_stack(["/repo/test/srt/test_pool.py:10 test_pool", pool]) is None


def test_an_import_check_typed_by_hand_is_no_server_startup():
    # fix15b (inference-2930's shape): `python -c "import sglang"` run to check the install, its traceback cut in the
    # package's __init__.py; the package-import locator (phase-startup-package-import) would say startup
    check = (
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        f'  File "{SITE}/sglang/__init__.py", line 4, in <module>\n'
    )
    failure = _failure(check)
    assert (failure.finding, failure.phase) == ("failure-time-unknown", "unknown")
    stdin = check.replace('"<string>", line 1', '"<stdin>", line 3')
    assert _failure(stdin).phase == "unknown"
    # negative: the same import under the launch script (python -m sglang.launch_server) is the server's startup
    launcher = f'"{SITE}/sglang/launch_server.py", line 6, in <module>\n    from sglang.srt.x import y\n'
    launched = check.replace('"<string>", line 1, in <module>\n', launcher)
    assert _failure(launched).phase == "startup"
    pool = f"{SITE}/sglang/srt/model_executor/model_runner.py:1620 init_memory_pool"
    assert stage_functions.run_by_hand(["<string>:1 <module>", pool])
    assert not stage_functions.run_by_hand(["<string>:12 __init__", pool])  # a dataclass's generated __init__
    assert stage_functions.place_stack(["<string>:1 <module>", pool]) is None


@pytest.mark.parametrize("start", ["spawn", "forkserver"])
def test_a_spawned_child_process_under_its_own_python_c_is_the_server_s_process(start):
    # review15c item 2: multiprocessing's spawn start method (SGLang sets it) runs each child as `python -c 'from
    # multiprocessing.spawn import spawn_main; ...'`: its stack opens with "<string>", line 1, then spawn.py's frames,
    # then the target (run_scheduler_process ... load_model): no hand-typed command, its step is placed
    mp = "/usr/lib/python3.12/multiprocessing"
    srt = f"{SITE}/sglang/srt"
    child = (
        "[2025-06-01 10:00:01] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B-Instruct', tp_size=1)\n"
        "Process SpawnProcess-1:\n"
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        f'  File "{mp}/{start}.py", line 116, in {start}_main\n'
        f'  File "{mp}/spawn.py", line 129, in _main\n'
        f'  File "{mp}/process.py", line 314, in _bootstrap\n'
        f'  File "{mp}/process.py", line 108, in run\n'
        f'  File "{srt}/managers/scheduler.py", line 2300, in run_scheduler_process\n'
        f'  File "{srt}/managers/scheduler.py", line 300, in __init__\n'
        f'  File "{srt}/managers/tp_worker.py", line 80, in __init__\n'
        f'  File "{srt}/model_executor/model_runner.py", line 230, in __init__\n'
        f'  File "{srt}/model_executor/model_runner.py", line 280, in initialize\n'
        f'  File "{srt}/model_executor/model_runner.py", line 600, in load_model\n'
        "RuntimeError: CUDA error: out of memory\n"
    )
    failure = _failure(child)
    assert (failure.finding, failure.phase) == ("startup-oom", "load_weight")
    frames = ["<string>:1 <module>", f"{mp}/{start}.py:116 {start}_main", f"{srt}/model_executor/model_runner.py:600 load_model"]
    assert not stage_functions.run_by_hand(frames)
    # negative: the import check typed by hand stays unplaced (its next frame is the package's, not spawn.py's)
    assert stage_functions.run_by_hand(["<string>:1 <module>", f"{SITE}/sglang/__init__.py:4 <module>"])
    assert stage_functions.run_by_hand(["<string>:1 <module>", f"{SITE}/mypkg/{start}.py:3 <module>"])


def test_the_catalogue_document_has_one_key_a_line_and_reads_back():
    doc = {
        "doc": "d",
        "functions": {'wording:a list ends like this [1],"': [["serving", None, "0.1", "0.1", "f", 1, "r"]], "m:f": []},
    }
    text = stages.dumps(doc)
    assert json.loads(text) == doc
    assert len(text.splitlines()) == 4


# --- the weight loader's progress bar before a failure (a paste's "Error log" starting at the bar, untagged)
def _after_bar(bar: str) -> str:
    return f"{bar}\n[2026-06-25 02:11:17 PP1 TP3] Scheduler hit an exception: Traceback (most recen\n"


def test_an_unfinished_weight_loading_bar_places_the_failure_in_load_weight():
    failure = _failure(_after_bar("Loading safetensors using Fastsafetensor loader:   0%|          | 0/9 [00:12<?, ?it/s]"))
    assert (failure.finding, failure.phase) == ("startup-crash", "load_weight")
    assert "weight loader's progress bar at 0/9" in failure.phase_basis
    assert "names no rank" in failure.phase_basis


@pytest.mark.parametrize(
    "bar",
    [
        "Loading safetensors checkpoint shards: 100% Completed | 8/8 [00:10<00:00,  1.20s/it]",  # loading was done
        "Capturing batches (avail_mem=29.01 GB):  87%|████████▋ | 20/23 [00:07<00:00,  3.19it/s]",  # no loader's bar
    ],
    ids=["finished", "not-a-loader"],
)
def test_a_finished_or_other_bar_does_not_place_it(bar):
    assert _failure(_after_bar(bar)).phase != "load_weight"


# vLLM's capture bar (v1/worker/gpu_model_runner.py capture_model, vllm 0.10.2-0.27.1; the engine Dynamo, verl and
# LMCache run), with torch's c10 error glued after it as a terminal shows both: the capture step had not finished
GLUED_C10 = (
    "[rank0]:[E903 19:31:55.312683063 shim_common.cpp:523] Exception in aoti_torch: NVML_SUCCESS == r INTERNAL ASSERT"
    ' FAILED at "/pytorch/c10/cuda/CUDACachingAllocator.cpp":1165, please report a bug to PyTorch.\n'
    "Exception raised from reportProcessMemoryInfo at /pytorch/c10/cuda/CUDACachingAllocator.cpp:1165 (most recent call"
    " first):\n"
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x9d (0x7f852f77305d in"
    " /usr/local/lib/python3.12/dist-packages/torch/lib/libc10.so)\n"
)


def test_vllm_s_unfinished_capture_bar_places_the_failure_in_capture():
    bar = "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  20%|█▉        | 10/51 [00:00<00:02, 15.63it/s]"
    failure = _failure(f"{bar}{GLUED_C10}")
    assert (failure.finding, failure.phase) == ("startup-crash", "capture")
    assert "vLLM's CUDA graph capture bar at 10/51" in failure.phase_basis


@pytest.mark.parametrize(
    "bar",
    [
        "Capturing CUDA graph shapes: 100%|██████████| 35/35 [00:12<00:00,  2.80it/s]",  # capture was done
        "Capturing CUDA graphs (PIECEWISE) took 12 seconds",  # no bar
    ],
    ids=["finished", "not-a-bar"],
)
def test_a_finished_capture_bar_or_a_capture_sentence_does_not_place_it(bar):
    assert _failure(f"{bar}\n{GLUED_C10}").phase != "capture"


# vLLM's own startup lines (parsers/engine_lines.py, from vllm 0.6.3.post1-0.34.0): the KV cache sized, nothing after it
# that ends the engine's startup: the failure came while the engine started; after "init engine ... took" it may serve
KV_SIZED = (
    "(EngineCore pid=309) INFO 09-03 19:31:54 [kv_cache_utils.py:2178] Maximum concurrency for 2,048 tokens per request: 33.66x\n"
)
LOADING = "(VllmWorker rank=0 pid=55) INFO 05-06 16:50:02 [gpu_model_runner.py:1329] Starting to load model Qwen/Qwen3-8B...\n"
ENGINE_UP = (
    "(EngineCore pid=309) INFO 09-03 19:32:40 [core.py:218] init engine (profile, create kv cache, warmup model) took"
    " 45.31 seconds\n"
)
VLLM_CRASH = "(EngineCore pid=309) RuntimeError: CUDA error: an illegal memory access was encountered\n"


def test_a_vllm_startup_line_before_a_failure_places_it_at_startup():
    failure = _failure(KV_SIZED + VLLM_CRASH)
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert "a line vLLM's engine prints only while it starts (the KV cache sized)" in failure.phase_basis


def test_vllm_s_start_of_the_model_load_places_it_in_load_weight():
    assert _failure(LOADING + VLLM_CRASH).phase == "load_weight"


def test_after_vllm_s_end_of_startup_the_failure_stays_unplaced():
    assert _failure(KV_SIZED + ENGINE_UP + VLLM_CRASH).phase == "unknown"


# vLLM before 0.8.5.post1 prints no "init engine ... took" line, and before 0.10.2 no "(APIServer pid=N)" prefix on
# uvicorn's lines: its capture's end, or uvicorn's bare start, ends the engine's startup (review14b item 8)
V06_CAPTURE = "INFO 11-03 15:47:40 model_runner.py:1402] Capturing the model for CUDA graphs. This may lead to trouble.\n"
V06_CAPTURED = "INFO 11-03 15:47:45 model_runner.py:1530] Graph capturing finished in 5 secs.\n"
V06_UP = "INFO:     Started server process [1234]\nINFO:     Application startup complete.\n"
V06_CRASH = (
    "ERROR 11-03 15:52:10 async_llm_engine.py:57] Engine background task failed\n"
    "ERROR 11-03 15:52:10 async_llm_engine.py:57] RuntimeError: CUDA error: an illegal memory access was encountered\n"
)


def test_vllm_s_capture_end_ends_the_engine_s_startup():
    failure = _failure(KV_SIZED + V06_CAPTURE + V06_CAPTURED + V06_CRASH)
    assert (failure.finding, failure.phase) == ("failure-time-unknown", "unknown")


def test_uvicorn_s_bare_start_ends_the_engine_s_startup():
    failure = _failure(KV_SIZED + V06_CAPTURE + V06_UP + V06_CRASH)
    assert failure.finding != "startup-crash" and failure.phase in ("unknown", "serving")
    # while capturing, with no end line after it, the failure still came at startup
    assert _failure(KV_SIZED + V06_CAPTURE + V06_CRASH).phase == "capture"


# a terminal's copy: the launch command, then at once the traceback of the program it started
COMMAND = (
    "(ktf) k1@k0:~/workspace/ktransformers$ python -m sglang.launch_server \\\n"
    "  --host 0.0.0.0 --port 30000 \\\n"
    "  --model-path /mnt/models/Qwen3.5-122B-A10B-FP8 \\\n"
    "  --tensor-parallel-size 8\n"
)
RUNPY = (
    "Traceback (most recent call last):\n"
    '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
    '  File "<frozen runpy>", line 88, in _run_code\n'
    "ModuleNotFoundError: No module named 'kt_kernel'\n"
)


def test_a_traceback_right_after_the_launch_command_is_at_startup():
    failure = _failure(COMMAND + RUNPY)
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert "the traceback opens right after the launch command (its last line 4)" in failure.phase_basis


def test_a_traceback_after_other_lines_is_not_placed_by_the_command():
    other = "[2026-05-07 10:00:00] INFO numexpr.utils: NumExpr defaulting to 16 threads.\n"
    assert "right after the launch command" not in _failure(COMMAND + other + RUNPY).phase_basis


# vLLM's API server up (uvicorn's line under vLLM's APIServer process prefix): its engine was built, no warmup follows
VLLM_UP = (
    "(APIServer pid=7) INFO:     Started server process [7]\n"
    "(APIServer pid=7) INFO:     Waiting for application startup.\n"
    "(APIServer pid=7) INFO:     Application startup complete.\n"
)
ENGINE_CRASH = "(EngineCore_0 pid=96) RuntimeError: CUDA error: an illegal memory access was encountered\n"


def test_a_failure_after_vllm_s_api_server_came_up_is_while_serving():
    failure = _failure(VLLM_UP + ENGINE_CRASH)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert "after line 3, vLLM's API server up" in failure.phase_basis


def test_a_bare_uvicorn_start_is_no_vllm_ready_line():
    bare = "INFO:     Application startup complete.\n"  # any uvicorn app (SGLang before 0.3.4.post2, then its warmup)
    assert "vLLM's API server up" not in _failure(bare + ENGINE_CRASH).phase_basis


# the weight loader's bar drawn just after the failure: tqdm redraws a bar when it is closed, as the process ends
TORCH_OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of 79.20 GiB of"
    " which 48.62 MiB is free. Including non-PyTorch memory, this process has 2.46 GiB memory in use.\n"
)


def test_an_unfinished_loading_bar_drawn_just_after_the_failure_places_it_in_load_weight():
    failure = _failure(TORCH_OOM + "Loading safetensors checkpoint shards:  13% Completed | 2/15 [00:01<00:11,  1.12it/s]\n")
    assert (failure.finding, failure.phase) == ("startup-oom", "load_weight")
    assert "line 2 just after it, the weight loader's progress bar at 2/15 as tqdm draws it" in failure.phase_basis


@pytest.mark.parametrize(
    "after",
    [
        "Loading safetensors checkpoint shards: 100% Completed | 15/15 [00:11<00:00,  1.32it/s]\n",  # loading was done
        "\n\n\nLoading safetensors checkpoint shards:  13% Completed | 2/15 [00:01<00:11,  1.12it/s]\n",  # not just after
    ],
    ids=["finished", "far-after"],
)
def test_a_finished_or_distant_bar_after_the_failure_does_not_place_it(after):
    assert _failure(TORCH_OOM + after).phase != "load_weight"


# --- what the paste's own words say of the time: a benchmark client's command, a sentence (parsers/time_claims.py)
CUT_OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 616.00 MiB. GPU 0 has a total capaci\n"
BENCH = (
    "I run some workload using `sglang.bench_serving` (from my local machine):\n\n"
    "python3 -m sglang.bench_serving --backend sglang-oai --num-prompt 5500 --base-url https://host --max-concurrency 1800\n\n"
    "The application crashes quite early with\n\n"
)
WATCHDOG = (
    "[rank14]:[E319 05:16:21.789822241 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 14] Process group watchdog "
    "thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
)


def test_a_benchmark_client_run_before_a_failure_places_it_while_serving_inferred():
    failure = _failure(BENCH + CUT_OOM)
    assert (failure.finding, failure.phase) == ("runtime-oom", "serving")
    assert "sglang.bench_serving" in failure.phase_basis and "lower confidence" in failure.phase_basis


def test_vllm_s_benchmark_client_before_a_failure_places_it_while_serving_inferred():
    prose = (
        "`vllm bench serve --model deepseek-ai/DeepSeek-V3.2-Exp --dataset-name random --port 9256 --request-rate inf`\n\n"
        "Will meet error\n\n```bash\n"
        "CUDA error (/src/build/_deps/flashmla-src/csrc/smxx/mla_combine.cu:201): invalid configuration argument\n```\n"
    )
    failure = _failure(prose)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert "'vllm bench serve': a benchmark client sends requests" in failure.phase_basis


@pytest.mark.parametrize(
    ("prose", "stage"),
    [
        ("I use tp=16 dp=16 with 2 nodes; when benching serving DeepSeekR1 the following error occurred:", "serving"),
        ("this error happen when request server,  log from prefill node.", "serving"),
        ("在推理过程中（不是初始化）会出现：", "serving"),
        ("SGLang currently fails to start on a machine using the NVIDIA R610+ driver stack with CUDA UMD 13.3.", "startup"),
        # a code span in the sentence is read too (a launch command here), and so is what the sentence says
        ("Starting any model with `sglang serve` fails during startup because CUDA initialization returns:", "startup"),
        ("Decode workers fail with DeepEP assertion error during kernel warmup because `X_TOKENS=1024` is too small", "warmup"),
        ("On 8xH20 the server crashes during CUDA graph capture when `--cuda-graph-max-bs 512` is set:", "capture"),
        ("- The hang is in the **scheduler process's** NCCL communicator init (not the main process):", "init_distributed"),
        # issue 43: RL runs that went on before they failed (verl-project/verl#2965, THUDM/slime#1391)
        (
            "I encountered an error while running multi-turn RL experiments on 1-node-8GPUs A100 GRPO training setup, "
            "after running   five steps normally.",
            "serving",
        ),
        (
            "Specifically, after long-time RL training (, like setting base model to dpsk_distill_qwen3_8b and train for "
            "50 steps+ on 8 H20s), the error raised as below:",
            "serving",
        ),
        # issue 43 item 3: load is a served server's; loading the model is startup's load_weight step
        ("On 2 x H200 the scheduler crashes under high concurrency (about 300 requests in flight) with:", "serving"),
        ("The process is OOM-killed while loading the model weights on a 24 GB card:", "load_weight"),
        ("It always dies during weight loading, at about 60% of the shards:", "load_weight"),
        ("The decode node crashes during the benchmark (random dataset, 1k input, 1k output):", "serving"),
        ("When running the stress test against the PD router, the prefill side reports:", "serving"),
        ("The scheduler hangs after processing about 200 requests, then the watchdog fires:", "serving"),
        # some hours before, a request sent, the first request (the shape of built paste nixl-1614), and a
        # crash word at startup or the server being started
        ("After about 3 hours the decode instance dies with:", "serving"),
        ("When I send requests with a long context the scheduler crashes:", "serving"),
        ("The model loads fine; the engine then fails on the very first streaming `/v1/completions` request.", "serving"),
        ("The prefill node crashes at startup with:", "startup"),
        ("When starting the server on two nodes it fails with:", "startup"),
        # the server would not start; a launcher's line that its launch failed (the shape of built paste areal-979)
        ("The server cannot start on the second node:", "startup"),
        ("It still won't come up on the second node:", "startup"),
        ("After 3 hours of serving the decode instance dies with:", "serving"),
        # in the middle of the loading (the shape of built paste vllm-49051's prose)
        ("With an old nvcc the first compile detonates mid-weight-load with a raw assertion:", "load_weight"),
        (
            "(AReaL) 20260304-10:31:13.128 SyncRPCServer ERROR: Engine method 'launch_server' failed: server launch failed",
            "startup",
        ),
    ],
    ids=[
        "benching",
        "requesting",
        "zh-inference",
        "startup",
        "startup-code-span",
        "warmup-code-span",
        "capture",
        "nccl-init",
        "rl-steps",
        "rl-long-time",
        "high-concurrency",
        "loading-the-model",
        "weight-loading",
        "during-the-benchmark",
        "stress-test",
        "after-requests",
        "after-hours",
        "send-requests",
        "first-request",
        "crashes-at-startup",
        "starting-the-server",
        "cannot-start",
        "it-won-t-come-up",
        "hours-of-serving",
        "mid-weight-load",
        "server-launch-failed",
    ],
)
def test_a_sentence_before_a_failure_places_it_inferred(prose, stage):
    failure = _failure(f"{prose}\n```\n{WATCHDOG}```\n")
    assert failure.phase == stage
    assert "the paste's own words" in failure.phase_basis and "lower confidence" in failure.phase_basis


@pytest.mark.parametrize(
    "prose",
    [
        "It does not fail during startup, only later.",  # said in the negative
        "If you see out-of-memory errors during serving, please try to reduce --mem-fraction-static.",  # a condition
        "It fails during startup on one node; on the other it fails during inference.",  # the claims disagree
        "The server dies after running 3 warmup steps:",  # SGLang's warmup is a startup step, not serving
        "It does not crash while loading the model, only later:",  # said in the negative
        "If it fails during the benchmark, lower the request rate.",  # a condition
        "It takes about 3 hours of loading and then fails after 3 hours of loading:",  # hours of a startup step
        "When I start the server and send requests, it fails:",  # the claims disagree
        "The decode side does not start until the prefill side finishes its transfer:",  # no start of the server
        # review7 item 3: the user's doing, the error's start and the user's hours
        "I didn't launch it with --enable-dp-attention.",
        "The error doesn't start appearing until later.",
        "After 2 hours of debugging I still get this:",
    ],
    ids=[
        "negated",
        "conditional",
        "disagree",
        "warmup-steps",
        "negated-loading",
        "conditional-benchmark",
        "hours-of-loading",
        "start-then-send",
        "does-not-start-until",
        "user-did-not-launch",
        "does-not-start-appearing",
        "hours-of-debugging",
    ],
)
def test_a_negated_or_contradicted_claim_places_nothing(prose):
    assert _failure(f"{prose}\n```\n{WATCHDOG}```\n").phase == "unknown"


def test_a_client_step_after_the_failure_or_a_claim_against_a_phase_line_is_not_taken():
    # a client step after the failure may be a later run (place12: a sentence of when it failed is read after the log
    # too, as a cue sentence is: test_a_sentence_under_the_log_says_when_it_failed)
    assert _failure(f"{WATCHDOG}\nThen I ran python3 -m sglang.bench_serving --backend sglang.\n").phase == "unknown"
    logged = "[2026-01-05 10:00:00 TP0] Load weight begin. avail mem=78.50 GB\n" + WATCHDOG.replace(
        "[rank14]:", "[2026-01-05 10:00:01 TP0] "
    )
    assert _failure(BENCH + logged).phase == "load_weight"


@pytest.mark.parametrize(
    "prose",
    [
        "This happened when benching serving.",
        "This happens after running for about 3 hours.",
        "It happens under high concurrency.",
    ],
)
def test_a_sentence_under_the_log_says_when_it_failed(prose):
    """place12: the issue's words under the log ("```...``` This happens after running for about 3 hours.") say when the
    failure it shows happened, as a cue sentence there does."""
    failure = _failure(f"```\n{WATCHDOG}```\n\n{prose}\n")
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert "inferred from line 5" in failure.phase_basis


# --- the released source of the releases the paste shows (stage_functions: a function placed by some releases only)
BATCH_FRAME = "sglang/srt/managers/schedule_batch.py:1093 get_model_worker_batch"


def test_a_frame_is_placed_by_the_releases_the_paste_shows():
    # ScheduleBatch.get_model_worker_batch: only the scheduler's batches call it in 0.3.3.post1-0.4.0.post2; later
    # releases reach it from startup too (the PP predictor's profiling in Scheduler.__init__)
    assert stage_functions.place_frame(BATCH_FRAME) is None
    placed = stage_functions.place_frame(BATCH_FRAME, ("0.4.0", "0.4.0"))
    assert placed is not None and placed.stage == "serving"
    assert stage_functions.place_frame(BATCH_FRAME, ("0.4.0", "0.5.12")) is None  # a range that holds both
    assert stage_functions.place_frame(BATCH_FRAME, ("0.9.0", "0.9.0")) is None  # no catalogued release of it


def test_a_stated_release_places_the_failure_in_the_analysis():
    frames = [(f"{SITE}/sglang/srt/managers/schedule_batch.py", 1093, "get_model_worker_batch", "seq_lens = x.cpu()")]
    text = _traceback(frames, "RuntimeError: CUDA error: an illegal memory access was encountered", head="")
    assert _failure(text).phase == "unknown"
    assert _failure("- SGLang: 0.4.0.post2\n" + text).phase == "serving"


# --- a launcher's own line that its launch of the model raised (Xinference's wordings, time_claims.py)
SGL_KERNEL_LOADER = (
    "[sgl_kernel] CRITICAL: Could not load any common_ops library!\n\n"
    "Attempted locations:\n"
    "1. Architecture-specific pattern: /root/.xinference/virtualenv/v4/qwen3.5/sglang/3.12.13/lib/python3.12/site-packages/"
    "sgl_kernel/sm100/common_ops.* - found files: []\n"
)


def test_a_launchers_failed_launch_line_places_the_failure_at_startup_inferred():
    # xinference-4741's lines (built): Xinference logs the launch's exception after its own words
    text = (
        "2026-03-30 03:00:34,192 xinference.core.supervisor 109 ERROR    Failed to launch replica qwen3.5-0: "
        "[address=0.0.0.0:43155, pid=438] \n" + SGL_KERNEL_LOADER
    )
    failure = _failure(text)
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert "'Failed to launch replica qwen3.5-0': the launcher's line" in failure.phase_basis
    assert "not SGLang's: lower confidence" in failure.phase_basis


def test_sglangs_own_failed_model_config_line_places_nothing():
    # SGLang prints "Failed to load model config: {e}" in ModelRunner.update_weights (0.3.0): no launch
    # (no launcher's line: the released source places it, as the code that prints it, ModelRunner.update_weights,
    # runs only for a request: lines_before.py)
    text = "[2024-09-01 10:00:00 TP0] Failed to load model config: boom\n" + SGL_KERNEL_LOADER
    failure = _failure(text)
    assert "launcher" not in failure.phase_basis
    assert failure.phase_basis.startswith("after line 1, 'Failed to load model config:'")
    assert "update_weights" in failure.phase_basis


# --- faulthandler's dump: another thread running SGLang code only a serving server runs (a KV transfer in flight)
FAULTHANDLER_OTHER_THREAD = """Fatal Python error: Segmentation fault

Thread 0x00007fb209fff640 (most recent call first):
  File "/home/sglang_0.4.7_dea8aa7/python/sglang/srt/disaggregation/mooncake/transfer_engine.py", line 75 in transfer_sync
  File "/home/sglang_0.4.7_dea8aa7/python/sglang/srt/disaggregation/mooncake/conn.py", line 259 in process_layer
  File "/usr/lib/python3.10/concurrent/futures/thread.py", line 58 in run
  File "/usr/lib/python3.10/concurrent/futures/thread.py", line 83 in _worker
  File "/usr/lib/python3.10/threading.py", line 953 in run
  File "/usr/lib/python3.10/threading.py", line 1016 in _bootstrap_inner
  File "/usr/lib/python3.10/threading.py", line 973 in _bootstrap
"""


def test_another_threads_kv_transfer_in_flight_places_a_crash_while_serving():
    # sglang-7338-2's dump (the second paste of sgl-project/sglang#7338, built): the crashed thread's frames not shown
    failure = _failure(FAULTHANDLER_OTHER_THREAD)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    basis = failure.phase_basis
    # its innermost SGLang frame: MooncakeTransferEngine.transfer_sync, reached from the transfer thread only
    assert "another thread of the dump was running SGLang code: frame .../mooncake/transfer_engine.py:75 transfer_sync" in basis


def test_another_thread_waiting_in_a_queue_places_nothing():
    # the same thread waiting for work (its innermost frame the standard library's): such threads start at startup
    transfer_line = FAULTHANDLER_OTHER_THREAD.splitlines()[3] + "\n"
    waiting = FAULTHANDLER_OTHER_THREAD.replace(transfer_line, '  File "/usr/lib/python3.10/queue.py", line 171 in get\n')
    assert _failure(waiting).phase == "unknown"


# sglang 0.5.2's shape: the dummy health server of nodes >= 1 is built at startup, its routes defined inside the
# function; a route handler runs on a request, so the function that defines it does not call it
DUMMY_SERVER = """
def launch_dummy_health_check_server(host, port):
    app = FastAPI()

    @app.get("/health_generate")
    async def health_generate():
        return Response(status_code=200)

    uvicorn.run(app)
"""
HTTP_SERVER = """
@app.get("/health_generate")
async def health_generate(request):
    logger.error("Health check failed. Server couldn't get a response from detokenizer for last 20 seconds.")
"""
ENGINE = """
def _launch_subprocesses(server_args):
    launch_dummy_health_check_server(server_args.host, server_args.port)
"""


def test_a_route_handler_defined_inside_a_startup_function_is_not_called_by_it():
    modules = {"utils": DUMMY_SERVER, "entrypoints/http_server": HTTP_SERVER, "entrypoints/engine": ENGINE}
    out = stages.release_stages([(f"sglang/srt/{name}.py", text) for name, text in modules.items()])
    assert out["sglang.srt.utils:launch_dummy_health_check_server"]["stage"] == "startup"
    assert out["sglang.srt.entrypoints.http_server:health_generate"]["stage"] == "none"  # no root reaches a request's handler
    assert "wording:Health check failed. Server couldn't get a response from" not in out


# --- the lines before a failure that say how far the launch had got (signatures/lines_before.py)
# SGLang's engine waiting for its schedulers' "ready" (sglang 0.5.6.post2 entrypoints/engine.py _launch_subprocesses and
# multimodal_gen/runtime/launch_server.py launch_server: logger.error(f"Rank {i} scheduler is dead. ..."), the exit
# code, then `raise`), then the CLI's traceback cut before its exception line (the shape of built paste sglang-15235)
DEAD_AT_START = (
    "[12-16 14:27:08] Rank 0 scheduler is dead. Please check if there are relevant logs.\n"
    "[12-16 14:27:10] Exit code: -9\n"
    "Traceback (most recent call last):\n"
    f'  File "{SITE}/sglang/cli/main.py", line 26, in main\n'
    "    args.func(args, extra_argv)\n"
    f'  File "{SITE}/sglang/multimodal_gen/runtime/entrypoints/diffusion_generator.py", line 134, in from_server_args\n'
    "    instance.local_scheduler_process = instance._start_local_server_if_needed()\n"
)


def test_a_wording_only_startup_prints_before_a_failure_places_it_at_startup():
    failure = _failure(DEAD_AT_START)
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert failure.phase_basis.startswith("after line 1, 'scheduler is dead. Please check if there are relevant logs.'")
    assert "runs only at startup" in failure.phase_basis and "_wait_for_scheduler_ready" in failure.phase_basis


# "Cache flushed successfully!": Scheduler.flush_cache, run for a /flush_cache request (sglang 0.4.3.post4-0.5.9)
FLUSHED = "[2025-05-23 18:02:43] Cache flushed successfully!\n"
CUT_TRACEBACK = f'Traceback (most recent call last):\n  File "{SITE}/torch/cuda/memory.py", line 200, in empty_cache\n'


def test_a_wording_only_serving_prints_before_a_failure_places_it_while_serving():
    failure = _failure(FLUSHED + CUT_TRACEBACK)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert "Cache flushed successfully!" in failure.phase_basis


def test_a_phase_line_after_the_wording_or_a_wording_after_the_failure_is_not_taken():
    # the rank's phase line is nearer: it places the failure (after capture's end: unknown), not the wording before it
    ended = "[2025-05-23 18:02:40 TP0] Capture cuda graph end. Time elapsed: 3.01 s. mem usage=0.50 GB. avail mem=20.00 GB.\n"
    tagged = CUT_TRACEBACK.replace("Traceback", "[2025-05-23 18:02:44 TP0] Traceback")
    assert _failure(FLUSHED + ended + tagged).phase == "unknown"
    assert _failure(CUT_TRACEBACK + FLUSHED).phase == "unknown"


# the capture bar printed by TP rank 0 only (sglang 0.5.x cuda_graph_runner.py: tqdm where tp_rank == 0, untagged),
# then another rank's exception (the shape of built paste slime-1314)
BAR_THEN_TP1 = (
    "Capturing batches (bs=32 avail_mem=10.30 GB):   0%|          | 0/8 [00:00<?, ?it/s]\n"
    "[2026-01-04 01:42:54 TP0] Registering 0 cuda graph addresses\n"
    "[2026-01-04 01:42:55 TP1] Scheduler hit an exception: Traceback (most recent call last):\n"
    f'  File "{SITE}/flashinfer/jit/cpp_ext.py", line 299, in run_ninja\n'
    "    subprocess.run(\n"
    "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.\n"
)


def test_the_other_ranks_last_phase_line_places_a_rank_that_printed_none():
    failure = _failure(BAR_THEN_TP1)
    assert (failure.finding, failure.phase) == ("startup-crash", "capture")
    assert "after the last phase line of TP0, capture_progress (this rank printed none)" in failure.phase_basis


def test_a_rank_with_its_own_phase_line_is_placed_by_it():
    own = "[2026-01-04 01:42:50 TP1] Load weight begin. avail mem=70.00 GB\n"
    assert _failure(own + BAR_THEN_TP1).phase == "load_weight"


def test_a_failure_stated_in_prose_is_placed_by_a_claim_after_it():
    # the shape of built paste nixl-1614: the failure stated first, the time in a later sentence of the same prose
    prose = (
        "KV transfer over NIXL/UCX fails with `NIXL_ERR_BACKEND` on `postXferReq` between two GB200 nodes.\n\n"
        "The model loads fine and the warmup returns coherent output; the engine then fails on the very first streaming"
        " `/v1/completions` request.\n"
    )
    failure = _failure(prose)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert "on the very first streaming `/v1/completions` request" in failure.phase_basis


# --- SGLang's warmup request (signatures/warmup.py): a batch the scheduler ran shows it serving, the warmup's included,
# unless SGLang then says its warmup request failed (sglang 0.4.1.post7-0.5.23 http_server._execute_server_warmup:
# "Initialization failed. warmup error: ..." then kill_process_tree)
UVICORN_UP = "[2026-01-05 10:00:00] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n"
WARMUP_PREFILL = (
    "[2026-01-05 10:00:01 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, "
    "#running-req: 0, #queue-req: 0\n"
)
LOOP_CRASH = _traceback(
    [
        (f"{SITE}/sglang/srt/managers/scheduler.py", 2704, "event_loop_overlap", "result = self.run_batch(batch)"),
        (f"{SITE}/sglang/srt/managers/scheduler.py", 2147, "run_batch", "out = self.tp_worker.forward_batch_generation(b)"),
    ],
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    head="[2026-01-05 10:00:02 TP0] Scheduler hit an exception: ",
)
BATCH_CRASH = WARMUP_PREFILL + _traceback(
    [
        (f"{SITE}/sglang/srt/managers/scheduler.py", 2704, "event_loop_overlap", "result = self.run_batch(batch)"),
        (f"{SITE}/sglang/srt/managers/scheduler.py", 2147, "run_batch", "out = self.tp_worker.forward_batch_generation(b)"),
    ],
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    head="[2026-01-05 10:00:02 TP0] Scheduler hit an exception: ",
)
WARMUP_FAILED = "[2026-01-05 10:00:05] Initialization failed. warmup error: Traceback (most recent call last):\n"
READY = "[2026-01-05 10:00:01] The server is fired up and ready to roll!\n"


def _findings(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


def test_a_batch_that_failed_before_sglangs_warmup_failure_was_the_warmups():
    found = _findings(BATCH_CRASH + WARMUP_FAILED)
    assert {(f.finding, f.phase) for f in found} == {("startup-crash", "warmup")}
    batch = next(f for f in found if f.signature != "process-warmup-failed")
    assert "line 8 says SGLang's warmup request failed, and no ready line came before" in batch.phase_basis


def test_a_batch_without_the_warmup_failure_or_after_the_ready_line_is_serving():
    assert {(f.finding, f.phase) for f in _findings(BATCH_CRASH)} == {("runtime-crash", "serving")}
    found = _findings(READY + BATCH_CRASH + WARMUP_FAILED)
    assert ("runtime-crash", "serving") in {(f.finding, f.phase) for f in found}


# --- SGLang's warmup (sglang 0.4.6.post5, 0.5.1.post3, 0.5.9, 0.5.23 entrypoints/http_server.py _wait_and_warmup):
# once uvicorn is up SGLang polls /model_info, sends ONE warmup request and prints the ready line only when it came
# back. The labels' convention (fixtures/mined/README.md) calls a failure with only the warmup's lines before it the
# warmup's; the reader does not claim it from uvicorn's start alone (a paste's lines between may be cut away): every
# startup step was done, serving, and the basis says the warmup request comes next
@pytest.mark.parametrize(
    "between",
    [
        "",
        WARMUP_PREFILL,
        '[2026-01-05 10:00:00] INFO:     127.0.0.1:40418 - "GET /model_info HTTP/1.1" 200 OK\n' + WARMUP_PREFILL,
        # data parallel: one warmup sequence per DP rank's scheduler
        WARMUP_PREFILL + WARMUP_PREFILL.replace("TP0]", "DP1 TP1]"),
    ],
    ids=["uvicorn-only", "warmup-prefill", "model-info-poll", "one-per-dp-rank"],
)
def test_a_failure_after_uvicorns_start_and_only_the_warmups_lines_is_after_startup(between):
    (failure,) = _findings(UVICORN_UP + between + LOOP_CRASH)
    assert (failure.finding, failure.phase, failure.after_ready) == ("runtime-crash", "serving", True)
    assert failure.phase_basis.startswith("after line 1, uvicorn up")
    assert "its warmup request comes next" in failure.phase_basis


@pytest.mark.parametrize(
    ("between", "line"),
    [
        (READY, 2),
        ('[2026-01-05 10:00:01] INFO:     127.0.0.1:5012 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n', 2),
        ("[2026-01-05 10:00:01 TP0] Decode batch. #running-req: 1, #token: 40, token usage: 0.00, #queue-req: 0\n", 2),
    ],
    ids=["ready-line", "served-request", "decode-batch"],
)
def test_a_failure_after_a_line_past_the_warmup_is_serving(between, line):
    (failure,) = _findings(UVICORN_UP + between + LOOP_CRASH)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert f"line {line}" in failure.phase_basis


# --- a client library's error that shows the server had taken the request (signatures/client_errors.py: the wordings
# of httpcore 1.0.9, aiohttp 3.14.5, CPython's http.client, openai 3.63.0, httpx 0.29.0 and requests 2.34.2)
def _client_traceback(last: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        '  File "/home/user/rollout/client.py", line 88, in generate\n'
        "    reply = session.post(url, json=payload)\n"
        f"{last}\n"
    )


@pytest.mark.parametrize(
    ("last", "library"),
    [
        ("httpx.RemoteProtocolError: Server disconnected without sending a response.", "httpcore 1.0.9"),
        (
            "httpx.RemoteProtocolError: peer closed connection without sending complete message body (incomplete chunked read)",
            "h11 0.16.0",
        ),
        ("aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected", "aiohttp 3.14.5"),
        (
            "aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed: "
            "<TransferEncodingError: 400, message='Not enough data to satisfy transfer length header.'>",
            "aiohttp 3.14.5",
        ),
        (
            "requests.exceptions.ConnectionError: ('Connection aborted.', RemoteDisconnected('Remote end closed "
            "connection without response'))",
            "CPython 3.11",
        ),
        ("openai.InternalServerError: Error code: 500 - {'object': 'error', 'message': 'boom', 'code': 500}", "openai"),
        (
            "httpx.HTTPStatusError: Server error '500 Internal Server Error' for url 'http://10.0.0.2:30000/generate'",
            "httpx 0.29.0",
        ),
        (
            "requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: http://10.0.0.2:30000/generate",
            "requests 2.34.2",
        ),
    ],
    ids=[
        "httpx-disconnected",
        "httpx-incomplete-body",
        "aiohttp-disconnected",
        "aiohttp-payload",
        "requests-remote-disconnected",
        "openai-500",
        "httpx-500",
        "requests-500",
    ],
)
def test_a_client_error_that_shows_the_request_was_taken_places_it_while_serving(last, library):
    (failure,) = _findings(_client_traceback(last))
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert f"({library}" in failure.phase_basis and "the server had taken the request" in failure.phase_basis


@pytest.mark.parametrize(
    "last",
    [
        # no server answered: it may not be up
        "requests.exceptions.ConnectionError: HTTPConnectionPool(host='10.0.0.2', port=30000): Max retries exceeded "
        "with url: /generate (Caused by NewConnectionError('Failed to establish a new connection: [Errno 111] "
        "Connection refused'))",
        # a gateway's answer: the server behind it may be down
        "httpx.HTTPStatusError: Server error '503 Service Unavailable' for url 'http://10.0.0.2:30000/generate'",
        "requests.exceptions.HTTPError: 502 Server Error: Bad Gateway for url: http://10.0.0.2:30000/generate",
        "openai.InternalServerError: Error code: 504 - {'message': 'upstream timed out'}",
        # a proxy that names its 503 "Internal Server Error": only requests' status says 500 (review12a item 6)
        "requests.exceptions.HTTPError: 503 Server Error: Internal Server Error for url: http://10.0.0.2:30000/generate",
        # a readiness probe's 500: its handler runs no batch (review13b item 6)
        "requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: http://localhost:30000/health",
        "httpx.HTTPStatusError: Server error '500 Internal Server Error' for url 'http://10.0.0.2:30000/v1/models'",
    ],
    ids=[
        "connection-refused",
        "gateway-503",
        "requests-gateway-502",
        "openai-gateway-504",
        "requests-503-named-500",
        "requests-500-health",
        "httpx-500-models",
    ],
)
def test_a_client_error_that_shows_no_taken_request_places_nothing(last):
    (failure,) = _findings(_client_traceback(last))
    assert failure.phase == "unknown"


def test_sglangs_own_warmup_request_error_is_no_clients():
    text = (
        "[2026-01-05 10:00:05] Initialization failed. warmup error: Traceback (most recent call last):\n"
        '  File "/sgl/python/sglang/srt/entrypoints/http_server.py", line 1434, in _execute_server_warmup\n'
        "    res = requests.post(url + request_name, json=json_data, headers=headers, timeout=600)\n"
        "requests.exceptions.ConnectionError: ('Connection aborted.', RemoteDisconnected('Remote end closed connection "
        "without response'))\n"
    )
    assert {(f.finding, f.phase) for f in _findings(text)} == {("startup-crash", "warmup")}


def test_a_failure_after_the_launchs_server_args_dump_alone_is_startup():
    """place12: SGLang logs its server_args dump as the launch's first line; a failure after it with no phase line or
    serving line since came while the server was starting (no step shown); without the dump the time stays unknown."""
    crash = "[2025-06-01 10:00:09 TP0] Scheduler hit an exception: RuntimeError: CUDA error: an illegal memory access\n"
    dump = "[2025-06-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, mem_fraction_static=0.88)\n"
    failure = _failure(dump + crash)
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert failure.phase_basis.startswith("after line 1, the launch's server_args dump")
    assert _failure(crash).phase == "unknown"


@pytest.mark.parametrize(
    ("batch", "phase"),
    [
        ("Decode batch. #running-req: 12, #token: 40000, token usage: 0.10, gen throughput (token/s): 900.00", "serving"),
        # the warmup's prefill prints the same: no request shown served
        ("Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00", "unknown"),
    ],
)
def test_a_failure_stated_in_prose_over_a_log_of_the_server_serving_is_placed_while_serving(batch, phase):
    """place12: the prose states the failure, the log under it shows what led to it; no log line places the failure
    before or after it."""
    text = f"The server crashes with a segmentation fault.\n\n```\n[2025-06-01 09:59:05 TP0] {batch}\n```\n"
    assert _failure(text).phase == phase


def _weight_update_traceback(*frames: str) -> str:
    site = "/usr/local/lib/python3.10/dist-packages/sglang/srt"
    lines = ["[2025-06-01 10:00:06 TP0] Scheduler hit an exception: Traceback (most recent call last):"]
    for path, line, func, code in frames:
        lines += [f'  File "{site}/{path}", line {line}, in {func}', f"    {code}"]
    return "\n".join([*lines, "AssertionError"]) + "\n"


_UPDATE_FRAMES = (
    ("managers/scheduler.py", 1100, "process_input_requests", "output = self._request_dispatcher(recv_req)"),
    (
        "managers/scheduler.py",
        2300,
        "update_weights_from_tensor",
        "success, message = self.tp_worker.update_weights_from_tensor(",
    ),
    (
        "managers/tp_worker.py",
        300,
        "update_weights_from_tensor",
        "success, message = self.model_runner.update_weights_from_tensor(",
    ),
    ("model_executor/model_runner.py", 900, "update_weights_from_tensor", "self.model.load_weights(named_tensors)"),
    ("models/qwen2.py", 500, "load_weights", "weight_loader(param, loaded_weight, shard_id)"),
    ("layers/linear.py", 700, "weight_loader", "assert param_data.shape == loaded_weight.shape"),
)


def test_load_weights_under_a_weight_update_is_no_startup_step():
    """place12: an RL trainer's weight update (sglang 0.4.1.post7-0.5.23 update_weights_from_tensor / _disk /
    _distributed / _ipc, load_lora_adapter) calls the model's load_weights on a running server: no load_weight step;
    the released source places the stack where it can (the scheduler's handler serves), else nothing does."""
    failure = _failure(_weight_update_traceback(*_UPDATE_FRAMES))
    assert failure.phase != "load_weight"
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    # cut to the worker's and the runner's frames: their update_weights_from_tensor runs only for the scheduler's
    # weight-update request (serving, 0.4.1.post7-0.5.4.post3; no root reaches them later: those place nothing)
    assert _failure(_weight_update_traceback(*_UPDATE_FRAMES[2:])).phase == "serving"
    # the same load_weights from the model's loading stays load_weight
    loading = (
        ("model_executor/model_runner.py", 450, "load_model", "self.model = get_model(model_config=self.model_config)"),
        *_UPDATE_FRAMES[4:],
    )
    assert _failure(_weight_update_traceback(*loading)).phase == "load_weight"


# review12a item 12: a serving line stamped before a failure pasted above the log places it serving only when no launch
# (a server_args dump) is stamped between them: after a relaunch the failure may be the new launch's startup
def _pasted_first(relaunch: bool) -> str:
    log = [
        "[2025-06-01 10:00:01] server_args=ServerArgs(model_path='Qwen/Qwen2-7B', tp_size=1)",
        "[2025-06-01 10:00:05 TP0] Load weight begin. avail mem=78.00 GB",
        "[2025-06-01 10:00:45 TP0] Decode batch. #running-req: 3, #token: 4000, token usage: 0.10, "
        "gen throughput (token/s): 900.00",
    ]
    if relaunch:
        log += [
            "[2025-06-01 11:00:01] server_args=ServerArgs(model_path='Qwen/Qwen2-7B', tp_size=2)",
            "[2025-06-01 11:00:05 TP0] Load weight begin. avail mem=78.00 GB",
        ]
    return (
        "The error:\n```\n[2025-06-01 11:00:09 TP0] Scheduler hit an exception: RuntimeError: CUDA error: an illegal "
        "memory access was encountered\n```\nFull log:\n```\n" + "\n".join(log) + "\n```\n"
    )


def test_a_failure_pasted_above_the_log_is_not_placed_serving_across_a_relaunch():
    placed = {(f.finding, f.phase) for f in _findings(_pasted_first(relaunch=True))}
    assert placed and not any(phase == "serving" for _, phase in placed)
    assert {(f.finding, f.phase) for f in _findings(_pasted_first(relaunch=False))} == {("runtime-crash", "serving")}


# sgl-project/sglang#13801's shape (built): the scheduler's AssertionError alone in a fence, then the launch command;
# Req.pop_committed_kv_cache runs only on the request path (sglang 0.5.5.post3-0.5.15.post1), whose first request is
# the server's warmup: the exception line alone leaves the time open
COMMITTED_ALONE = (
    "AssertionError: Committed KV cache already freed (self.kv_committed_len=15)\n"
    "python3 -m sglang.launch_server --model meta-llama/Meta-Llama-3.1-8B-Instruct --port 23333 --enable-lmcache\n"
)


def test_a_request_path_exception_line_alone_is_no_serving_time():
    failure = _failure(COMMITTED_ALONE)
    assert (failure.finding, failure.phase) == ("failure-time-unknown", "unknown")

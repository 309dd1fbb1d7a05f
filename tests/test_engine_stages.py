"""vLLM's engine functions that run only while it starts or only once it serves (catalog/engine_stages.json, checked
against the released wheels by tools/upstream/engine_stages.py) place a traceback with vLLM's frames and no SGLang
frame: the engine Dynamo, verl and LMCache run. Constructed tracebacks in the shape CPython prints them."""

from __future__ import annotations

import pytest

from logscope.core import engine_stages
from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from tools.upstream import engine_stages as tool

SITE = "/usr/local/lib/python3.12/dist-packages"
ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered"


def _failure(text: str) -> Failure:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    found = [f for fs in analysis.failures.values() for f in fs]
    assert len(found) == 1, found
    return found[0]


def _traceback(frames: list[tuple[str, int, str, str]], last: str = ILLEGAL) -> str:
    lines = ["Traceback (most recent call last):"]
    for path, line, func, code in frames:
        lines += [f'  File "{path}", line {line}, in {func}', f"    {code}"]
    return "\n".join([*lines, last]) + "\n"


# the offline engine generating (vllm 0.10.2 entrypoints/llm.py LLM.generate -> _run_engine -> LLMEngine.step)
OFFLINE = [
    ("/home/u/run.py", 12, "main", "outputs = llm.generate(prompts, sampling_params)"),
    (f"{SITE}/vllm/entrypoints/llm.py", 395, "generate", "outputs = self._run_engine(use_tqdm=use_tqdm)"),
    (f"{SITE}/vllm/entrypoints/llm.py", 1550, "_run_engine", "step_outputs = self.llm_engine.step()"),
    (f"{SITE}/vllm/v1/engine/llm_engine.py", 238, "step", "outputs = self.engine_core.get_output()"),
]
# a V0 worker profiling memory for its KV blocks (vllm 0.6.3.post1 worker/worker.py Worker.determine_num_available_blocks)
V0_PROFILE = [
    (f"{SITE}/vllm/worker/worker_base.py", 465, "execute_method", "return executor(*args, **kwargs)"),
    (f"{SITE}/vllm/worker/worker.py", 223, "determine_num_available_blocks", "self.model_runner.profile_run()"),
]
# the V1 worker loading the model (vllm 0.20.2 v1/worker/gpu_worker.py Worker.load_model -> GPUModelRunner.load_model)
V1_LOAD = [
    (f"{SITE}/vllm/v1/executor/multiproc_executor.py", 619, "__init__", "self.worker.load_model()"),
    (
        f"{SITE}/vllm/v1/worker/gpu_worker.py",
        323,
        "load_model",
        "self.model_runner.load_model(load_dummy_weights=load_dummy_weights)",
    ),
    (f"{SITE}/vllm/v1/worker/gpu_model_runner.py", 4793, "load_model", "self.model = model_loader.load_model("),
]


# the engine core building its executor, which starts the workers and waits for them (vllm 0.20.2 v1/engine/core.py
# EngineCore.__init__ -> v1/executor/abstract.py Executor.__init__ -> multiproc_executor.py _init_executor ->
# WorkerProc.wait_for_ready), each frame under vLLM's EngineCore log prefix as the engine logs its traceback
EXECUTOR = [
    (f"{SITE}/vllm/v1/executor/multiproc_executor.py", 108, "__init__", "super().__init__(vllm_config)"),
    (f"{SITE}/vllm/v1/executor/abstract.py", 109, "__init__", "self._init_executor()"),
    (
        f"{SITE}/vllm/v1/executor/multiproc_executor.py",
        201,
        "_init_executor",
        "self.workers = WorkerProc.wait_for_ready(unready_workers)",
    ),
    (f"{SITE}/vllm/v1/executor/multiproc_executor.py", 700, "wait_for_ready", "raise e from None"),
]


def test_the_executor_starting_its_workers_places_the_failure_at_startup():
    prefix = "(EngineCore pid=58) ERROR 07-28 23:06:48 [core.py:1195] "
    text = "".join(
        f"{prefix}{line}\n" for line in _traceback(EXECUTOR, "Exception: WorkerProc initialization failed").splitlines()
    )
    failure = _failure(text)
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert "WorkerProc.wait_for_ready in vllm 0.8.5.post1-0.34.0" in failure.phase_basis


def test_the_offline_engine_s_generate_places_the_failure_while_serving():
    failure = _failure(_traceback(OFFLINE))
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert "LLMEngine.step in vllm 0.8.5.post1-0.34.0" in failure.phase_basis
    assert "once vLLM's engine serves" in failure.phase_basis


def test_a_v0_worker_s_memory_profile_places_the_failure_at_startup():
    failure = _failure(_traceback(V0_PROFILE, "RuntimeError: NCCL Error 3: internal error"))
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert "Worker.determine_num_available_blocks in vllm 0.6.3.post1-0.10.2" in failure.phase_basis


# the model runner's step cut under the engine core's prefix, its outer frames not pasted (probe
# Sandermage/genesis-vllm-patches#1: vllm v1/worker/gpu_model_runner.py GPUModelRunner.execute_model -> _model_forward)
RUNNER_STEP = [
    (f"{SITE}/vllm/v1/worker/gpu_model_runner.py", 4035, "execute_model", "model_output = self._model_forward("),
    (f"{SITE}/vllm/v1/worker/gpu_model_runner.py", 3507, "_model_forward", "return self.model("),
]
# the model runner profiling memory (its _dummy_run, which profiling and capture run): no step of a served batch
RUNNER_PROFILE = [
    (f"{SITE}/vllm/v1/worker/gpu_worker.py", 263, "determine_available_memory", "self.model_runner.profile_run()"),
    (f"{SITE}/vllm/v1/worker/gpu_model_runner.py", 3400, "profile_run", "hidden_states, last_hidden_states = self._dummy_run("),
]


def test_the_model_runner_s_step_places_the_failure_while_serving():
    prefix = "(EngineCore pid=229) "
    lines = _traceback(RUNNER_STEP, "torch.OutOfMemoryError: CUDA out of memory.").splitlines()
    text = "".join(f"{prefix}{line}\n" for line in lines)
    failure = _failure(text)
    assert failure.phase == "serving"
    assert "GPUModelRunner.execute_model in vllm 0.8.5.post1-0.27.1" in failure.phase_basis


def test_the_model_runner_s_profile_stays_at_startup():
    failure = _failure(_traceback(RUNNER_PROFILE))
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")


def test_the_v1_worker_s_model_load_places_the_failure_in_load_weight():
    failure = _failure(_traceback(V1_LOAD))
    assert (failure.finding, failure.phase) == ("startup-crash", "load_weight")


@pytest.mark.parametrize(
    "frames",
    [
        [
            *V1_LOAD[:1],
            (f"{SITE}/vllm/distributed/elastic_ep/elastic_execute.py", 272, "reload", "self.worker.load_model("),
            *V1_LOAD[1:],
        ],
        [*OFFLINE[:2], *V1_LOAD[1:]],  # frames pointing both ways
        [("/repo/tests/v1/test_engine.py", 5, "test_generate", "llm.generate(p)"), *OFFLINE[1:]],
    ],
    ids=["elastic-ep-rescale", "both-ways", "test-harness"],
)
def test_a_rescale_a_contradicting_stack_or_a_test_places_nothing(frames):
    assert engine_stages.place_stack([f"{p}:{n} {f}: {c}" for p, n, f, c in frames]) is None


def test_every_listed_function_is_checked_against_a_release_s_source():
    source = "class Worker:\n    def load_model(self):\n        pass\n\nclass Other:\n    def load_model(self):\n        pass\n"
    assert "vllm.worker.worker:load_model" not in tool.release_stages({"vllm.worker.worker": source})  # Other's too
    kept = tool.release_stages({"vllm.worker.worker": source.split("\n\nclass Other")[0]})
    assert kept["vllm.worker.worker:load_model"] == {
        "stage": "startup",
        "phase": "load_weight",
        "qualnames": ["Worker.load_model"],
        "line": 2,
    }

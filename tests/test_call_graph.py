"""The stage catalogue's call graph (tools/upstream/call_graph.py): each call resolved only as far as the calling
file states it. Each case is a small package in SGLang's shape (file names and roots as the released wheels have
them): a startup root (ModelRunner.initialize, Scheduler.__init__) or a serving root (Scheduler.run_batch) calls
through one form, and the function at the other end is placed (reached) or not (`none`)."""

from __future__ import annotations

import json
from pathlib import Path

from tools.upstream import call_graph, sources, stages

RUNNER = "sglang/srt/model_executor/model_runner.py"
SCHEDULER = "sglang/srt/managers/scheduler.py"


def _stage(files: dict[str, str]) -> dict[str, str]:
    out = stages.release_stages(list(files.items()))
    return {key: entry["stage"] for key, entry in out.items()}


def _expect(files: dict[str, str], expected: dict[str, str]) -> None:
    stage = _stage(files)
    assert {key: stage[key] for key in expected} == expected


def _graph(files: dict[str, str]) -> call_graph.Graph:
    return stages._graph(list(files.items()))


# --- the three over-reaches of the name-only graph (sglang 0.5.x): a library object's method shares a name with one
# of SGLang's classes; the call says nothing of that class
ENGINE = """
class Engine:
    def encode(self, prompt):
        return self.tokenizer_manager.generate_request(prompt)
"""
CUDA_GRAPH_RUNNER = """
class CudaGraphRunner:
    def run(self):
        raise RuntimeError("Capture cuda graph failed while the runner ran")
"""
DECODE = """
class DecodePreallocQueue:
    def add(self, req):
        raise ValueError("Prealloc queue rejected the request given")
"""
OVER_REACH_RUNNER = """
import uvicorn
_warned = set()
class ModelRunner:
    def initialize(self):
        ids = self.tokenizer.encode("warmup text")
        _warned.add("once")
        uvicorn.run(self.app)
"""


def test_a_library_objects_method_is_no_sglang_method_of_its_name():
    files = {
        "sglang/srt/entrypoints/engine.py": ENGINE,
        "sglang/srt/model_executor/cuda_graph_runner.py": CUDA_GRAPH_RUNNER,
        "sglang/srt/disaggregation/decode.py": DECODE,
        RUNNER: OVER_REACH_RUNNER,
    }
    stage = _stage(files)
    assert stage["sglang.srt.model_executor.model_runner:initialize"] == "startup"
    assert stage["sglang.srt.entrypoints.engine:encode"] == "none"  # tokenizer.encode: an HF tokenizer's
    assert stage["sglang.srt.model_executor.cuda_graph_runner:run"] == "none"  # uvicorn.run: an import of uvicorn
    assert stage["sglang.srt.disaggregation.decode:add"] == "none"  # _warned.add: a set
    assert "wording:Capture cuda graph failed while the runner ran" not in stages.release_stages(list(files.items()))


# --- self.x(): the enclosing class and its family, never another class's method of that name
SELF_CALLS = {
    RUNNER: """
class ModelRunner:
    def initialize(self):
        self.init_memory_pool()
    def init_memory_pool(self):
        pass
""",
    "sglang/srt/mem_cache/other.py": """
class OtherPool:
    def init_memory_pool(self):
        raise ValueError("Other pool could not be sized at all")
""",
}


def test_self_calls_resolve_to_the_enclosing_class_only():
    expected = {"sglang.srt.model_executor.model_runner:init_memory_pool": "startup"}
    _expect(SELF_CALLS, expected | {"sglang.srt.mem_cache.other:init_memory_pool": "none"})


# --- f() and m.f(): through the file's imports (a relative import, a module alias, a package's re-export)
IMPORTS = {
    RUNNER: """
from sglang.srt.utils import set_up_weights
from ..distributed import parallel_state as ps
import sglang.srt.mem_cache.pool_utils as pool_utils
class ModelRunner:
    def initialize(self):
        set_up_weights()
        ps.init_groups()
        pool_utils.size_pool()
""",
    "sglang/srt/utils/__init__.py": "from .common import set_up_weights\n",
    "sglang/srt/utils/common.py": "def set_up_weights():\n    pass\n",
    "sglang/srt/distributed/parallel_state.py": "def init_groups():\n    pass\n",
    "sglang/srt/mem_cache/pool_utils.py": "def size_pool():\n    pass\n",
    # the same names elsewhere in the package: no call reaches them
    "sglang/srt/lora/weights.py": "def set_up_weights():\n    pass\ndef init_groups():\n    pass\ndef size_pool():\n    pass\n",
}


def test_module_calls_resolve_through_the_files_imports():
    stage = _stage(IMPORTS)
    assert stage["sglang.srt.utils.common:set_up_weights"] == "startup"  # re-exported by sglang/srt/utils/__init__.py
    assert stage["sglang.srt.distributed.parallel_state:init_groups"] == "startup"  # from ..distributed import x as ps
    assert stage["sglang.srt.mem_cache.pool_utils:size_pool"] == "startup"  # import a.b.c as alias
    for name in ("set_up_weights", "init_groups", "size_pool"):
        assert stage[f"sglang.srt.lora.weights:{name}"] == "none"


def test_an_import_from_another_package_runs_no_sglang_code():
    files = {
        RUNNER: "from torch.distributed import barrier\nclass ModelRunner:\n    def initialize(self):\n        barrier()\n",
        "sglang/srt/distributed/parallel_state.py": "def barrier():\n    pass\n",
    }
    _expect(files, {"sglang.srt.distributed.parallel_state:barrier": "none"})


def test_a_function_level_import_is_followed():
    files = {
        SCHEDULER: """
class Scheduler:
    def __init__(self):
        from sglang.srt.managers.tp_worker import TpModelWorker
        self.tp_worker = TpModelWorker()
    def run_batch(self):
        self.tp_worker.forward_batch_generation()
""",
        "sglang/srt/managers/tp_worker.py": """
class TpModelWorker:
    def forward_batch_generation(self):
        pass
""",
        "sglang/srt/speculative/eagle_worker.py": """
class EAGLEWorker:
    def forward_batch_generation(self):
        pass
""",
    }
    expected = {"sglang.srt.managers.tp_worker:forward_batch_generation": "serving"}
    _expect(files, expected | {"sglang.srt.speculative.eagle_worker:forward_batch_generation": "none"})


# --- obj.x(): through the type the source states
TYPED = {
    SCHEDULER: """
from typing import Optional
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.server_args import ServerArgs
from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
class Scheduler:
    pool: ReqToTokenPool
    def __init__(self, server_args: ServerArgs):
        self.tp_worker: TpModelWorker = make_worker()
        server_args.check_gpu_memory()
        pool = ReqToTokenPool()
        pool.alloc_slots()
    def run_batch(self, other: "Optional[ServerArgs]"):
        self.tp_worker.forward_batch_generation()
        self.tp_worker.model_runner.forward_extend()
        self.pool.free_slots()
        other.validate_request()
""",
    "sglang/srt/managers/tp_worker.py": """
from sglang.srt.model_executor.model_runner import ModelRunner
class TpModelWorker:
    def forward_batch_generation(self):
        pass
    @property
    def model_runner(self) -> ModelRunner:
        return self._model_runner
""",
    RUNNER: "class ModelRunner:\n    def forward_extend(self):\n        pass\n",
    "sglang/srt/server_args.py": """
class ServerArgs:
    def check_gpu_memory(self):
        pass
    def validate_request(self):
        pass
""",
    "sglang/srt/mem_cache/memory_pool.py": """
class ReqToTokenPool:
    def alloc_slots(self):
        pass
    def free_slots(self):
        pass
""",
    # the same method names on other classes: only the stated types' run
    "sglang/srt/other.py": """
class OtherWorker:
    def forward_batch_generation(self):
        pass
    def forward_extend(self):
        pass
class OtherArgs:
    def check_gpu_memory(self):
        pass
    def validate_request(self):
        pass
class OtherPool:
    def alloc_slots(self):
        pass
    def free_slots(self):
        pass
""",
}


def test_a_receiver_is_resolved_through_the_type_its_source_states():
    stage = _stage(TYPED)
    assert stage["sglang.srt.managers.tp_worker:forward_batch_generation"] == "serving"  # self.x: T = ...
    assert stage["sglang.srt.model_executor.model_runner:forward_extend"] == "serving"  # a property's -> T
    assert stage["sglang.srt.server_args:check_gpu_memory"] == "startup"  # a parameter's annotation
    assert stage["sglang.srt.server_args:validate_request"] == "serving"  # a quoted Optional[...] annotation
    assert stage["sglang.srt.mem_cache.memory_pool:alloc_slots"] == "startup"  # a local built from its class
    assert stage["sglang.srt.mem_cache.memory_pool:free_slots"] == "serving"  # a class-body annotation
    for name in ("forward_batch_generation", "forward_extend", "check_gpu_memory", "validate_request", "alloc_slots"):
        assert stage[f"sglang.srt.other:{name}"] == "none", name


# --- a receiver the source gives no type: the one class defining a rare name, never a common or shared name
UNTYPED = {
    SCHEDULER: """
class Scheduler:
    def run_batch(self, batch):
        batch.prepare_for_decode_steps()
        batch.merge_batch()
        batch.update()
""",
    "sglang/srt/managers/schedule_batch.py": """
class ScheduleBatch:
    def prepare_for_decode_steps(self):
        pass
    def merge_batch(self):
        pass
    def update(self):
        pass
""",
    "sglang/srt/managers/other_batch.py": "class OtherBatch:\n    def merge_batch(self):\n        pass\n",
}


def test_an_untyped_receiver_reaches_only_the_one_class_of_a_rare_name():
    stage = _stage(UNTYPED)
    assert stage["sglang.srt.managers.schedule_batch:prepare_for_decode_steps"] == "serving"  # one class, rare name
    assert stage["sglang.srt.managers.schedule_batch:merge_batch"] == "none"  # two classes define it
    assert stage["sglang.srt.managers.other_batch:merge_batch"] == "none"
    assert stage["sglang.srt.managers.schedule_batch:update"] == "none"  # a dict's / a set's method name


def test_the_common_names_hold_the_containers_and_library_methods():
    for name in ("add", "get", "run", "encode", "update", "append", "put", "forward", "send_pyobj", "items"):
        assert name in call_graph.COMMON_NAMES
    assert "init_memory_pool" not in call_graph.COMMON_NAMES


def test_the_graph_counts_its_edges():
    graph = _graph(TYPED)
    assert graph.edges() == sum(len({id(c) for c in graph.callees(f)}) for f in graph.funcs) > 0
    assert sources.module_of("sglang/srt/utils/__init__.py") == "sglang.srt.utils"


# --- the catalogue keeps a wording both sides print as `both` (it places nothing, and says so to a paste that shows
# no release), and leaves out one only code no root reaches holds
BOTH_WORDING = {
    SCHEDULER: """
from sglang.srt.mem_cache.host_pool import check_host_memory
class Scheduler:
    def __init__(self):
        check_host_memory()
    def run_batch(self):
        check_host_memory()
""",
    "sglang/srt/mem_cache/host_pool.py": """
def check_host_memory():
    raise ValueError("Not enough host memory available for the pool")
def unreached():
    raise ValueError("A wording no root reaches at any time")
""",
}


def test_a_wording_both_sides_print_is_kept_as_both():
    out = stages.release_stages(list(BOTH_WORDING.items()))
    assert out["wording:Not enough host memory available for the pool"]["stage"] == "both"
    assert "wording:A wording no root reaches at any time" not in out


# --- a type stated by a return annotation (sglang 0.5.x: `self.loader = get_model_loader(...)`, whose def says
# `-> BaseModelLoader`) or a container's item annotation (`self.queue: List[DecodeRequest]`, `for req in self.queue`)
RETURNS_AND_ITEMS = {
    RUNNER: """
from typing import List, Optional
from sglang.srt.model_loader.loader import get_model_loader
from sglang.srt.disaggregation.decode import DecodeRequest
class ModelRunner:
    def initialize(self):
        self.loader = get_model_loader()
        self.model = self.loader.load_model()
        self.queue: List[DecodeRequest] = []
        for req in self.queue:
            req.check_bootstrap()
    def sample_all(self, reqs: "Optional[List[DecodeRequest]]"):
        return [r.finish_sampling() for r in reqs]
""",
    "sglang/srt/model_loader/loader.py": """
class BaseModelLoader:
    def load_model(self):
        raise NotImplementedError
class DefaultModelLoader(BaseModelLoader):
    def load_model(self):
        raise ValueError("Could not find any checkpoint files for the model")
def get_model_loader() -> BaseModelLoader:
    return DefaultModelLoader()
""",
    "sglang/srt/disaggregation/decode.py": """
class DecodeRequest:
    def check_bootstrap(self):
        pass
    def finish_sampling(self):
        pass
""",
    "sglang/srt/lora/lora_manager.py": """
class LoRAManager:
    def load_model(self):
        pass
    def check_bootstrap(self):
        pass
""",
}


def test_return_and_item_annotations_state_a_receivers_type():
    stage = _stage(RETURNS_AND_ITEMS)
    assert stage["sglang.srt.model_loader.loader:load_model"] == "startup"  # both loaders: the base's family
    assert stage["sglang.srt.disaggregation.decode:check_bootstrap"] == "startup"  # for req in self.queue
    assert stage["sglang.srt.lora.lora_manager:load_model"] == "none"
    assert stage["sglang.srt.lora.lora_manager:check_bootstrap"] == "none"
    wording = stages.release_stages(list(RETURNS_AND_ITEMS.items()))["wording:Could not find any checkpoint files for the model"]
    assert wording["stage"] == "startup"


# sglang 0.4.x-0.5.2's scheduler: `TpWorkerClass = TpModelWorkerClient` or `= TpModelWorker` by the overlap setting,
# then `self.tp_worker = TpWorkerClass(...)`; a batch runs `self.tp_worker.forward_batch_generation(...)`
CHOSEN_CLASS = {
    SCHEDULER: """
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.managers.tp_worker_overlap_thread import TpModelWorkerClient
class Scheduler:
    def __init__(self, overlap):
        if overlap:
            TpWorkerClass = TpModelWorkerClient
        else:
            TpWorkerClass = TpModelWorker
        self.tp_worker = TpWorkerClass()
    def run_batch(self):
        self.tp_worker.forward_batch_generation()
""",
    "sglang/srt/managers/tp_worker.py": """
class TpModelWorker:
    def __init__(self):
        self.set_up()
    def set_up(self):
        pass
    def forward_batch_generation(self):
        pass
""",
    "sglang/srt/managers/tp_worker_overlap_thread.py": """
class TpModelWorkerClient:
    def forward_batch_generation(self):
        pass
""",
    "sglang/srt/speculative/eagle_worker.py": "class EAGLEWorker:\n    def forward_batch_generation(self):\n        pass\n",
}


def test_a_class_chosen_among_named_classes_types_what_it_builds():
    stage = _stage(CHOSEN_CLASS)
    assert stage["sglang.srt.managers.tp_worker:forward_batch_generation"] == "serving"
    assert stage["sglang.srt.managers.tp_worker_overlap_thread:forward_batch_generation"] == "serving"
    assert stage["sglang.srt.managers.tp_worker:set_up"] == "startup"  # the class called: its __init__
    assert stage["sglang.srt.speculative.eagle_worker:forward_batch_generation"] == "none"


# sglang 0.4.6-0.5.x disaggregation: the PD queues hand poll_and_all_reduce (utils.py, `pollers` untyped) a list of
# their requests' KV receivers / senders, `[decode_req.kv_receiver for decode_req in self.queue]` over `self.queue:
# List[DecodeRequest]` with `kv_receiver: BaseKVReceiver`; it calls `poller.poll()` for each (a name both the senders,
# the receivers and the bootstrap server define: no one class of it)
CALL_SITE_ITEMS = {
    SCHEDULER: """
from sglang.srt.disaggregation.decode import DecodeTransferQueue
class Scheduler:
    def __init__(self):
        self.disagg_decode_transfer_queue = DecodeTransferQueue()
    def event_loop_normal_disagg_decode(self):
        self.disagg_decode_transfer_queue.pop_transferred()
""",
    "sglang/srt/disaggregation/base/conn.py": """
from abc import ABC, abstractmethod
class BaseKVReceiver(ABC):
    @abstractmethod
    def poll(self):
        ...
class BaseKVSender(ABC):
    @abstractmethod
    def poll(self):
        ...
""",
    "sglang/srt/disaggregation/mooncake/conn.py": """
from sglang.srt.disaggregation.base.conn import BaseKVReceiver, BaseKVSender
class MooncakeKVReceiver(BaseKVReceiver):
    def poll(self):
        raise RuntimeError("Some requests fail to receive KV Cache transfer done signal after bootstrapping.")
class MooncakeKVSender(BaseKVSender):
    def poll(self):
        raise RuntimeError("Request's KV cache transfer to the decode server failed")
class MooncakeKVBootstrapServer:
    def poll(self):
        pass
""",
    "sglang/srt/disaggregation/utils.py": """
def poll_and_all_reduce(pollers, gloo_group):
    polls = [int(poller.poll()) for poller in pollers]
    return polls
""",
    "sglang/srt/disaggregation/decode.py": """
from typing import List
from sglang.srt.disaggregation.base.conn import BaseKVReceiver
from sglang.srt.disaggregation.utils import poll_and_all_reduce
class DecodeRequest:
    kv_receiver: BaseKVReceiver
class DecodeTransferQueue:
    def __init__(self):
        self.queue: List[DecodeRequest] = []
    def pop_transferred(self):
        polls = poll_and_all_reduce([decode_req.kv_receiver for decode_req in self.queue], self.gloo_group)
        return polls
""",
}


def test_an_untyped_parameter_takes_the_item_type_of_the_lists_its_callers_hand_it():
    out = stages.release_stages(list(CALL_SITE_ITEMS.items()))
    assert out["wording:Some requests fail to receive KV Cache transfer done signal"]["stage"] == "serving"
    assert "wording:Request's KV cache transfer to the decode server failed" not in out  # no list of senders handed
    graph = _graph(CALL_SITE_ITEMS)
    poll_all = next(f for f in graph.funcs if f.qualname == "poll_and_all_reduce")
    assert [f.qualname for f in graph.callees(poll_all)] == ["BaseKVReceiver.poll", "MooncakeKVReceiver.poll"]


# sglang 0.4.1.post7-0.4.2.post4 Scheduler.__init__: the request dispatcher's table holds a lambda for the memory
# release request; it runs when that request comes, not when __init__ builds the table
DISPATCHER_LAMBDA = {
    SCHEDULER: """
from sglang.srt.utils import TypeBasedDispatcher
class Scheduler:
    def __init__(self):
        self._request_dispatcher = TypeBasedDispatcher(
            [
                (FlushCacheReq, self.flush_cache_wrapped),
                (ReleaseMemoryOccupationReqInput, lambda _: self.release_memory_occupation()),
            ]
        )
    def flush_cache_wrapped(self, recv_req):
        self.flush_cache()
    def release_memory_occupation(self):
        self.flush_cache()
    def flush_cache(self):
        logger.info("Cache flushed successfully!")
""",
}


def test_a_lambda_of_the_dispatchers_table_runs_on_its_request_not_at_startup():
    out = stages.release_stages(list(DISPATCHER_LAMBDA.items()))
    assert out["sglang.srt.managers.scheduler:release_memory_occupation"]["stage"] == "serving"
    assert out["sglang.srt.managers.scheduler:flush_cache"]["stage"] == "serving"
    assert out["wording:Cache flushed successfully!"]["stage"] == "serving"


def test_the_committed_table_is_what_the_tool_writes():
    """catalog/stages.json names the releases it read and the digest of the tool's code that read them: an edit of
    tools/upstream/stages.py or call_graph.py, or a release added to versions.txt, without `python -m tools.upstream
    stages` fails here (the table the name-only graph wrote stayed committed for sessions after the tool changed)."""
    doc = json.loads((Path(__file__).parents[1] / "catalog" / "stages.json").read_text())
    assert doc["releases"] == sources.sglang_versions()
    assert doc["tool"] == stages.fingerprint(doc["releases"])
    # (and the rows are the bytes the tool wrote: a hand edit of `functions` fails, review16b item 6)
    assert doc["content"] == stages.content_digest(doc["functions"])

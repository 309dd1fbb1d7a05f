"""The extractor's readers (tools/upstream) on small sources written like SGLang's: no network, no wheels."""

from __future__ import annotations

from tools.upstream import constants, envvars, messages, write

SOURCE = """
import logging, os
logger = logging.getLogger(__name__)
GB = 1 << 30
KB, MB = 1024, 1024 * 1024

class CustomAllreduce:
    _MAX_CAR_SIZE = 8192 * 1024
    if _is_hip:
        _MAX_CAR_SIZE = 2 * 8192 * 1024

    def __init__(self, group, max_size=_MAX_CAR_SIZE):
        logger.info(f"Memory baseline taken. mem usage={before - after:.2f} GB")
        logger.warning("Setup Custom allreduce failed with %s. To silence", e)
        log_info_on_rank0(logger, "Load weight begin. avail mem=" + f"{mem:.2f} GB")
        if bad:
            raise RuntimeError(f"Mooncake memory registration failed (ret={ret})")
        print(msg)

def _sm90_configs(num_sm):
    def config(world_size, *, graph, eager):
        return None
    return {2: config(2, graph=(16.0 * MB, 128 * KB), eager=(32.0 * MB, 1))}

x = get_int_env_var("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK", 128)
y = os.environ.get("SGLANG_NUM_RESERVED_DECODE_TOKENS", "512")
"""

ENVIRON = """
class Envs:
    SGLANG_DISAGG_STAGING_POOL_SIZE_MB = EnvInt(4096)
    SGLANG_ENABLE_X = EnvBool(False)
"""


def test_messages_keep_their_format_strings_module_and_function():
    found, dynamic = messages.extract("sglang.srt.x", SOURCE)
    got = {(m.kind, m.level, m.function, m.template, m.style) for m in found}
    assert ("log", "info", "CustomAllreduce.__init__", "Memory baseline taken. mem usage={before - after:.2f} GB", "f") in got
    assert ("log", "warning", "CustomAllreduce.__init__", "Setup Custom allreduce failed with %s. To silence", "plain") in got
    assert ("log", "info", "CustomAllreduce.__init__", "Load weight begin. avail mem={mem:.2f} GB", "f") in got
    assert ("raise", "RuntimeError", "CustomAllreduce.__init__", "Mooncake memory registration failed (ret={ret})", "f") in got
    assert dynamic == 1  # print(msg): no literal text, counted not catalogued


def test_env_defaults_from_environ_declarations_and_older_reads():
    old = {(e.name, e.default, e.declared_by) for e in envvars.extract("sglang.srt.utils", SOURCE)}
    assert ("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "128", "get_int_env_var") in old
    assert ("SGLANG_NUM_RESERVED_DECODE_TOKENS", "'512'", "os.environ.get") in old
    new = {(e.name, e.default, e.declared_by) for e in envvars.extract("sglang.srt.environ", ENVIRON)}
    assert new == {
        ("SGLANG_DISAGG_STAGING_POOL_SIZE_MB", "4096", "environ.py EnvInt"),
        ("SGLANG_ENABLE_X", "False", "environ.py EnvBool"),
    }


def test_constants_are_evaluated_with_their_conditions_and_tables():
    found = {(c.name, c.condition): c.value for c in constants.extract("sglang.srt.distributed.x", SOURCE)}
    assert found[("CustomAllreduce._MAX_CAR_SIZE", "")] == 8 * 1024 * 1024
    assert found[("CustomAllreduce._MAX_CAR_SIZE", "_is_hip")] == 16 * 1024 * 1024
    assert found[("param:max_size@CustomAllreduce.__init__", "")] == 8 * 1024 * 1024
    table = found[("_sm90_configs()", "")]
    assert table["2"]["kwargs"]["graph"] == [16.0 * 1024 * 1024, 128 * 1024]


def test_catalogue_keeps_memory_areas_and_server_log_lines_only():
    assert write.keep_message({"module": "sglang.srt.mem_cache.x", "kind": "raise", "level": "ValueError", "area": "memory_pool"})
    assert not write.keep_message(
        {"module": "sglang.srt.mem_cache.x", "kind": "assert", "level": "AssertionError", "area": "memory_pool"}
    )
    assert not write.keep_message({"module": "sglang.test.runner", "kind": "log", "level": "info"})
    assert not write.keep_message({"module": "sglang.srt.managers.x", "kind": "log", "level": "debug"})


# ServerArgs in its three shapes: add_argument calls with from_cli_args' renames (<= 0.5.13), and A[...] fields
# with Arg(aliases=...), a bare help string, cli_name and no_cli (0.5.14+)
SERVER_ARGS = """
BACKENDS = ["fa3", "triton"]
GROWN = ["a"]
GROWN.append("b")
HANDED = ["c"]
add_handed_choices = HANDED.extend  # review7 item 10a: extended by whoever calls it (choices.py's plugin hook)


class ServerArgs:
    tp_size: A[int, Arg(help="The tensor parallelism size.", aliases=["--tensor-parallel-size"])] = 1
    nnodes: A[int, "The number of nodes."] = 1
    secret: A[int, Arg(help="internal", no_cli=True)] = 0
    renamed: A[int, Arg(help="x", cli_name="--other-name")] = 0
    plain: int = 0
    trust_remote_code: A[bool, "Whether to allow custom models."] = False
    cuda_graph_bs: A[Optional[List[int]], "The batch sizes to capture."] = None
    mem_fraction_static: A[float | None, "The fraction."] = None
    lora_paths: A[Optional[list], Arg(help="x", action=LoRAPathAction, action_kwargs={"nargs": "*"})] = None
    kv_mode: A[Literal["fp8", "auto"], "The KV mode."] = "auto"
    gc_threshold: A[Optional[List[int]], Arg(help="x", nargs="+")] = None

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--data-parallel-size", "--dp-size", type=int, default=1)
        parser.add_argument("--model-path", "--model", type=str, dest="model_path")
        parser.add_argument("--enable-dp-attention", action="store_true")
        parser.add_argument("--hybrid-kvcache-ratio", nargs="?", const=0.5, type=float)
        parser.add_argument("--enable-old", action=DeprecatedAction)
        parser.add_argument("--attention-backend", type=str, choices=["auto"] + BACKENDS)
        parser.add_argument("--grown-choice", type=str, choices=GROWN)
        parser.add_argument("--handed-choice", type=str, choices=HANDED)
        parser.add_argument("--bucket-latency", type=float, nargs="+")
        parser.add_argument(*names, **kwargs)

    @classmethod
    def from_cli_args(cls, args):
        args.dp_size = args.data_parallel_size
"""


def test_server_flags_come_with_the_field_each_sets():
    from tools.upstream import cli_flags

    found, renames = cli_flags.extract(SERVER_ARGS)
    assert sorted(found, key=str) == [
        ("--attention-backend", "attention_backend", "one", None, ("auto", "fa3", "triton")),  # a list plus a constant
        ("--bucket-latency", "bucket_latency", "many", "float", None),  # each word of a list option converted
        # a list field takes the words up to the next option, each converted to its element's type
        ("--cuda-graph-bs", "cuda_graph_bs", "many", "int", None),
        ("--data-parallel-size", "data_parallel_size", "one", "int", None),
        ("--dp-size", "data_parallel_size", "one", "int", None),
        ("--enable-dp-attention", "enable_dp_attention", "none", None, None),
        ("--enable-old", "enable_old", "none", None, None),  # SGLang's deprecated flags' actions take no word
        ("--gc-threshold", "gc_threshold", "many", "int", None),
        ("--grown-choice", "grown_choice", "one", None, None),  # a constant extended elsewhere: choices not fixed
        ("--handed-choice", "handed_choice", "one", None, None),  # its extend handed on: choices not fixed
        ("--hybrid-kvcache-ratio", "hybrid_kvcache_ratio", "optional", "float", None),
        ("--kv-mode", "kv_mode", "one", None, ("fp8", "auto")),  # a Literal field's values are its choices
        ("--lora-paths", "lora_paths", "many", None, None),
        ("--mem-fraction-static", "mem_fraction_static", "one", "float", None),
        ("--model", "model_path", "one", None, None),
        ("--model-path", "model_path", "one", None, None),
        ("--nnodes", "nnodes", "one", "int", None),
        ("--other-name", "renamed", "one", "int", None),
        ("--tensor-parallel-size", "tp_size", "one", "int", None),
        ("--tp-size", "tp_size", "one", "int", None),
        ("--trust-remote-code", "trust_remote_code", "none", None, None),  # a bool field is store_true
    ]
    assert renames == {"data_parallel_size": "dp_size"}

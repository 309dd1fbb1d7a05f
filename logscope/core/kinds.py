"""The one catalogue of event kinds: one row per kind, and one name per kind id for the code to import.

A row says what a kind is (its role), which line grammar reads it, which `grammars/sglang.lark` rules emit it
(a new rule is named after its kind id), the prefilter literals a line of it holds, and sample lines. From
these rows come the rule → kind map of the SGLang transformer, the failure and note kind sets, and every line
grammar's literals in the parser registry (so a line of a catalogued kind can never be dropped by the
prefilter). Phase kinds also have a row in the phase table (logscope/core/phases.py), which says where they sit
in a startup.

Kind ids and phase ids are written as strings only here (and in data files); code uses the names below,
whose values are the very same strings, so the JSON output does not change.

Adding a kind (CONTRIBUTING.md "How to add ..."): its constant below, its row in CATALOGUE (role, grammar, rules,
literals, a sample line), its rule in the grammar named after the kind id and its transformer method
returning the constant; a phase also gets its row in phases.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# ---------------------------------------------------------------- roles
PHASE: Final = "phase"  # a startup phase line of a rank (its place in a startup: phases.py)
FAILURE: Final = "failure"  # the rank failed: its startup stops there
NOTE: Final = "note"  # states a memory figure or a setting; listed as the rank's (or launch's) notes
FACT: Final = "fact"  # anything else the stages read (settings, dumps, frames, fallbacks)
ROLES: Final = (PHASE, FAILURE, NOTE, FACT)

# ---------------------------------------------------------------- phase kinds (the fixed phase ids of the JSON contract)
INIT_DISTRIBUTED_BEGIN: Final = "init_distributed_begin"
INIT_DISTRIBUTED_END: Final = "init_distributed_end"
INIT_PARALLEL_END: Final = "init_parallel_end"  # 0.5.21+: "Init parallel ends." (no reading)
NCCL_PREWARM: Final = "nccl_prewarm"
LOAD_WEIGHT_BEGIN: Final = "load_weight_begin"
LOAD_WEIGHT_END: Final = "load_weight_end"
KV_CACHE_ALLOCATED: Final = "kv_cache_allocated"
OTHER_POOL_ALLOCATED: Final = "other_pool_allocated"
MEMORY_POOL_END: Final = "memory_pool_end"
CAPTURE_BEGIN: Final = "capture_begin"
CAPTURE_PROGRESS: Final = "capture_progress"
CAPTURE_END: Final = "capture_end"
SCHEDULER_SUMMARY: Final = "scheduler_summary"
SERVER_READY: Final = "server_ready"

# ---------------------------------------------------------------- failure kinds
EXCEPTION: Final = "exception"
OOM: Final = "oom"
TRACEBACK: Final = "traceback"
PROCESS_EXCEPTION: Final = "process_exception"
NOT_ENOUGH_MEMORY: Final = "not_enough_memory"
PD_TRANSFER_FAILED: Final = "pd_transfer_failed"
AR_FAILED: Final = "ar_failed"
NCCL_ERROR: Final = "nccl_error"
NCCL_WARN: Final = "nccl_warn"
SCHEDULER_DIED: Final = "scheduler_died"
SIGQUIT: Final = "sigquit"
CUDA_ERROR: Final = "cuda_error"
FATAL_ERROR: Final = "fatal_error"
FAILURE_LINE: Final = "failure_line"
# a log record at a failing level whose message no signature reads (its printer's level word, or an SGLang wording its
# released code logs at error level and then dies: parsers/level_records.py, core/error_outcomes.py)
LOGGED_FAILURE: Final = "logged_failure"
NATIVE_BACKTRACE: Final = "native_backtrace"

# ---------------------------------------------------------------- note kinds
DEEPGEMM_BUDGET: Final = "deepgemm_budget"
DEEPGEMM_WARMUP: Final = "deepgemm_warmup"
HICACHE_HOST: Final = "hicache_host"
NCCL_VERSION: Final = "nccl_version"
AR_CONFIG: Final = "ar_config"
AR_REGISTERING: Final = "ar_registering"
SYMM_PREALLOC: Final = "symm_prealloc"
SYMM_DEFAULT: Final = "symm_default"
TOKENS_CAPPED: Final = "tokens_capped"
STAGING_BUFFER: Final = "staging_buffer"
STAGING_ALLOCATOR: Final = "staging_allocator"
DEEPEP_CAPPED: Final = "deepep_capped"
DEEPEP_RESERVE: Final = "deepep_reserve"
# the reading label of the 0.5.21+ "Memory baseline taken" line (an INIT_DISTRIBUTED_END reading measured after
# every group is built: no communicator memory in it)
MEMORY_BASELINE: Final = "memory baseline"
LM_HEAD_WARMUP: Final = "lm_head_warmup"
STARTUP_TIMINGS: Final = "startup_timings"
KV_DTYPE: Final = "kv_dtype"
SHARD_PROGRESS: Final = "shard_progress"
ENGINE_STARTUP_LINE: Final = "engine_startup_line"  # a line vLLM's engine prints only while it starts, or at its end
ENGINE_CAPTURE_BAR: Final = "engine_capture_bar"  # vLLM's CUDA graph capture bar (an engine under Dynamo, verl, LMCache)
SWA_POOL_USAGE: Final = "swa_pool_usage"
POOL_AVAILABLE: Final = "pool_available"  # a token pool's free and evictable tokens when an allocation failed
KV_VA_BOUND: Final = "kv_va_bound"
ATTENTION_BACKEND: Final = "attention_backend"
PLATFORM: Final = "platform"

# ---------------------------------------------------------------- fact kinds
CAPTURE_BS: Final = "capture_bs"
KV_RESERVE: Final = "kv_reserve"
AR_DISABLED: Final = "ar_disabled"
IMBALANCE: Final = "imbalance"
DEEPEP_MISSING: Final = "deepep_missing"
INIT_FAILED: Final = "init_failed"
SERVER_ARGS: Final = "server_args"
LAUNCH_COMMAND: Final = "launch_command"
ENV_EXPORT: Final = "env_export"
LAUNCH_FLAGS: Final = "launch_flags"  # flags given as code spans in a Markdown list
CHECK_ENV: Final = "check_env"
STATED_ENV: Final = "stated_env"  # versions / GPUs stated outside check_env (issue template, pip, __version__)
TIME_CLAIM: Final = "time_claim"  # the paste says when it failed: a benchmark client run, a sentence (time_claims.py)
# a sentence that names the failure and cues of one time only (requests, startup, ...): parse/parsers/time_cues.py
TIME_CUE: Final = "time_cue"
STATED_FAILURE: Final = "stated_failure"  # a sentence of prose states that the run failed (stated_failure.py)
JIT_BUILD: Final = "jit_build"  # a kernel library's JIT build opened, closed or entered (parsers/jit_build.py)
SMI_GPU: Final = "smi_gpu"
SMI_PROCESS: Final = "smi_process"
SMI_VERSIONS: Final = "smi_versions"
SMI_MIG: Final = "smi_mig"
TOPOLOGY: Final = "topology"
FRAME: Final = "frame"
NCCL_INFO: Final = "nccl_info"
NATIVE_LOG: Final = "native_log"
TRACEBACK_START: Final = "traceback_start"
TRACEBACK_CHAIN: Final = "traceback_chain"
FAULTHANDLER_THREAD: Final = "faulthandler_thread"
DSV4_MEMORY: Final = "dsv4_memory"
DSV4_POOL_SIZES: Final = "dsv4_pool_sizes"
POST_CAPTURE_KV: Final = "post_capture_kv"
POST_CAPTURE_DRAFT_KV: Final = "post_capture_draft_kv"
MEMORY_LINE: Final = "memory_line"  # never emitted: a line naming memory that no grammar read, for the coverage
CATALOGUED_LINE: Final = "catalogued_line"  # a catalogued SGLang wording no grammar reads: its fields, as read facts
SERVING_BEGIN: Final = "serving_begin"  # the first line of an input that shows the server serving (serving.py)

# the body kinds of an exception line ("RuntimeError: NCCL error: ..."): data["body_kind"], never an event kind
BODY_CAPTURE_FAILED: Final = "capture_failed"

# grammar names (pipeline/parse/parsers/registry.py, the block readers, Event.grammar, the coverage counts); some are spelled
# like a kind they read
SGLANG: Final = "sglang"
EXCEPTION_GRAMMAR: Final = "exception"
TRACEBACK_GRAMMAR: Final = "traceback"
TORCH_OOM_GRAMMAR: Final = "torch_oom"
SERVER_ARGS_GRAMMAR: Final = "server_args"
LAUNCH_COMMAND_GRAMMAR: Final = "launch_command"
FLAG_LIST_GRAMMAR: Final = "flag_list"
COLLECT_ENV_GRAMMAR: Final = "collect_env"
PROGRESS_GRAMMAR: Final = "progress"
GPUSTAT_GRAMMAR: Final = "gpustat"
STATED_ENV_GRAMMAR: Final = "stated_env"
TIME_CLAIM_GRAMMAR: Final = "time_claim"
STATED_FAILURE_GRAMMAR: Final = "stated_failure"
TIME_CUE_GRAMMAR: Final = "time_cue"
NATIVE_LOG_GRAMMAR: Final = "native_log"
JIT_BUILD_GRAMMAR: Final = "jit_build"
CHECK_ENV_GRAMMAR: Final = "check_env"
NATIVE_BACKTRACE_GRAMMAR: Final = "native_backtrace"
MEMORY_LINE_GRAMMAR: Final = "memory_line"
NVIDIA_SMI_GRAMMAR: Final = "nvidia_smi"  # the dump readers' (table, -q, CSV): a block grammar
NVIDIA_TOPO_GRAMMAR: Final = "nvidia_topo"
CATALOGUE_GRAMMAR: Final = "catalogue"  # the upstream catalogue's wordings, found anywhere in a line (parsers/catalogue.py)
BLOCK: Final = ""  # read by a block reader (its literals are the reader's), or made by a stage


@dataclass(frozen=True, slots=True)
class Kind:
    """One event kind. `rules` are the grammars/sglang.lark rules whose transformer method emits it (named after
    the kind id for new kinds); `literals` go to `grammar`'s prefilter literals; every sample is a line of this
    kind that the classifier reads as it (a test parses each)."""

    id: str
    role: str
    grammar: str = SGLANG
    rules: tuple[str, ...] = ()
    literals: tuple[str, ...] = ()
    samples: tuple[str, ...] = ()


# a line that starts with one of these is a record, not prose: so each head is also spelled as a Markdown list
# item ("- ", "* ", "+ "), in bold ("**SGLang**:") and as a code span ("`torch`:")
_BULLETS = ("- ", "* ", "+ ")
# ("sglang-0.5.4": the name joined to its version as a distribution's file names it)
_TIED_WORDS = (
    "0.",
    " v0.",
    " 0.",
    "-0.",
    "-v0.",
    " version",
    " to v",
    " to 0.",
    " (v",
    " (0.",
    " release",
    " is v",
    " is 0.",
    " at v",
    " of v",
    " `0.",  # the version in a code span after the name ("- sglang `0.5.17` (image ...)")
    " `v0.",
)
_STATED_HEADS = (
    "sglang==",
    "sglang[",
    "sgl-kernel==",
    "sgl_kernel==",
    "sglang-kernel==",
    "torch==",
    "flashinfer-python==",
    "flashinfer_python==",
    "nvidia-nccl-cu1",
    "libnccl",  # NCCL's Debian packages pinned for apt: "libnccl2=2.7.3-1+cuda10.1"
    "NVIDIA UNIX ",  # the kernel module's version string (/proc/driver/nvidia/version, the kernel log)
    "Successfully installed ",  # pip's summary of an install (parsers/build_versions.py pip_installed)
    "deep_ep==",
    "deep-ep==",
    "SGLang:",
    "sglang:",
    "SGLang version:",
    "SGLang Version:",
    "sglang version:",
    "PyTorch:",
    "PyTorch version:",
    "PyTorch Version:",
    "Torch:",
    "torch:",
    "Host driver:",
    "Host Driver:",
    "Driver:",
    "Driver version:",
    "Driver Version:",
    "NVIDIA driver",
    "NVIDIA Driver",
    "CUDA:",
    "CUDA version:",
    "CUDA Version:",
    "GPUs:",
    "GPU:",
    "lmsysorg/sglang:v",
    "sglang:v",  # the same tag without its namespace ("sglang:v0.4.10.post2-cu128-gb200")
    "docker pull ",
    "Image:",
    "image:",
    "Docker image:",
    # a hand-written block of package versions ("sgl-kernel: 0.3.21", "`flashinfer-python`: 0.6.2")
    "sgl-kernel",
    "sgl_kernel",
    "sglang-kernel",
    "flashinfer-python",
    "flashinfer_python",
    "flashinfer:",
    "deep_ep",
    "deep-ep",
    # a Markdown table row of versions ("| SGLang | 0.2.6 |") and `pip list` rows ("torch    2.5.1")
    *(f"| {label}" for label in ("SGLang", "sglang", "PyTorch", "Torch", "torch", "Python", "CUDA", "Driver")),
    "torch  ",
    "torch 1.",
    "torch 2.",
    "torch2.",  # the name run into its release ("ROCm Component: torch2.4.0+ROCm 6.1", stated_env._NAMED)
    "cuda 1",
    "sglang  ",
    # the other packages' `pip list` rows, the name padded to the widest one ("transformers          4.48.1"; pip
    # 23.2.1 utils/misc.py tabulate: " ".join(map(str.ljust, row, sizes)))
    "transformers  ",
    "triton  ",
    "sgl-kernel  ",
    "sgl_kernel  ",
    "flashinfer-python  ",
    "SGLang Version",
    "sglang Version",
    "Flashinfer version:",
    "FlashInfer version:",
    "flashinfer version:",
    "Torch version:",
    "torch version:",
    "Python version:",
    # a release with no package's name in a sentence (parsers/stated_env.py unowned_release): "when using v0.5.4.post1",
    # "the latest release 0.4.7" (SGLang's releases are 0.x)
    " v0.",
    "release 0.",
    # another package's version in a sentence or a hand-written line (parsers/stated_env.py named_versions); a
    # literal with a space first is never a line's head (classify: a line that starts with a literal is a record)
    " version",
    " Version",
    "Python 3.",
    "python 3.",
    "Python v3.",  # py-spy's dump header ("Python v3.11.13 (/usr/bin/python3.11)")
    ".__version__",  # an attribute and its value on one line ("torch.__version__: 2.8.0+cu128")
    ".version.cuda",
    "Requirement already satisfied: ",  # pip's line for a requirement installed: its version last in parentheses
    "(you have ",  # xFormers' build warning ("    Python  3.10.16 (you have 3.10.12)"): the process's own version
    " python 3",
    " driver ",
    "(driver ",
    "CUDA 1",
    "Cuda 1",  # capitalised in a sentence: "Ubuntu 24.04 with Cuda 13.2 preinstalled"
    " cuda 1",
    "cuda_1",
    " torch ",
    " PyTorch ",
    " pytorch ",
    " flashinfer",
    " FlashInfer",
    " Flashinfer",
    " mooncake",
    " Mooncake",
    "mooncake-transfer-engine",
    " nixl",
    " NIXL",
    # pins, hand-written blocks and pip rows of the transfer engines and the libraries under SGLang
    "mooncake-transfer-engine==",
    "nixl==",
    "nixl:",
    "nixl 0.",
    "nixl  ",  # a pip list row, the name padded
    "triton==",
    "triton:",
    "triton 2.",
    "triton 3.",
    "Triton 3.",  # SGLang's "LoRA {kernel} config not found for Triton {triton_version}." (0.5.16 .. 0.5.21)
    "transformers==",
    "transformers:",
    "Transformers:",
    "python==",
    # a clone of SGLang's repository at a release tag ("git clone -b v0.4.9 ... sgl-project/sglang.git")
    "sglang.git",
    "sgl-project/sglang",
    "transformers 4.",
    "transformers 5.",
    "flashinfer 0.",
    "python:",
    "DeepEP ",
    "Cuda compilation tools",
    # CMake's report of a package a source build found ("-- Found Python: ... (found version ...)"), a wheel pip installs
    "(found version",
    "(found suitable",
    ".whl",
    # hand-written lines in Chinese ("驱动版本：570.124.06", "GPU型号：8 × NVIDIA L20", "显存：46,068 MiB") and a card's
    # memory in English ("GPU memory: 81559 MiB")
    "版本",
    "GPU型号",
    "显卡",
    "显存",
    "GPU memory:",
    # a package's pip name in words, or a label qualified ("- SGLang kernel: `0.4.5`", "- Transformers in the ...: `5.12.1`")
    "SGLang kernel",
    "CUDA runtime",
    "sglang kernel",
    "Transformers ",
    "GPU Memory:",
    "VRAM:",
    # verl's scripts/diagnose.py pip lines: print(f"{package}\t     : {version}")
    "\t     : ",
    # a bold label with an em dash for its colon ("- **CUDA** — 13.0")
    "** \u2014 ",
    # an official image tag without the image's name ("the v0.5.10-cu130 image")
    "-cu1",
    "-rocm",
    # a version in a sentence tied to SGLang ("upgraded SGLang to v0.5.15", "sglang 0.5.9")
    *(name + after for name in ("SGLang", "sglang", "Sglang", "SGLANG") for after in _TIED_WORDS),
)


def _bulleted(heads: tuple[str, ...]) -> tuple[str, ...]:
    # each labelled head also in bold ("**SGLang**:") and as a code span ("`torch`: 2.5.1+cu121")
    marked = tuple(f"{mark}{h[:-1]}{mark}:" for mark in ("**", "`") for h in heads if h.endswith(":"))
    # "`:" holds every code-span head, so the raw-bytes pass searches it alone (the prefilter keeps the shortest): the
    # 23 code-span heads made the Hyperscan pass over a large log about 10% slower; the grammar still tests each
    return heads + marked + tuple(b + h for b in _BULLETS for h in heads + marked) + ("`:",)


# the labels of a hand-written environment block in the casings people write them ("- Python: 3.11.6", "NCCL: 2.27.3",
# "Mooncake: 0.3.6", "TRITON: 3.4.0", "DeepEP version: 1.2.1"): stated_env.py's _LABELS reads each label in any case,
# so the prefilter passes each casing of it (a lowercase "cuda:" is left out: torch's device strings, "cuda:0", are in
# every traceback, and the label is written "CUDA:" / "Cuda:")
_LABEL_WORDS = (
    ("sglang", "SGLang"),
    ("sgl-kernel", "SGL-Kernel"),
    ("sgl_kernel", "sgl_kernel"),
    ("sglang-kernel", "SGLang-kernel"),
    ("torch", "PyTorch"),
    ("pytorch", "PyTorch"),
    ("python", "Python"),
    ("cuda", "CUDA"),
    ("cuda runtime", "CUDA Runtime"),
    ("driver", "Driver"),
    ("host driver", "Host Driver"),
    ("nvidia driver", "NVIDIA Driver"),
    ("nccl", "NCCL"),
    ("flashinfer", "FlashInfer"),
    ("flashinfer-python", "FlashInfer-Python"),
    ("flashinfer_python", "flashinfer_python"),
    ("mooncake", "Mooncake"),
    ("mooncake-transfer-engine", "Mooncake-Transfer-Engine"),
    ("nixl", "NIXL"),
    ("triton", "Triton"),
    ("transformers", "Transformers"),
    ("deepep", "DeepEP"),
    ("deep_ep", "DeepEP"),
    ("deep-ep", "DeepEP"),
)
_LABEL_HEADS = tuple(
    dict.fromkeys(
        head
        for word, brand in _LABEL_WORDS
        for spelled in (word, word.capitalize(), word.title(), word.upper(), brand)
        for head in (f"{spelled}:", f"{spelled} version:", f"{spelled} Version:", f"{spelled.upper()} VERSION:")
        if head != "cuda:"
    )
)
# the same labels as a Markdown table's first cell ("| NCCL | 2.27.3 |", "| FlashInfer | 0.4.0 |")
_TABLE_HEADS = tuple(
    dict.fromkeys(f"| {spelled}" for word, brand in _LABEL_WORDS for spelled in (word, word.capitalize(), word.upper(), brand))
)
# a lowercase CUDA label with its blank ("- cuda: 12.1" in a hand-written block: torch's device strings, "cuda:0", have
# none), and a CUDA release glued to its name ("cuda12.4", "CUDA12.8", stated_env._NAMED)
_CUDA_HEADS = ("cuda: ", "cuda1", "CUDA1", "Cuda1")
STATED_ENV_LITERALS = _bulleted(tuple(dict.fromkeys(_STATED_HEADS + _LABEL_HEADS))) + _TABLE_HEADS + _CUDA_HEADS
# An issue or a bug is no event with a time ("This bug was introduced by PR 1234"), but meeting it is one ("We
# occasionally encounter this issue during stress testing.")
_MET = (
    r"(?:encounter(?:s|ed|ing)?|hit(?:s|ting)?|see(?:s|ing|n)?|saw|get(?:s|ting)?|got|meet(?:s|ing)?|met"
    r"|fac(?:e|es|ed|ing)|reproduc(?:e|es|ed|ing)|trigger(?:s|ed|ing)?|r[au]n(?:s|ning)? into)"
    r" (?:this|the|that|same)"
)


@dataclass(frozen=True, slots=True)
class FailureWord:
    """A word that says something failed, and how each reader looks for it (empty: that reader does not):
    - record: its forms that make a log line read like a failure (a regex piece; parse/parsers/base.FAILURE_WORDS, with
      which classify.FAILURE_LOOK tells a failure line and an open bash array stops);
    - stated: the pieces a sentence stating the run failed holds (STATED_FAILURE_LITERALS, the prefilter's for
      parse/parsers/stated_failure.py, whose forms each hold one);
    - cue: (a piece every match holds, the word's forms in a sentence as a regex) for a sentence that places its
      failure by cue words (parse/parsers/time_cues.py; the pieces are the prefilter's TIME_CUE_LITERALS, also
      capitalised at a sentence's start; a piece written with a space is looked for at a word's start only: " hang",
      not "change"; " die", not "studied")."""

    word: str
    record: str = ""
    stated: tuple[str, ...] = ()
    cue: tuple[str, str] | None = None


# The progressive after its subject's verb or an adverb ("the build is failing in ...", "it keeps failing at ...",
# "still failing with ..."): the words before "failing" that parse/parsers/stated_failure.py's form takes, and the
# prefilter's pieces, "failing" in the three cases the form takes (FAILING_CASES; any white space before it, the form's
# `\s+`: two blanks after a copy/paste or a line join, a tab, a sentence in capitals, review15c item 13, review15d item
# 9); a test runner's "failing tests" and a sentence's "Failing that, ..." reach the reader, whose form wants the verb
# before it
FAILING_SUBJECT_WORDS: Final = ("is", "are", "was", "were", "been", "keeps", "keep")
FAILING_ADVERBS: Final = ("still", "also", "now", "always", "often", "constantly", "consistently")
FAILING_CASES: Final = ("failing", "Failing", "FAILING")


# The one table of failure words (rows in the time cues' order: their lexicon is joined in it)
FAILURE_WORD_TABLE: Final = (
    FailureWord("crash", stated=("crash", "Crash"), cue=("crash", "crash(?:es|ed|ing)?")),
    FailureWord(
        "fail",
        record=r"[Ff]ailed\b|FAILED",
        stated=("fails ", "failed ", "Fails ", "Failed ", "ailure", *FAILING_CASES),
        cue=("fail", "fail(?:s|ed|ing|ures?)?"),
    ),
    # "error: ..." at a line's start is the error report of CPython's argparse, pip, git, cargo and the C/C++/CUDA
    # compilers (gcc, nvcc: "<file>:<line>: error: ..." is read elsewhere)
    # (not the runtime API calls that only read the last error, as an API trace prints them (AMD_LOG_LEVEL's
    # ":3:hip_error.cpp :27 : ... hipGetLastError (  )"): CUDA 12.8 cuda_runtime_api.h cudaGetLastError,
    # cudaPeekAtLastError (nvidia-cuda-runtime-cu12 12.8.90), HIP hipGetLastError, hipPeekAtLastError,
    # hipExtGetLastError (hip-python 7.2.2 hip/chip.pxd))
    FailureWord(
        "error",
        record=r"(?<!GetLast)(?<!PeekAtLast)Error\b|\bERROR\b|^\s*error: ",
        stated=("rror",),
        cue=("error", "errors?"),
    ),
    FailureWord("exception", record=r"Exception\b", stated=("xception",), cue=("exception", "exceptions?")),
    # FATAL is the level word of zap, logrus, log4j and UCX
    FailureWord("fatal", record=r"Fatal\b|\bFATAL\b"),
    FailureWord("die", stated=("died", "dies"), cue=(" die", "die[sd]?")),
    # (stated: "the server keeps dying", stated_failure.py's "keeps? (?:restarting|crashing|dying|failing)")
    FailureWord("dying", stated=("keeps dying", "keep dying"), cue=("dying", "dying")),
    FailureWord("dead", stated=("dead",), cue=("dead", "dead")),
    # (stated: the reader's forms take any case, "**oom occurs**" in lower case: the lower-case pieces with what follows)
    FailureWord("OOM", stated=("OOM", "oom occur", "oom happen", "oom error"), cue=("OOM", "OOM(?:s|ed|'d)?")),
    # (stated: also with the memory named, "runs out of GPU memory", and hyphenated, "out-of-memory errors occur")
    FailureWord(
        "out of memory",
        stated=("ut of memory", "out of GPU memory", "out of device memory", "out of host memory", "ut-of-memory"),
        cue=("out of memory", "out of memory"),
    ),
    FailureWord("hang", cue=(" hang", "hang(?:s|ing)?")),
    FailureWord("hung", cue=("hung", "hung")),
    FailureWord("stuck", cue=("stuck", "stuck")),
    FailureWord("freeze", cue=("freez", "freez(?:e|es|ing)")),
    FailureWord("froze", cue=("froze", "froze")),
    FailureWord("segfault", stated=("segfault", "Segfault"), cue=("segfault", "segfault(?:s|ed)?")),
    FailureWord(
        "segmentation fault",
        record="[Ss]egmentation fault",
        stated=("egmentation fault",),
        cue=("segmentation fault", "segmentation fault"),
    ),
    FailureWord("core dumped", stated=("core dumped",)),
    FailureWord("killed", stated=("killed",), cue=("killed", "killed")),
    FailureWord("abort", record=r"[Aa]borted\b", cue=(" abort", "abort(?:s|ed)?")),
    FailureWord("timed out", cue=("timed out", "timed out")),
    FailureWord("timeout", cue=("timeout", "timeouts?")),
    FailureWord("time-out", cue=("time-out", "time-outs?")),
    FailureWord("issue", cue=(" issue", _MET + " issue")),
    FailureWord("problem", cue=(" problem", _MET + " problem")),
    FailureWord("bug", cue=(" bug", _MET + " bug")),
    # what a server or a process did, in the other words issues use (stated_failure.py's forms: "it errors out" holds
    # "rror", "the server went down", "exited with code 1", "keeps restarting", "blew up", "terminated by signal 9",
    # "unable to start")
    FailureWord("down", stated=("goes down", "went down", "go down", "going down", "gone down")),
    FailureWord(
        "exit",
        stated=(
            "exits with",
            "exited with",
            "exit with",
            "exits unexpectedly",
            "exited unexpectedly",
            "exits abnormally",
            "exited abnormally",
            "exits immediately",
            "exited immediately",
            "but exits",
            "but exited",
            "but then exit",
        ),
    ),
    FailureWord("restart", stated=("keeps restarting", "keep restarting")),
    # a Rust or Go program's end, a request's failure, a server's 5xx answer, a timeout met (a process killed: "killed")
    FailureWord("panic", stated=(" panics", " panicked")),
    FailureWord(
        "request fail",
        stated=("equests fail", "equest fail", "equests all", "equests start", "equests began", "equests keep", "equests then"),
    ),
    FailureWord(
        "5xx",
        stated=(
            *("eturns 5", "eturned 5", "eturning 5", "eturn 5", "eturns HTTP 5", "eturned HTTP 5", "eturns a 5"),
            *("eceived a 5", "eceive a 5", "eceives a 5", "got a 5", "get a 5", "gets a 5", "getting a 5"),
        ),
    ),
    FailureWord("timeout met", stated=("imeout", "ime-out")),
    FailureWord("illegal memory access", stated=("llegal memory access",)),
    FailureWord("blow up", stated=("blows up", "blew up", "blown up")),
    FailureWord("terminated", stated=("terminated by", "terminated unexpectedly", "terminated abnormally")),
    FailureWord(
        "unable",
        stated=(
            "unable to start",
            "unable to launch",
            "unable to initiali",
            "unable to serve",
        ),
    ),
    # a program that cannot start or connect ("The server can't start when I set --tp 8", "The router cannot connect to
    # the prefill server"): the pieces of can't / cannot / couldn't / won't / doesn't / didn't / could not / does not
    FailureWord("cannot", stated=("t start", "t launch", "t connect", "not start", "not launch", "not connect")),
    # a step or a process that failed, said last in its clause ("When enabling --enable-dp-attention, the launch fails.")
    # or failing between two parts ("KV transfer fails between prefill and decode nodes")
    FailureWord("fails", stated=("fails", "failed")),
    # a timeout said to happen ("NCCL timeout happened during cuda graph capture")
    FailureWord("timeout happened", stated=("out happen", "out occur")),
    # the same in Chinese, as issues of SGLang and its libraries state it (parse/parsers/stated_failure.py _CJK_STATED):
    # 失败 fail(ed), 报错 / 出错 raise an error, 崩溃 / 崩了 crash(ed), 挂了 / 挂掉 died, 退出 exited (异常退出 abnormally),
    # 不足 / 不够 / 爆 (memory) ran short
    FailureWord("失败", stated=("失败",)),
    FailureWord("报错", stated=("报错", "出错")),
    FailureWord("崩溃", stated=("崩溃", "崩了")),
    FailureWord("挂了", stated=("挂了", "挂掉")),
    FailureWord("退出", stated=("退出",)),
    FailureWord("显存不足", stated=("不足", "不够", "爆")),
)
STATED_FAILURE_LITERALS: Final = tuple(piece for word in FAILURE_WORD_TABLE for piece in word.stated)
TIME_CUE_FAILURE_WORDS: Final = tuple(word.cue for word in FAILURE_WORD_TABLE if word.cue is not None)
TIME_CUE_LITERALS = tuple(
    literal
    for piece, _ in TIME_CUE_FAILURE_WORDS
    for literal in dict.fromkeys((piece, piece.strip()[:1].upper() + piece.strip()[1:]))
)
# The words of a sentence about another run than the paste's ("With the old image it crashed after a few requests"):
# its cue words place nothing (parse/parsers/time_cues.py). Hand-written English: (what the words cover, their forms)
OTHER_RUN_WORDS: Final = (
    ("an older image, release or setup", r"old(?:er)?"),
    ("a run before this one", r"previous(?:ly)?|earlier"),
    ("the run before an upgrade", r"before (?:upgrading|updating|the upgrade|the update)"),
    ("the last version, release or run", r"last (?:version|release|run)"),
    ("a version named after 'with'", r"with v\d"),
)
# The time cues' lexicon is English (parse/parsers/time_cues.py): a sentence in another script, or with another
# language's negation, places nothing by its cue words ("跑 benchmark 的时候没有 crash", "Beim benchmark gibt es keinen
# crash."). The scripts: (what they cover, a character class range)
FOREIGN_SCRIPTS: Final = (
    ("CJK symbols and punctuation, Hiragana, Katakana", r"\u3000-\u30ff"),
    ("CJK ideographs, extension A", r"\u3400-\u4dbf"),
    ("CJK ideographs", r"\u4e00-\u9fff"),
    ("Hangul syllables", r"\uac00-\ud7af"),
    ("halfwidth and fullwidth forms", r"\uff00-\uffef"),
)
# the negations of the languages of Latin script that issues are written in: (language, the words as a regex)
FOREIGN_NEGATIONS: Final = (
    ("German", r"kein\w*|nicht|nie"),
    ("French", r"pas|jamais|aucun\w*|sans"),
    ("Spanish", r"sin|nunca|ningun\w*"),
    ("Portuguese", r"não"),
    ("Italian", r"senza|mai"),
)
# what a sentence or command that says when the paste failed holds (parse/parsers/time_claims.py: one in each pattern)
TIME_CLAIM_LITERALS = (
    "bench",  # sglang.bench_serving, vllm bench serve, "when benching", "during the benchmark"
    "curl",  # a request to the server's generation endpoint (time_claims.CLIENT_STEPS)
    "genai-perf",  # other projects' load clients (time_claims.CLIENT_STEPS)
    "aiperf profile",
    "guidellm benchmark",
    "evalscope perf",
    "base_url",  # an OpenAI client made with the server's base_url
    "testing",
    "stress",
    "load test",
    "load-test",
    "pressure test",
    "pressure-test",
    "hen request",  # when / When
    "hen I request",
    "hen send",
    "hen I send",
    "hen querying",
    "hen I querying",
    "uring inference",
    "hile inference",
    "uring serving",
    "hile serving",
    "推理过程中",
    "一段时间",  # the Chinese forms of the serving time (time_claims.py): a while, hours, days, load, requests
    "小时",
    "几天",
    "天后",
    "天之后",
    "天以后",
    "天就",
    "天又",
    "天会",
    "天报错",
    "天出错",
    "天崩溃",
    "天挂",
    "高并发",
    "压测",
    "请求",
    "しばらく",  # the Japanese forms: after a while, a request sent
    "リクエスト",
    "hen there",  # "when there are running requests"
    "启动",
    "初始化",  # "初始化失败": initialization failed (time_claims.py)
    " hours",
    " days",
    "fter running",  # after / After
    "fter serving",
    "fter working",
    "long-time",
    "long time",
    "fter processing",
    "fter handling",
    "fter sending",
    "fter receiving",
    "fter answering",
    "nder high",
    "nder heavy",
    "nder large",
    "nder normal",  # "under normal inference traffic" and the other kinds of load (time_claims.py)
    "nder real",
    "nder production",
    "nder sustained",
    "nder constant",
    "nder continuous",
    "nder moderate",
    "fine for",  # a server that ran well for a while or a stated time (time_claims.py)
    "normally for",
    "well for",
    "stably for",
    "smoothly for",
    " of serving",  # the time it served: "after ~3h of serving", "after a period of normal serving"
    " of running",
    " of operation",
    " of inference",
    " of load",
    " of traffic",
    " of uptime",
    " of generation",  # an offline engine's work: "after 3 hours of generation", "after 50:54 of prediction"
    " of prediction",
    " of decoding",
    " of normal",
    " of stable",
    " of continuous",
    " of heavy",
    " of the time",  # "normal 99% of the time", "works fine most of the time" (time_claims.py)
    "been up for",  # "the server has been up for 6 hours"
    "been up fine",
    "been up normally",
    "been up well",
    "been up stably",
    "been up smoothly",
    "been running",
    "been serving",
    "hile handling",  # "while handling requests"
    "hile processing",
    "hile answering",
    "hen handling",
    "hen processing",
    "hen serving",
    "hen answering",
    "s soon as",  # "as soon as I send a request", "whenever we post a request", "once I send"
    "henever",
    "nce I ",
    "nce we ",
    "I sent ",  # "I sent a request and it crashed"
    "we sent ",
    "We sent ",
    "I posted ",
    "we posted ",
    "We posted ",
    "I submitted ",
    "we submitted ",
    "We submitted ",
    "I then ",
    "we then ",
    "We then ",
    "推理时",
    "gainst the",  # a benchmark run against the server (time_claims.py)
    "gainst my",
    "gainst our",
    "gainst this",
    "gainst a",
    "gainst it",
    "been handling",  # "had been serving / handling requests"
    "been processing",
    "I send ",  # "I send a request with an image"
    "we send ",
    "We send ",
    "I post ",
    "we post ",
    "We post ",
    "I submit ",
    "we submit ",
    "We submit ",
    "nder load",  # "under load", "under concurrency 32", "under 64 concurrent"
    "nder traffic",
    "nder concurrency",
    " concurrent",
    "oncurrency",  # "with high concurrency", "when the concurrency exceeds 100", "concurrency 64 causes"
    "oncurrent ",  # "concurrent 256 cause" at a line's start
    " at start",  # a failure at the server's start or launch: "crashing at start:", "Crash on launch:" (time_claims.py)
    " at launch",
    " on start",
    " on launch",
    "pon start",
    "pon launch",
    "uring start",
    "uring launch",
    "server start",
    "server launch",
    "engine start",
    "engine launch",
    "uring decoding",  # "during decoding", "in the decode stage"
    "hile decoding",
    "uring prefilling",
    "hile prefilling",
    "the decode stage",
    "the decode phase",
    "the decoding stage",
    "the decoding phase",
    "the prefill stage",
    "the prefill phase",
    "requests for",  # "serves requests for a while"
    "traffic for",
    "queries for",
    "users for",
    "requests fine for",
    "requests normally for",
    "requests well for",
    "requests stably for",
    "requests smoothly for",
    "traffic fine for",
    "traffic normally for",
    "traffic well for",
    "traffic stably for",
    "traffic smoothly for",
    "queries fine for",
    "queries normally for",
    "queries well for",
    "queries stably for",
    "queries smoothly for",
    "users fine for",
    "users normally for",
    "users well for",
    "users stably for",
    "users smoothly for",
    "推理的时候",
    "Send a",  # a reproduction step that sends the server a request (time_claims.py)
    "Send some",
    "Send the",
    "Send one",
    "Send many",
    "Send multiple",
    "Send several",
    "Send concurrent",
    "Send 0",
    "Send 1",
    "Send 2",
    "Send 3",
    "Send 4",
    "Send 5",
    "Send 6",
    "Send 7",
    "Send 8",
    "Send 9",
    "Failed to launch replica",
    "Failed to load model",
    "kernel warm",
    "uring warm",  # "fails during warmup", "crashed at the warm-up" (time_claims.py; not " warmup" alone: DeepGEMM's
    "uring the warm",  # warmup bar redraws thousands of lines)
    " at warm",
    " at the warm",
    " in warm",
    " in the warm",
    " on warm",
    " on the warm",
    " PD warm",  # the server's own warmup named by whose it is: "during PD warmup", "in the server warmup stage"
    " P/D warm",
    " pd warm",
    " server warm",
    " server's warm",
    " SGLang warm",
    " SGLang's warm",
    " sglang warm",
    " sglang's warm",
    " engine warm",
    " engine's warm",
    " Server warm",
    " Engine warm",
    "graph captur",
    "Graph captur",
    "uring startup",
    "tartup crash",
    "tart-up crash",
    " at startup",
    " on startup",
    "server startup",
    "engine startup",
    " start-up",
    "to start",
    " start with",  # "the server starts with the error below" (time_claims.py: a start that came with an error)
    " starts with",
    " started with",
    "uring initiali",
    "erver initiali",
    "ngine initiali",
    "NCCL init",
    "NCCL communicator init",
    "hile loading",
    "hen loading",
    "uring loading",
    "the loading",
    "model loading",
    "weight loading",
    "weights loading",
    "checkpoint loading",
    "fter about",  # "after about 3 hours", "after a few days"
    "fter around",
    "fter roughly",
    "fter nearly",
    "fter over",
    "fter more than",
    "fter ~",
    "fter a few",
    "fter several",
    "fter many",
    "hen we send",
    "hen post",
    "hen I post",
    "hen we post",
    "the first",  # "on the very first request"
    "the very first",
    "hen start",
    "hen I start",
    "hen we start",
    "hile start",
    "hile I start",
    "hile we start",
    "hen launch",
    "hen I launch",
    "hen we launch",
    "hile launch",
    "hile I launch",
    "hile we launch",
    "not start",  # "cannot start", "does not start", "could not start"
    "n't start",
    "not launch",
    "n't launch",
    "not boot",
    "n't boot",
    "not come up",
    "n't come up",
    "tartup failed",  # "server startup failed", "Startup failed"
    "tartup fails",
    "tart-up failed",
    "tart-up fails",
    "launch failed",
    "launch fails",
    "launching failed",
    "launching fails",
    "ailed to launch",
    "ailed to start",
    "ailed to deploy",  # a model that failed to deploy (time_claims.py)
    "ails to deploy",
    "iddle of",  # "in the middle of loading the model"
    "id-weight",  # "mid-weight-load", "Mid-weight-load"
    "id weight",
    "id-model",
    "mid model",
    "Mid model",
    "id-checkpoint",
    "id checkpoint",
)
# launch_server flags written as Markdown list items ("- tp-size: 4", "- `mem-fraction-static`: 0.75", "- --tp 8"):
# the stems of the flags logscope reads, after a bullet, bare or in a code span
_FLAG_STEMS = (
    "tp",
    "dp",
    "ep",
    "pp",
    "model",
    "mem-fraction",
    "max-",
    "chunked-prefill",
    "cuda-graph",
    "enable-",
    "disable-",
    "kv-cache",
    "attention-backend",
    "moe-",
    "deepep",
    "speculative-",
    "context-length",
    "page-size",
    "quantization",
    "dtype",
    "nnodes",
    "base-gpu-id",
    "disaggregation-",
    "trust-remote-code",
)
FLAG_ITEM_LITERALS = tuple(b + q + stem for b in _BULLETS for q in ("", "`", "--", "`--") for stem in _FLAG_STEMS)
# the same flags as "name: value" lines of their own ("tp-size: 8"): the stems that hold a dash (a bare "tp" or
# "model" would be in most lines)
FLAG_FIELD_LITERALS = tuple(s for s in (*_FLAG_STEMS, "tp-size", "dp-size", "ep-size", "pp-size", "model-path") if "-" in s)

CATALOGUE: tuple[Kind, ...] = (
    # ---- phases, in startup order
    Kind(
        INIT_DISTRIBUTED_BEGIN,
        PHASE,
        rules=("init_distributed_begin",),
        literals=("Init torch distributed", "Init nccl begin", "Init parallel"),
        samples=(
            "[2025-01-01 10:00:00 TP0] Init torch distributed begin.",
            "[19:01:01 TP0] Init nccl begin.",
            "[2026-10-01 10:00:00 TP0] Init parallel begin.",
        ),
    ),
    Kind(
        INIT_DISTRIBUTED_END,
        PHASE,
        rules=(
            "init_distributed_end",
            "memory_baseline",
        ),  # 0.5.21+ prints "Memory baseline taken" here (measured after the groups: ~0)
        literals=("Init torch distributed", "Memory baseline taken"),
        samples=(
            "[2025-01-01 10:00:00] Init torch distributed ends. mem usage=0.30 GB",
            "[2026-10-01 10:00:01 TP0] Memory baseline taken. mem usage=1.53 GB",
        ),
    ),
    Kind(
        INIT_PARALLEL_END,
        PHASE,
        rules=("init_parallel_end",),
        literals=("Init parallel",),
        samples=("[2026-10-01 10:00:01 TP0] Init parallel ends. elapsed=1.25 s",),
    ),
    Kind(
        NCCL_PREWARM,
        PHASE,
        rules=("nccl_prewarm",),
        literals=("warmup completed",),
        samples=("[2026-01-01 10:00:02 TP0] NCCL/RCCL warmup completed in 0.512s (tp_size=8, pp_size=1, ep_size=1)",),
    ),
    Kind(
        LOAD_WEIGHT_BEGIN,
        PHASE,
        rules=("load_weight_begin",),
        literals=("Load weight begin",),
        samples=("[2025-01-01 10:00:01] Load weight begin. avail mem=130.00 GB",),
    ),
    Kind(
        LOAD_WEIGHT_END,
        PHASE,
        rules=("load_weight_end",),
        literals=("Load weight end",),
        samples=("[2026-01-01 10:00:10 TP0] Load weight end. type=GptOssForCausalLM, avail mem=60.00 GB, mem usage=18.00 GB.",),
    ),
    Kind(
        KV_CACHE_ALLOCATED,
        PHASE,
        rules=("kv_cache_allocated",),
        literals=("Cache is allocated",),
        samples=("[2025-10-16 09:06:20 TP5] KV Cache is allocated. #tokens: 1029388, K size: 47.12 GB, V size: 47.12 GB",),
    ),
    Kind(
        OTHER_POOL_ALLOCATED,
        PHASE,
        rules=("mamba_alloc", "swa_pool"),
        literals=("Cache is allocated", "sliding window memory pool"),
        samples=(
            "[2026-01-01 10:00:11 TP0] Mamba Cache is allocated. max_mamba_cache_size: 512, conv_state size: 1.20GB, "
            "ssm_state size: 3.40GB",
            "[2026-01-01 10:00:11 TP0] Use sliding window memory pool. full_layer_tokens=1000000, swa_layer_tokens=800000",
        ),
    ),
    Kind(
        MEMORY_POOL_END,
        PHASE,
        rules=("memory_pool_end",),
        literals=("Memory pool end",),
        samples=("[2025-11-04 05:27:20 TP0] Memory pool end. avail mem=9.50 GB",),
    ),
    Kind(
        CAPTURE_BEGIN,
        PHASE,
        rules=("capture_begin",),
        literals=("Capture ",),
        samples=("[2025-04-11 16:20:00 TP7] Capture cuda graph begin. This can take up to several minutes. avail mem=3.10 GB",),
    ),
    Kind(
        CAPTURE_PROGRESS,
        PHASE,
        rules=("capture_progress",),
        literals=("Capturing batches", "Capturing num tokens", "Capturing prefill shape"),
        samples=(
            "Capturing batches (bs=512 avail_mem=11.47 GB):   0%|",
            "Capturing num tokens (num_tokens=3968 avail_mem=0.05 GB):   2%|",
            "Capturing prefill shape (num_tokens=8192 avail_mem=20.31 GB):   0%|",
        ),
    ),
    Kind(
        CAPTURE_END,
        PHASE,
        rules=("capture_end",),
        literals=("Capture ",),
        samples=("[2025-03-09 14:40:46 TP4] Capture cuda graph end. Time elapsed: 1334.38 s",),
    ),
    Kind(
        SCHEDULER_SUMMARY,
        PHASE,
        rules=("scheduler_summary",),
        literals=("max_total_num_tokens=",),
        samples=(
            "max_total_num_tokens=2261377, chunked_prefill_size=16384, max_prefill_tokens=16384, "
            "max_running_requests=4096, context_len=128000, available_gpu_mem=37.06 GB",
        ),
    ),
    Kind(
        SERVER_READY,
        PHASE,
        rules=("server_ready",),
        # the second a head: the line printed without SGLang's prefix (another logger's format stripped) is a record
        literals=("fired up and ready", "The server is fired up"),
        samples=("[2025-10-01 12:01:05] The server is fired up and ready to roll!",),
    ),
    # ---- notes read by the sglang grammar
    Kind(
        LM_HEAD_WARMUP,
        NOTE,
        rules=("lm_head_warmup",),
        literals=("warmup completed",),
        samples=(
            "[2026-05-07 13:38:02 TP0] TP LM-head PyNCCL all-to-all warmup completed in 0.125s (tp_size=1, bytes_per_peer=4096)",
        ),
    ),
    Kind(
        KV_DTYPE,
        NOTE,
        rules=("kv_dtype",),
        literals=("Using KV cache dtype",),
        samples=("[2026-05-07 13:39:14 DP0 TP0 EP0] Using KV cache dtype: torch.bfloat16",),
    ),
    Kind(
        STARTUP_TIMINGS,
        NOTE,
        rules=("startup_timings",),
        literals=("Engine startup timings",),
        samples=("[2026-01-01 10:01:00] Engine startup timings (s): load=10.2, capture=30.1",),
    ),
    Kind(
        NCCL_VERSION,
        NOTE,
        rules=("nccl_using", "nccl_native_version"),
        literals=("sglang is using nccl", "NCCL version"),
        samples=("[2026-01-01 10:00:01 TP0] sglang is using nccl==2.27.3", "NCCL version 2.20.5+cuda12.4"),
    ),
    Kind(
        AR_CONFIG,
        NOTE,
        rules=("ar_config",),
        literals=("All Reduce config",),
        samples=("[2026-01-01 10:00:01 TP0] All Reduce config: custom_ar=True, max_size=8 MB",),
    ),
    Kind(
        AR_REGISTERING,
        NOTE,
        rules=("ar_registering",),
        literals=("cuda graph addresses",),
        samples=("[2026-01-01 10:00:20 TP0] Registering 2760 cuda graph addresses",),
    ),
    Kind(
        DEEPGEMM_BUDGET,
        NOTE,
        rules=("deepgemm_budget",),
        literals=("DeepGEMM masked layout",),
        samples=("[2026-01-01 10:00:05 TP0] DeepGEMM masked layout budget: 12.34 GiB from 50.00 GiB free.",),
    ),
    Kind(
        DEEPGEMM_WARMUP,
        NOTE,
        rules=("deepgemm_warmup",),
        literals=("Required memory for warmup",),
        samples=("[2026-01-01 10:00:05 TP0] Required memory for warmup: 8.00 GB, Available memory: 10.25 GB",),
    ),
    Kind(
        HICACHE_HOST,
        NOTE,
        rules=("hicache_host",),
        literals=("host memory for hierarchical",),
        samples=("[2026-01-01 10:00:07 TP0] Allocating 107.37 GB host memory for hierarchical KV cache.",),
    ),
    Kind(
        SWA_POOL_USAGE,
        NOTE,
        rules=("swa_pool_usage",),
        literals=("SWAKVPool mem usage",),
        samples=("[2026-01-01 10:00:11 TP0] SWAKVPool mem usage: 43.00 GB, swa size: 700000, full size: 900000",),
    ),
    Kind(
        POOL_AVAILABLE,
        NOTE,
        rules=("pool_available",),
        literals=(
            "Available tokens:",
            "Available full tokens:",
            "Available swa tokens:",
            "Available swa:",
            "Available mamba:",
            "SWA available tokens:",
        ),
        samples=(
            "Available mamba: 760 (available_size=760 + component_evictable_size_=0)",
            "Available full tokens: 12288 (full_available_size=8192 + full_evictable_size_=4096)",
            "[2025-09-01 10:00:00 TP0] Available tokens: 120 (available_size=100 + evictable_size=20)",
        ),
    ),
    Kind(
        KV_VA_BOUND,
        NOTE,
        rules=("kv_va_bound",),
        literals=("KV Cache VA upper bound",),
        samples=("[2026-01-01 10:00:11 TP0] KV Cache VA upper bound: 256.00 GB",),
    ),
    Kind(
        ATTENTION_BACKEND,
        NOTE,
        rules=("attention_backend", "mla_backend"),
        literals=("Attention backend not", "MLA optimization is turned on"),
        samples=(
            "[2026-01-01 10:00:00] Attention backend not explicitly specified. Use fa3 backend by default.",
            "[2025-03-09 14:40:47 TP4] MLA optimization is turned on. Use triton backend.",
        ),
    ),
    Kind(
        PLATFORM,
        NOTE,
        rules=("platform",),
        literals=("Automatically detected platform",),
        samples=("INFO 01-01 09:59:58 [__init__.py:239] Automatically detected platform cuda.",),
    ),
    Kind(
        SYMM_PREALLOC,
        NOTE,
        rules=("symm_prealloc",),
        literals=("Pre-allocating symmetric memory",),
        samples=("[2026-01-01 10:00:03 TP0] Pre-allocating symmetric memory pool with 4.0 GiB",),
    ),
    Kind(
        SYMM_DEFAULT,
        NOTE,
        rules=("symm_default",),
        literals=("Symmetric memory",),
        samples=(
            "[2026-01-01 10:00:00] Symmetric memory is enabled, setting symmetric memory prealloc size to 4 GB as default.",
        ),
    ),
    Kind(
        TOKENS_CAPPED,
        NOTE,
        rules=("tokens_capped",),
        literals=("is larger than the profiled",),
        samples=(
            "[2026-01-01 10:00:08 TP0] max_total_tokens=500000 is larger than the profiled value -1234. Use the "
            "profiled value instead.",
        ),
    ),
    Kind(
        STAGING_BUFFER,
        NOTE,
        rules=("staging_buffer",),
        literals=("StagingBuffer",),
        samples=("[2026-01-01 10:00:09 TP0] StagingBuffer allocated: 256.0 MB on cuda:0, for PD transfer",),
    ),
    Kind(
        STAGING_ALLOCATOR,
        NOTE,
        rules=("staging_allocator",),
        literals=("StagingAllocator",),
        samples=("[2026-01-01 10:00:09 TP0] StagingAllocator (ring+overcommit): 512.0 MB on cuda:0, ring of 4",),
    ),
    Kind(
        DEEPEP_CAPPED,
        NOTE,
        rules=("deepep_capped",),
        literals=("DeepEP",),
        samples=(
            "[2026-03-01 10:00:00 DP0 TP0 EP0] DeepEP low_latency capped per-rank decode concurrency to 128 (from 256) "
            "to keep the all-to-all dispatch buffer within the FINISHED_SUM_TAG bound.",
        ),
    ),
    Kind(
        DSV4_MEMORY,
        NOTE,
        rules=("dsv4_memory",),
        literals=("DSV4 memory calculation:", "DSv4 memory calculation:"),
        samples=(
            "[2026-10-01 10:00:05 TP0] DSV4 memory calculation: unified=True, unified_fp8=False, "
            "bytes_per_full_token=1234.50, available_bytes=100.25 GB, swa_fixed=2.00 GB, full_token=123456",
        ),
    ),
    Kind(
        DSV4_POOL_SIZES,
        NOTE,
        rules=("dsv4_pool_sizes",),
        literals=("DSV4 pool sizes:",),
        samples=(
            "[2026-06-02 11:20:02 TP0] DSV4 pool sizes: full=3080704, swa=385088, c4=770176, c128=24068, "
            "c4_state=6016, c128_state=3008",
        ),
    ),
    Kind(
        POST_CAPTURE_KV,
        NOTE,
        rules=("post_capture_kv",),
        literals=("Post-capture KV sizing",),
        samples=(
            "[2026-10-01 10:05:00 TP0] Post-capture KV sizing: KV cache allocated. dtype: torch.bfloat16, "
            "#tokens: 1000000, KV size: 45.78 GB, avail mem=10.20 GB",
        ),
    ),
    Kind(
        POST_CAPTURE_DRAFT_KV,
        NOTE,
        rules=("post_capture_draft_kv",),
        literals=("draft KV cache allocated",),
        samples=(
            "[2026-10-01 10:05:00 TP0] Post-capture KV sizing: draft KV cache allocated. dtype: torch.bfloat16, "
            "#tokens: 1000000, KV size: 2.16 GB",
        ),
    ),
    Kind(MEMORY_LINE, NOTE, MEMORY_LINE_GRAMMAR, literals=("GB", "GiB", "MiB", "MB")),
    Kind(
        DEEPEP_RESERVE,
        NOTE,
        rules=("deepep_reserve",),
        literals=("DeepEP",),
        samples=("[2026-03-01 10:00:00 TP0] DeepEP auto mem reserve 3.5 GiB exceeds the free memory after weights",),
    ),
    Kind(
        SHARD_PROGRESS,
        NOTE,
        grammar=PROGRESS_GRAMMAR,
        literals=("checkpoint shards:", "Loading safetensors using ", "loading shards:"),
        samples=(
            "Loading safetensors checkpoint shards:  50% Completed | 4/8 [00:10<00:10,  2.50s/it]",
            "Loading safetensors using Fastsafetensor loader:   0%|          | 0/9 [00:12<?, ?it/s]",
            "Multi-thread loading shards:  25%|██▌       | 2/8 [00:03<00:09,  1.52s/it]",
        ),
    ),
    Kind(
        ENGINE_CAPTURE_BAR,
        NOTE,
        grammar=PROGRESS_GRAMMAR,
        literals=("Capturing CUDA graph", "CUDA graphs: ", "CUDA graphs ("),
        samples=(
            "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  20%|█▉        | 10/51 [00:00<00:02, 15.63it/s]",
            "Capturing CUDA graph shapes:  37%|███▋      | 13/35 [00:05<00:08,  2.60it/s]",
        ),
    ),
    Kind(
        ENGINE_STARTUP_LINE,
        NOTE,
        grammar=PROGRESS_GRAMMAR,
        literals=(
            "Starting to load model ",
            "Model loading took ",
            "Memory profiling takes ",
            "Available KV cache memory: ",
            "GPU KV cache size: ",
            "Maximum concurrency for ",
            "Graph capturing finished in ",
            "Capturing cudagraphs for decoding",
            "Capturing the model for CUDA graphs",
            "init engine (profile, create kv cache, warmup model) took",
            "Application startup complete.",
            "Uvicorn running on ",
        ),
        samples=(
            "(EngineCore pid=309) INFO 09-03 19:31:54 [kv_cache_utils.py:2178] Maximum concurrency for 2,048 tokens per"
            " request: 33.66x",
            "(VllmWorker rank=0 pid=55723) INFO 05-06 16:50:02 [gpu_model_runner.py:1329] Starting to load model"
            " Qwen/Qwen3-8B...",
            "INFO:     Application startup complete.",
        ),
    ),
    # ---- facts read by the sglang grammar
    Kind(CAPTURE_BS, FACT, rules=("capture_bs",), literals=("Capture ",), samples=("Capture cuda graph bs [1, 2, 4, 8, 10]",)),
    Kind(
        KV_RESERVE,
        FACT,
        rules=("kv_reserve",),
        literals=("Reserving ",),
        samples=("Reserving 0.10 GB of the KV budget for post-sizing multimodal allocations",),
    ),
    Kind(
        AR_DISABLED,
        FACT,
        rules=("ar_disabled", "ar_setup_failed"),
        literals=("llreduce", "AllReduceV2"),
        samples=(
            "[2026-01-01 10:00:00 TP4] CustomAllReduceV2 is disabled because this process group spans across nodes.",
            "[2026-04-14 16:08:44 TP1] Setup Custom allreduce failed with CUDART error: peer access is not supported "
            "between these two devices. To silence this warning, specify --disable-custom-all-reduce explicitly.",
        ),
    ),
    Kind(
        IMBALANCE,
        FACT,
        rules=("imbalance",),
        literals=("memory capacity is unbalanced",),
        samples=("[2026-01-01 10:00:00 TP1] The memory capacity is unbalanced. Some GPUs may be occupied by other processes.",),
    ),
    Kind(
        DEEPEP_MISSING,
        FACT,
        rules=("deepep_missing",),
        literals=("DeepEP",),
        samples=(
            "[2025-06-01 10:00:00 TP0] DeepEP is not installed. Please install DeepEP package from "
            "https://github.com/deepseek-ai/deepep.",
        ),
    ),
    Kind(
        INIT_FAILED,
        FACT,
        rules=("init_failed",),
        literals=("Initialization failed",),
        samples=("[2025-06-01 10:00:00] Initialization failed. warmup error: see the log",),
    ),
    # ---- failures read by the sglang grammar
    Kind(
        NOT_ENOUGH_MEMORY,
        FAILURE,
        rules=("not_enough_memory", "no_kv_memory"),
        literals=("Not enough memory", "Loaded weights leave no GPU memory"),
        samples=(
            "[2026-01-01 10:00:00 TP0] Not enough memory. Please try to increase --mem-fraction-static.",
            "[2026-01-01 10:00:00 TP1] Loaded weights leave no GPU memory for the KV cache under "
            "--mem-fraction-static=0.7. Raise --mem-fraction-static above 0.812 (minimum viable = 0.8011).",
        ),
    ),
    Kind(
        AR_FAILED,
        FAILURE,
        rules=("cuda_failed",),
        literals=("Failed: Cuda error",),
        samples=(
            "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:307 'peer access is not supported between "
            "these two devices'",
        ),
    ),
    Kind(
        CUDA_ERROR,
        FAILURE,
        rules=("cuda_failed",),
        literals=("Failed: Cuda error",),
        samples=("[2026-01-01 10:00:00 TP0] Failed: Cuda error /workspace/csrc/moe_kernels.cu:88 'invalid argument'",),
    ),
    Kind(
        NCCL_ERROR,
        FAILURE,
        rules=("symm_failed",),
        literals=("symmetric memory",),
        samples=("ERROR: NCCL symmetric memory allocation failed. Most likely out of device memory.",),
    ),
    Kind(
        PD_TRANSFER_FAILED,
        FAILURE,
        rules=("mooncake_failed", "nixl_failed"),
        literals=("Mooncake memory", "memory registration failed"),
        samples=(
            "[2025-06-05 10:48:27 TP7] Mooncake memory registration failed.",
            "[2025-11-04 06:35:19 TP0] NIXL memory registration failed for kv tensors",
        ),
    ),
    Kind(
        PROCESS_EXCEPTION,
        FAILURE,
        rules=("process_exception",),
        literals=("hit an exception",),
        samples=("[2025-06-11 14:04:30 TP0] Scheduler hit an exception: Traceback (most recent call last):",),
    ),
    Kind(
        SIGQUIT,
        FAILURE,
        rules=("sigquit",),
        literals=("Received sigquit",),
        samples=("[2025-08-08 09:09:09] Received sigquit from a child process. It usually means the child failed.",),
    ),
    Kind(
        SCHEDULER_DIED,
        FAILURE,
        rules=("scheduler_died",),
        literals=("scheduler died",),
        samples=(
            "[2026-01-01 10:00:30] Rank 0 scheduler died during initialization (exit code: -9). If a failure "
            "happened, check the log.",
        ),
    ),
    Kind(
        EXCEPTION,
        FAILURE,
        EXCEPTION_GRAMMAR,
        rules=("exception_line",),
        # (".autotuner.OutOfResources: ": parsers/registry.py LIBRARY_EXCEPTION_CLASSES, triton 2.1.0's own module)
        literals=(
            "Error: ",
            "Exception: ",
            "Error:",
            "Interrupt: ",
            "Error): ",
            ".errors.",
            ".error.",
            "exceptions.",
            ".exc.",
            ".autotuner.OutOfResources: ",
        ),
        samples=(
            "RuntimeError: CUDA error: invalid argument",
            "triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: 663808, Hardware limit: "
            "101376. Reducing block sizes or `num_stages` may help.",
            "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 196608, Hardware limit: "
            "65536. Reducing block sizes or `num_stages` may help.",
            "[2026-03-12 11:17:34] ray.exceptions.RayTaskError(ActorDiedError): ray::TaskRunner.run() (pid=3369646)",
        ),
    ),
    Kind(
        OOM,
        FAILURE,
        TORCH_OOM_GRAMMAR,
        rules=("exception_line",),
        literals=("CUDA out of memory", "HIP out of memory"),
        samples=("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",),
    ),
    Kind(
        NCCL_WARN,
        FAILURE,
        NATIVE_LOG_GRAMMAR,
        literals=("NCCL WARN",),
        samples=("node1:1234:1300 [0] NCCL WARN Cuda failure 'out of memory'",),
    ),
    Kind(
        FATAL_ERROR,
        FAILURE,
        TRACEBACK_GRAMMAR,
        literals=("Fatal Python error",),
        samples=("Fatal Python error: Segmentation fault",),
    ),
    Kind(TRACEBACK, FAILURE, BLOCK),
    Kind(FAILURE_LINE, FAILURE, BLOCK),
    Kind(LOGGED_FAILURE, FAILURE, BLOCK),
    Kind(NATIVE_BACKTRACE, FAILURE, BLOCK),
    # ---- facts read by the other line grammars and the block readers
    Kind(
        SERVER_ARGS,
        FACT,
        SERVER_ARGS_GRAMMAR,
        literals=("server_args=",),
        samples=("[2026-01-01 10:00:00] server_args=ServerArgs(model_path='m', tp_size=2)",),
    ),
    Kind(
        LAUNCH_COMMAND,
        FACT,
        LAUNCH_COMMAND_GRAMMAR,
        literals=(
            "sglang.launch_server",
            "sglang serve",
            "sglang generate",
            "sglang.bench_one_batch",
            "sglang.bench_offline_throughput",
            "docker run",
            "torchrun",
            "launch_server.py",
            "dynamo.sglang",
            "sglang_router.launch_server",
        ),
        samples=("python3 -m sglang.launch_server --model-path m --tp 2",),
    ),
    # an export line; assignments on a line of their own are found by the families of variables that shape GPU
    # memory and communication (SGLang's, NCCL's, CUDA's and torch's, NVSHMEM's, the transfer engines')
    Kind(
        ENV_EXPORT,
        FACT,
        LAUNCH_COMMAND_GRAMMAR,
        literals=("export ", "SGLANG_", "SGL_", "NCCL_", "CUDA_", "PYTORCH_", "TORCH_", "NVSHMEM_", "MC_", "UCX_", "NIXL_"),
        samples=("export NCCL_DEBUG=INFO", "CUDA_VISIBLE_DEVICES=4,5,6,7"),
    ),
    Kind(
        LAUNCH_FLAGS,
        FACT,
        FLAG_LIST_GRAMMAR,
        literals=("- `--", "* `--", "+ `--", *FLAG_ITEM_LITERALS, *FLAG_FIELD_LITERALS),
        samples=("- `--tp-size 8`, `--moe-a2a-backend deepep`", "- mem-fraction-static: 0.75", "- `chunked-prefill-size`: 8192"),
    ),
    Kind(
        CHECK_ENV,
        FACT,
        COLLECT_ENV_GRAMMAR,
        literals=(
            "[pip3] ",
            "[pip] ",
            "[conda] ",
            "vLLM Version:",
            "PyTorch version:",
            "Nvidia driver version:",
            "CUDA used to build PyTorch:",
            "CUDA runtime version:",
            "Python version:",
        ),
        samples=("[pip3] torch==2.6.0", "PyTorch version: 2.6.0+cu124"),
    ),
    Kind(
        STATED_ENV,
        FACT,
        STATED_ENV_GRAMMAR,
        literals=STATED_ENV_LITERALS,
        samples=("- SGLang: 0.5.4.post1", "sglang==0.5.9", "- GPUs: NVIDIA H20-3e (x4)", "**PyTorch**: 2.8.0+cu129"),
    ),
    Kind(
        TIME_CUE,
        FACT,
        TIME_CUE_GRAMMAR,
        literals=TIME_CUE_LITERALS,
        samples=(
            "The server crashes with `RuntimeError: NCCL error` when I start it on two nodes.",
            "After a few requests it dies: `RuntimeError: CUDA error: an illegal memory access was encountered`",
        ),
    ),
    Kind(
        STATED_FAILURE,
        FACT,
        STATED_FAILURE_GRAMMAR,
        literals=STATED_FAILURE_LITERALS,
        samples=(
            'When running the intranode test, I got "check timeout failed" Error.',
            "The server crashes with an illegal memory access after a few minutes.",
            "👉 结果：初始化失败",
        ),
    ),
    Kind(
        TIME_CLAIM,
        FACT,
        TIME_CLAIM_GRAMMAR,
        literals=TIME_CLAIM_LITERALS,
        samples=(
            "python3 -m sglang.bench_serving --backend sglang --num-prompts 1000 --host 10.0.0.1 --port 8000",
            "when benching serving DeepSeekR1 with request-rate = 1 or 8 the following error occurred:",
            "Starting any model with `sglang serve` fails during startup because CUDA initialization returns:",
        ),
    ),
    Kind(
        SMI_GPU,
        FACT,
        GPUSTAT_GRAMMAR,
        literals=(" MB |",),
        samples=("[0] NVIDIA H200 | 35°C,   0 % |  1024 / 143771 MB | python(1000M)",),
    ),
    Kind(
        FRAME,
        FACT,
        TRACEBACK_GRAMMAR,
        literals=('File "',),
        samples=('  File "/sgl/python/sglang/srt/managers/scheduler.py", line 1748, in run_scheduler_process',),
    ),
    Kind(
        TRACEBACK_START,
        FACT,
        TRACEBACK_GRAMMAR,
        literals=("Traceback (most recent",),
        samples=("Traceback (most recent call last):",),
    ),
    Kind(
        FAULTHANDLER_THREAD,
        FACT,
        TRACEBACK_GRAMMAR,
        literals=("(most recent call first)",),
        samples=("Thread 0x00007f1c2effd640 (most recent call first):",),
    ),
    Kind(
        TRACEBACK_CHAIN,
        FACT,
        TRACEBACK_GRAMMAR,
        literals=("During handling of the above", "The above exception"),
        samples=("During handling of the above exception, another exception occurred:",),
    ),
    Kind(
        JIT_BUILD,
        FACT,
        JIT_BUILD_GRAMMAR,
        literals=("JIT ops: ", "ninja: Entering directory"),
        samples=(
            "2025-02-28 11:38:16,846 - INFO - flashinfer.jit: Loading JIT ops: batch_mla_attention_dtype_q_bf16",
            "ninja: Entering directory `/home/ubuntu/.cache/flashinfer/100/cached_ops'",
        ),
    ),
    Kind(
        NATIVE_LOG,
        FACT,
        NATIVE_LOG_GRAMMAR,
        literals=(".cpp:", ".cc:", "UCX  ERROR", "UCX  FATAL", "UCX  WARN"),
        samples=(
            "E0101 10:00:00.123456 1234 transfer_engine.cpp:120] Failed to register memory",
            "E20260701 17:08:51.688711 12054 rdma_context.cpp:209] Failed to open device mlx5_3 on port 1 with GID 3",
            "[1752139321.465713] [gpu-node-3:2847 :0]     ucp_worker.c:1783 UCX  ERROR   failed to create UCP worker",
        ),
    ),
    # no literal of its own (NCCL_DEBUG=INFO prints thousands): read when the line holds another, as a source file
    Kind(
        NCCL_INFO,
        FACT,
        NATIVE_LOG_GRAMMAR,
        samples=("node1:1234:1300 [0] NCCL INFO init.cc:1460 Cuda Host Alloc Size 4 pointer 0x7f0c2a000000",),
    ),
    Kind(
        CATALOGUED_LINE,
        FACT,
        CATALOGUE_GRAMMAR,
        # every line no grammar reads is tried too; these make the pool lines of newer models candidates
        literals=("TokenToKVPool", "unified-memory-pool", "Try to allocate"),
        samples=(
            "[2026-06-02 11:20:01 TP0] Initialize DeepSeekV4TokenToKVPool with max_num_reqs=256 swa_size=329472 c4_size=0 "
            "c4_logical_size=0 c128_size=2574 c4_state_pool_size=1024 c128_state_pool_size=512 unified=True unified_fp8=False",
        ),
    ),
    Kind(SMI_PROCESS, FACT, BLOCK),
    Kind(SERVING_BEGIN, FACT, BLOCK),
    Kind(SMI_VERSIONS, FACT, BLOCK),
    Kind(SMI_MIG, FACT, BLOCK),
    Kind(TOPOLOGY, FACT, BLOCK),
)


def by_id() -> dict[str, Kind]:
    return {kind.id: kind for kind in CATALOGUE}


def of_role(role: str) -> frozenset[str]:
    return frozenset(kind.id for kind in CATALOGUE if kind.role == role)


def line_literals(grammar: str) -> tuple[str, ...]:
    """The prefilter literals of one line grammar: every literal its rows declare, once, in catalogue order."""
    return tuple(dict.fromkeys(lit for kind in CATALOGUE if kind.grammar == grammar for lit in kind.literals))

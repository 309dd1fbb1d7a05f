"""Every parser logscope has, in the order they are tried: the line grammars (literals, shape test, parse)
and the block readers. The prefilter is built from the literals declared here, and the classifier loops
over these tables: a new grammar or dump layout is one entry here plus its own module and .lark file."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from logscope.core import kinds, upstream
from logscope.core.server_flags import is_field, known_option
from logscope.pipeline.parse.parsers import (
    catalogue,
    engine_lines,
    jit_build,
    other_lines,
    quoted_flags,
    sglang_line,
    stated_env,
    stated_failure,
    time_claims,
    time_cues,
)
from logscope.pipeline.parse.parsers.base import SHELL_PROMPT, BlockReader, Parsed, prefix_of, strip_prefix
from logscope.pipeline.parse.parsers.blocks import CheckEnvReader, NativeBacktraceReader, TracebackReader
from logscope.pipeline.parse.parsers.collect_env_gpus import CollectEnvGpuReader, SmiListReader
from logscope.pipeline.parse.parsers.command_shapes import (
    COMMAND_HEAD,
    INTERPRETER_OPTIONS,
    SGLANG_MODULE,
    argv_words,
    bare_module,
    behind_prompt,
    command_line,
    uv_run_module,
    without_prompt,
)
from logscope.pipeline.parse.parsers.command_text import parse_command
from logscope.pipeline.parse.parsers.field_commands import FieldCommandReader
from logscope.pipeline.parse.parsers.flashinfer_env import FlashInferEnvReader
from logscope.pipeline.parse.parsers.multiline_commands import ContinuedCommandReader, WrappedCommandReader
from logscope.pipeline.parse.parsers.npu_smi import NpuSmiReader
from logscope.pipeline.parse.parsers.nvidia_smi import NvitopReader, SmiQueryReader, SmiTableReader, SmiXmlReader
from logscope.pipeline.parse.parsers.nvidia_topo import TopoReader
from logscope.pipeline.parse.parsers.rocm_topo import RocmTopoReader
from logscope.pipeline.parse.parsers.server_args_dump import WrappedDumpReader
from logscope.pipeline.parse.parsers.shell_arrays import ShellArrayReader
from logscope.pipeline.parse.parsers.smi_csv import SmiCsvReader, SmiHeaderlessReader, SmiUnlabelledReader, parse_gpustat_row
from logscope.pipeline.parse.parsers.stated_env import PipShowReader, SectionVersionReader, VersionPrintReader


@dataclass(frozen=True, slots=True)
class LineGrammar:
    """A one-line grammar: a line holding one of `literals` and passing `fits` is parsed by `parse`."""

    name: str
    literals: tuple[str, ...]
    parse: Callable[[str], Parsed | None]
    fits: Callable[[str], bool] = lambda text: True
    prose: bool = False  # it reads what a sentence of prose states outright (a version tied to SGLang)
    # a prose grammar that reads every sentence, whatever else was read in it (what the sentence says of the time)
    whole_sentence: bool = False
    # it reads sentences of prose only, never a log record (a failure stated in the issue's own words)
    only_in_prose: bool = False


# a Ray task's exception names its cause in parentheses: "ray.exceptions.RayTaskError(ActorDiedError): ray::f()"; a
# class of a module of exceptions, whatever its name, as CPython prints a class outside builtins with its module
# (Lib/traceback.py TracebackException.format_exception_only: smod + "." + qualname): triton 3.9.0
# triton/runtime/errors.py OutOfResources, "triton.runtime.errors.OutOfResources: out of resource: shared memory, ..."
# (a warning class of such a module is no failure: "urllib3.exceptions.InsecureRequestWarning: Unverified HTTPS request")
# and the classes of kernel libraries whose name and module say nothing of an error, as their releases define them:
# triton 2.1.0 triton/runtime/autotuner.py "class OutOfResources(Exception)" (triton 3.x moved it to runtime/errors.py,
# read above)
LIBRARY_EXCEPTION_CLASSES = ("triton.runtime.autotuner.OutOfResources",)
EXCEPTIONS_MODULE_CLASS = (
    r"(?:(?:[a-z_][a-z0-9_]*\.)+(?:errors?|exc|exceptions?)\.[A-Z][A-Za-z0-9_]*(?<!Warning)|"
    + "|".join(re.escape(name) for name in LIBRARY_EXCEPTION_CLASSES)
    + ")"
)
_EXC_LINE = re.compile(
    r"^\s*(?:(?:[A-Za-z_]\w*\.)*[A-Za-z_]*(?:Error|Exception|Interrupt)(?:\([A-Za-z_]\w*\))?|" + EXCEPTIONS_MODULE_CLASS + r"): "
)
# torch.distributed's excepthook prefix before every line of what it prints (torch 2.5.1-2.12.0 distributed_c10d.py:
# excepthook_prefix = f"[rank{get_rank()}]", then f"{excepthook_prefix}: {s}"), which grammars/sglang.lark reads as
# torch_rank_prefix: an exception line behind it ("[rank0]: ValueError: ...") is one still
_TORCH_RANK_PREFIX = re.compile(r"^\s*\[rank\d+\]:")
_OOM_EXC = re.compile(r"^\s*((?:[A-Za-z_]\w*\.)*[A-Za-z_]*(?:Error|Exception)):")
# (besides a shell line that starts a command: command_shapes.COMMAND_HEAD)
_LAUNCH_SHAPE = re.compile(
    r"^\s*(?:" + SHELL_PROMPT + r")?(?:export\s"
    # a launcher after other text: a bash -x trace ("+ python3 -m ..."), "Running: ...", a log prefix
    r"|.*?\s(?:\S*/)?python3?(?:\.\d+)?" + INTERPRETER_OPTIONS + r"\s+-m\s+" + SGLANG_MODULE + r"\s"
    # the module run as a script (python path/to/sglang/launch_server.py, pm2 start ...), a command in a quoted string
    # (no \S* before the path: after .*? it only makes a long line without the path quadratic)
    r"|.*?/sglang/launch_server\.py\s|.*?[\"'`]python3?\s+-m\s+" + SGLANG_MODULE + r"\s)"
)
_NATIVE_SHAPE = re.compile(
    r"^\s*(?:[IWEF]\d{4}(?:\d{4})? \d{2}:\d{2}:[\d.]+ +(?:\d+ +)?[\w./-]+:\d+\]|[\w.-]+:\d+:\d+ \[\d+\]"
    # torch's c10 MessageLogger (c10/util/Logging.cpp): "[rank0]:[E1207 10:11:12.123456789 ProcessGroupNCCL.cpp:1234] "
    r"|(?:\[rank\d+\]:)?\[[EF]\d{3,4} \d{2}:\d{2}:[\d.]+ +(?:\d+ +)?[\w./-]+:\d+\]"
    r"|" + other_lines.UCX_LINE_HEAD + ")"
)


def _torch_oom(text: str) -> Parsed | None:
    data = other_lines.parse_oom(text)
    if data is None:
        return None
    m = _OOM_EXC.match(strip_prefix(text))
    if m:
        data["exception"] = m.group(1)
    if "Capture cuda graph failed" in text:
        data["context"] = "capture_failed"
    return Parsed(kinds.OOM, data, prefix_of(text))


def _server_args(text: str) -> Parsed | None:
    parsed = other_lines.parse_server_args(text)
    if parsed is None:
        return None
    fields, truncated = parsed
    return Parsed(kinds.SERVER_ARGS, {"fields": fields, "truncated": truncated}, prefix_of(text))


def _sglang(text: str) -> Parsed | None:
    result = sglang_line.parse_line(text)
    if result is None:
        return None
    prefix, kind, data = result
    return Parsed(kind, data, prefix)


# argparse's report under SGLang's parser names its program with a colon ("sglang serve: error: ..."): no command
_PROGRAM_LABEL = re.compile(r"^\s*sglang serve: ")


def _launch_command(text: str) -> Parsed | None:
    message = strip_prefix(text)
    if message != text and upstream.printed_by_a_release(message):
        return None  # SGLang's own line giving an example ("... For example: `python3 -m sglang.compile_deep_gemm ...`")
    line = without_prompt(message)
    if _PROGRAM_LABEL.match(line):
        return None
    data = parse_command(line)
    if data is None:  # no launcher: an export line, or assignments on a line of their own
        data = other_lines.parse_launch_command(line)
    if data is None or data.get("prose") or (data["kind"] == "export" and not data["env"]):
        return None
    return Parsed(kinds.LAUNCH_COMMAND if data["kind"] != "export" else kinds.ENV_EXPORT, data)


# a Markdown list item that gives launch flags as code spans: "- `--tp-size 8`", "* `--moe-a2a-backend deepep`"
_FLAG_ITEM = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+(?:`--[\w-]|`?(?:--)?[a-z])|[a-z][a-z0-9]*(?:-[a-z0-9]+)+\s*:|--[a-z])")
# a launch command's flags pasted without its launcher ("--tp 8 --dp-size 8 --enable-dp-attention ..."): read when
# at least this many flags, each an option of a released ServerArgs
_BARE_FLAGS = re.compile(r"^\s*--[a-z][\w-]*(?:[\s=]|$)")
_BARE_FLAGS_MIN = 3
_FLAG_SPAN = re.compile(r"`(--[\w-][^`]*)`")
# the issue template's way: one flag a list item, its name without dashes and a colon ("- tp-size: 4",
# "- `mem-fraction-static`: 0.75", "- --tp 8"); a name with a dash, or one of the short parallel flags
_FIELD_FLAG = re.compile(
    r"^\s*(?:(?:[-*+]|\d+[.)])\s+`?(?:--)?([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+|tp|dp|ep|pp|model)`?\s*(?::|=|\s)"
    # or a "name: value" line of its own, the name with a dash ("tp-size: 8")
    r"|([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\s*:)\s*`?([^`\s]+)`?\s*$"
)
# a one-word flag and its value in one code span ("- `quantization: modelopt_fp4`"): read only when the word is a
# ServerArgs field of a catalogued release ("- `model: x`" in prose is no flag)
_SPAN_FIELD = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+`([a-z][a-z0-9]*)\s*[:=]?\s+([^`\s]+)`\s*$")
FIELD_SOURCE = "issue_template"


def flag_line(text: str) -> bool:
    """A line that starts with a long flag: a launch command's flags pasted without the launcher (a record)."""
    return bool(_BARE_FLAGS.match(text))


def _flag_list(text: str) -> Parsed | None:
    if _BARE_FLAGS.match(text):
        data = parse_command("python -m sglang.launch_server " + text.strip())
        args = data.get("args", {}) if data is not None else {}
        if len(args) < _BARE_FLAGS_MIN or not all(known_option(flag) for flag in args):
            return None
        return Parsed(kinds.LAUNCH_FLAGS, {**(data or {}), "source": kinds.LAUNCH_COMMAND, "launcher": None})
    if quoted_flags.no_setting(text):  # an attempt the prose reports, a traced shell assignment: not the launch
        return None
    spans = _FLAG_SPAN.findall(text)
    if spans:
        data = parse_command("python -m sglang.launch_server " + " ".join(spans))
        return Parsed(kinds.LAUNCH_FLAGS, data) if data is not None and data.get("args") else None
    m = _FIELD_FLAG.match(text)
    if m is not None:
        name, value = m.group(1) or m.group(2), m.group(3)
        if not known_option(name):  # "max-model-len: 16384" of another engine's config: no released ServerArgs flag
            return None
    else:
        span = _SPAN_FIELD.match(text)
        if span is None or not is_field(span.group(1)):
            return None
        name, value = span.groups()
    flag = "--" + name.replace("_", "-")
    data = parse_command(f"python -m sglang.launch_server {flag} {shlex.quote(value)}")
    if data is None or not data.get("args"):
        return None
    data["source"] = FIELD_SOURCE
    return Parsed(kinds.LAUNCH_FLAGS, data)


# PyTorch's / vLLM's collect_env (pasted in SGLang issues too): "[pip3] torch==2.6.0", "vLLM Version: 0.8.3"
_COLLECT_PIP = re.compile(r"^\s*\[(?:pip3?|conda)\]\s+([A-Za-z0-9_.-]+)(?:==|\s+)([0-9][\w.+-]*)\s*$")
_NO_PACKAGES = re.compile(r"^\s*\[(?:pip3?|conda)\]\s+No relevant packages\s*$")
_COLLECT_KEY = re.compile(
    r"^\s*(vLLM Version|PyTorch version|Nvidia driver version|CUDA used to build PyTorch|"
    r"CUDA runtime version|Python version|ROCM used to build PyTorch)\s*:\s*(\S.*?)\s*$"
)


def _collect_env(text: str) -> Parsed | None:
    if _NO_PACKAGES.match(text):
        return Parsed(kinds.CHECK_ENV, {"values": {}})
    m = _COLLECT_PIP.match(text)
    if m:
        return Parsed(kinds.CHECK_ENV, {"values": {m.group(1): m.group(2)}})
    m = _COLLECT_KEY.match(text)
    if m and not m.group(2).lower().startswith(("could not collect", "n/a")):
        return Parsed(kinds.CHECK_ENV, {"values": {m.group(1): m.group(2)}})
    return None


# tqdm's weight-loading bars (the descs of sglang/srt/model_loader/weight_utils.py, 0.3.0 to 0.5.23: SGLang's own
# "% Completed | n/N" format, or tqdm's default "%|bar| n/N"): how far loading got (where a hang or a crash stopped it)
_SHARDS = re.compile(
    r"^\s*(?:Loading (?P<format>\w+) checkpoint shards|Loading (?P<using>safetensors) using [\w ]+?"
    r"|Multi-thread loading (?P<multi>pt )?(?:checkpoint )?shards):\s+(?P<pct>\d+)%(?: Completed)?\s*\|(?:[^|]*\|)?"
    r"\s*(?P<done>\d+)/(?P<total>\d+)\b"
)


# vLLM's CUDA graph capture bar (tqdm over the sizes it captures, at startup: Worker.compile_or_warm_up_model ->
# capture_model, and an elastic-EP rescale's re-run of it in 0.34.0 distributed/elastic_ep): "Capturing CUDA graph
# shapes" (worker/model_runner.py, vllm 0.8.5.post1-0.10.2, V0), "Capturing CUDA graphs ({decode|mixed prefill-decode},
# {mode})" (v1/worker/gpu_model_runner.py 0.10.2-0.27.1), "Capturing CUDA graphs ({mode})" and the speculators'
# "Capturing {eagle prefill|decode|multi-module MTP} CUDA graphs" (v1/worker/gpu/cudagraph_utils.py and
# spec_decode/, 0.14.1-0.34.0); tqdm's default "%|bar| n/N". SGLang's own capture bars say "Capturing batches"
_ENGINE_CAPTURE = re.compile(
    r"^\s*Capturing (?:[\w-]+ ){0,3}CUDA graph(?:s| shapes)(?: \([\w ,-]*\))?:\s+(?P<pct>\d+)%\|[^|]*\|"
    r"\s*(?P<done>\d+)/(?P<total>\d+)\b"
)


def _shards(text: str) -> Parsed | None:
    m = _SHARDS.match(text)
    if m is None:
        captured = _ENGINE_CAPTURE.match(text)
        if captured is None:
            return engine_lines.parse(text)
        done, total = int(captured.group("done")), int(captured.group("total"))
        return Parsed(kinds.ENGINE_CAPTURE_BAR, {"pct": int(captured.group("pct")), "done": done, "total": total})
    loaded = m.group("format") or m.group("using") or ("pt" if m.group("multi") else "safetensors")
    return Parsed(
        kinds.SHARD_PROGRESS,
        {"format": loaded, "pct": int(m.group("pct")), "done": int(m.group("done")), "total": int(m.group("total"))},
    )


_GPUSTAT_SHAPE = re.compile(r"^\s*\[\d+\]\s")

# a line that names an amount of memory ("avail mem=13.20 GB", "KV size: 45.78 GB", "reserved 512 MiB"): no grammar
# reads it unless another grammar above did, so a new wording of a new release is listed as unrecognised
# instead of vanishing before any grammar sees it
_MEMORY_AMOUNT = re.compile(r"\d(?:\.\d+)?\s*(?:GB|GiB|MiB|MB|TiB|TB)\b")
_MEMORY_WORD = re.compile(r"(?i)avail|usage|size|free|total|mem|reserv|alloc|budget|capacity|pool|buffer")


def _names_memory(text: str) -> bool:
    return bool(_MEMORY_AMOUNT.search(text) and _MEMORY_WORD.search(text))


def _gpustat(text: str) -> Parsed | None:
    row = parse_gpustat_row(text)
    return None if row is None else Parsed(kinds.SMI_GPU, row)


def _kind_and_data(parse: Callable[[str], tuple[str, dict[str, Any]] | None]) -> Callable[[str], Parsed | None]:
    def parse_line(text: str) -> Parsed | None:
        result = parse(text)
        return None if result is None else Parsed(result[0], result[1])

    return parse_line


# each grammar's literals are those of its kinds in the catalogue (logscope/core/kinds.py)
LINE_GRAMMARS: tuple[LineGrammar, ...] = (
    LineGrammar(kinds.TORCH_OOM_GRAMMAR, kinds.line_literals(kinds.TORCH_OOM_GRAMMAR), _torch_oom),
    LineGrammar(kinds.SERVER_ARGS_GRAMMAR, kinds.line_literals(kinds.SERVER_ARGS_GRAMMAR), _server_args),
    LineGrammar(kinds.SGLANG, kinds.line_literals(kinds.SGLANG), _sglang),
    LineGrammar(
        kinds.EXCEPTION_GRAMMAR,
        kinds.line_literals(kinds.EXCEPTION_GRAMMAR),
        _sglang,
        lambda text: bool(_EXC_LINE.match(strip_prefix(_TORCH_RANK_PREFIX.sub("", text, count=1)))),
    ),
    LineGrammar(
        kinds.LAUNCH_COMMAND_GRAMMAR,
        kinds.line_literals(kinds.LAUNCH_COMMAND_GRAMMAR),
        _launch_command,
        lambda text: (
            bool(COMMAND_HEAD.match(text) or _LAUNCH_SHAPE.match(text))
            or behind_prompt(text)
            or bare_module(text)
            or uv_run_module(text)
            or command_line(text)
            or argv_words(text) is not None
        ),
    ),
    LineGrammar(
        kinds.FLAG_LIST_GRAMMAR,
        kinds.line_literals(kinds.FLAG_LIST_GRAMMAR),
        _flag_list,
        lambda text: bool(_FLAG_ITEM.match(text)),
    ),
    LineGrammar(
        kinds.TRACEBACK_GRAMMAR, kinds.line_literals(kinds.TRACEBACK_GRAMMAR), _kind_and_data(other_lines.parse_traceback_line)
    ),
    LineGrammar(kinds.COLLECT_ENV_GRAMMAR, kinds.line_literals(kinds.COLLECT_ENV_GRAMMAR), _collect_env),
    LineGrammar(
        kinds.STATED_ENV_GRAMMAR,
        kinds.line_literals(kinds.STATED_ENV_GRAMMAR),
        stated_env.parse_line,
        stated_env.fits,
        prose=True,
    ),
    LineGrammar(kinds.PROGRESS_GRAMMAR, kinds.line_literals(kinds.PROGRESS_GRAMMAR), _shards),
    LineGrammar(
        kinds.GPUSTAT_GRAMMAR, kinds.line_literals(kinds.GPUSTAT_GRAMMAR), _gpustat, lambda text: bool(_GPUSTAT_SHAPE.match(text))
    ),
    LineGrammar(
        kinds.NATIVE_LOG_GRAMMAR,
        kinds.line_literals(kinds.NATIVE_LOG_GRAMMAR),
        _kind_and_data(other_lines.parse_native_line),
        lambda text: bool(_NATIVE_SHAPE.match(text)),
    ),
    # a kernel library's JIT build in progress (the library of a build failure after it)
    LineGrammar(kinds.JIT_BUILD_GRAMMAR, kinds.line_literals(kinds.JIT_BUILD_GRAMMAR), jit_build.parse, jit_build.fits),
    # the catalogued wordings of every release, anywhere in a line: also tried on every line no grammar above read
    LineGrammar(kinds.CATALOGUE_GRAMMAR, kinds.line_literals(kinds.CATALOGUE_GRAMMAR), catalogue.parse),
    # a benchmark client's command or a sentence that says when the paste failed (after the catalogue: a wording wins)
    LineGrammar(
        kinds.TIME_CLAIM_GRAMMAR,
        kinds.line_literals(kinds.TIME_CLAIM_GRAMMAR),
        time_claims.parse,
        time_claims.fits,
        prose=True,
        whole_sentence=True,
    ),
    # a sentence that states the run failed, in the issue's own words (after the catalogue and the time claims)
    LineGrammar(
        kinds.STATED_FAILURE_GRAMMAR,
        kinds.line_literals(kinds.STATED_FAILURE_GRAMMAR),
        stated_failure.parse,
        stated_failure.fits,
        prose=True,
        whole_sentence=True,
        only_in_prose=True,
    ),
    # a sentence that names the failure and says when by cue words of one time only (after the phrasings above)
    LineGrammar(
        kinds.TIME_CUE_GRAMMAR,
        kinds.line_literals(kinds.TIME_CUE_GRAMMAR),
        time_cues.parse,
        time_cues.fits,
        prose=True,
        whole_sentence=True,
        only_in_prose=True,
    ),
    # reads nothing: a line naming memory that no grammar above read is counted as unrecognised
    LineGrammar(kinds.MEMORY_LINE_GRAMMAR, kinds.line_literals(kinds.MEMORY_LINE_GRAMMAR), lambda text: None, _names_memory),
)

BLOCK_READERS: tuple[type[BlockReader], ...] = (
    ShellArrayReader,
    ContinuedCommandReader,
    WrappedCommandReader,
    FieldCommandReader,
    WrappedDumpReader,
    CheckEnvReader,
    CollectEnvGpuReader,
    SmiListReader,
    FlashInferEnvReader,
    PipShowReader,
    VersionPrintReader,
    SectionVersionReader,
    NativeBacktraceReader,
    TracebackReader,
    SmiTableReader,
    NvitopReader,
    NpuSmiReader,
    SmiQueryReader,
    SmiXmlReader,
    SmiCsvReader,
    SmiHeaderlessReader,
    SmiUnlabelledReader,
    RocmTopoReader,
    TopoReader,
)


def block_readers(source: str) -> list[BlockReader]:
    """A fresh reader of each kind for one source, in the order they are tried."""
    return [reader(source) for reader in BLOCK_READERS]

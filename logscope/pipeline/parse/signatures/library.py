"""The library a failure is attributed to when no signature names its mechanism: the one whose code raised it.

From the most to the least direct evidence: the library of the native frames where a crash hit (native.py), the
exception's module (`triton.runtime.errors.PTXASError`), a library's source path inside the message
(`.../flashinfer/data/csrc/...`), the innermost frame of an installed package (the standard library's frames are
the tools it called, not the raiser), then a message that only its code raises or prints (its Python raises, its C++
errors, its status names and CUDA checks, a failure wording only its released objects hold:
catalog/library_messages.json). A CUDA runtime error that no library's frame or path claims is CUDA's own
(`cuda`); an exception raised in another Python package is `python` (catalog/python_modules.json names the
libraries; SGLang's own raise is the `sglang` signatures' job, which come first).
"""

from __future__ import annotations

import posixpath
import re
from typing import NamedTuple

from logscope.core import kinds, upstream
from logscope.core.events import Event
from logscope.core.library_raises import library_raise
from logscope.core.native_libraries import checkout_library, library_of, message_library
from logscope.core.package_raises import package_raise
from logscope.core.python_libraries import (
    SGLANG,
    frame_package,
    is_stdlib_frame,
    is_stdlib_module,
    module_library,
    package_library,
)
from logscope.core.sglang_asserts import sglang_assert
from logscope.core.sglang_classes import sglang_object
from logscope.core.sglang_raises import sglang_raise_wording

CUDA = "CUDA"
TORCH = "torch"
# PyTorch's own checks (c10 TORCH_INTERNAL_ASSERT): `<cond> INTERNAL ASSERT FAILED at "<file>":<line>, please report a
# bug to PyTorch.` (strings of torch 2.9.1 torch/lib/libc10_cuda.so and libtorch_cuda.so)
TORCH_CHECK = re.compile(r"INTERNAL ASSERT FAILED at .{0,200}please report a bug to PyTorch")
# what the CUDA runtime and its math libraries print through torch's checks: torch 2.9.1 libc10_cuda.so
# (c10_cuda_check_implementation) "CUDA error: " + cudaGetErrorString; the runtime's enum names (cudaErrorXxx,
# CUDA_ERROR_XXX); cuBLAS / cuDNN status names (CUBLAS_STATUS_..., CUDNN_STATUS_...) in torch's "CUDA error:
# CUBLAS_STATUS_EXECUTION_FAILED when calling ..."; cudaGetErrorString's text of cudaErrorAssert and
# cudaErrorIllegalAddress, which pastes quote without the prefix (or name in a sentence: "a CUDA illegal memory access")
# c10::Error's backtrace opener (torch 2.9.1 libc10.so: "Exception raised from " <function> " at " <file>:<line> " (most
# recent call first):") naming a file of torch's own source tree (c10/, aten/src/, torch/csrc/: "/pytorch/c10/cuda/
# CUDACachingAllocator.cpp", "../c10/..."): torch's own check raised it (a library's TORCH_CHECK names its own file)
TORCH_RAISED_FROM = re.compile(r"\bException raised from \S+ at \S*?(?<![\w-])(?:c10|aten/src|torch/csrc)/\S+:\d+")
CUDA_WORDING = re.compile(
    r"\bCUDA error\b|\bcudaError[A-Z]\w+|\bCUDA_ERROR_[A-Z_]+|\bCUBLAS_STATUS_[A-Z_]+|\bCUDNN_STATUS_[A-Z_]+"
    r"|device-side assert(?:ion)? triggered|\billegal memory access\b"
    r"|\bc10_cuda_check_implementation\b"  # c10::Error's "Exception raised from c10_cuda_check_implementation at ..."
    # torch's checks of the CUDA driver API, NVRTC and the CUDA math libraries (torch 2.9.1 c10/cuda/driver_api.h
    # C10_CUDA_DRIVER_CHECK, ATen/cuda/Exceptions.h AT_CUDA_DRIVER_CHECK, AT_CUDA_NVRTC_CHECK, AT_CUDNN_CHECK,
    # AT_CUDNN_FRONTEND_CHECK, TORCH_CUSOLVER_CHECK, TORCH_CUDSS_CHECK: "CUDA driver error: " + the driver's string)
    r"|\bCUDA (?:driver|NVRTC) error: |\bcuDNN (?:Frontend )?error: |\bcusolver error: |\bcudss error: "
)
# a library's own CUDA check, the error it reports is that library's (as kernel_library.yaml's checks are): Triton's
# launcher, triton 3.9.0 triton/backends/nvidia/driver.c gpuAssert: prefix "Triton Error [CUDA]: "
LIBRARY_CHECKS: tuple[tuple[re.Pattern[str], str], ...] = ((re.compile(r"\bTriton Error \[CUDA\]"), "Triton"),)
# a library's own C++ error wording, when the message lost the source path that names it: FlashInfer 0.7.4
# include/flashinfer/attention/{prefill,pod,batch_pod}.cuh, err_msg << "FlashInfer Internal Error: Invalid
# configuration : NUM_MMA_Q=..." (thrown as flashinfer::Error, its what() "Error in function '...' at <file>:<line>: ...")
LIBRARY_ERRORS: tuple[tuple[re.Pattern[str], str], ...] = ((re.compile(r"\bFlashInfer Internal Error\b"), "FlashInfer"),)
# a library's own status names, which its errors carry and people quote in a sentence ("The process fails with
# NIXL_ERR_BACKEND"): NIXL's nixl_status_t (strings of nixl-cu12 1.5.1 libnixl.so, nixlEnumStrings: NIXL_ERR_BACKEND,
# NIXL_ERR_NOT_FOUND, NIXL_ERR_REMOTE_DISCONNECT, ...)
LIBRARY_STATUSES: tuple[tuple[re.Pattern[str], str], ...] = ((re.compile(r"\bNIXL_ERR_[A-Z_]+\b"), "NIXL"),)
# SGLang's JIT kernels, built at first use by tvm-ffi (sglang 0.5.7-0.5.11 jit_kernel/utils.py load_jit: module_name =
# "sgl_kernel_jit_" + ...; sglang 0.5.23 kernels/jit/utils/compile/spec.py _MODULE_NAME_PREFIX = "sgl_kernel_jit_"),
# carry sgl-kernel's name: the module named in a failed build's message, or SGLang's JIT loader calling the build tool
# that raised (tvm-ffi's build_ninja: its own frames are a package outside the table)
# FlashInfer's JIT attention modules are named by their URI, the op namespace torch's dispatcher errors print
# ("batch_prefill_with_kv_cache_dtype_q_bf16_..._f16qk_False::plan() expected at most 16 argument(s) ..."):
# flashinfer-python 0.2.5 jit/attention/pytorch.py and 0.7.4 jit/attention/modules.py get_{single,batch}_{decode,
# prefill}_uri, get_pod_uri, get_batch_attention_uri, get_batch_prefill_attention_sink_uri ("<kind>_with_[attention_
# sink_]kv_cache_dtype_q_<dtype>_dtype_kv_..."), get_batch_mla_uri ("batch_mla_attention_dtype_q_<dtype>_...")
_FLASHINFER_JIT_URI = (
    r"\b(?:(?:single_decode|batch_decode|single_prefill|batch_prefill|pod|batch_attention)_with_(?:attention_sink_)?"
    r"kv_cache|batch_mla_attention)_dtype_q_\w+"
)
JIT_MODULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bsgl_kernel_jit_\w+"), "sgl-kernel"),
    (re.compile(_FLASHINFER_JIT_URI), "FlashInfer"),
)
JIT_LOADERS: tuple[tuple[re.Pattern[str], str], ...] = ((re.compile(r"/sglang/(?:jit_kernel|kernels/jit)/"), "sgl-kernel"),)
# an op of a library's namespace: `torch.ops.<namespace>.<op>` in a frame's source line or the message, or the C++
# `<namespace>::<op>` that torch's dispatcher errors print ("sgl_kernel::fp8_scaled_mm() Expected a value of type ...")
_OP_NAMESPACE = re.compile(r"\btorch\.ops\.([A-Za-z_]\w*)\.|(?<![\w:])([A-Za-z_]\w*)::[A-Za-z_]\w*")
# torch's operator dispatch (torch.ops.<namespace>.<op>): its frame runs the op of the library whose frame called it
_DISPATCH = re.compile(r"(?:site|dist)-packages/torch/_ops\.py:")


# CPython's import errors (Python/import.c, Lib/importlib/_bootstrap.py): the package whose import failed; and a
# module without the attribute asked for (Objects/moduleobject.c: "module '%U' has no attribute '%U'", "partially
# initialized module '%U' has no attribute '%U' ..."; strings of libpython3.11.so): an installed release of that
# package without the name the caller needs
_IMPORT = re.compile(
    r"No module named '([\w.]+)'|cannot import name '\w+' from '([\w.]+)'|\bmodule '([\w.]+)' has no attribute '"
)


class Raiser(NamedTuple):
    library: str  # as a verdict names it (FlashInfer, Triton, CUDA, torch)
    basis: str  # the evidence that names it
    frame: str | None  # the frame that names it, when one does
    other_package: bool = False  # a Python package outside the table: its mechanism is `python`

    @property
    def mechanism(self) -> str:
        """The library as a failure's mechanism id (`flashinfer`, `sgl_kernel`, `cuda`, `python`)."""
        if self.other_package:
            return "python"
        return re.sub(r"[^a-z0-9]+", "_", self.library.lower()).strip("_")


def message_names_library(event: Event, exception: str | None, message: str | None) -> str | None:
    """The library of the table (SGLang aside) that the exception itself names, from its module, a source path of it
    in its message, an op of its namespace there, the JIT module it built, or its own error or status wording; None
    when the message names none. What SGLang's innermost frame raised still names the library whose error it passes
    on (FlashInfer's flashinfer::Error what(): "Error in function '<func>' at <file>:<line>: <message>",
    include/flashinfer/exception.h of flashinfer-python 0.2.5-0.7.4, raised through SGLang's attention backend)."""
    module = exception if exception and "." in exception and "(" not in exception else None
    named = module_library(module) if module else None
    if named and named != SGLANG:
        return named
    text = message if message is not None else str(event.data.get("full_text") or event.text)
    found = library_of(text) or op_library(text)
    if found is not None and found != SGLANG:
        return found
    for table in (JIT_MODULES, LIBRARY_ERRORS, LIBRARY_STATUSES, LIBRARY_CHECKS):
        own = next((library for pattern, library in table if pattern.search(text)), None)
        if own is not None:
            return own
    return None


def line_library(text: str) -> str | None:
    """The library of the table (SGLang aside) that a failure line no signature reads names by its own marks: a source
    path, shared object, namespace or op of it (catalog/libraries.json, python_modules.json), or a JIT module only its
    build names (FlashInfer's `batch_prefill_with_kv_cache_dtype_q_...` folder in an echoed nvcc command of its JIT
    cache). A library's bare name in a sentence is no mark: None."""
    found = library_of(text) or op_library(text)
    if found is not None and found != SGLANG:
        return found
    return next((library for pattern, library in JIT_MODULES if pattern.search(text)), None)


# what stands between a library's check wording and the CUDA runtime's string it appends (FlashInfer's and sgl-kernel's
# `"<Op> failed with error code " + cudaGetErrorString(status)`, `"... failed with error " + ...`): a space, a colon
_CHECK_GAP = re.compile(r"[\s:]{0,3}")


def _cuda_check_wording(text: str) -> tuple[str, str] | None:
    """(library, wording) when a failure wording only that library's released objects print
    (catalog/library_messages.json) is followed right away by the CUDA runtime error it reports
    ("BatchPrefillWithPagedKVCache failed with error an illegal memory access was encountered"): the library's own check
    reported the error, as a source path of it would tell. The runtime's string alone, or a wording elsewhere in the
    line, is not that (a library's objects also hold cudart's strings: the CUDA error stays CUDA's)."""
    printed = message_library(text)
    if printed is None:
        return None
    at = text.find(printed[1])
    end = at + len(printed[1])
    gap = _CHECK_GAP.match(text, end)
    cuda = CUDA_WORDING.search(text, end)
    if gap is None or cuda is None or cuda.start() > gap.end() + len("an "):
        return None
    return printed


def raising_library(event: Event, native_library: str | None, exception: str | None, message: str | None) -> Raiser | None:
    """The library that raised this failure, or None when the evidence names none."""
    if native_library:
        return Raiser(native_library, "the native frames where it hit", None)
    module = exception if exception and "." in exception and "(" not in exception else None  # not Ray's "X(Cause)"
    named = module_library(module) if module else None
    if named and named != SGLANG:
        return Raiser(named, f"the exception's module ({module})", None)
    text = message if message is not None else str(event.data.get("full_text") or event.text)
    in_message = library_of(text)
    if in_message:
        return Raiser(in_message, "a source path of it in the message", None)
    op = op_library(text)
    if op is not None:
        return Raiser(op, "an op of its namespace", None)
    handed = _handed_over(event)
    innermost = _innermost_frame(event) if not handed else None
    if innermost is not None and op_library(innermost) is not None:
        return Raiser(str(op_library(innermost)), "the innermost frame calls an op of its namespace", innermost)
    called = _called_package(innermost) if innermost is not None and event.kind == kinds.TRACEBACK else None
    if called is not None:  # cut under that frame: the frames of the call are the ones missing
        return Raiser(called, "the innermost frame shown, cut under it, calls into its package", innermost)
    imported = _IMPORT.search(text)
    package = next((g for g in imported.groups() if g), "") if imported else ""
    if imported and module_library(package) not in (None, SGLANG):
        basis = "its module lacks the name asked for" if imported.group(3) else "an import of its package failed"
        return Raiser(str(module_library(package)), basis, None)
    shown = _innermost_package_frame(event) if not handed else None
    if shown is not None and package_library(shown[1]) not in (None, SGLANG):
        return Raiser(str(package_library(shown[1])), "its frame is the innermost of an installed package", shown[0])
    checkout = _checkout_frame(innermost)
    if checkout is not None:
        return Raiser(checkout, "its frame, the innermost, is a file of the library's own source tree", innermost)
    jit = next(((library, m.group(0)) for pattern, library in JIT_MODULES if (m := pattern.search(text))), None)
    if jit is not None:
        return Raiser(jit[0], f"the JIT kernel module it builds ({jit[1]})", None)
    loader = _jit_loader_frame(event, shown)
    if loader is not None:
        return Raiser(loader[0], "SGLang's JIT kernel loader called the build that raised", loader[1])
    wording = library_raise(text)
    if wording is not None:  # torch (a graph break of torch.compile) is a package outside the table: `python`
        return Raiser(wording.library, f"a message it raises ({wording.where})", None, other_package=wording.library == TORCH)
    own = next((library for pattern, library in LIBRARY_ERRORS if pattern.search(text)), None)
    if own is not None:
        return Raiser(own, "its own error wording", None)
    status = next((library for pattern, library in LIBRARY_STATUSES if pattern.search(text)), None)
    if status is not None:
        return Raiser(status, "a status name of its own", None)
    check = next((library for pattern, library in LIBRARY_CHECKS if pattern.search(text)), None)
    if check is not None:
        return Raiser(check, "its own CUDA check reported it", None)
    wrapped = _cuda_check_wording(text)
    if wrapped is not None:
        return Raiser(wrapped[0], f"its own CUDA check reported it ({wrapped[1]!r})", None)
    if CUDA_WORDING.search(text):
        return Raiser(CUDA, "a CUDA runtime error, and no library's frame or path under it", None)
    if TORCH_CHECK.search(text):
        return Raiser(TORCH, "PyTorch's own internal assert", None, other_package=True)
    if TORCH_RAISED_FROM.search(text):
        return Raiser(TORCH, "its c10 error names a file of torch's source", None, other_package=True)
    raised = sglang_raise(exception, message)
    if raised is not None:
        return Raiser(SGLANG, f"a message SGLang raises ({raised})", None)
    asserted = sglang_assert(message) if message and exception and exception.endswith("AssertionError") else None
    if asserted is not None:
        releases = f"sglang {asserted.first}-{asserted.last}"
        return Raiser(SGLANG, f"the message of an assert of SGLang's ({releases}: {asserted.template})", None)
    # a raise of SGLang's in any module (the catalogue holds the memory-relevant areas'), where no frame of another
    # package is the innermost shown (one that raised the same words is then the raiser)
    other_frame = shown is not None and package_library(shown[1]) != SGLANG
    worded = sglang_raise_wording(exception, message) if exception and message and not other_frame else None
    if worded is not None:
        releases = f"sglang {worded.first}-{worded.last}"
        return Raiser(SGLANG, f"a message SGLang raises ({releases}: {worded.template})", None)
    # CPython's AttributeError on an object of a class SGLang defines, SGLang's frame the innermost package frame shown:
    # SGLang's code used its own object. Without that frame the class name alone names nobody: SGLang shares many
    # with the libraries it copies from (transformers' LlamaForCausalLM, vLLM's SamplingParams; review13b item 8),
    # and a user's script of no package may have asked (review13a item 11)
    owner = sglang_object(message) if message and exception and exception.endswith("AttributeError") else None
    if owner is not None and shown is not None and package_library(shown[1]) == SGLANG:
        basis = f"the object that lacks the attribute is of SGLang's class {owner.name} (sglang {owner.first}-{owner.last})"
        return Raiser(SGLANG, basis, None)
    # a bare exception line (no package's frame shown) whose message a Python package's raise statement gives, of the
    # same class (transformers' "Cannot use chat template functions because ...", FlashInfer's wrappers' checks;
    # catalog/package_raises.json): that package raised it, after SGLang's own raises (those it shares with SGLang
    # are left out of the table); a package of a library of the table is that library, any other is `python`. A frame
    # of no package (a user's script, a checkout) whose own line is the raise statement raised it: no package did
    # (review14a item 1)
    worded_here = shown is None and not handed and not _raise_shown(innermost)
    by_words = package_raise(exception, message) if exception and message and worded_here else None
    if by_words is not None:
        foreign, whole = by_words
        said = "a message it raises" if whole else "the start of a message it raises"
        basis = f"{said} ({foreign.releases}: {foreign.where})"
        package_owner = module_library(foreign.package)
        if package_owner is not None and package_owner != SGLANG:
            return Raiser(package_owner, basis, None)
        return Raiser(foreign.package, basis, None, other_package=True)
    # after SGLang's own raises and the CUDA and torch wordings: a library's objects also hold what they compiled in
    # (pybind11's, the CUDA runtime's texts) and what SGLang raises in the same words
    printed = message_library(text)
    if printed is not None:
        return Raiser(printed[0], f"a failure wording only its released objects print ({printed[1]!r})", None)
    cut = event.data.get("cut_frame_path")
    # the exception line is shown and the innermost frame, cut short, is still in SGLang's tree
    if cut and exception and event.kind != kinds.TRACEBACK and package_library(frame_package(str(cut)) or "") == SGLANG:
        basis = "the innermost frame shown, cut short, is SGLang's (frames under it may be missing)"
        return Raiser(SGLANG, basis, str(cut))
    tree = _own_raise(event, innermost, exception)
    if tree is not None:
        basis = f"its own raise statement, in the package tree of its frames ({tree[0]}/...), no library's"
        return Raiser(tree[0], basis, innermost, other_package=True)
    if event.kind == kinds.TRACEBACK and exception is None and innermost is not None:
        return _cut_traceback_raiser(innermost, shown)
    if not _raised_in_full(event, exception, message):
        return None
    # SGLang's own frame raised it, outside the folders the sglang signatures name (its launcher, cli, benchmarks)
    if innermost is not None and package_library(frame_package(innermost) or "") == SGLANG:
        return Raiser(SGLANG, "its frame is the innermost, with no library's frame under it", innermost)
    if shown is not None and package_library(shown[1]) is None:  # an installed package outside the table raised it
        return Raiser(shown[1], "its frame is the innermost of an installed package", shown[0], other_package=True)
    if module and named is None and not is_stdlib_module(module):
        return Raiser(module.split(".", 1)[0], f"the exception's module ({module})", None, other_package=True)
    # CPython's import error of a package outside the table and outside the standard library, with no frame that
    # raised it ("ModuleNotFoundError: No module named 'vllm'", "cannot import name 'X' from 'transformers.utils'"):
    # that package is missing or lacks the name, another Python package's failure
    if imported and package and module_library(package) is None and not is_stdlib_module(package):
        basis = "its module lacks the name asked for" if imported.group(3) else "an import of its package failed"
        return Raiser(package.split(".", 1)[0], basis, None, other_package=True)
    # CPython's own error (a call's TypeError, an AttributeError, an import's, a NameError), raised by the interpreter in a
    # script of no package, its frame the innermost with its full path (no package's frame under it) and its line no
    # raise statement: the user's or the launcher's own Python code, another Python program's failure (a bare
    # "scheduler.py:1219" frame may be anybody's file; a script's own `raise ValueError(...)` is its program's verdict)
    script = _script_frame(innermost)
    if script is not None and shown is None and _interpreter_error(exception, innermost, message):
        basis = "CPython raised it in a script of no installed package, its frame the innermost"
        return Raiser(script, basis, innermost, other_package=True)
    return None


# the errors the interpreter itself raises on the code it runs (CPython 3.11 Objects/ and Python/ceval.c, import.c):
# a call's arguments, a missing attribute, a failed import, an unbound name
_INTERPRETER_ERRORS = frozenset(
    {"TypeError", "AttributeError", "ImportError", "ModuleNotFoundError", "NameError", "UnboundLocalError"}
)


def _interpreter_error(exception: str | None, frame: str | None, message: str | None) -> bool:
    """One of CPython's own errors (`TypeError`, `builtins.AttributeError`) that the frame's line does not raise by a
    raise statement. An import error is CPython's own only in its import system's words: the dynamic loader's
    ("libcudart.so.12: cannot open shared object file", "undefined symbol") is the imported package's (review13b)."""
    if exception is None or ("." in exception and not exception.startswith("builtins.")):
        return False
    name = exception.rsplit(".", 1)[-1]
    if name in ("ImportError", "ModuleNotFoundError") and not _IMPORT_SYSTEM.match(message or ""):
        return False
    code = frame.split(": ", 1)[1].strip() if frame and ": " in frame else ""
    return name in _INTERPRETER_ERRORS and not _RAISE.match(code)


# CPython 3.11 Python/import.c and Lib/importlib/_bootstrap.py: "No module named %R", "cannot import name %R from %R",
# "attempted relative import with no known parent package" / "... beyond top-level package"
_IMPORT_SYSTEM = re.compile(r"\s*(?:No module named\b|cannot import name\b|attempted relative import\b)")


def _script_frame(frame: str | None) -> str | None:
    """The file name of a frame given with its full path (`/home/me/run_bench.py:30 main: ...`) that is no package's
    file, no library checkout's and not the standard library's; None otherwise."""
    if frame is None or frame.startswith("<"):
        return None
    path = frame.split(":", 1)[0]
    if not path.startswith("/") or not path.endswith(".py") or frame_package(frame) is not None:
        return None
    if is_stdlib_frame(path) or checkout_library(path) is not None:
        return None
    return path.rsplit("/", 1)[-1]


# a frame's source line that calls a callable with the arguments it was given, unchanged: a wrapper's hand-on (torch
# 2.x nn/modules/module.py _wrapped_call_impl `return self._call_impl(*args, **kwargs)`, _call_impl `return
# forward_call(*args, **kwargs)`, utils/_contextlib.py decorate_context `return func(*args, **kwargs)`)
_FORWARDING = re.compile(r"^(?:return\s+)?(?:await\s+)?[A-Za-z_][\w.]*\(\*args,\s*\*\*kwargs\)$")
CUT_TRACEBACK_BASIS = "the innermost frame shown of a traceback cut before its exception line"


def _cut_traceback_raiser(innermost: str, shown: tuple[str, str] | None) -> Raiser | None:
    """A traceback the copy cut before its exception line, attributed from its frames: the package of the innermost
    frame shown (a frame of the standard library's is the tool its caller used), SGLang's or another installed
    package's; a library of the table under it names itself by the earlier evidence (its op, its call, its path).
    A wrapper's frame that only hands its arguments on (torch's Module._call_impl `return forward_call(*args,
    **kwargs)`, a decorator's `return func(*args, **kwargs)`) raised nothing itself: the callee that did is cut."""
    code = innermost.split(": ", 1)[1].strip() if ": " in innermost else ""
    if _FORWARDING.match(code):
        return None
    if package_library(frame_package(innermost) or "") == SGLANG:
        return Raiser(SGLANG, CUT_TRACEBACK_BASIS, innermost)
    if shown is not None and shown[0] == innermost and package_library(shown[1]) is None:
        return Raiser(shown[1], CUT_TRACEBACK_BASIS, innermost, other_package=True)
    return None


def op_library(text: str) -> str | None:
    """The library of the table (SGLang aside) whose op namespace the text names."""
    for m in _OP_NAMESPACE.finditer(text):
        named = module_library(m.group(1) or m.group(2))
        if named is not None and named != SGLANG:
            return named
    return None


# a frame's source line calling into a package by its module's name: `buffer = deep_ep.Buffer(group, ...`
_MODULE_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\.[A-Za-z_][\w.]*\s*\(")


def _called_package(frame: str) -> str | None:
    """The library of the table (SGLang aside) whose module the frame's source line calls, `file:line func: code`."""
    code = frame.split(": ", 1)[1] if ": " in frame else ""
    for m in _MODULE_CALL.finditer(code):
        named = module_library(m.group(1))
        if named is not None and named != SGLANG:
            return named
    return None


def _checkout_frame(frame: str | None) -> str | None:
    """The library of the table whose source checkout holds this frame's file (a test, benchmark or example of it run
    from its tree: `/sgl-workspace/DeepGEMM/tests/test_fp8.py`), when the file is no installed package's."""
    if frame is None or frame.startswith("<") or frame_package(frame) is not None:
        return None
    return checkout_library(frame.split(":", 1)[0])


# the standard library's hand-over of a worker's outcome: the frames that return what a callable computed in another
# thread or process, or raise again the exception it raised there (CPython 3.11 Lib/concurrent/futures/_base.py:
# Future.result -> __get_result `raise self._exception`, Executor.map's result_iterator -> _result_or_cancel ->
# fut.result(); Lib/multiprocessing/pool.py: ApplyResult.get `raise self._value`, IMapIterator.next `raise value`).
# A traceback whose innermost frame is one of them shows the frames that waited for the worker, not the worker's: the
# package frame above it (tqdm's thread_map, a caller's pool.map) did not raise it
_HAND_OVER = re.compile(
    r"(?:^|/)lib/python3(?:\.\d+)?/(?:concurrent/futures/_base\.py:\d+ (?:result|__get_result|result_iterator|_result_or_cancel)"
    r"|multiprocessing/pool\.py:\d+ (?:get|next))\b"
)


def _handed_over(event: Event) -> bool:
    """The traceback's innermost frame shown is the standard library handing over a worker's outcome (_HAND_OVER)."""
    frames = event.data.get("frame_paths") or event.data.get("frames") or []
    return bool(frames) and bool(_HAND_OVER.search(str(frames[-1])))


def _innermost_frame(event: Event) -> str | None:
    """The innermost frame that is not the standard library's or torch's op dispatch."""
    frames = event.data.get("frame_paths") or event.data.get("frames") or []
    return next((str(f) for f in reversed(frames) if not is_stdlib_frame(str(f)) and not _DISPATCH.search(str(f))), None)


def _innermost_package_frame(event: Event) -> tuple[str, str] | None:
    """(frame, its top-level package) of the innermost frame of an installed package, skipping the standard
    library's, torch's op dispatch and unknown files' frames; None when no frame is one."""
    frames = event.data.get("frame_paths") or event.data.get("frames") or []
    for frame in reversed(frames):
        if _DISPATCH.search(str(frame)):
            continue
        package = frame_package(str(frame))
        if package is not None:
            return str(frame), package
    return None


def _jit_loader_frame(event: Event, shown: tuple[str, str] | None) -> tuple[str, str] | None:
    """(library, frame) of SGLang's JIT kernel loader when the frames under it are a package outside the table (the
    build tool it called raised), else None."""
    if shown is None or package_library(shown[1]) is not None:
        return None
    frames = [str(f) for f in event.data.get("frame_paths") or event.data.get("frames") or []]
    for frame in reversed(frames[: frames.index(shown[0]) if shown[0] in frames else 0]):
        named = next((library for pattern, library in JIT_LOADERS if pattern.search(frame)), None)
        if named is not None:
            return named, frame
    return None


# a frame's source line that raises an exception by its class (CPython prints the statement): `raise TimeoutError(...)`
_RAISE = re.compile(r"^raise\s+([A-Za-z_][\w.]*)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _own_raise(event: Event, frame: str | None, exception: str | None) -> tuple[str, str] | None:
    """(package, its folder) when the innermost frame's own source line raises the exception shown and its file lies
    in a package tree of no known package: a folder that other frames' files of no known package are under too, the
    raising file in a subpackage of it (`areal/infra/remote_inf_engine.py` beside `areal/engine/sglang_remote.py`).
    A lone script (`/home/me/bench/run_load.py`) shows no package: None."""
    if frame is None or exception is None or ": " not in frame or frame_package(frame) is not None:
        return None
    statement = _RAISE.match(frame.split(": ", 1)[1].strip())
    if statement is None or statement.group(1).rsplit(".", 1)[-1] != exception.rsplit(".", 1)[-1]:
        return None
    folders = {
        path.rsplit("/", 1)[0]
        for f in event.data.get("frame_paths") or []
        if "/" in (path := str(f).split(":", 1)[0]) and not is_stdlib_frame(path) and frame_package(path) is None
    }
    if len(folders) < 2:
        return None
    root = posixpath.commonpath(sorted(folders)) if all(f.startswith("/") for f in folders) else ""
    below = frame.split(":", 1)[0][len(root) + 1 :].split("/")[:-1]
    name = root.rsplit("/", 1)[-1]
    if not below or not _IDENTIFIER.fullmatch(name) or not all(_IDENTIFIER.fullmatch(part) for part in below):
        return None
    return name, root


def _raise_shown(frame: str | None) -> bool:
    """The frame is a file of no installed package whose own source line, shown, is a raise statement."""
    if frame is None or ": " not in frame or frame_package(frame) is not None:
        return False
    return _RAISE.match(frame.split(": ", 1)[1].strip()) is not None


def _raised_in_full(event: Event, exception: str | None, message: str | None) -> bool:
    """The exception line is shown and its traceback is not cut above it: the innermost frame shown raised it."""
    if exception is None or message is None:
        return False
    return event.kind != kinds.TRACEBACK and not event.data.get("frames_cut") and not event.data.get("incomplete")


_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-#0-9.]*[a-zA-Z]")  # an f-string field or a printf conversion
SGLANG_RAISE_LITERAL = 16  # the literal text a catalogued raise must hold to name SGLang ("{e}" names nobody)


def sglang_raise(exception: str | None, message: str | None) -> str | None:
    """The catalogued wording (catalog/sglang.json, kind `raise`) that this exception's message starts with, of the
    same exception class: SGLang's own code raised it."""
    if not message or exception is None:
        return None
    name = exception.rsplit(".", 1)[-1]
    for wording in upstream.find_wordings(message.strip()):
        literal = len(_PLACEHOLDER.sub("", wording.template).strip())
        if wording.kind == "raise" and wording.at_start and wording.level == name and literal >= SGLANG_RAISE_LITERAL:
            return wording.template
    return None

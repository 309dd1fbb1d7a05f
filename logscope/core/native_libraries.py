"""Which native library a backtrace frame or an error line's source path belongs to (NCCL, UCX, NVSHMEM, DeepEP,
FlashInfer, FlashMLA, sgl-kernel, DeepGEMM, Mooncake, NIXL), from catalog/libraries.json: the markers
tools/upstream/libraries.py read from the released packages (shared-object names, build folders, symbol
prefixes, C++ namespaces, source paths, signal-handler functions). Read-only at run time."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any, NamedTuple

from logscope.core.python_libraries import extension_library
from logscope.core.resources import data_dir
from logscope.core.text_memo import short_text_memo

CATALOG_FILE = "libraries.json"
MESSAGES_FILE = "library_messages.json"
CHECKOUT_FILE = "checkout_folders.json"
# glibc's signal trampoline as a backtrace names it (the nearest exported symbol of the sigreturn code): the frames
# before it are the signal handler's own, the one after it is where the signal hit
TRAMPOLINES = ("__sigaction", "__restore_rt", "killpg")
# the trampoline named by its source file where the backtrace has no symbol for it (tvm-ffi's handler prints
# '0x00007599e9c5051f at ./signal/../sysdeps/unix/sysv/linux/x86_64/libc_sigaction.c:0'): glibc's sysdeps/unix/sysv/
# linux/<arch>/libc_sigaction.c (sigaction.c before glibc 2.34) defines __restore_rt there,
# `RESTORE (restore_rt, __NR_rt_sigreturn)`
TRAMPOLINE_FILE = re.compile(r"/sysdeps/unix/sysv/linux/[\w-]+/(?:libc_)?sigaction\.c\b")
# glibc's raise (gsignal) and the pthread_kill it calls: a frame under them raised the signal itself (tvm-ffi's
# handler re-raises with raise(sig); an abort path prints them too), so the frame after them is where it was raised
RAISERS = ("gsignal", "pthread_kill")
# glog's and Abseil's own reporting path (LogMessage::Fail, the failure signal handler): it printed, the frame below
# it failed
REPORTERS = ("google::", "absl::")
# the interpreter itself, where CPython's faulthandler runs: its frames at the top printed, they did not fault (SGLang
# renames its processes with setproctitle, "sglang::scheduler_TP1", so the executable shows under that name)
EXECUTABLE = re.compile(r"^(?:sglang::[\w-]+|\S*/python[\d.]*)\(\+0x")


# The precedence of the libraries, where the evidence of one failure names several (the one ranking; library.py
# and native.py apply it):
# - a library built inside another's wheel (FlashMLA's flashmla_ops and DeepGEMM's deep_gemm_cpp in sgl-kernel's) is
#   tried before its host: its own markers are narrower than the host's, so the host names only what is its own;
# - a library's marker (frame, source path, op, message, its own CUDA check) before the CUDA runtime: `cuda` is a CUDA
#   error that no library's evidence claims (library.py's order);
# - a library whose frames call into another's (DeepEP into NVSHMEM, NIXL's UCX plugin into UCX) is the one that ran
#   it, the inner library its `via` (native.py);
# - a failure wording that one wheel's compiled objects print is that wheel's library, also where another library's
#   sources hold the same words: sgl-kernel compiles FlashInfer's norm and sampling kernels into its own ops, the
#   ones SGLang's CUDA layers import from sgl_kernel (sglang 0.5.23 layers/layernorm.py `from sgl_kernel import
#   rmsnorm, gemma_rmsnorm, ...`), so FlashInfer's own wordings (library_raises.json) leave out what sgl-kernel's
#   objects hold.
HOSTS = frozenset({"sgl-kernel"})
WHEEL_DATA = "data"  # the folder a wheel ships its source tree in (flashinfer-python: flashinfer/data/csrc/...)


class NativeLibrary(NamedTuple):
    name: str
    objects: tuple[str, ...]
    tokens: frozenset[str]
    prefixes: tuple[str, ...]
    namespaces: frozenset[str]
    handlers: frozenset[str]
    object_named: re.Pattern[str] | None  # one of its shared objects named in a text (any of them)
    prefix_start: re.Pattern[str] | None  # an identifier that starts with one of its prefixes (then _has_prefix)


class _Table(NamedTuple):
    libraries: tuple[NativeLibrary, ...]  # the order they are tried in
    files: dict[str, str]  # a source path's last two or three parts -> the one library that holds it


def _normal(token: str) -> str:
    return re.sub(r"[-_]", "", token.lower())


@cache
def _table() -> _Table:
    path = data_dir("catalog") / CATALOG_FILE
    rows: dict[str, dict[str, list[str]]] = json.loads(path.read_text(encoding="utf-8"))["libraries"]
    ordered = sorted(rows.items(), key=lambda item: (item[0] in HOSTS, item[0]))
    libs = tuple(
        NativeLibrary(
            name,
            tuple(row["objects"]),
            frozenset(row["tokens"]),
            tuple(row["prefixes"]),
            frozenset(row["namespaces"]),
            frozenset(row["handlers"]),
            _any_of(r"(?<![\w-])(?:", [o.removesuffix(".so") for o in row["objects"]], r")[.\-(]"),
            _any_of("(?:", row["prefixes"], ")"),
        )
        for name, row in ordered
    )
    return _Table(libs, {f: name for name, row in ordered for f in row["files"]})


def _any_of(head: str, words: list[str], tail: str) -> re.Pattern[str] | None:
    return re.compile(head + "|".join(map(re.escape, words)) + tail) if words else None


def library_names() -> tuple[str, ...]:
    return tuple(lib.name for lib in _table().libraries)


_IDENT = re.compile(r"[A-Za-z_]\w*")
_FOLDER = re.compile(r"([^/\s()\[\]'\"]+)/")
_MANGLED = re.compile(r"_ZN(?:K)?(\d+)")
_PATH = re.compile(r"[\w.+-]*(?:/[\w.+-]+)+\.(?:cc|cu|cpp|cuh|hpp|h|c)\b")


def _folders(text: str) -> set[str]:
    """Every folder name of the paths in `text`, normalised, with a build tree's `repo-X-src` / `X-src` as X."""
    out = set()
    for name in _FOLDER.findall(text):
        norm = _normal(name)
        out.add(norm)
        if norm.endswith("src"):
            out.add(norm.removeprefix("repo")[:-3])
    return out


def _namespaces(text: str) -> set[str]:
    out = {m.group(1) for m in re.finditer(r"([A-Za-z_]\w*)::", text)}
    for m in _MANGLED.finditer(text):
        out.add(text[m.end() : m.end() + int(m.group(1))])
    return out


def _has_prefix(ident: str, prefix: str) -> bool:
    rest = ident[len(prefix) :]
    return ident.startswith(prefix) and bool(rest) and (rest[0].isupper() or rest[0] == "_")


@short_text_memo(4096)  # a crash loop repeats its frames on every rank and launch
def library_of(text: str) -> str | None:
    """The library a frame or a source path names, or None: its shared object first, then a namespace or symbol
    prefix, then the folders it was built in, then a source path only it holds."""
    table = _table()
    for lib in table.libraries:
        if lib.object_named is not None and lib.object_named.search(text):
            return lib.name
    extension = extension_library(text)  # its extension module beside its package (DeepEP's deep_ep_cpp)
    if extension is not None:
        return extension
    names = _namespaces(text)
    idents = set(_IDENT.findall(text))
    for lib in table.libraries:
        if names & lib.namespaces:
            return lib.name
        if lib.prefix_start is not None:
            starting = [i for i in idents if lib.prefix_start.match(i)]
            if any(_has_prefix(i, p) for i in starting for p in lib.prefixes):
                return lib.name
    folders = _folders(text)
    for lib in table.libraries:
        if folders & lib.tokens:
            return lib.name
    for found in _PATH.finditer(text):
        path = found.group(0)
        # as tools/upstream/libraries.py lists them: "." and ".." dropped (DeepGEMM's asserts print
        # "csrc/apis/../jit_kernels/impls/../../jit/kernel_runtime.hpp", catalogued "impls/jit/kernel_runtime.hpp")
        parts = [p for p in path.split("/") if p not in ("", ".", "..")]
        for tail in ("/".join(parts[-3:]), "/".join(parts[-2:])):
            if tail in table.files:
                return table.files[tail]
        # a wheel that ships its source tree under a data/ folder (flashinfer-python 0.2.x-0.7.4: flashinfer/data/csrc/,
        # catalogued "data/csrc/<file>"): a build of that tree names the file as built, without data/ (FlashInfer's
        # ahead-of-time kernels: "Error in function 'run' at /workspace/csrc/trtllm_batched_gemm_runner.cu:286")
        if len(parts) >= 2 and f"{WHEEL_DATA}/{'/'.join(parts[-2:])}" in table.files:
            return table.files[f"{WHEEL_DATA}/{'/'.join(parts[-2:])}"]
        # a path elided in front (".../jit/compiler.hpp:187" of DeepGEMM's assert, its folder above cut): the
        # one library whose catalogued files end in its last two parts; a path written whole that no library
        # holds is another program's ("/home/u/myproj/src/config.cpp" is no Mooncake file)
        elided = path.startswith("...") or text[: found.start()].endswith(("...", "\u2026"))
        if elided and len(parts) >= 2 and "/".join(parts[-2:]) in _by_two_parts():
            return _by_two_parts()["/".join(parts[-2:])]
    return None


def checkout_library(path: str) -> str | None:
    """The library whose source tree a file lies in, by a folder of its path named as the library's own build folders
    are (catalog/libraries.json `tokens`: `/sgl-workspace/DeepGEMM/tests/test_fp8.py`, `/workspace/FlashMLA/...`):
    a script of its checkout (its tests, benchmarks, examples) runs that library. Only the folders count, never
    the file's name or its code."""
    if "/" not in path:
        return None
    parts = [part for part in path.split("/")[:-1] if part]
    for at, part in enumerate(parts[:-1]):
        named = _folders(f"/{part}/")
        lib = next((lib for lib in _table().libraries if named & lib.tokens), None)
        # a checkout holds the file under one of a repository's own folders; a user's script in a folder named after
        # the library it uses (/home/user/nccl/bench.py) is no checkout (review13b item 7)
        if lib is not None and (_holds_folder(lib.name, parts[at + 1].lower()) or _folders(f"/{parts[at + 1]}/") & lib.tokens):
            return lib.name
    return None


def _holds_folder(library: str, folder: str) -> bool:
    """Whether the library's own repository keeps code in that top-level folder: a folder only another repository holds
    (UCX's config/, nccl-tests' os/) under a folder named after this library is a user's (review16a item 9:
    /home/user/mooncake/config/run.py was a Mooncake checkout). A library whose repository the table did not read
    (sgl-kernel, in SGLang's) takes any repository's folders, as before."""
    holders = _folder_libraries().get(folder)
    if holders is None:
        return False
    return library in holders or library not in _read_libraries()


@cache
def _checkout_table() -> dict[str, Any]:
    path = data_dir("catalog") / CHECKOUT_FILE
    table: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return table


@cache
def _repository_libraries() -> dict[str, str]:
    """Each read repository's library, as the table's `read` names it ("NVIDIA/nccl-tests": "NCCL: v1.0.0 .. ...")."""
    return {repo: text.split(":", 1)[0].strip() for repo, text in _checkout_table()["read"].items()}


@cache
def _read_libraries() -> frozenset[str]:
    return frozenset(_repository_libraries().values())


@cache
def _folder_libraries() -> dict[str, frozenset[str]]:
    """Each checkout folder (lower case) and the libraries whose repositories keep code in it."""
    libraries = _repository_libraries()
    out: dict[str, set[str]] = {}
    for folder, repos in _checkout_table()["folders"].items():
        out.setdefault(folder.lower(), set()).update(libraries.get(repo, repo) for repo in repos)
    return {folder: frozenset(names) for folder, names in out.items()}


@cache
def checkout_folders() -> frozenset[str]:
    """The top-level folders the libraries' repositories keep code in (catalog/checkout_folders.json, read from their
    git sources at their release tags by tools/upstream/checkout_folders.py: `tests`, `benchmark`, `csrc`, `examples`
    ...), lower case."""
    path = data_dir("catalog") / CHECKOUT_FILE
    return frozenset(folder.lower() for folder in json.loads(path.read_text(encoding="utf-8"))["folders"])


@cache
def _messages() -> dict[str, list[list[str]]]:
    """A failure wording only one library prints, by its first word: [wording, library] rows, the longest first (a
    table of its own, indexed by the tool that wrote it, read only when a failure's other evidence named no library)."""
    path = data_dir("catalog") / MESSAGES_FILE
    rows: dict[str, list[list[str]]] = json.loads(path.read_text(encoding="utf-8"))["by_first_word"]
    return rows


def message_library(text: str) -> tuple[str, str] | None:
    """(library, wording) of the longest failure wording in `text` that only one library's released objects print
    (catalog/library_messages.json), standing as words of its own (not inside a longer identifier)."""
    table = _messages()
    candidates = sorted((row for word in set(_IDENT.findall(text)) for row in table.get(word, ())), key=lambda r: -len(r[0]))
    for wording, library in candidates:
        at = text.find(wording)
        while at >= 0:
            before = text[at - 1] if at else " "
            after = text[at + len(wording)] if at + len(wording) < len(text) else " "
            edge_in = wording[0].isalnum() and (before.isalnum() or before == "_")
            edge_out = wording[-1].isalnum() and (after.isalnum() or after == "_")
            if not edge_in and not edge_out:
                return library, wording
            at = text.find(wording, at + 1)
    return None


@cache
def _by_two_parts() -> dict[str, str]:
    """A source file's folder and name -> the one library whose catalogued paths end in them (absent when the paths
    of several libraries do)."""
    found: dict[str, set[str]] = {}
    for path, library in _table().files.items():
        parts = path.split("/")
        if len(parts) >= 2:
            found.setdefault("/".join(parts[-2:]), set()).add(library)
    return {tail: libraries.pop() for tail, libraries in found.items() if len(libraries) == 1}


def source_library(path: str) -> str | None:
    """The library whose released files hold this source path (`path` or `path:line`, as source_path gives it), else
    the one library_of names: a released file is its library's even where a folder of it spells another library's
    name (NIXL's UCX backend plugin, `plugins/ucx/ucx_backend.cpp`)."""
    file, _, line = path.rpartition(":")
    return _table().files.get(file if line.isdigit() else path) or library_of(path)


@cache
def _by_file_name() -> dict[str, str]:
    """A source file's name -> its path in the one library that holds a file of that name (names two hold: absent)."""
    paths: dict[str, set[str]] = {}
    for path in _table().files:
        paths.setdefault(path.rsplit("/", 1)[-1], set()).add(path)
    return {name: found.pop() for name, found in paths.items() if len(found) == 1}


def source_path(file_name: str) -> str | None:
    """The path a released library's own strings give a source file that a log line names by its name only (glog's
    `transfer_task.cpp:510]`), when exactly one path of the catalogued libraries ends in it."""
    return _by_file_name().get(file_name)


def is_handler(frame: str) -> bool:
    """A frame of a library's own signal handler (UCX's ucs_handle_error ...): it printed the backtrace."""
    idents = set(_IDENT.findall(frame))
    return any(idents & lib.handlers for lib in _table().libraries)


_OBJECT = re.compile(r"[^\s()\[\]]+\.so[.\d]*")


def _object_of(frame: str) -> str | None:
    m = _OBJECT.search(frame)
    return m.group(0).rsplit("/", 1)[-1] if m else None


def crash_frames(frames: list[str]) -> list[str]:
    """The frames from where the signal hit, innermost first: those after glibc's trampoline, else those after
    the handler's own leading frames (and the unnamed libc frame of the trampoline right after them)."""
    head = frames[:8]
    for i in range(len(head) - 1, -1, -1):
        if any(t in head[i] for t in TRAMPOLINES) or head[i].split(" ", 1)[0] in RAISERS or TRAMPOLINE_FILE.search(head[i]):
            return frames[i + 1 :]
    at, handler_objects = 0, set()
    while at < len(frames) and (
        is_handler(frames[at])
        or (_object_of(frames[at]) or "-") in handler_objects
        or frames[at].startswith(REPORTERS)
        or EXECUTABLE.match(frames[at])
    ):
        handler_objects.add(_object_of(frames[at]) or "")
        at += 1
    if at and at < len(frames) and (_object_of(frames[at]) or "").startswith("libc.so"):
        at += 1
    return frames[at:]

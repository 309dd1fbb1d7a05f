"""What names a native library in a crash: read from the released packages, never written by hand.

For each library whose frames and CUDA checks reach SGLang's logs (NCCL, UCX, NVSHMEM, DeepEP, FlashInfer,
FlashMLA, sgl-kernel, DeepGEMM, Mooncake, NIXL) this reads its wheel's shared objects like `strings` does (or its
sources, for a package that ships them: FlashInfer compiles at run time; DeepEP publishes no wheel, so its git
source is read at its newest release tag) and keeps what a backtrace frame or an error line can show of it:

- `objects`: its shared objects' names (`libnccl.so`, `flashmla_ops`), as a frame's path shows them;
- `tokens`: the folder names its sources are built under (`_deps/repo-flashmla-src` -> `flashmla`; the Python
  packages of its own wheel; its name), compared lower-case without `-` and `_`;
- `prefixes`: the C symbol prefixes of its exported functions (`nccl`, `ucs`), kept only where an object's name
  starts with them;
- `namespaces`: the C++ namespaces of its mangled symbols that its tokens name (`deep_ep`, `flashinfer`);
- `files`: source paths of two parts or more (`transport/p2p.cc`) that no other library of the table holds;
- `handlers`: functions of its signal handler (UCX's `ucs_handle_error`): frames that print, not fail;
- `checks`: its CUDA-check formats (`CUDA error (%s:%d): %s`);
- `messages` (catalog/library_messages.json): the failure wordings its objects print (a library read from its
  sources: their string literals), as the literal text a paste shows of them: each format string's longest piece
  between conversions (`%s %d ibv_dealloc_pd failed for device %d Err: %d:%s.` -> `ibv_dealloc_pd failed for
  device`), kept only where no other
  library of the table holds the same words (the CUDA runtime's texts, linked into several, name none), or where the
  only other holders are libraries whose C++ namespaces its objects hold (they compiled that code in: sgl-kernel's
  objects hold `flashinfer::` and FlashInfer's norm and sampling wordings, which are then sgl-kernel's); words inside a
  string that several libraries' objects hold name none, nor do the words that torch prints (its objects, and its
  headers: pybind11's and fmt's code, which the table's objects compile in too, TORCH_RELEASE) or that SGLang's own
  modules hold (the newest release's). A phrase of plain words is anybody's whatever its length (libibverbs' `local
  length error`, `Unable to get info from`): it needs a name of code among them. The linker merges a string into a
  longer one that ends with it (GNU ld's tail merging of SHF_STRINGS sections: `RMSNorm failed with error code ` is
  stored inside `GemmaRMSNorm failed with error code `), so a piece's tails from a capital inside its first word are
  kept too.
"""

from __future__ import annotations

import os
import re
import subprocess
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from logscope.core.native_libraries import MESSAGES_FILE
from tools.upstream import sources
from tools.upstream.write import write_generated


class Library(NamedTuple):
    name: str  # as a verdict names it
    package: str  # the wheel on the package index ("" for a git source)
    members: tuple[str, ...]  # regexes over the wheel's member paths to read (shared objects or sources)
    git_env: str = ""  # for a library without a wheel: the environment variable naming a git dir of its source
    # for a library whose wheel compiles some of its sources only: the sources its git source (git_env, the newest release
    # tag) holds besides, read for their paths (a transport the default build leaves out still logs its own file)
    git_members: tuple[str, ...] = ()


LIBRARIES: tuple[Library, ...] = (
    Library("NCCL", "nvidia-nccl-cu12", (r"/libnccl\.so\.\d+$",)),
    Library("UCX", "libucx-cu12", (r"/libuc[smpt]\.so$", r"/ucx/libuct_[a-z_]+\.so$")),
    # its host library and the transport plugins it loads (nvshmem_transport_ibgda.so.7: IBGDA, IBRC, UCX, ...)
    Library("NVSHMEM", "nvidia-nvshmem-cu12", (r"/libnvshmem_host\.so\.\d+$", r"/nvshmem_transport_\w+\.so\.\d+$")),
    Library("NIXL", "nixl-cu12", (r"/libnixl\.so$", r"/libnixl_common\.so$", r"/libplugin_[A-Z]+\.so$")),
    Library(
        "Mooncake",
        "mooncake-transfer-engine",
        (r"^mooncake/(?:engine|store)(?:\.[\w.-]+)?\.so$",),
        git_env="LOGSCOPE_MOONCAKE_GIT",
        git_members=(r"^mooncake-(?:transfer-engine|store)/src/.+\.(?:cpp|cc)$",),
    ),
    Library("FlashInfer", "flashinfer-python", (r"^flashinfer/data/(?:csrc|include)/.+\.(?:cu|cuh|h|cpp|cc)$",)),
    Library("FlashMLA", "sgl-kernel", (r"^sgl_kernel/flashmla_ops\.[\w.]+\.so$",)),
    Library("DeepGEMM", "sgl-kernel", (r"^deep_gemm/deep_gemm_cpp\.[\w.]+\.so$",)),
    Library("sgl-kernel", "sgl-kernel", (r"^sgl_kernel/sm90/common_ops\.[\w.]+\.so$", r"^sgl_kernel/spatial_ops\.[\w.]+\.so$")),
    Library("DeepEP", "", (r"^csrc/.+\.(?:cu|cuh|hpp|h|cpp)$",), git_env="LOGSCOPE_DEEPEP_GIT"),
)

_RUN = re.compile(rb"[\x20-\x7e\t]{4,}")
_SOURCE = re.compile(r"^[\w.+/-]*\.(?:cc|cu|cpp|cuh|hpp|h|c)$")
_FOREIGN = re.compile(r"site-packages/|dist-packages/|(?:^|\s)/usr/|/include/c\+\+/")
_SPLIT = re.compile(r"[\s\"'():,<>\[\]]+")
_DEPS = re.compile(r"_deps/repo-([\w-]+?)-src/")
_MANGLED = re.compile(r"_ZN(?:K)?(\d+)")
_IDENT = re.compile(r"^[A-Za-z_]\w{4,}$")
_PREFIX = re.compile(r"^([a-z]{3,})(?=[A-Z_])")
_NAMESPACE_DECL = re.compile(rb"\bnamespace\s+([A-Za-z_]\w*)\s*\{")
_CHECK = re.compile(r"(?i)cuda error.*(?:%s|\{\})|(?:%s|\{\}).*cuda error")
_HANDLER = re.compile(r"^\w*(?:handle_error|error_signal_handler|print_backtrace|backtrace_create)\w*$")
# a failure word (the wordings that report a failure, not the ones that log progress). Not kinds.FAILURE_WORD_TABLE:
# that table says whether a line or a sentence someone pasted reports a failure, so it leaves out the words healthy logs
# print in passing ("invalid", "cannot", "not found", "unsupported": SGLang's own warnings before it falls back) and
# holds the words of prose ("hang", "stuck", "issue", "bug"); this one picks, among a library's own strings known to be
# messages, those that report a failure, so a wider reach only indexes more of them. One table would make either
# read with the other's words.
_FAILURE = re.compile(
    r"(?i)\b(?:fail\w*|error\w*|invalid|cannot|can't|unable|unsupported|not supported|timeout|timed out|mismatch\w*|"
    r"exceed\w*|abort\w*|assert\w*|insufficient|illegal|corrupt\w*|not found|refused|denied|overflow)\b"
)
_CONVERSION = re.compile(r"%%|%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?[sdiuoxXfFeEgGcp]")
_C_LITERAL = re.compile(rb'"((?:[^"\\\n]|\\.){16,300})"')
# not a message: a path, a mangled or pretty-printed C++ signature (`T&& ...() [with T = ...]`), PyTorch's own
# asserts of its headers compiled in (`INTERNAL ASSERT FAILED at ".../torch/include/...", please report a bug to PyTorch`)
_NOT_MESSAGE = re.compile(r"_ZN|\[with |::\w+<|torch/include/|report a bug to PyTorch")
# what TORCH_CHECK(cond) appends to a check without a message of its own (torch 2.9.1 c10/util/Exception.h)
_TORCH_CHECK_TAIL = "(Could this error message be improved?"
MIN_MESSAGE = 16  # literal characters a message piece must hold to name a library (`ibv_dealloc_pd failed`: 21)
# a name of code: snake_case, camelCase, an acronym inside a name (`RMSNorm`, `NVLink`)
# the CUDA runtime's and driver's own functions, which every library calls (`cudaMalloc failed` is anybody's)
_CUDA_API = re.compile(r"\(?cu(?:da)?[A-Z]")
_CODE_NAME = re.compile(r"\w_\w|[a-z][A-Z]|[A-Z]{2,}[a-z]")  # not an acronym alone (`CUDA driver error`)
_SO_NAME = re.compile(r"^(?P<stem>[\w-]+?)(?:\.cpython-[\w-]+|\.abi3)?\.so(?:\.\d+)*$")


def normal(token: str) -> str:
    """How a token is compared: lower case, without '-' and '_' (flash-mla, flash_mla, FlashMLA: flashmla)."""
    return re.sub(r"[-_]", "", token.lower())


def distribution_token(package: str) -> str:
    """The library's name inside its distribution's name: nvidia-nccl-cu12 -> nccl, libucx-cu12 -> ucx."""
    name = re.sub(r"-(?:cu\d+|python|transfer-engine)$", "", package)
    return re.sub(r"^(?:nvidia-|lib)", "", name)


def _strings(data: bytes) -> list[str]:
    return [m.group(0).decode("ascii").strip() for m in _RUN.finditer(data)]


def _mangled_heads(text: str) -> list[str]:
    """The first name of each mangled symbol in a string (`_ZN7deep_ep6Buffer...` -> deep_ep)."""
    out = []
    for m in _MANGLED.finditer(text):
        size = int(m.group(1))
        out.append(text[m.end() : m.end() + size])
    return out


class _Scan:
    def __init__(self) -> None:
        self.objects: set[str] = set()
        self.tokens: set[str] = set()
        self.deps: set[str] = set()  # the _deps/repo-X-src folders it was built from
        self.prefixes: Counter[str] = Counter()
        self.heads: Counter[str] = Counter()
        self.files: set[str] = set()
        self.handlers: set[str] = set()
        self.checks: set[str] = set()
        self.messages: set[str] = set()
        self.strings: set[str] = set()  # every string of its objects, to find the ones several libraries hold
        self.source_messages = False  # read from its sources: their string literals are its messages

    def message(self, text: str, merged: bool = True) -> None:
        """The failure wording a format string prints, as its longest literal piece (and, for an object's string,
        that piece's tails from a capital inside its first word: `merged`, the linker's tail merging)."""
        if len(text) > 300 or not _FAILURE.search(text) or "/" in text.split(" ", 1)[0] or _NOT_MESSAGE.search(text):
            return
        text = text.replace("\\n", " ").split(_TORCH_CHECK_TAIL, 1)[0]
        piece = max((p.strip(" \t:;,.=[]('\"") for p in _CONVERSION.split(text)), key=len)
        head = piece.split(" ", 1)[0]
        inner = [piece[m.start() :] for m in re.finditer(r"(?<=[a-z])[A-Z]", head) if len(head) - m.start() >= 6]
        tails = [piece, *(inner if merged else [])]
        for tail in tails:
            words = tail.split()
            # a phrase of plain words is anybody's, whatever its length (libibverbs' `local length error`, the CUDA
            # runtime's `illegal memory access`, `Unable to get info from`): it names a library only with a name of
            # code among them (`ibv_dealloc_pd failed`, `RMSNorm failed with error code`)
            named = any(_CODE_NAME.search(w) and not _CUDA_API.match(w) for w in words)
            if len(tail) >= MIN_MESSAGE and named and _FAILURE.search(tail) and re.match(r"[A-Za-z_]", tail):
                self.messages.add(tail)

    def binary(self, name: str, data: bytes) -> None:
        m = _SO_NAME.match(name.rsplit("/", 1)[-1])
        if m and (m.group("stem").startswith("lib") or "_" in m.group("stem")):  # not a bare "engine.so"
            self.objects.add(m.group("stem") + (".so" if m.group("stem").startswith("lib") else ""))
        for text in _strings(data):
            self.text(text)
            self.message(text)
            if len(text) >= MIN_MESSAGE and " " in text:
                self.strings.add(text)
            if _IDENT.match(text):
                p = _PREFIX.match(text)
                if p:
                    self.prefixes[p.group(1)] += 1
                if _HANDLER.match(text):
                    self.handlers.add(text)

    def text(self, text: str) -> None:
        if "_deps/" in text:
            self.deps.update(normal(t) for t in _DEPS.findall(text))
        if "." in text:
            self._paths(text)
        if "_ZN" in text:
            self.heads.update(_mangled_heads(text))
        if ("rror" in text or "RROR" in text) and _CHECK.search(text) and len(text) < 200:
            self.checks.add(text.strip())

    def _paths(self, text: str) -> None:
        if len(text) > 400 or _FOREIGN.search(text):  # a mangled name; or a header of torch or the C++ library
            return
        for path in (t for t in _SPLIT.split(text) if _SOURCE.match(t)):
            parts = [p for p in path.split("/") if p not in ("", ".", "..")]
            roots = [i for i, p in enumerate(parts) if p.endswith("-src")]  # a build tree's _deps/repo-X-src/
            parts = parts[roots[-1] + 1 :] if roots else parts
            if len(parts) >= 2 and not parts[0].startswith("_deps"):
                self.files.add("/".join(parts[-3:]))

    def source(self, path: str, data: bytes) -> None:
        parts = path.split("/")
        self.files.add("/".join(parts[-3:]))
        for m in _NAMESPACE_DECL.finditer(data):
            self.heads[m.group(1).decode()] += 1
        if self.source_messages:
            for m in _C_LITERAL.finditer(data):
                self.message(m.group(1).decode("utf-8", errors="replace").replace('\\"', '"'), merged=False)
        for line in data.decode("utf-8", errors="replace").splitlines():
            if "cuda error" in line.lower() and ('"' in line):
                for quoted in re.findall(r'"([^"]*[Cc][Uu][Dd][Aa] [Ee]rror[^"]*)"', line):
                    self.checks.add(quoted)


def _read_wheel(lib: Library, scan: _Scan) -> str:
    wheel = sources.download(lib.package, None)
    members = [re.compile(m) for m in lib.members]
    with zipfile.ZipFile(wheel) as zf:
        # the wheel's Python packages (a folder with __init__.py), not its lib/ or include/ folders
        tops = {n.split("/", 1)[0] for n in zf.namelist() if n.count("/") == 1 and n.endswith("/__init__.py")}
        for name in zf.namelist():
            if not any(m.search(name) for m in members):
                continue
            if name.endswith(".so") or ".so." in name:
                scan.binary(name, zf.read(name))
            else:
                scan.source(name, zf.read(name))
    if normal(distribution_token(lib.package)) == normal(lib.name):  # the wheel is the library's own
        scan.tokens.update(normal(t) for t in tops if not t.startswith((".", "_")) and "." not in t)
    return wheel.name


def _read_git(lib: Library, scan: _Scan, members: tuple[str, ...] = ()) -> str | None:
    git_dir = os.environ.get(lib.git_env)
    if not git_dir:
        return None
    tags = subprocess.run(["git", f"--git-dir={git_dir}", "tag", "--sort=-v:refname"], capture_output=True, text=True, check=True)
    tag = next((t for t in tags.stdout.split() if re.match(r"^v\d", t)), "HEAD")
    names = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", tag], capture_output=True, text=True, check=True
    ).stdout.split()
    patterns = [re.compile(m) for m in members or lib.members]
    for name in names:
        if any(m.search(name) for m in patterns):
            blob = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{tag}:{name}"], capture_output=True, check=True)
            scan.source(name, blob.stdout)
    return f"git source at tag {tag}"


def extract(
    previous: dict[str, Any] | None = None, previous_messages: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every library's markers, and its failure wordings (MESSAGES_FILE); a library whose source cannot be read keeps
    its previous entries."""
    scans: dict[str, tuple[_Scan, str]] = {}
    for lib in LIBRARIES:
        print(f"reading {lib.name}", flush=True)
        scan = _Scan()
        scan.source_messages = True
        origin = _read_git(lib, scan) if lib.git_env and not lib.package else _read_wheel(lib, scan)
        if origin is None:
            continue
        if lib.git_members:
            supplement = _read_git(lib, scan, lib.git_members)
            if supplement is None:
                raise SystemExit(f"{lib.name}: set {lib.git_env} to a git directory of its source (its other sources)")
            origin = f"{origin}; its other sources from the {supplement}"
        scan.tokens.add(normal(lib.name))
        scan.tokens.update(d for d in scan.deps if d == normal(lib.name))  # FlashMLA's _deps/repo-flashmla-src
        scans[lib.name] = (scan, f"{lib.package} {origin}".strip() if lib.package else origin)
    out: dict[str, Any] = {k: v for k, v in (previous or {}).items() if k not in scans}
    messages = {k: v for k, v in (previous_messages or {}).items() if k not in scans}
    file_owners = Counter(f for scan, _ in scans.values() for f in scan.files)
    token_owners = Counter(t for scan, _ in scans.values() for t in scan.tokens)
    names = {normal(n) for n in scans}
    object_owners = Counter(o for scan, _ in scans.values() for o in scan.objects)
    message_owners = _message_owners(scans)
    for name, (scan, origin) in scans.items():
        objects = sorted(o for o in scan.objects if object_owners[o] == 1)
        stems = [normal(o.removeprefix("lib").split(".", 1)[0]) for o in objects]
        prefixes = sorted(p for p, n in scan.prefixes.items() if n >= 20 and any(s.startswith(p) for s in stems))
        namespaces = sorted(h for h in scan.heads if normal(h) in scan.tokens)
        out[name] = {
            "source": origin,
            "objects": objects,
            # a folder named after another library, or one several hold ("nvidia"), names none of them
            "tokens": sorted(
                t for t in scan.tokens if t == normal(name) or (len(t) >= 3 and token_owners[t] == 1 and t not in names)
            ),
            "prefixes": prefixes,
            "namespaces": namespaces,
            "files": sorted(f for f in scan.files if file_owners[f] == 1),
            "handlers": sorted(scan.handlers),
            "checks": sorted(scan.checks),
        }
        messages[name] = sorted(m for m in scan.messages if message_owners.get(m) == name)
    return dict(sorted(out.items())), dict(sorted(messages.items()))


# what prints the same words outside the table: torch (its objects, and the headers it ships, pybind11's and fmt's among
# them, the code the table's objects also compile in) and SGLang's own raises (the string literals of its modules)
TORCH_RELEASE = "2.9.1"


def _outside_strings() -> list[str]:
    """The strings with a failure word of torch's wheel (its objects' save the table's libraries it bundles, and
    torch/include's) and of the newest SGLang release's modules (their lines: each literal is inside one)."""
    print(f"reading torch {TORCH_RELEASE} and sglang {sources.sglang_versions()[-1]}", flush=True)
    out: list[str] = []
    with zipfile.ZipFile(sources.download("torch", TORCH_RELEASE)) as zf:
        for name in zf.namelist():
            if (name.endswith(".so") or ".so." in name) and not _bundled(name):
                out.extend(t for t in _strings(zf.read(name)) if _FAILURE.search(t))
            elif name.startswith("torch/include/"):
                out.extend(t for t in zf.read(name).decode("utf-8", errors="replace").splitlines() if _FAILURE.search(t))
    wheel = sources.download("sglang", sources.sglang_versions()[-1])
    out.extend(line for _, text in sources.python_files(wheel) for line in text.splitlines() if _FAILURE.search(line))
    return out


def _bundled(name: str) -> bool:
    """An object of torch's named after a library of the table (libtorch_nvshmem.so): that library's code compiled in,
    whose wordings stay the library's."""
    stem = normal(name.rsplit("/", 1)[-1])
    return any(normal(lib.name) in stem for lib in LIBRARIES)


def _message_owners(scans: dict[str, tuple[_Scan, str]]) -> dict[str, str]:
    """A failure wording -> the one library it names: its only holder, or the one holder whose objects hold every
    other holder's C++ namespaces (it compiled their code in); a wording torch or SGLang also prints names nobody."""
    # a string the objects of several libraries hold (the CUDA runtime's texts, linked into each) is nobody's, nor are
    # the words inside it (`illegal memory access` of "an illegal memory access was encountered")
    string_owners = Counter(t for scan, _ in scans.values() for t in scan.strings)
    common = "\n".join([*(t for t, n in string_owners.items() if n > 1), *_outside_strings()])
    holders: dict[str, set[str]] = {}
    for name, (scan, _) in scans.items():
        for message in scan.messages:
            holders.setdefault(message, set()).add(name)
    spaces = {name: {normal(h) for h in scan.heads} for name, (scan, _) in scans.items()}
    tokens = {name: {normal(n) for n in scan.heads if normal(n) in scan.tokens} for name, (scan, _) in scans.items()}
    out = {}
    for message, names in holders.items():
        if message in common:
            continue
        hosts = [n for n in names if all(o == n or (tokens[o] and tokens[o] <= spaces[n]) for o in names)]
        if len(hosts) == 1:
            out[message] = hosts[0]
    return out


_FIRST_WORD = re.compile(r"[A-Za-z_]\w*")


def by_first_word(messages: dict[str, list[str]]) -> dict[str, list[list[str]]]:
    """[wording, library] rows by the wording's first word, the longest wording first (ties in text order)."""
    out: dict[str, list[list[str]]] = {}
    for library, wordings in sorted(messages.items()):
        for wording in wordings:
            first = _FIRST_WORD.match(wording)  # message() keeps only wordings that open with a word
            out.setdefault(first.group(0) if first else "", []).append([wording, library])
    return {word: sorted(rows, key=lambda r: (-len(r[0]), r[0], r[1])) for word, rows in sorted(out.items())}


def write(path: Path) -> None:
    import json

    previous = json.loads(path.read_text()) if path.is_file() else {}
    messages_path = path.with_name(MESSAGES_FILE)
    rows = json.loads(messages_path.read_text()).get("by_first_word", {}) if messages_path.is_file() else {}
    previous_messages: dict[str, list[str]] = {}
    for found in rows.values():
        for wording, library in found:
            previous_messages.setdefault(library, []).append(wording)
    markers, messages = extract(previous.get("libraries"), previous_messages)
    about = (
        "Markers that name a native library in a frame or an error line, read from the released packages by "
        "tools/upstream/libraries.py (python -m tools.upstream libraries). Generated: never edit by hand."
    )
    write_generated(path, about, {"libraries": markers})
    about = (
        "The failure wordings only one library of catalog/libraries.json prints (its objects' format strings, or "
        "the string literals of the sources it is read from), read by tools/upstream/libraries.py (python -m "
        "tools.upstream libraries), as [wording, library] rows by the wording's first word, the longest first (the "
        "index a paste looks them up in). Generated: never edit by hand."
    )
    write_generated(messages_path, about, {"by_first_word": by_first_word(messages)}, indent=0)

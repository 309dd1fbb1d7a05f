"""Which code of the native transport libraries runs when their communicator or buffer is set up (init), read from
their released sources, for catalog/native_stages.json:

- NCCL (the NVIDIA/nccl git tags, `fetch github:NVIDIA/nccl`): per release, the line ranges of `src/init.cc`'s and
  `src/bootstrap.cc`'s functions that create a communicator (ncclCommInitRank*, initTransportsRank, bootstrapInit ...),
  teardown and queries left out (destroy, abort, finalize, error queries). NCCL's return chain
  (`NCCL INFO init.cc:840 -> 2`) names a file and line of its release: the line says which function returned it.
- DeepEP (the deepseek-ai/DeepEP git history): the host assertions of `csrc/deep_ep.cpp` made only in the buffer's
  constructor or its handshake (`Buffer::Buffer`, `Buffer::sync`), in every commit of that file.
- NVSHMEM (the nvidia-nvshmem wheel's shared libraries, as `strings` reads them): the functions that initialise it or
  connect its transports (their names, kept in the libraries by `__FUNCTION__` and the C++ symbols), its init source
  files (`src/host/init/*`), and the failure messages that name one of those functions. From its released source
  (the NVIDIA/nvshmem git history, `fetch github:NVIDIA/nvshmem`: its tags and release commits), the error checks
  (`NVSHMEMI_NZ_ERROR_JMP(...)`, whose line prints `<file>:<line>: non-zero status: 7 <message>`) made in those
  functions, or in a file's static helpers only they call: a status line's file, line and message name its function.

- Mooncake (the kvcache-ai/Mooncake git tags, `fetch github:kvcache-ai/Mooncake`): the glog error lines (`LOG(ERROR) <<
  "..."`, printed as `E0302 09:15:07.980796 7 transfer_engine_impl.cpp:293] Failed to install RDMA transport`) that
  its transfer engine's and store client's set-up functions print (`TransferEngineImpl::init`, `RdmaTransport::install`,
  `Client::Create`, `RealClient::setup_internal`, ...), with file, line and the message's first words.

A message or frame naming init code places a failure at startup; nothing here places one while serving (operation code
runs whenever the application runs it: only the application's own evidence says when).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path
from typing import Any

from tools.upstream import sources

# the git directories of `fetch github:NVIDIA/nccl` / `github:deepseek-ai/DeepEP` (or clones: set the variables)
NCCL_GIT = Path(os.environ.get("LOGSCOPE_NCCL_GIT", "/work/.mirror/NVIDIA+nccl/repo"))
NCCL_FILES = ("src/init.cc", "src/bootstrap.cc")
_NCCL_TAG = re.compile(r"^v(2\.\d+\.\d+)-\d+$")
# a function definition at column 0 (NCCL's style): `ncclResult_t ncclCommInitRank(` / `static ncclResult_t f(`
_C_DEF = re.compile(r"^(?:[A-Za-z_][\w:<>*&]*[ \t*&]+)+\**(?P<name>[A-Za-z_]\w*)\s*\(")
# functions of those files that run after init: teardown, error and property queries, memory and buffer registration
_NOT_INIT = re.compile(
    r"Destroy|Abort|Finalize|Free|Revoke|Cleanup|Reclaim|AsyncError|ErrorString|LastError|GetVersion|Count$|CuDevice|"
    r"UserRank|MemAlloc|Register|Close|Barrier|Send|Recv|AllGather|Intra|Proxy|GetUniqueId$|Abort|Suspend|Resume"
)
# bootstrap.cc also serves the running communicator (its send/recv/barrier): only its set-up functions are init
_BOOTSTRAP_INIT = re.compile(r"Init|Root|Split|Create|Listen|Connect|Setup|setup")
# NCCL's check macros (src/include/checks.h: NCCLCHECK, NCCLCHECKGOTO, CUDACHECK, SYSCHECK, ...): the return chain's
# `INFO %s:%d -> %d` is printed by them
_NCCL_CHECK = re.compile(r"\b[A-Z]+CHECK\w*\s*\(")

DEEPEP_GIT = Path(os.environ.get("LOGSCOPE_DEEPEP_GIT", "/work/.mirror/deepseek-ai+DeepEP/repo"))
DEEPEP_FILE = "csrc/deep_ep.cpp"
# the buffer's construction and its peers' handshake (Buffer::sync runs internode::init, NVSHMEM's init)
DEEPEP_INIT = frozenset({"Buffer::Buffer", "Buffer::sync"})
# a C++ definition at column 0: `Buffer::Buffer(int rank, ...)`, `std::tuple<...> Buffer::low_latency_dispatch(`
_CPP_DEF = re.compile(
    r"^(?!namespace\b|return\b|if\b|for\b|while\b|switch\b)(?:[A-Za-z_][\w:<>,*& ]*[ *&])?(?P<name>[A-Za-z_][\w:]*)\s*\("
)
_HOST_ASSERT = re.compile(r"EP_HOST_ASSERT\(")

NVSHMEM_PACKAGE = "nvidia-nvshmem-cu12"
_RUN = re.compile(rb"[\x20-\x7e\t]{6,}")
# a symbol's or __FUNCTION__'s function name: `_ZL10ep_connectPv...`, `_ZZ20nvshmemi_init_thread...E12__FUNCTION__`
_MANGLED = re.compile(r"_ZZ?L?(\d+)([A-Za-z_]\w*)")
_NVSHMEM_INIT = re.compile(
    r"(?:^|_)(?:pre)?init(?:_|$)|init_thread|setup_connections|connect_endpoints|ep_connect|bootstrap_init"
)
_NVSHMEM_NOT_INIT = re.compile(r"fini|finalize|destroy|loader|team_init|coll_|nccl|attr")
# NVSHMEM's own functions (the wheel also carries DOCA's and CUDA's)
_NVSHMEM_OWN = re.compile(r"^(?:nvshmem[ixt]?_|bootstrap_|ep_connect$)")
_NVSHMEM_INIT_FILE = re.compile(r"src/host/init/[\w.]+\.(?:cu|cpp|cc)")
NVSHMEM_GIT = Path(os.environ.get("LOGSCOPE_NVSHMEM_GIT", "/work/.mirror/NVIDIA+nvshmem/repo"))
# a release of the git history: its tag (`v3.4.5-0`) or the commit that made it (`NVSHMEM 3.5.1-0`, `Version: 3.4.5-0`,
# `[ADMIN] Resync NVSHMEM 3.3.8 into devel`)
_NVSHMEM_TAG = re.compile(r"^v(\d+\.\d+\.\d+)-\d+$")
_NVSHMEM_RELEASE_COMMIT = re.compile(r"^(?:NVSHMEM |Version: |\[ADMIN\] Resync NVSHMEM )(\d+\.\d+\.\d+)\b")
# NVSHMEM's error checks (src/include/non_abi/nvshmemx_error.h): each prints `__FILE__:__LINE__: ...` then its message
_NVSHMEM_CHECK = re.compile(r"\bNVSHMEMI_(?:\w*ERROR_(?:JMP|PRINT|EXIT)|NZ_EXIT)\(")
_C_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _git(*args: str) -> str:
    return _git_at(NCCL_GIT, *args)


def _git_at(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True).stdout


def c_functions(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of each function defined at column 0 (its body ends at the next `}` at column 0)."""
    out: list[tuple[int, int, str]] = []
    lines = text.splitlines()
    start: tuple[int, str] | None = None
    for number, line in enumerate(lines, 1):
        m = _C_DEF.match(line)
        if start is None and m is not None and not line.rstrip().endswith(";"):
            start = (number, m.group("name"))
        elif start is not None and line.startswith("}"):
            out.append((start[0], number, start[1]))
            start = None
    return out


def nccl_init_ranges(text: str, path: str) -> list[list[Any]]:
    """[first, last, function] of the file's communicator set-up functions."""
    keep = []
    for first, last, name in c_functions(text):
        if path.endswith("bootstrap.cc") and not _BOOTSTRAP_INIT.search(name):
            continue
        if _NOT_INIT.search(name):
            continue
        keep.append([first, last, name])
    return keep


def _version_key(tag: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", tag))


def nccl() -> dict[str, Any]:
    tags = sorted((t for t in _git("tag").split() if _NCCL_TAG.match(t)), key=_version_key)
    versions: dict[str, dict[str, list[list[Any]]]] = {}
    checks: dict[str, dict[str, list[str]]] = {}
    for tag in tags:
        version = _NCCL_TAG.match(tag).group(1)  # type: ignore[union-attr]
        per_file = {}
        for path in NCCL_FILES:
            try:
                text = _git("show", f"{tag}:{path}")
            except subprocess.CalledProcessError:
                continue
            file = path.rsplit("/", 1)[-1]
            per_file[file] = nccl_init_ranges(text, path)
            checks.setdefault(file, {}).setdefault(_line_runs(nccl_check_lines(text)), []).append(version)
        versions[version] = per_file
    return {
        "source": f"github:NVIDIA/nccl tags {tags[0]} .. {tags[-1]} ({len(tags)})",
        "init_ranges": versions,
        "check_lines": checks,
    }


def nccl_check_lines(text: str) -> set[int]:
    """The lines of each check call (`NCCLCHECK(...)`, `NCCLCHECKGOTO(...)`, `CUDACHECK(...)`, ...): the lines a return
    chain's `file:line -> rc` can name (its `__LINE__`, a line of the call by compiler)."""
    lines = text.splitlines()
    found: set[int] = set()
    for number, line in enumerate(lines):
        for m in _NCCL_CHECK.finditer(line):
            rest = "\n".join([line[m.end() :], *lines[number + 1 : number + 8]])
            end = _closing_paren(rest)
            found.update(range(number + 1, number + 2 + (rest[:end].count("\n") if end is not None else 0)))
    return found


def _line_runs(lines: set[int]) -> str:
    """`12,15-17,20`: the lines as runs."""
    runs: list[list[int]] = []
    for number in sorted(lines):
        if runs and runs[-1][1] == number - 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _closing_paren(rest: str) -> int | None:
    """Where the call opened just before `rest` closes (its `)`), or None when it runs past the text."""
    depth = 1
    for i, char in enumerate(rest):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return i
    return None


def cpp_asserts(text: str) -> list[tuple[str, str]]:
    """(function, condition as the preprocessor stringifies it: whitespace runs made one space) of each
    EP_HOST_ASSERT in a function defined at column 0."""
    out: list[tuple[str, str]] = []
    function: str | None = None
    for number, line in enumerate(lines := text.splitlines()):
        m = _CPP_DEF.match(line)
        if m is not None and not line.rstrip().endswith(";"):
            function = m.group("name")
        elif line.startswith("}"):
            function = None
        for a in _HOST_ASSERT.finditer(line):
            rest = line[a.end() :] + " " + " ".join(lines[number + 1 : number + 4])
            end = _closing_paren(rest)
            if function is not None and end is not None:
                out.append((function, " ".join(rest[:end].split())))
    return out


def _deepep_git(*args: str) -> str:
    return subprocess.run(["git", f"--git-dir={DEEPEP_GIT}", *args], check=True, capture_output=True, text=True).stdout


def deepep() -> dict[str, Any]:
    """The host assertions only the buffer's construction or handshake makes, in every commit of csrc/deep_ep.cpp."""
    commits = _deepep_git("log", "--format=%h", "--", DEEPEP_FILE).split()
    seen: dict[str, set[str]] = {}
    for commit in commits:
        try:
            text = _deepep_git("show", f"{commit}:{DEEPEP_FILE}")
        except subprocess.CalledProcessError:
            continue
        for function, condition in cpp_asserts(text):
            seen.setdefault(condition, set()).add(function)
    init = sorted(c for c, functions in seen.items() if functions <= DEEPEP_INIT)
    return {
        "source": f"github:deepseek-ai/DeepEP {DEEPEP_FILE}, {len(commits)} commits ({commits[-1]} .. {commits[0]})",
        "init_functions": sorted(DEEPEP_INIT),
        "init_asserts": init,
    }


def _strings(data: bytes) -> list[str]:
    return [m.group().decode("ascii").strip() for m in _RUN.finditer(data)]


def _is_init(name: str) -> bool:
    return bool(_NVSHMEM_OWN.match(name) and _NVSHMEM_INIT.search(name) and not _NVSHMEM_NOT_INIT.search(name))


def nvshmem() -> dict[str, Any]:
    wheel = sources.download(NVSHMEM_PACKAGE, None)
    texts: list[str] = []
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if "/lib/" in name and ".so" in name:
                texts += _strings(zf.read(name))
    functions: set[str] = set()
    for text in texts:
        for m in _MANGLED.finditer(text):
            name = m.group(2)[: int(m.group(1))]
            if len(name) == int(m.group(1)) and _is_init(name):
                functions.add(name)
    files = sorted({m.group() for text in texts for m in _NVSHMEM_INIT_FILE.finditer(text)})
    named = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, functions), key=len, reverse=True)) + r")\b")
    wordings = sorted({t for t in texts if "failed" in t and named.search(t) and not t.startswith("_")})
    return {"source": wheel.name, "init_functions": sorted(functions), "init_files": files, "init_wordings": wordings}


def nvshmem_releases() -> dict[str, str]:
    """{release: commit} of the git history: its tags, and the commits that made a release (the newest of each)."""
    found: dict[str, str] = {}
    for line in _git_at(NVSHMEM_GIT, "log", "--format=%h %s").splitlines():
        commit, _, subject = line.partition(" ")
        m = _NVSHMEM_RELEASE_COMMIT.match(subject)
        if m is not None:
            found.setdefault(m.group(1), commit)
    for tag in _git_at(NVSHMEM_GIT, "tag").split():
        m = _NVSHMEM_TAG.match(tag)
        if m is not None:
            found[m.group(1)] = tag
    return dict(sorted(found.items(), key=lambda item: _version_key(item[0])))


def error_checks(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, message) of each NVSHMEM error check: the lines its call spans (`__LINE__` is one of
    them, by compiler) and its message, the adjacent string literals of its format, `\\n` and outer blanks taken off."""
    out: list[tuple[int, int, str]] = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        for m in _NVSHMEM_CHECK.finditer(line):
            rest = "\n".join([line[m.end() :], *lines[number + 1 : number + 8]])
            end = _closing_paren(rest)
            if end is None:
                continue
            message = "".join(_C_STRING.findall(rest[:end])).replace("\\n", "").strip()
            if message:
                out.append((number + 1, number + 1 + rest[:end].count("\n"), message))
    return out


def _static_helpers(text: str, functions: list[tuple[int, int, str]], init: set[str]) -> set[str]:
    """The file's static functions only init code calls (each use of the name outside its own body a call inside an
    init function or such a helper), to a fixed point."""
    lines = text.splitlines()
    static = {name for first, _, name in functions if lines[first - 1].startswith("static ")}
    found = set(init)
    changed = True
    while changed:
        changed = False
        for name in sorted(static - found):
            uses = [
                (number, line)
                for number, line in enumerate(lines, 1)
                for _ in re.finditer(rf"\b{re.escape(name)}\b", line)
                if not any(first <= number <= last and f == name for first, last, f in functions)
            ]
            callers = [_function_at_line(functions, number) for number, _ in uses]
            calls = all(re.search(rf"\b{re.escape(name)}\s*\(", line) for _, line in uses)
            if uses and calls and all(c in found for c in callers):
                found.add(name)
                changed = True
    return found


def _function_at_line(functions: list[tuple[int, int, str]], number: int) -> str | None:
    return next((name for first, last, name in functions if first <= number <= last), None)


def nvshmem_error_sites() -> dict[str, Any]:
    """The error checks NVSHMEM's init or transport set-up code makes, per release: {"file:first-last: message":
    [function, releases]}, left out where another release has the same message on those lines outside init code."""
    init_sites: dict[tuple[str, int, int, str], tuple[str, set[str]]] = {}
    other_sites: set[tuple[str, int, str]] = set()
    releases = nvshmem_releases()
    for version, commit in releases.items():
        paths = _git_at(NVSHMEM_GIT, "ls-tree", "-r", "--name-only", commit, "--", "src").split()
        for path in paths:
            if not path.endswith((".cpp", ".cu", ".cc", ".c")):
                continue
            text = _git_at(NVSHMEM_GIT, "show", f"{commit}:{path}")
            functions = c_functions(text)
            init = _static_helpers(text, functions, {name for _, _, name in functions if _is_init(name)})
            file = path.rsplit("/", 1)[-1]
            for first, last, message in error_checks(text):
                function = _function_at_line(functions, first)
                if function in init:
                    init_sites.setdefault((file, first, last, message), (function, set()))[1].add(version)
                else:
                    other_sites.update((file, number, message) for number in range(first, last + 1))
    sites = {
        f"{file}:{first}-{last}: {message}": [function, sorted(versions, key=_version_key)]
        for (file, first, last, message), (function, versions) in sorted(init_sites.items())
        if not any((file, number, message) in other_sites for number in range(first, last + 1))
    }
    return {"source": f"github:NVIDIA/nvshmem {', '.join(releases)}", "sites": sites}


MOONCAKE_GIT = Path(os.environ.get("LOGSCOPE_MOONCAKE_GIT", "/work/.mirror/kvcache-ai+Mooncake/repo"))
MOONCAKE_SOURCES = ("mooncake-transfer-engine/src/", "mooncake-store/src/")
_MOONCAKE_TAG = re.compile(r"^v(\d+\.\d+\.\d+(?:\.post\d+)?)$")
# a set-up method (the name after its class): init*, Init*, install*, setup*, initialize*, Create
_MOONCAKE_SETUP = re.compile(r"^(?:[Ii]nit(?:ialize)?|[Ii]nstall|[Ss]etup)(?:[A-Z_]\w*)?$|^[Cc]reate$")
_GLOG_SITE = re.compile(r"\bLOG\((?:ERROR|FATAL)\)")


def glog_sites(text: str) -> list[tuple[int, str, str]]:
    """(line, function, message head) of each `LOG(ERROR|FATAL) << "..."` in a function defined at column 0:
    glog prints the LOG line's number and the streamed text, whose first string literals are the head."""
    out: list[tuple[int, str, str]] = []
    function: str | None = None
    lines = text.splitlines()
    for number, line in enumerate(lines):
        m = _CPP_DEF.match(line)
        if m is not None and not line.rstrip().endswith(";"):
            function = m.group("name")
        elif line.startswith("}"):
            function = None
        site = _GLOG_SITE.search(line)
        if site is None or function is None:
            continue
        statement = " ".join([line[site.end() :], *lines[number + 1 : number + 4]]).split(";", 1)[0]
        parts = statement.split("<<")
        head = "".join(_C_STRING.findall(parts[1])) if len(parts) > 1 else ""
        if sum(char.isalpha() for char in head) >= 8:
            out.append((number + 1, function, head.strip()))
    return out


def mooncake() -> dict[str, Any]:
    """The glog lines Mooncake's set-up functions print, per release: {"file:line: head": [function, releases]}, left
    out where another release prints that head on that line outside set-up code."""
    tags = sorted((t for t in _git_at(MOONCAKE_GIT, "tag").split() if _MOONCAKE_TAG.match(t)), key=_version_key)
    setup: dict[tuple[str, int, str], tuple[str, set[str]]] = {}
    other: set[tuple[str, int, str]] = set()
    for tag in tags:
        version = _MOONCAKE_TAG.match(tag).group(1)  # type: ignore[union-attr]
        paths = _git_at(MOONCAKE_GIT, "ls-tree", "-r", "--name-only", tag, "--", *MOONCAKE_SOURCES).split()
        for path in (p for p in paths if p.endswith(".cpp")):
            file = path.rsplit("/", 1)[-1]
            for line, function, head in glog_sites(_git_at(MOONCAKE_GIT, "show", f"{tag}:{path}")):
                if _MOONCAKE_SETUP.match(function.rsplit("::", 1)[-1]):
                    setup.setdefault((file, line, head), (function, set()))[1].add(version)
                else:
                    other.add((file, line, head))
    sites = {
        f"{file}:{line}: {head}": [function, sorted(versions, key=_version_key)]
        for (file, line, head), (function, versions) in sorted(setup.items())
        if (file, line, head) not in other
    }
    return {"source": f"github:kvcache-ai/Mooncake tags {tags[0]} .. {tags[-1]} ({len(tags)})", "setup_logs": sites}


def build() -> dict[str, Any]:
    return {
        "doc": (
            "GENERATED by python -m tools.upstream native-stages (tools/upstream/native_stages.py) from the released "
            "sources: the code of NCCL and NVSHMEM that sets up a communicator, its transports or its buffers (init). "
            "A failure whose return chain, frame or message names such code happened at startup."
        ),
        "nccl": nccl(),
        "nvshmem": {**nvshmem(), "error_sites": nvshmem_error_sites()},
        "deepep": deepep(),
        "mooncake": mooncake(),
    }


def write(target: Path) -> None:
    """One NCCL release a line (a new release is a one-line diff), one NVSHMEM error check a line."""
    data = build()
    ranges = data["nccl"].pop("init_ranges")
    rows = ",\n".join(f"   {json.dumps(v)}: {json.dumps(r, sort_keys=True)}" for v, r in ranges.items())
    checks = data["nccl"].pop("check_lines")
    check_rows = ",\n".join(
        f"   {json.dumps(file)}: {{\n" + ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in runs.items()) + "\n   }"
        for file, runs in checks.items()
    )
    nccl_keys = "".join(f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in sorted(data["nccl"].items()))
    errors = data["nvshmem"].pop("error_sites")
    sites = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in errors["sites"].items())
    nvshmem = json.dumps(data["nvshmem"], indent=1, sort_keys=True)[:-2]
    logs = ",\n".join(f"   {json.dumps(k)}: {json.dumps(v)}" for k, v in data["mooncake"]["setup_logs"].items())
    text = (
        f'{{\n "doc": {json.dumps(data["doc"])},\n "nccl": {{\n{nccl_keys}  "init_ranges": {{\n{rows}\n  }},\n'
        f'  "check_lines": {{\n{check_rows}\n  }}\n }},\n'
        f' "nvshmem": {nvshmem},\n  "error_sites": {{\n   "source": {json.dumps(errors["source"])},\n'
        f'   "sites": {{\n{sites}\n   }}\n  }}\n }},\n'
        f' "deepep": {json.dumps(data["deepep"], indent=1, sort_keys=True)},\n'
        f' "mooncake": {{\n  "source": {json.dumps(data["mooncake"]["source"])},\n  "setup_logs": {{\n{logs}\n  }}\n }}\n}}\n'
    )
    json.loads(text)  # the hand-laid layout is still JSON
    target.write_text(text)

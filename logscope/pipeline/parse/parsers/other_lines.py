"""Transformers for the small line grammars: torch OOM, server_args, launch command, check_env,
traceback frames and native (glog / NCCL) lines."""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterator
from typing import Any, cast

from lark import Token, Transformer, Tree
from lark.exceptions import LarkError, UnexpectedInput

from logscope.core import kinds, native_libraries, nccl_demoted
from logscope.core.grammar_loader import parse
from logscope.core.server_flags import benchmark_option, is_option, may_take, takes

_UNITS = {"bytes": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0, "TiB": 1024.0**2, "PiB": 1024.0**3}


def size_mib(text: str) -> float:
    value, unit = str(text).split()
    return round(float(value) * _UNITS[unit], 4)


# ------------------------------------------------------------------ torch OOM
# PyTorch's caching-allocator message, on CUDA and on ROCm (same sentences, "HIP" for "CUDA")
OOM_HEADS = ("CUDA out of memory", "HIP out of memory")


def has_oom_head(text: str) -> bool:
    return any(head in text for head in OOM_HEADS)


def parse_oom(text: str) -> dict[str, Any] | None:
    """The OOM text from "CUDA out of memory." on. A cut message keeps its complete sentences only."""
    start = max(text.find(head) for head in OOM_HEADS)
    if start < 0:
        return None
    body = text[start:].strip()
    tree = _parse_longest_sentences(body)
    if tree is None:
        return None
    data: dict[str, Any] = {"truncated": tree[1]}
    for node in tree[0].children:
        if isinstance(node, Token):
            continue
        if node.data == "tried":
            data["requested_mib"] = size_mib(str(node.children[0]))
            data["requested_text"] = str(node.children[0])
        elif node.data == "new_details":
            _oom_new(node, data)
        elif node.data == "old_details":
            sizes = [size_mib(t) for t in node.children if isinstance(t, Token) and t.type == "SIZE"]
            data["gpu"] = int(str(node.children[0]))
            data["total_mib"], data["allocated_mib"], data["free_mib"] = sizes[0], sizes[1], sizes[2]
            texts = [str(t) for t in node.children if isinstance(t, Token) and t.type == "SIZE"]
            data["total_text"], data["free_text"] = texts[0], texts[2]
            data["reserved_mib"] = sizes[-1]
            data["wording"] = "old"
    return data


def _oom_new(node: Tree, data: dict[str, Any]) -> None:
    sizes = [t for t in node.children if isinstance(t, Token) and t.type == "SIZE"]
    data["gpu"] = int(str(node.children[0]))
    data["total_mib"], data["free_mib"] = size_mib(sizes[0]), size_mib(sizes[1])
    data["total_text"], data["free_text"] = str(sizes[0]), str(sizes[1])
    data["wording"] = "new"
    for child in node.children:
        if not isinstance(child, Tree):
            continue
        if child.data == "this_process":
            data["process_in_use_mib"] = size_mib(str(child.children[0]))
        elif child.data == "other_process":
            data.setdefault("processes", []).append(
                {"pid": int(str(child.children[0])), "in_use_mib": size_mib(str(child.children[1]))}
            )
        elif child.data == "allocated_part":
            part = [c for c in child.children if isinstance(c, Token)]
            data["allocated_mib"] = size_mib(part[0])
            data["reserved_unallocated_mib"] = size_mib(part[-1])
            pools = [c for c in child.children if isinstance(c, Tree)]
            if pools:
                data["private_pools_mib"] = size_mib(str(pools[0].children[0]))


def _parse_longest_sentences(body: str) -> tuple[Tree, bool] | None:
    try:
        return parse(kinds.TORCH_OOM_GRAMMAR, body), False
    except LarkError:
        pass
    cut = body
    while True:
        end = cut.rfind(". ", 0, len(cut) - 1)
        if end < 0:
            return None
        cut = cut[: end + 1]
        try:
            return parse(kinds.TORCH_OOM_GRAMMAR, cut), True
        except LarkError:
            continue


# ------------------------------------------------------------------ server_args
def parse_server_args(text: str) -> tuple[dict[str, Any], bool] | None:
    """Fields of the dump; a cut dump keeps the complete fields before the cut (second item True)."""
    start = text.find("server_args=")
    if start < 0:
        return None
    body = text[start:].rstrip()
    truncated = False
    for _ in range(64):
        try:
            tree = parse(kinds.SERVER_ARGS_GRAMMAR, body)
            break
        except UnexpectedInput as exc:
            pos = getattr(exc, "pos_in_stream", None) or len(body)
            closer = "}" if body.startswith("server_args={") else ")"
            cut = _last_top_level_comma(body, pos)
            if cut is None:
                return None
            body = body[:cut] + closer
            truncated = True
        except LarkError:
            return None
    else:
        return None
    root = cast(Tree, tree.children[0])
    fields: dict[str, Any] = {}
    if root.data == "dataclass":
        for item in root.children[1:]:
            if isinstance(item, Tree) and item.data == "field":
                fields[str(item.children[0])] = _py_value(item.children[1])
    else:
        for pair in root.children:
            if isinstance(pair, Tree):
                key = _py_value(pair.children[0])
                fields[str(key)] = _py_value(pair.children[1])
    return fields, truncated


def repr_scan(text: str, depth: int = 0, quote: str = "") -> Iterator[tuple[int, str, int, str]]:
    """(index, character, bracket depth after it, the quote it is inside or "") of each character of a Python repr,
    from a state carried over from the text before it (a repr cut over lines)."""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1 : i] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        yield i, ch, depth, quote


def _last_top_level_comma(body: str, before: int) -> int | None:
    commas = [i for i, ch, depth, quote in repr_scan(body[:before]) if ch == "," and depth == 1 and not quote]
    return commas[-1] if commas else None


def _py_value(node: Any) -> Any:
    if isinstance(node, Token):
        if node.type == "STRING":
            try:
                return ast.literal_eval(str(node))
            except (ValueError, SyntaxError):
                return str(node)[1:-1]
        if node.type == "NUMBER":
            text = str(node)
            return float(text) if any(c in text for c in ".eE") else int(text)
        if node.type == "CONST":
            return {"None": None, "True": True, "False": False}.get(str(node), str(node))
        return str(node)
    if node is None:
        return None
    if node.data in ("list", "tuple", "set"):
        return [_py_value(c) for c in node.children if c is not None]
    if node.data == "dict":
        return {str(_py_value(p.children[0])): _py_value(p.children[1]) for p in node.children if p is not None}
    if node.data == "call":  # a nested record's repr (CudaGraphConfig(decode=PhaseConfig(...))): its fields
        named = [c for c in node.children[1:] if isinstance(c, Tree) and c.data == "field"]
        if not named:
            return f"{node.children[0]}(...)"
        return {str(f.children[0]): _py_value(f.children[1]) for f in named}
    return str(node)


# ------------------------------------------------------------------ launch command / env
class _LaunchCommand(Transformer):
    """export lines → {'env'}; commands → {'env', 'args'}: each option with its value, as the released argparse reads
    it (server_flags.py): the word after it, for a list option the words up to the next option that its type
    converts and its choices hold (prose after a command, "--cuda-graph-bs 1 2 4 and got ...", ends the list at "and":
    argparse would refuse that word), True for a flag that takes none; an option that takes a value with none after
    it (a cut or wrapped command) is not read."""

    def assignment(self, items: list[Token]) -> tuple[str, str]:
        key, _, value = str(items[0]).partition("=")
        return key, shell_word(value)

    def _read(self, kind: str, items: list[Any]) -> dict[str, Any]:
        env: dict[str, str] = {}
        args: dict[str, Any] = {}
        pending: str | None = None
        words: list[str] = []

        def close() -> None:
            if pending is None:
                return
            if words:
                args[pending] = " ".join(words)
            elif takes(pending) not in ("one", "many"):
                args[pending] = True

        module = ""
        multimodal = False
        leading: int | None = None  # the words right after the launcher before any option (None: an option came)
        for item in items:
            if isinstance(item, tuple):
                env[item[0]] = item[1]
                continue
            if isinstance(item, Tree):  # the launcher (python -m sglang..., sglang serve, sglang generate)
                module = next((str(t) for t in item.children if isinstance(t, Token) and t.type == "MODULE"), "")
                multimodal = item.data == "sglang_generate"
                leading = 0
                continue
            if leading is not None:
                if item.type in ("OPTION", "OPTION_EQ"):
                    leading = None if leading < _PROSE_WORDS else leading
                elif _PROSE_WORD.fullmatch(str(item)):
                    leading += 1
            value_of_pending = pending is not None and takes(pending) != "none"
            if item.type == "OPTION" and not (value_of_pending and _NEGATIVE.fullmatch(str(item))):
                close()
                pending, words = _flag(str(item)), []
            elif item.type == "OPTION_EQ":
                close()
                key, _, value = str(item).partition("=")
                args[_flag(key)] = shell_word(value)
                pending, words = None, []
            elif value_of_pending and pending is not None:
                word = shell_word(str(item))
                many = takes(pending) == "many"
                if many and not (word.startswith("$") or may_take(pending, word)):
                    close()  # no value of the list: the list ended before it
                    pending, words = None, []
                    continue
                words.append(word)
                if not many:
                    close()
                    pending, words = None, []
        close()
        if kind == "command" and leading is not None and leading >= _PROSE_WORDS:
            # words after the launcher that no option takes ("sglang serve is slow when I use --tp 2"): the server's
            # argparse has no positional argument (`sglang serve` takes one, the model's path, from 0.5.16), so
            # this is a sentence that names the launcher, not a command that ran
            return {"env": env, "args": {}, "kind": kind, "prose": True}
        if kind == "command" and any(isinstance(item, Token) and str(item) in _HELP for item in items):
            # argparse's own -h/--help (add_help=True, ServerArgs' parsers keep it) prints the usage and exits while the
            # words are parsed: the command starts nothing, so none of its words is a setting
            args = {}
        # a benchmark that runs the model in-process takes the server's options and its own (batch sizes, lengths):
        # only the server's are the run's settings (tools/upstream/cli_flags.py BENCH_MODULES)
        args = {flag: value for flag, value in args.items() if not benchmark_option(module, flag)}
        if multimodal:
            # `sglang generate` parses multimodal_gen's ServerArgs and SamplingParams (sglang 0.5.5-0.5.23
            # sglang/cli/generate.py): only an option the server's ServerArgs has spelled out means the same there
            # (--model-path, --tp-size); its own (--prompt, --sp-degree) and abbreviations are no server setting
            args = {flag: value for flag, value in args.items() if is_option("--" + flag.replace("_", "-"))}
        return {"env": env, "args": args, "kind": kind}

    def export(self, items: list[Any]) -> dict[str, Any]:
        return self._read("export", items)

    def assignments(self, items: list[Any]) -> dict[str, Any]:
        return self._read("export", items)

    def command(self, items: list[Any]) -> dict[str, Any]:
        return self._read("command", items)

    def start(self, items: list[Any]) -> dict[str, Any]:
        return next(i for i in items if isinstance(i, dict))


_LAUNCH = _LaunchCommand()


def parse_launch_command(text: str) -> dict[str, Any] | None:
    """{'env': {...}, 'args': {...}} from a launch command, or {'env': {...}} from an export line."""
    try:
        return _LAUNCH.transform(parse(kinds.LAUNCH_COMMAND_GRAMMAR, text.strip()))
    except LarkError:
        return None


def shell_word(word: str) -> str:
    """A word as the shell passes it to the program: quotes removed, escapes resolved (shlex, POSIX rules)."""
    try:
        parts = shlex.split(word)
    except ValueError:  # an unclosed quote (a cut paste): the word as printed, less its outer quotes
        return word.strip("'\"")
    return parts[0] if len(parts) == 1 else word.strip("'\"")


_HELP = frozenset({"-h", "--help"})
# this many words after the launcher before its first option make a sentence, not a command (one may be `sglang serve`'s
# model path, or a word a paste cut in two)
_PROSE_WORDS = 2
# only a sentence's word counts: a shell expansion ($MODEL_ARGS, ${ARGS}, "$@"), a quoted word, a path or hub id, a
# placeholder (<model>) is an argument a script passes before its options (review14a item 6)
_PROSE_WORD = re.compile(r"[A-Za-z][A-Za-z']*[,.:;!?]?")
# a negative number after an option that takes a value is its value, as argparse reads it ("--random-seed -1")
_NEGATIVE = re.compile(r"-\d+(?:\.\d+)?")


def _flag(option: str) -> str:
    return option.lstrip("-").replace("-", "_")


# ------------------------------------------------------------------ check_env
def parse_check_env_line(text: str) -> tuple[str, str] | None:
    try:
        tree = parse(kinds.CHECK_ENV_GRAMMAR, text.strip())
    except LarkError:
        return None
    tokens = {t.type: str(t) for t in tree.children if isinstance(t, Token)}
    return tokens["KEY"].strip(), tokens.get("VALUE", "").lstrip(": ").strip()


# ------------------------------------------------------------------ traceback frames
class _TracebackLine(Transformer):
    def frame(self, items: list[Token]) -> tuple[str, dict[str, Any]]:
        named = {t.type: str(t) for t in items}
        frame: dict[str, Any] = {"file": named["PATH"].strip('"'), "lineno": int(named["INT"]), "func": named["FUNC"]}
        if "REST" in named:  # the source line glued onto the frame line
            frame["code"] = named["REST"].strip()[:200]
        return kinds.FRAME, frame

    def fatal_error(self, items: list[Token]) -> tuple[str, dict[str, Any]]:
        return kinds.FATAL_ERROR, {"error": str(items[0])}

    def traceback_start(self, _items: list) -> tuple[str, dict[str, Any]]:
        return kinds.TRACEBACK_START, {}

    def traceback_chain(self, _items: list) -> tuple[str, dict[str, Any]]:
        return kinds.TRACEBACK_CHAIN, {}

    def faulthandler_thread(self, _items: list) -> tuple[str, dict[str, Any]]:
        return kinds.FAULTHANDLER_THREAD, {}

    def start(self, items: list[Any]) -> tuple[str, dict[str, Any]]:
        return items[0]


_TRACEBACK = _TracebackLine()


def parse_traceback_line(text: str) -> tuple[str, dict[str, Any]] | None:
    try:
        return _TRACEBACK.transform(parse(kinds.TRACEBACK_GRAMMAR, text.strip()))
    except LarkError:
        return None


# ------------------------------------------------------------------ native glog / NCCL WARN
_COMPONENTS = (
    (re.compile(r"nixl|gpunetio|ucx", re.I), "nixl"),
    (re.compile(r"rdma|transfer_engine|mooncake|tcp_transport|nvlink_transport", re.I), "mooncake"),
    (re.compile(r"nvshmem|deep_?ep", re.I), "deepep"),
)


# glog's ERROR and FATAL levels: the library reports a failure of its own (INFO and WARNING lines go on)
_FAILING_LEVELS = frozenset("EF")
_UCX_LEVELS = {"FATAL": "F", "ERROR": "E", "WARN": "W"}  # libucs ucs_log_level_names
# the head of UCX's own log line, its time and host optional (grammars/native_log.lark ucx_log): a record, never prose
UCX_LINE_HEAD = r"(?:\[\d+\.\d+\] \[[^\]]+\] +)?(?:[\w.-]+:\d+ +)?UCX  [A-Z]"
# the catalogued libraries that log through glog (Mooncake's LOG(ERROR), NIXL's absl/glog NIXL_ERROR): a glog line's
# file name is theirs only then (NCCL, NVSHMEM and FlashInfer print otherwise; "logging.cc", "env.cc" are any program's)
_GLOG_WRITERS = frozenset({"Mooncake", "NIXL"})
_VENDORED = re.compile(r"(?:^|/)(?:internal|absl|third_party|thirdparty|3rdparty)/")


def parse_native_line(text: str) -> tuple[str, dict[str, Any]] | None:
    try:
        tree = parse(kinds.NATIVE_LOG_GRAMMAR, text.strip())
    except LarkError:
        return None
    node = cast(Tree, tree.children[0])
    tokens = {t.type: str(t) for t in node.children if isinstance(t, Token)}
    message = tokens.get("MESSAGE", "")
    if node.data == kinds.NCCL_WARN:
        demoted = nccl_demoted.demoted_since(message)
        if demoted is not None:  # a later NCCL prints it as INFO: NCCL went on, no failure
            return kinds.NCCL_INFO, {"nccl_rank": int(tokens["INT"]), "message": message, "chain": False, "info_from": demoted}
        return kinds.NCCL_WARN, {"nccl_rank": int(tokens["INT"]), "message": message}
    if node.data == kinds.NCCL_INFO:
        return kinds.NCCL_INFO, {"nccl_rank": int(tokens["INT"]), "message": message, "chain": " -> " in message}
    # glog's level letter; UCX's level word as that letter (its FATAL and ERROR report a failure, the rest go on)
    level = tokens["GLOG_HEAD"][0] if node.data == "glog" else _UCX_LEVELS.get(tokens["UCX_LEVEL"], "I")
    srcloc = tokens.get("SRCLOC", "")
    component = next((name for rx, name in _COMPONENTS if rx.search(srcloc) or rx.search(message)), "native")
    data = {"level": level, "srcloc": srcloc, "component": component, "message": message}
    name, _, lineno = srcloc.rpartition(":")
    path = native_libraries.source_path(name.rsplit("/", 1)[-1]) if level in _FAILING_LEVELS else None
    if path is not None and (native_libraries.source_library(path) not in _GLOG_WRITERS or _VENDORED.search(path)):
        path = None  # a file name of a library that never logs through glog, or of code it vendors: any program's
    if path is not None:  # the released library's own path of the file: its code reported the error
        data["source"] = f"{path}:{lineno}"
    if node.data == "ucx_log" and level in _FAILING_LEVELS:  # UCX's own logger printed it: UCX's failure, any file
        data["printer"] = "UCX"
    return kinds.NATIVE_LOG, data

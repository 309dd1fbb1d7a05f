"""The one redaction of every output: secrets, e-mail addresses, user names in home paths, IP addresses and
host names replaced, in every command's document (analyze, triage, diff, plan; the bot's comment is triage's)
unless `--no-redact` (or triage's `--keep`) says otherwise.

Where it is applied: on the finished document (the dict every format renders), once, just before rendering.
Not at ingest, on the line text: there it would change what the grammars read (a `NAME=value` or an address
is part of a line's shape) and it would miss what does not come from a line (the input paths the user typed,
an issue's title). Not on the rendered text: the terminal view wraps a long cell across lines and HTML escapes
quotes, either of which can split a secret so that no pattern sees it whole. On the document every figure is
already a number (never touched: only strings are rewritten), and each string is whole when redacted.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any

from logscope.core.credentials import REDACTED, hides
from logscope.core.printable import map_strings

KINDS = ("token", "email", "path", "ip", "host")
_Replacement = str | Callable[[re.Match[str]], str]

_KEEP_HOSTS = ("github.com", "docs.sglang.ai", "pytorch.org", "docs.pytorch.org", "huggingface.co", "nvidia.com")

# IPv6 in every RFC 5952 / RFC 4291 text form: eight groups, or fewer around one "::" (at most seven then), an
# IPv4 tail (::ffff:10.0.0.1), a zone (%eth0); a port is outside the brackets ([fd00::1]:8080), which stay
_H = r"[0-9A-Fa-f]{1,4}"
_V4 = r"(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)"
_IPV6 = re.compile(
    rf"(?<![\w:.%])(?:(?:{_H}:){{7}}{_H}|(?:{_H}:){{6}}{_V4}"
    rf"|(?:(?:{_H}:){{0,6}}{_H})?::(?:(?:{_H}:){{0,6}}(?:{_H}|{_V4}))?)(?:%[\w.-]+)?(?![\w:.])"
)
# a dotted quad that is a version, not an address: after a version word or mark, or before a release suffix
_VERSION_BEFORE = re.compile(r"(?i)(?:version|ver|release|driver|build|v|==|>=|<=|~=|!=|[a-z]-)[\s:=]*\Z")
_VERSION_AFTER = re.compile(r"(?i)\A(?:[-+~](?=[a-z])|\.(?:post|dev|rc|a|b)\d)")
_IPV4 = re.compile(rf"(?<![\w.]){_V4}(?!\w|\.\w)")
# NCCL's own line prefix: host:pid:tid [device]
_NCCL_PREFIX = re.compile(r"(?<![\w.:-])[A-Za-z0-9][A-Za-z0-9._-]*(?=:\d+:\d+ \[\d+\])")
# a host name: lower-case dotted labels ending in letters; kept where it is a file name, a Python module path or
# attribute (an underscore, a capital, a known module root), or a version (numeric labels before the last)
_DOTTED = re.compile(r"(?<![\w.-])[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+(?![\w-]|\.\w)")
_HOST_LABELS = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.[a-z]{2,63}")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FILE_ENDINGS = _words(
    "py pyc pyi pyx so cc cpp cxx c h hh hpp cu cuh json yaml yml toml txt log md lark safetensors bin pt "
    "pth gguf sh gz bz2 xz zst tar zip whl csv tsv html htm ini cfg conf lock out err pem key crt onnx "
    "engine plan npz npy ckpt parquet jsonl pkl pickle sqlite db png jpg svg rs go java js ts cmake mk o "
    "a ptx cubin fatbin"
)
_TWO_LABEL_ENDINGS = _words("com net org io ai dev cloud internal local lan corp edu gov mil int")
# a module's parameter path, as a weight loader's KeyError names it ("KeyError: 'layers.0.attention.wk.weight'", probe
# sgl-project/sglang#519): torch.nn's modules name their parameters `weight` and `bias` (torch/nn/modules/linear.py
# Linear, Bilinear: self.weight = Parameter(...), self.bias = Parameter(...)), and a model's state dict keys end so
_PARAMETER_ENDINGS = _words("weight bias")
_MODULE_ROOTS = frozenset(sys.stdlib_module_names) | _words(
    "sglang sgl_kernel torch vllm triton transformers flashinfer deep_ep deepep deep_gemm nccl nvshmem "
    "mooncake nixl numpy np self cls cuda pynvml safetensors accelerate xformers ray uvicorn fastapi "
    "starlette pydantic zmq tqdm psutil requests setuptools pip einops aiohttp orjson msgspec outlines "
    "xgrammar huggingface_hub model config args server_args logscope polars lark rich typer yaml"
)


# Python logging's record head around %(name)s, the logger's dotted module name: a level (after an optional pid or
# " - ") right after it ("xinference.core.supervisor 109 ERROR", "vllm.engine - INFO -"), or a level and a colon before
# it ("ERROR:sglang.srt.managers:"); a host is never printed in that place
_LEVEL = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)"
_LOGGER_AFTER = re.compile(rf"\A\s+(?:-\s+)?(?:\d+\s+)?(?:-\s+)?{_LEVEL}\b")
_LOGGER_BEFORE = re.compile(rf"\b{_LEVEL}:\Z")


def _is_logger_name(match: re.Match[str]) -> bool:
    text, start, end = match.string, match.start(), match.end()
    labels = match.group(0).split(".")
    # a module path's parts are identifiers, and it does not end in a domain's suffix (`.com`, `.internal`)
    if not all(label.isidentifier() for label in labels) or labels[-1] in _TWO_LABEL_ENDINGS:
        return False
    return bool(_LOGGER_AFTER.match(text[end : end + 32]) or _LOGGER_BEFORE.search(text[max(start - 12, 0) : start]))


def _host(match: re.Match[str]) -> str:
    token = match.group(0)
    if _is_logger_name(match):
        return token
    stem, _, ending = token.rpartition(".")
    if ending in _FILE_ENDINGS:  # a file name: its stem may still be a host (`node17.cluster.internal.log`)
        return f"<redacted:host>.{ending}" if _is_host(stem) else token
    return "<redacted:host>" if _is_host(token) else token


def _is_host(token: str) -> bool:
    if token.endswith(_KEEP_HOSTS) or not _HOST_LABELS.fullmatch(token):
        return False
    labels = token.split(".")
    if labels[-1] in _FILE_ENDINGS or labels[-1] in _PARAMETER_ENDINGS or labels[0] in _MODULE_ROOTS:
        return False
    if all(label.isdigit() for label in labels[:-1]):
        return False
    # two plain words (`os.path`, `x.shape`) are a name in code far more often than a host
    return len(labels) > 2 or labels[1] in _TWO_LABEL_ENDINGS or bool(re.search(r"[\d-]", labels[0]))


def _ipv4(match: re.Match[str]) -> str:
    text, start, end = match.string, match.start(), match.end()
    if _VERSION_BEFORE.search(text[max(start - 24, 0) : start]) or _VERSION_AFTER.match(text[end : end + 8]):
        return match.group(0)
    return "<redacted:ip>"


def _ipv6(match: re.Match[str]) -> str:
    address = match.group(0).split("%")[0]
    # a C++ scope (`c10d::`, `at::b`) or a bare `::` is no address: a short one needs a digit and no dangling `::`
    groups = [group for group in re.split(r":+", address) if group]
    if len(groups) <= 2 and (not re.search(r"\d", address) or address.endswith("::")):
        return match.group(0)
    return "<redacted:ip>"


# a secret's shape, whatever the variable holding it: a long base62-ish value mixing cases and digits, with the
# entropy of random text (hex digests and words fall below it: they lack a case or repeat letters)
_RANDOM_VALUE = re.compile(r"(?<=[=:\s\"'])[A-Za-z0-9+/_-]{24,}={0,2}(?=$|[\s\"',;&)])")


# a kernel symbol as %pB prints it in a call trace ("knvlinkSyncLinkMasksAndVbiosInfo_IMPL+0xb7/0x1a0": name, offset, size;
# Linux lib/vsprintf.c): an identifier and two hex numbers, no secret
_KERNEL_SYMBOL = re.compile(r"[A-Za-z_][\w.]*\+0x[0-9a-f]+/0x[0-9a-f]+")


# an Itanium C++ mangled name, as "undefined symbol:" and native frames print it (`_ZN3c1017RegisterOperatorsD1Ev`:
# `_Z`, a nested name's `N` and its qualifiers, then an identifier its length prefixes, "3c10" for c10): no secret.
# The whole value must read as one (review14a item 10: a random value may open with `_Z4`): the Itanium C++ ABI's
# productions (itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling), read as a flat run of pieces whose openers
# (`N`, `I`, `J`, `F`, `Z`, `Ul`) each close on an `E`
_MANGLED = re.compile(r"_Z(?:N[KVrRO]*|L|Z)?(?:St)?(\d+)")
_MANGLED_PIECE = re.compile(
    r"(?P<name>\d+)"  # a source name: its length, then that many identifier characters (read below)
    r"|(?P<open>N[KVrRO]*|I|J|F|Z|Ul)"
    r"|(?P<close>E(?:\d*_)?)"  # a lambda's closes on its number (UlvE0_)
    r"|S[0-9A-Z]*_|S[tabsiod]"  # substitutions: S_, S0_, NS2_; std::, std::allocator, std::string ...
    r"|T[0-9A-Z]*_|Ut\d*_"  # template parameters, unnamed types
    r"|CI?[123]|D[012]"  # constructors, destructors
    r"|D[nhfsiacup]|Dv\d+_|DF\d+_?|A\d*_"  # extended builtin types, vector and array types
    r"|L[a-z]n?[0-9a-f]*E"  # a literal template argument (Li2E, Lb1E)
    r"|[BuL](?=\d)"  # an ABI tag (B5cxx11), a vendor type, an internal name: a source name follows
    r"|[KVrROPMY]"  # qualifiers and pointer, reference, pointer-to-member, extern "C"
    r"|[vwbcahstijlmxynofdegz]"  # builtin types
    # operator names
    r"|nw|na|dl|da|ps|ng|ad|de|co|pl|mi|ml|dv|rm|an|or|eo|aS|pL|mI|mL|dV|rM|aN|oR|eO|ls|rs|lS|rS|eq|ne|lt|gt|le|ge"
    r"|ss|nt|aa|oo|pp|mm|cm|pm|pt|cl|ix|qu|cv|li"
)
_IDENTIFIER_PIECE = re.compile(r"[A-Za-z_]\w*")


def _mangled(value: str) -> bool:
    """The whole value reads as an Itanium mangled name: after `_Z`, length-prefixed names, substitutions,
    qualifiers, constructor/destructor and type codes only, each opener closed; a name outside a nested name has
    the parameter types of a function after it."""
    head = _MANGLED.match(value)
    if head is None:
        return False
    at, depth, names = 2, 0, 0
    while at < len(value):
        piece = _MANGLED_PIECE.match(value, at)
        if piece is None:
            return False
        at = piece.end()
        if piece.group("name"):
            length = int(piece.group("name"))
            if length == 0 or at + length > len(value) or not _IDENTIFIER_PIECE.fullmatch(value[at : at + length]):
                return False
            at += length
            names += 1
        elif piece.group("open"):
            depth += 1
        elif piece.group("close"):
            depth -= 1
            if depth < 0:
                return False
    return depth == 0 and names > 0 and (value[2] in "NZ" or len(value) > head.end() + int(head.group(1)))


# a C++ or Python identifier written in CamelCase, as a kernel library names its functions in its errors
# ("BatchPrefillWithPagedKVCacheSM90Run failed with error: operation not supported", flashinfer-ai/flashinfer#807, built:
# FlashInfer's prefill dispatch): capitalised words, acronyms with a number (KV, SM90) and underscores only; a random
# value of 24 characters or more is almost never that (each lower-case letter must follow a word's capital or another)
_CAMEL_PIECE = re.compile(r"[A-Z][a-z]+|[A-Z]{1,4}\d{0,3}(?![a-z])|_")
# a spelled word: a capital, then lower-case letters with a vowel among them and no four consonants in a row (a
# random value's lower-case runs mostly have one or the other)
_CAMEL_WORD = re.compile(r"[A-Z](?=[a-z]*[aeiouy])(?![a-z]*[b-df-hj-np-tv-xz]{4})[a-z]{2,}")


def _camel_case(value: str) -> bool:
    """The value is CamelCase pieces from end to end (words, acronyms of up to four capitals and three digits, single
    underscores), three or more of them spelled words (a capital and two or more lower-case letters, as words are
    spelled) that make up three quarters of it."""
    at, words, spelled = 0, 0, 0
    for piece in _CAMEL_PIECE.finditer(value):
        if piece.start() != at:
            return False
        at = piece.end()
        if _CAMEL_WORD.fullmatch(piece.group(0)):
            words += 1
            spelled += len(piece.group(0))
    return at == len(value) and words >= 3 and 4 * spelled >= 3 * len(value)


# where a CamelCase value is known to be an identifier (review15b item 5: people write hand-made keys and passwords in
# CamelCase, "MyCompanyProductionApiSecretKeyV2"): a call's "(", a C++ scope's "::", a kernel symbol's "_IMPL", "failed" or
# "error" right after it, or "in", "at", "function", "kernel", "what():", "with error:" right before it (a frame, an error
# naming its function); a value ending in a version (V2, 2024) is not spared even there
_CODE_AFTER = re.compile(r"['\"]?(?:\(|::|_IMPL\b|\s+(?:failed|error)\b)")
_CODE_BEFORE = re.compile(r"(?:\b(?:in|at|function|kernel)|what\(\):|with error:?)\s*['\"]?\Z")
_VERSION_END = re.compile(r"(?:V\d+|\d{2,})\Z")


def _identifier_at(match: re.Match[str], value: str) -> bool:
    """The CamelCase value stands where code names an identifier (see _CODE_AFTER, _CODE_BEFORE)."""
    if _VERSION_END.search(value):
        return False
    text = match.string
    before = text[max(0, match.start() - 24) : match.start()]
    return _CODE_AFTER.match(text, match.end()) is not None or _CODE_BEFORE.search(before) is not None


def _entropy_secret(match: re.Match[str]) -> str:
    value = match.group(0).rstrip("=")
    if _KERNEL_SYMBOL.fullmatch(value) or _mangled(value) or (_camel_case(value) and _identifier_at(match, value)):
        return match.group(0)
    if not (re.search(r"[a-z]", value) and re.search(r"[A-Z]", value) and re.search(r"\d", value)):
        return match.group(0)
    if "/" in value.strip("/") and value.count("/") >= 2 and not re.search(r"\d.*\d.*\d.*\d", value):
        return match.group(0)  # a path
    counts = [value.count(c) for c in set(value)]
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts)
    return "<redacted:secret>" if entropy >= 4.0 else match.group(0)


# (kind, pattern, replacement); order matters: whole headers before the tokens inside them, a URL's password
# before the e-mail rule would take `user:pass@host` for an address
_RULES: tuple[tuple[str, re.Pattern[str], _Replacement], ...] = (
    ("token", re.compile(r"(?i)(authorization\s*[:=]\s*)(?:bearer|token|basic)?\s*\S+"), r"\1<redacted>"),
    ("token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"), "Bearer <redacted>"),
    ("token", re.compile(r"\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*"), "<redacted:jwt>"),
    ("token", re.compile(r"\bhf_[A-Za-z0-9]{10,}"), "<redacted:hf-token>"),
    (
        "token",
        re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),
        "<redacted:github-token>",
    ),
    ("token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), "<redacted:gitlab-token>"),
    ("token", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), "<redacted:google-key>"),
    (
        "token",
        re.compile(r"\b(?:npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{50,}|[sr]k_(?:live|test)_[A-Za-z0-9]{20,})"),
        "<redacted:api-key>",
    ),
    ("token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-[A-Za-z0-9-]{10,}"), "<redacted:slack-token>"),
    ("token", re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}"), "<redacted:api-key>"),
    ("token", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"), "<redacted:aws-key-id>"),
    ("token", re.compile(r"(?i)(aws_secret_access_key\s*[=:]\s*)\S+"), r"\1<redacted>"),
    # scheme://user:password@host
    ("token", re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s/:@]+:)[^\s/@]+@"), r"\1<redacted>@"),
    # password=..., DB_PASSWORD: ..., "pwd": "..." whatever the value's length
    ("token", re.compile(r"(?i)\b([A-Za-z0-9_]*(?:password|passwd|pwd)['\"]?\s*[=:]\s*['\"]?)[^\s'\"&,;]+"), r"\1<redacted>"),
    # NAME=value where NAME is a credential's (logscope.core.credentials: the rule the launch facts use too)
    (
        "token",
        re.compile(r"\b([A-Za-z][A-Za-z0-9_]*)(\s*[=:]\s*)['\"]?([^\s'\"]{6,})"),
        lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}" if hides(m.group(1), m.group(3)) else m.group(0),
    ),
    # a secret's command-line option (SGLang's --api-key, --admin-api-key; any --*-token, --*-secret, --*-password),
    # whatever the value's shape; a whole number after a --*-token option is a count (--kt-max-deferred-experts-per-token 2)
    (
        "token",
        re.compile(
            r"(?i)(--[a-z0-9-]*(?:api-key|token|secret|password|passwd)(?:\s*=\s*|\s+)['\"]?)(?!\d+(?:[\s'\"]|$)|<redacted)[^\s'\"]+"
        ),
        r"\1<redacted>",
    ),
    # an environment variable's key (OPENAI_KEY=..., MY_SERVICE_KEY: ...): upper case NAME_KEY
    ("token", re.compile(r"\b([A-Z][A-Z0-9_]*_KEY\s*[=:]\s*['\"]?)(?!<redacted)[^\s'\"]{6,}"), r"\1<redacted>"),
    ("token", _RANDOM_VALUE, _entropy_secret),
    ("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"), "<redacted:email>"),
    ("path", re.compile(r"(/home/|/Users/|C:\\Users\\)[^/\\\s]+"), r"\1<user>"),
    ("ip", _IPV6, _ipv6),
    # an address may end a sentence ("from 192.168.1.20."); a fifth number part (a version 1.2.3.4.5) is no address
    ("ip", _IPV4, _ipv4),
    ("host", _NCCL_PREFIX, "<redacted:host>"),
    ("host", _DOTTED, _host),
)
# A string the model cut to a length (evidence keeps 300 characters of a line) may end inside a secret that is
# then too short for its rule: the start of a known token, or of an address, at the very end is removed too.
_CUT: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "token",
        re.compile(
            r"(?:\b(?:hf_|gh[pousr]_|github_pat_|glpat-|AIza|eyJ|xox[abposre]-|xapp-|sk-)\S+|(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]+"
            r"|\b(?i:bearer)\s+\S+)\Z"
        ),
        "<redacted:cut>",
    ),
    ("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]*\Z"), "<redacted:cut>"),
)


# Every rule above needs one of these in the text (a separator, an address's dot or @, a path's slash, or a
# token's prefix): a string holding none is returned as it is, without running the rules one by one.
_MAY_HOLD = re.compile(
    r"[.:=@/\\\s\"']|hf_|gh[pousr]_|github_pat_|glpat-|AIza|eyJ|npm_|pypi-|[sr]k_|xox[abposre]-|xapp-|sk-|AKIA|ASIA|(?i:bearer)"
)


def redact(text: str, skip: Iterable[str] = ()) -> str:
    """`text` with every secret and personal detail of the kinds not in `skip` replaced."""
    if not _MAY_HOLD.search(text):
        return text
    return apply_rules(text, set(skip))


def apply_rules(text: str, skipped: set[str]) -> str:
    """Every rule of the kinds not skipped, one after the other (redact's slow path; tests compare the two)."""
    for kind, pattern, replacement in _RULES:
        if kind not in skipped:
            text = pattern.sub(replacement, text)
    for kind, pattern, replacement in _CUT:
        if kind not in skipped:
            text = pattern.sub(replacement, text)
    return text


def redact_document(document: Any, skip: Iterable[str] = ()) -> Any:
    """A copy of a document (dicts, lists, strings, numbers) with every string redacted, keys too. Numbers are
    left as they are. Values under a credential's name were never kept (launch_facts replaces them)."""
    skipped = frozenset(skip)
    if skipped >= set(KINDS):
        return document
    # a version stands alone in the document's `versions` ("5.0.21.47" is a dotted quad): read as the version it is
    as_version = len("version ")
    versions = {"versions": lambda text: redact(f"version {text}", skipped)[as_version:]}
    return map_strings(document, lambda text: redact(text, skipped), versions)

"""The library a failure stated in prose names: "... which calls FlashInfer's `TllmGenFmhaRunner` and fails
immediately with `Unsupported architecture`" (sglang-24633's form; a form seen in pastes). A sentence that states a
failure and names exactly one library of the table (catalog/python_modules.json: its verdict name or a top-level
module of its wheel; SGLang itself aside, as every paste is about it) says which library failed, in the user's words;
two libraries named say neither. A backend a server option chooses by the library's name (`--moe-runner-backend
flashinfer_trtllm`, `flashinfer_cutlass`: the choices of the releases' ServerArgs, catalog/server_flags.json) names that
library too, unless its words begin another library's name as well ("triton_kernel" is Triton's and
sgl-kernel's `triton_kernels`)."""

from __future__ import annotations

import re
from functools import cache

from logscope.core.code_spans import message_span
from logscope.core.native_libraries import library_names as native_library_names
from logscope.core.python_libraries import SGLANG, library_names
from logscope.core.server_flags import every_choice
from logscope.pipeline.parse.signatures.library import JIT_MODULES, Raiser

BASIS = "the sentence that states the failure names it (the issue's own words)"


@cache
def _names() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each library's spellings (verdict name, module names; "-" and "_" alike) as a word pattern."""
    out = []
    names = library_names()
    for library, spellings in names.items():
        if library == SGLANG:
            continue
        spellings = spellings | _backends_named(library, names)
        forms = sorted({re.escape(s).replace("_", "[-_]").replace(r"\-", "[-_]") for s in spellings}, key=len, reverse=True)
        out.append((re.compile(r"(?<![\w./-])(?:" + "|".join(forms) + r")(?![\w/-])", re.IGNORECASE), library))
    return tuple(out)


def _backends_named(library: str, names: dict[str, set[str]]) -> set[str]:
    """The option choices whose first words are one of the library's names and begin no other library's name."""

    def plain(word: str) -> str:
        return word.lower().replace("-", "_")

    own = {plain(s) for s in names[library]}
    others = {plain(s) for other, spellings in names.items() if other != library for s in spellings}
    return {
        choice
        for choice in every_choice()
        if any(plain(choice).startswith(name + "_") for name in own)
        and not any(other.startswith(plain(choice)) or plain(choice).startswith(other) for other in others)
    }


# a name the sentence sets aside ("even without flashinfer", "not NCCL", "instead of DeepEP", "switched away from
# FlashInfer"): up to two words may stand between the word and the name
_SET_ASIDE = re.compile(
    r"(?i)\b(?:without|not|no|instead of|rather than|away from|(?:switched|moved) from|other than|except)\s+(?:\S+\s+){0,2}$"
)


# where a sentence names the library as what failed, not as a setting, context or intent ("I am using the triton
# attention backend", "so I cannot test the new DeepGEMM kernels", "DeepEP is installed but not used"): the name as the
# verb's subject ("FlashInfer fails", "DeepGEMM raises"), its owner ("FlashInfer's kernel"), the place it failed in ("in
# FlashInfer", "from DeepGEMM", "inside NCCL"), or the condition the failure came with ("with DeepGEMM enabled")
# ... or the module whose import failed ("import mooncake module, the core dumped happens", "importing deep_ep
# segfaults": the library's own load code ran, its shared objects' initialisers included)
_RAISER_BEFORE = re.compile(r"(?i)\b(?:in|from|inside|within|by|import(?:ing|s)?)\s+(?:the\s+)?[`'\"]?$")
_RAISER_AFTER = re.compile(
    r"(?i)^[`'\"]?(?:'s\b|\s+(?:itself\s+)?(?:crash|fail|error|raise|throw|abort|segfault|hang)\w*\b|"
    r"\s+(?:enabled|on|turned on)\b)"
)
_WITH_BEFORE = re.compile(r"(?i)\bwith\s+(?:the\s+)?[`'\"]?$")


# the name before the nouns of its own code being built or run, a compound that stands as what failed: "the FlashInfer
# JIT compilation of sampling kernels fails", "a FlashMLA kernel crash", or the step it failed at ("failing at the
# FlashMLA compilation step", "during the DeepGEMM JIT build"). Only these nouns: "the flashinfer backend fails" is a
# setting (above), "FlashInfer version 0.2.5" a version. (At most four nouns: a run of them is read once per name)
_OWN_CODE = r"(?:jit|aot|compil\w*|build(?:s|ing)?|kernels?|extensions?|ops?|wheels?)"
_COMPOUND_FAILS = re.compile(
    r"(?i)^[`'\"]?(?:\s+" + _OWN_CODE + r"){1,4}(?:\s+of\s+(?:[\w-]+\s+){0,2}?[\w-]+)?"
    r"\s+(?:(?:is|are|was|were|keeps|also)\s+)?(?:crash|fail|error|abort|segfault|break|die)\w*\b"
    # or the name, its op quoted, then the failure as a noun: "an NCCL `ALLREDUCE` timeout during ..." (not a setting
    # of it: "the NCCL timeout to 7200", "NCCL timeout of 1800 s", "= 600")
    r"|^\s+`[^`\s]{1,40}`\s+(?:timeout|time-out|hang|crash|error|failure)s?\b(?!\s*(?:to|of|=|:)?\s*\d)"
)
# the name right before a code span that quotes a failure's message: the library's own words ("the DeepEP `timeout
# (dispatch CPU)` recurred", "NCCL `unhandled system error`")
_OWN_MESSAGE = re.compile(r"(?i)^\s+`(?P<span>[^`]{0,60}?\b(?:timeout|timed out|error|failure|exception|crash)\w*\b[^`]{0,80})`")
_AT_STEP_BEFORE = re.compile(r"(?i)\b(?:at|during|in)\s+(?:the\s+)?[`'\"]?$")
_AT_STEP_AFTER = re.compile(r"(?i)^[`'\"]?(?:\s+" + _OWN_CODE + r"){1,4}(?:\s+(?:step|stage|phase))?\b")


def _as_raiser(sentence: str, start: int, end: int) -> bool:
    """The name at sentence[start:end] stands where the library that failed stands (_RAISER_BEFORE/_RAISER_AFTER,
    _COMPOUND_FAILS, _AT_STEP_BEFORE/_AT_STEP_AFTER)."""
    before, after = sentence[:start], sentence[end:]
    if _COMPOUND_FAILS.match(after):
        return True
    # (the span must read as a message: a setting, `TIMEOUT=1800`, or an option name names no failure, review15c item 5)
    own = _OWN_MESSAGE.match(after)
    if own and message_span(own.group("span")):
        return True
    if _AT_STEP_BEFORE.search(before[-40:]) and _AT_STEP_AFTER.match(after):  # (its tail: no rescan of the sentence)
        return True
    if _WITH_BEFORE.search(before):  # "with DeepGEMM enabled": a condition; "with the triton backend": a setting
        return bool(re.match(r"(?i)[`'\"]?\s+(?:enabled|on|turned on)\b", after))
    if re.match(r"(?i)[\s-]+(?:mode|backend|attention|version)\b", after):  # "in DeepEP mode": a setting
        return False
    if _SENTENCE_SUBJECT_BEFORE.match(before) and _SUBJECT_FAILS.match(after):
        return True  # "FlashInfer trtllm kernel for nvfp4 MoE model ... errors out." (flashinfer-3206's first line)
    return bool(_RAISER_BEFORE.search(before) or _RAISER_AFTER.match(after))


# the name opens the sentence and its own clause says it fails: the sentence's subject, with words that qualify it
_SENTENCE_SUBJECT_BEFORE = re.compile(r"^[\W_]*$")
_SUBJECT_FAILS = re.compile(
    r"(?i)^(?:(?!\b(?:but|so|and|although|though|while|because|when|if|not|never)\b)[^,;:.?!])*?"
    r"\b(?:crash|fail|error|raise|throw|abort|segfault)\w*"
)


@cache
def _native_names() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The native libraries of catalog/libraries.json that no Python package names (NCCL, UCX, NVSHMEM, FlashMLA), by
    their verdict name as a word."""
    python = set(library_names())
    return tuple(
        (re.compile(r"(?<![\w./-])" + re.escape(name) + r"(?![\w/-])", re.IGNORECASE), name)
        for name in native_library_names()
        if name not in python
    )


def stated_raiser(sentence: str, as_raiser: bool = False) -> Raiser | None:
    """The one library the sentence names (and does not set aside), or None. With as_raiser (the sentence names the
    library of a failure the LOG shows): only a name that stands as what failed (_as_raiser) counts, as a sentence
    names many libraries it does not blame (a setting, an intent, one installed but not used). A native library no
    Python package names (NCCL, UCX, NVSHMEM, FlashMLA) counts only where it stands as what failed: a sentence
    names NCCL for its settings and its init far more often than as the failing code."""
    named = {
        library
        for pattern, library in (*_names(), *JIT_MODULES)  # a JIT module it built names it too (sgl_kernel_jit_*)
        for found in pattern.finditer(sentence)
        if not _SET_ASIDE.search(sentence[: found.start()])
        and (not as_raiser or _as_raiser(sentence, found.start(), found.end()))
    }
    named |= {
        library
        for pattern, library in _native_names()
        for found in pattern.finditer(sentence)
        if not _SET_ASIDE.search(sentence[: found.start()]) and _as_raiser(sentence, found.start(), found.end())
    }
    if len(named) != 1:
        return None
    return Raiser(named.pop(), BASIS, None)

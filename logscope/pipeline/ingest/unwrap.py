"""Unwrapping before classification: a logical line that holds other lines, or a message someone wrapped, is
read as the lines inside it, and each event says how it was unwrapped (the evidence shows it).

- JSON string bodies: `{"error":{"message":"CUDA out of memory. ..."}}` is read as the decoded string, a
  traceback inside one (escaped newlines) as its lines.
- Tracebacks flattened onto one line with literal `\\n` (a repr in a log record, a one-line log shipper).
- Terminal or hand re-wraps of a known long message (PyTorch's OOM text broken over lines): the pieces are
  joined again (`Rewrap`), so the numbers of its later sentences are read.
- Quoted prose: a message quoted with "..." inside a sentence of an issue.
Paste wrappers (docker compose, kubectl, Ray, cloud exporters, Markdown quotes) are removed by ingest first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

JSON_STRING = "a JSON string"
# SGLang's OpenAI-compatible error body (sglang 0.5.x entrypoints/openai/protocol.py ErrorResponse: object="error",
# message, type, param, code): a request's answer, so the server was serving when it was written
API_ERROR = "an API error response"
_API_ERROR = re.compile(r'"object"\s*:\s*"error"')
# the body's HTTP status: a 4xx is the client's bad request the server answered as designed (a body shown as the
# router's documented format holds one too), no failure of the server
_API_ERROR_CODE = re.compile(r'"code"\s*:\s*"?(\d{3})\b')
FLATTENED = "a line flattened with \\n"
# a structured log record (one JSON object a line) at a failing level: its message is read as a failure's line (the
# classifier reads a JSON_RECORD piece as a line that reads like a failure, whatever its words).
# The keys and level names of the common JSON encoders: go.uber.org/zap's production encoder config ("level", "msg",
# "error", levels "error" / "dpanic" / "panic" / "fatal"), Go's log/slog JSONHandler ("level": "ERROR", "msg"), logrus's
# JSONFormatter ("level", "msg", "error"), Python JSON formatters ("levelname"), Google Cloud Logging ("severity");
# "message" as a custom encoder names it (a Kubernetes controller's zap record, rbg-12)
JSON_RECORD = "a JSON log record"
# the failing levels of those loggers, one table for every reader of a record's level (this module, the prefilter's
# literals, ingest's logger prefixes): zap's error / dpanic / panic / fatal, slog's and logrus's ERROR / error / fatal /
# panic, Python logging's CRITICAL, Cloud Logging's severities ERROR / CRITICAL / ALERT / EMERGENCY, syslog's short
# names (err, crit, emerg); matched in any case
FAILING_RECORD_LEVELS = ("error", "err", "fatal", "panic", "dpanic", "critical", "crit", "alert", "emerg", "emergency")
_LEVEL_WORD = "(?i:(" + "|".join(sorted(FAILING_RECORD_LEVELS, key=len, reverse=True)) + "))"
_RECORD_LEVEL = re.compile(r'"(?:level|severity|levelname|lvl)"\s*:\s*"' + _LEVEL_WORD + '"')
# the same in logfmt, the text form of the same loggers: logrus's TextFormatter without a terminal
# (time="..." level=error msg="..." error="..."), Go's log/slog TextHandler (time=... level=ERROR msg=...)
LOGFMT_RECORD = "a logfmt log record"
# an API error body whose message no reader took ('{"object":"error","message":"The input is too long",...,"code":400}',
# SGLang's ErrorResponse above): the server refused or failed a request, whatever the message's words, so its message is
# read as a failing record's (a line that reads like a failure)
API_ERROR_RECORD = "an API error response's message"
FAILING_RECORDS = frozenset({JSON_RECORD, LOGFMT_RECORD, API_ERROR_RECORD})
_LOGFMT_LEVEL = re.compile(r"(?:^|[\s`])level=" + _LEVEL_WORD + r"(?=[\s`]|$)")
_LOGFMT_VALUE = r'=("(?:[^"\\]|\\.)*"|[^\s"`]+)'
# a line that is a record and nothing else (a logger wrote it; prose that quotes a record or a level is no record): a JSON
# object, or key=value pairs only, either alone or as an inline code span
_WHOLE_JSON = re.compile(r"^\s*`?\s*\{.*\}\s*`?\s*$")
_LOGFMT_PAIR = r'[\w.-]+=(?:"(?:[^"\\]|\\.)*+"|[^\s"`]*+)'
_WHOLE_LOGFMT = re.compile(r"^\s*`?" + _LOGFMT_PAIR + r"(?:\s+" + _LOGFMT_PAIR + r")*+`?\s*$")
_LOGFMT_MESSAGE = re.compile(r"(?:^|[\s`])msg" + _LOGFMT_VALUE)
_LOGFMT_ERROR = re.compile(r"(?:^|\s)(?:error|err)" + _LOGFMT_VALUE)
_RECORD_MESSAGE = re.compile(r'"(?:msg|message)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_RECORD_ERROR = re.compile(r'"(?:error|err)"\s*:\s*"((?:[^"\\]|\\.)*)"')
REWRAPPED = "lines re-wrapped"

# a JSON string literal long enough to hold a message (escapes kept; decoded by json.loads)
_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.){24,})"')
_JSON_SHAPE = re.compile(r'[{,\[]\s*"[\w.-]+"\s*:\s*[{"\[]')
_LITERAL_NEWLINES = re.compile(r"(?:\\r)?\\n")
# a traceback or native backtrace on one line: one of its openers or frames right after a literal \n
_FLAT_TRACEBACK = re.compile(
    r"Traceback \(most recent call last\):\\n|\\n\s*(?:File \"|frame #\d|#\d+\s|==== backtrace"
    r"|Exception raised from|Fatal Python error|\*\*\* SIG|\d+\s+/\S+\(|PC: @|\[\d{4}-\d\d-\d\d \d\d:|[IWEF]\d{4}(?:\d{4})? \d\d:"
    r"|Last error:|Cuda failure '|CUDA error \(|CUDA error in /|CUDA Error: "
    r"|\[[^\]]*\] Caught signal \d|Program terminated with signal|goroutine \d+ \["
    r"|(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception): )"
)  # torch's NCCL exception: "...Last error:\nCuda failure '...'"; a kernel library's CUDA check; UCX's and gdb's
# signal lines; the Go runtime's goroutine dump after its fatal error (src/runtime/traceback.go goroutineheader:
# "goroutine 1 [chan receive]:"); an exception line (a traceback pasted without its header ends with one); a glog
# line (Mooncake's, NIXL's)
_QUOTED = re.compile(r'"([^"]{16,2000})"|\u201c([^\u201d]{16,2000})\u201d')


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    how: str | None = None  # None: the line as it came


def expand(line: str, wanted: Callable[[str], object] | None = None) -> list[Piece]:
    """The lines a logical line holds (itself when it holds none). `wanted` tells a JSON string worth reading
    (the classifier passes its prefilter); without it, one that reads like a failure."""
    if '"' in line and _JSON_SHAPE.search(line):
        record = _failing_record(line) or _api_error_record(line)
        pieces = _json_pieces(line, wanted or _reads_like_a_failure)
        if record is not None and not any(p.text == record[1] for p in pieces):
            return [record[0], *(p for p in pieces if p.text not in record[0].text)]
        if record is not None and record[0].how == JSON_RECORD:
            # the message read as a line of its own is still a failing record's (zap's and slog's flat "msg", the
            # nested "fields" one alike): a failure line whatever else its words say (review15b item 16)
            return [Piece(p.text, JSON_RECORD) if p.text == record[1] else p for p in pieces]
        if pieces:
            return pieces
    if "level=" in line and "msg=" in line:
        logfmt = _failing_logfmt(line)
        if logfmt is not None:
            return [logfmt]
    if "\\n" in line and _FLAT_TRACEBACK.search(line):
        return [Piece(p, FLATTENED) for p in _split_flat(line) if p.strip()]
    return [Piece(line)]


def _json_pieces(line: str, wanted: Callable[[str], object]) -> list[Piece]:
    out: list[Piece] = []
    how = API_ERROR if _API_ERROR.search(line) else JSON_STRING
    for m in _JSON_STRING.finditer(line):
        value = _json_text(m.group(1))
        if value is None or " " not in value or not wanted(value):
            continue
        out += [Piece(p, how) for p in value.splitlines() if p.strip()]
    return out


def _failing_record(line: str) -> tuple[Piece, str] | None:
    """A JSON log record at a failing level whose message is one line: the line "<message>: <error>" and the message,
    or None. (A message read as a line of its own speaks for itself: the record line is for the short or
    wordless messages that would otherwise be read as nothing.)"""
    level = _RECORD_LEVEL.search(line)
    message = _RECORD_MESSAGE.search(line)
    if level is None or message is None or not _WHOLE_JSON.match(line):
        return None
    text = _decoded(message.group(1))
    if not text or "\n" in text:
        return None  # a message of several lines (a traceback) is read as its lines
    error = _RECORD_ERROR.search(line)
    cause = None if error is None else _decoded(error.group(1))
    said = text if not cause else f"{text.rstrip('.')}: {cause.splitlines()[0]}"
    return Piece(said, JSON_RECORD), text


def _api_error_record(line: str) -> tuple[Piece, str] | None:
    """An API error body's message of one line, as a failing record's line and the message, or None."""
    if _API_ERROR.search(line) is None:
        return None
    code = _API_ERROR_CODE.search(line)
    if code is not None and not code.group(1).startswith("5"):
        return None  # (only a 5xx, or no code, is the server's failure)
    message = _RECORD_MESSAGE.search(line)
    text = None if message is None else _decoded(message.group(1))
    if not text or "\n" in text or " " not in text.strip():
        return None  # (a placeholder, "message": "...", as a document of the format writes it, is no message)
    return Piece(text, API_ERROR_RECORD), text


def failing_level_literals() -> tuple[str, ...]:
    """Text every failing record holds, for the prefilter: a failing level as a JSON string value or a logfmt level
    (lower, upper and capitalised, as the loggers above write them)."""
    spelled = [form for level in FAILING_RECORD_LEVELS for form in dict.fromkeys((level, level.upper(), level.capitalize()))]
    return (*(f'"{form}"' for form in spelled), *(f"level={form}" for form in spelled))


def _failing_logfmt(line: str) -> Piece | None:
    """A logfmt record at a failing level, as the line "<message>: <error>", or None."""
    level, message = _LOGFMT_LEVEL.search(line), _LOGFMT_MESSAGE.search(line)
    if level is None or message is None or not _WHOLE_LOGFMT.match(line):
        return None
    text = _logfmt_value(message.group(1))
    if not text:
        return None
    error = _LOGFMT_ERROR.search(line)
    cause = None if error is None else _logfmt_value(error.group(1))
    return Piece(text if not cause else f"{text.rstrip('.')}: {cause}", LOGFMT_RECORD)


def _logfmt_value(value: str) -> str | None:
    return _decoded(value[1:-1]) if value.startswith('"') else value


def _decoded(escaped: str) -> str | None:
    """A JSON string literal's body decoded and stripped, or None when it is no valid one."""
    text = _json_text(escaped)
    return None if text is None else text.strip()


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_text(escaped: str) -> str | None:
    """A JSON string literal's body decoded, or None when it is no valid one. A lone surrogate escape (`\\ud800`, valid
    JSON but no character) becomes U+FFFD, as a lossy UTF-8 decode reads a broken byte: the text must stay encodable."""
    try:
        value = json.loads(f'"{escaped}"')
    except ValueError:
        return None
    return _LONE_SURROGATE.sub("\ufffd", str(value))


def _reads_like_a_failure(value: str) -> bool:
    return bool(re.search(r"[Ee]rror|[Ee]xception|[Ff]ailed|out of memory|Traceback|\n", value))


def _split_flat(line: str) -> list[str]:
    return [p.replace('\\"', '"').replace("\\'", "'") for p in _LITERAL_NEWLINES.split(line)]


def quoted_spans(text: str) -> list[str]:
    """Messages quoted with double quotes (straight or curly) inside a sentence."""
    return [a or b for a, b in _QUOTED.findall(text)]


# ------------------------------------------------------------------ re-wrapped messages
# the head of a message that is long enough to be wrapped, and the words its last sentence holds
_LONG_HEADS = ("out of memory. Tried to allocate",)
_COMPLETE = re.compile(r"but unallocated|reserved in total by PyTorch\)|expandable_segments|Environment Variables\)")
# PyTorch 2.1+ goes on after "... of which X is free." with these sentences; a line ending at "is free." is a
# complete message unless the next line starts one of them
_ENDS_AT_FREE = re.compile(r"\bis free\.\s*$")
_AFTER_FREE = re.compile(r"^\s*(?:Including non-PyTorch memory|Process \d+ has|Of the allocated memory|this process has)")
WRAP_WIDTHS = frozenset({80, 100, 120, 132, 160, 200})  # a line cut at exactly these widths was cut mid-word
_RECORD_START = re.compile(r"^\s*\[\d")  # a prefixed log record starts a line of its own
MAX_REWRAP_LINES = 8


def needs_more(text: str) -> bool:
    """A known long message whose last sentence is not on this line: its next lines may hold the rest."""
    return any(head in text for head in _LONG_HEADS) and not _COMPLETE.search(text)


def continues_after(text: str, following: str) -> bool:
    """`following` carries on the message `text` (a line that needs more): any line, except after a sentence
    that can end the message ("... is free."), where only the message's own next sentences do."""
    return not _ENDS_AT_FREE.search(text) or bool(_AFTER_FREE.match(following))


# table borders: a row of a drawn table (nvidia-smi, nvitop) that fills the width ends at its border; it was not cut
_BORDERS = frozenset("|│┃║╕╛┐┘┤╡╣╗╝+╒╘┌└├╞╠╔╚─═━")


def _table_row(line: str, following: str) -> bool:
    return line.rstrip()[-1:] in _BORDERS or following.lstrip()[:1] in _BORDERS


def _ends_whole(line: str) -> bool:
    """A line that ends where its writer ended it, whatever its width: a shell line continued with a backslash, a
    line padded with spaces to the width (a dump whose every line was filled to 200 columns), or a line with tabs
    (its characters are not its columns: nvidia-smi topo's tab-aligned rows)."""
    return line.endswith(("\\", "  ")) or "\t" in line


def terminal_wraps(
    lines: Sequence[str], wanted: Callable[[str], bool], is_record: Callable[[str], bool], wide: list[int] | None = None
) -> dict[int, tuple[str, int]]:
    """Lines a terminal cut at its width, joined again: index of the first piece → (joined text, pieces).

    A physical line of exactly 80, 100, 120, ... characters followed by lines that are no record of their own
    is one line cut by the terminal; only joins whose text is `wanted` (holds a prefilter literal) are kept, so
    the classifier reads them where it would have read the uncut line. `wide`: the lines of those widths, where
    the caller found them faster than by measuring each line."""
    if wide is None:
        wide = [i for i in range(len(lines) - 1) if len(lines[i]) in WRAP_WIDTHS]
    if not wide:
        return {}
    full = [
        i
        for i in wide
        if not _RECORD_START.match(lines[i + 1]) and not _table_row(lines[i], lines[i + 1]) and not _ends_whole(lines[i])
    ]
    out: dict[int, tuple[str, int]] = {}
    taken = -1
    for index in full:
        if index <= taken:
            continue
        text, end = lines[index], index + 1
        if 'File "' in text:
            continue
        while end < len(lines) and end - index < MAX_REWRAP_LINES:
            piece = lines[end]
            if not piece.strip() or is_record(piece):
                break
            text += piece
            end += 1
            if len(piece) not in WRAP_WIDTHS:
                break
        if end > index + 1 and wanted(text):
            out[index] = (text, end - index)
            taken = end - 1
    return out


# ------------------------------------------------------------------ lines padded to a width and glued
PADDED_MIN = 3 * 40  # three rows of the narrowest width looked for
_PADDED_MAX = 256 * 1024  # a longer line is no pasted dump
_PAD_WIDTHS = range(40, 401)
_PAD_HITS = 0.6  # rows that end in padding and start a word where the next row starts
_PAD = " " * 8  # padding, not the gap between two aligned columns of a table (nvidia-smi topo's cells are 8 wide)


def padded_rows(line: str) -> list[str] | None:
    """The lines of a dump whose every line was padded with spaces to one width and glued into one (a screen or a
    web log viewer copied without its line ends: check_env at exactly 200 columns a line), or None. The width is
    the narrowest one at which most row boundaries fall between padding (8 spaces or more) and the start of a word;
    a row filled to the width without padding was a longer line that went on to the next row."""
    size = len(line)
    if not PADDED_MIN <= size <= _PADDED_MAX or "    " not in line:
        return None
    for width in _PAD_WIDTHS:
        boundaries = range(width, size, width)
        if len(boundaries) < 2:
            return None
        hits = sum(1 for k in boundaries if line[k] != " " and line.startswith(_PAD, k - len(_PAD)))
        if hits >= _PAD_HITS * len(boundaries):
            return _rows(line, width)
    return None


def _rows(line: str, width: int) -> list[str]:
    rows: list[str] = []
    current = ""
    for start in range(0, len(line), width):
        piece = line[start : start + width]
        current += piece
        if piece.endswith(" ") or len(piece) < width:
            rows.append(current.rstrip())
            current = ""
    if current:
        rows.append(current.rstrip())
    return [row for row in rows if row.strip()]


# ------------------------------------------------------------------ check_env run into one line
# SGLang's check_env prints one "key: value" a line (sglang 0.5.23 check_env.py check_env: f"{k}: {v}"; keys "Python",
# "CUDA available" / "ROCM available" / "NPU available", "GPU {ids}" and "GPU {ids} Compute Capability", "CUDA_HOME",
# "NVCC", "CUDA Driver Version" and their ROCm names, "PyTorch", one lower-case key a package of its package list with
# its version or "Module Not Found", "NVIDIA Topology" / "AMD Topology", "Hypervisor vendor", "ulimit soft"). A copy of
# the rendered page (a reply quoting the report, a web view) runs the lines into one, a space between them: they are
# split again before each key, where at least _GLUED_KEYS of them stand in the line after a "Python: 3." one.
_CHECK_ENV_KEY = re.compile(
    r"(?<= )(?=Python: \d|(?:CUDA|ROCM|NPU) available: |GPU \d+(?:,\d+)*(?: Compute Capability)?: "
    r"|(?:CUDA|ROCM)_HOME: |NVCC: |HIPCC: |(?:CUDA|ROCM) Driver Version: |PyTorch: |(?:NVIDIA|AMD) Topology:"
    r"|Hypervisor vendor:|ulimit soft:|[a-z][a-z0-9_-]*: (?:\d[\w.+-]*|Module Not Found)(?: |$))"
)
# torch's collect_env the same way (torch/utils/collect_env.py env_info_fmt, torch 1.x .. 2.x: "PyTorch version: ", "Is
# debug build: ", "CUDA used to build PyTorch: ", ..., "Is XPU available: " and "Caching allocator config: " in the newer
# releases, then "Versions of relevant libraries:" and the "[pip3] " / "[conda] " rows; vLLM's copy adds "vLLM Version: "),
# a GPU of "GPU models and configuration" on a line of its own as the several-GPU form prints it
_COLLECT_ENV_KEY = re.compile(
    r"(?<= )(?=(?:PyTorch version|Is debug build|CUDA used to build PyTorch|ROCM used to build PyTorch|OS|GCC version"
    r"|Clang version|CMake version|Libc version|Python version|Python platform|Is CUDA available|CUDA runtime version"
    r"|CUDA_MODULE_LOADING set to|GPU models and configuration|Nvidia driver version|cuDNN version|Is XPU available"
    r"|HIP runtime version|MIOpen runtime version|Is XNNPACK available|Caching allocator config|vLLM Version|CPU"
    r"|Versions of relevant libraries|GPU \d+): |\[(?:pip3?|conda)\] )"
)
_GLUED_KEYS = 6
GLUED_MIN = 100  # six keys and their values run into one line are longer: a shorter line is not looked into (hot path)


def glued_check_env(line: str) -> list[str] | None:
    """check_env's (or torch's collect_env's) lines again, where a copy ran them into one line (each key after a
    space), or None."""
    at = line.find("Python: 3")
    keys = _CHECK_ENV_KEY
    if at < 0 or "PyTorch: " not in line:
        at, keys = line.find("PyTorch version: "), _COLLECT_ENV_KEY
        if at < 0:
            return None
    starts = [m.start() for m in keys.finditer(line, at)]
    if len(starts) < _GLUED_KEYS:
        return None
    bounds = [0, *starts, len(line)] if starts[0] > 0 else [*starts, len(line)]
    rows = [line[a:b].rstrip() for a, b in zip(bounds, bounds[1:])]
    return [row for row in rows if row.strip()]


@dataclass
class Rewrap:
    """A message being joined back from the lines it was broken into."""

    first: int
    text: str
    last_width: int
    lines: int = 1

    def add(self, text: str) -> None:
        glue = "" if self.last_width in WRAP_WIDTHS and not self.text.endswith(" ") else " "
        self.text = self.text.rstrip() + glue + text.strip() if glue else self.text + text.lstrip()
        self.last_width = len(text)
        self.lines += 1

    def complete(self) -> bool:
        return self.lines >= MAX_REWRAP_LINES or not needs_more(self.text)

    def takes(self, text: str) -> bool:
        return continues_after(self.text, text)

"""Logical lines → events, one source at a time.

A line reaches a lark grammar only when it holds one of the prefilter literals and has that grammar's
shape. Multi-line records (check_env output, tracebacks, nvidia-smi dumps) are read by small block
readers that the same loop drives. Every candidate line that no grammar recognises is kept for the
coverage report.
"""

from __future__ import annotations

import re
import shlex
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from logscope.core import kinds
from logscope.core.events import Event, SourceEvents
from logscope.core.limits import READ_CAP, READ_GAP
from logscope.core.model import NEW_WORDING, TEXT_KEEP, Coverage
from logscope.pipeline.ingest.gutters import may_be_decorated, undecorated
from logscope.pipeline.ingest.ingest import LineChunk, Source, clean, unwrap
from logscope.pipeline.ingest.unwrap import (
    FAILING_RECORDS,
    REWRAPPED,
    WRAP_WIDTHS,
    Piece,
    Rewrap,
    expand,
    needs_more,
    quoted_spans,
    terminal_wraps,
)
from logscope.pipeline.parse import failing_records, literal_set, pip_status, prefilter, serving, wordings
from logscope.pipeline.parse.failing_records import logged_as_failure, logged_at_failing_level, record_meaning
from logscope.pipeline.parse.parsers import catalogue, sglang_line, stated_failure, time_claims, time_cues
from logscope.pipeline.parse.parsers.base import (
    FAILURE_WORDS,
    PREFIX_TEXT,
    PREFIXED,
    BlockReader,
    Parsed,
    message_after_prefix,
    prefix_of,
)
from logscope.pipeline.parse.parsers.blocks import (
    ExceptionsBeforeTracebacks,
    TracebackReader,
    exception_printed_before_its_traceback,
    logged_exception,
)
from logscope.pipeline.parse.parsers.command_shapes import (
    PYTHON_M_SGLANG,
    WRAPPED_COMMAND,
    after_label,
    argv_in_a_sentence,
    argv_words,
    behind_prompt,
    command_line,
)
from logscope.pipeline.parse.parsers.command_text import (
    command_in_sentence,
    quoted_command,
    quoted_in_its_words,
    valued_words,
)
from logscope.pipeline.parse.parsers.other_lines import UCX_LINE_HEAD
from logscope.pipeline.parse.parsers.prose_guards import (
    CLAUSE,
    DENIED,
    NAMED_IN_SENTENCE,
    NEGATED,
    OTHER_ENGINES,
    ZERO_COUNT,
    code_failure_text,
)
from logscope.pipeline.parse.parsers.registry import EXCEPTIONS_MODULE_CLASS, LINE_GRAMMARS, block_readers, flag_line
from logscope.pipeline.parse.parsers.stated_env import (
    IMAGE_TAG,
    SENTENCE,
    TORCH_NCCL_ERROR,
    holds_tag,
    mounted_over,
    sentence_version,
    tag_replaced,
    version_before_failure,
)
from logscope.pipeline.parse.repeats import Reading, RepeatedLines
from logscope.pipeline.parse.seen_lines import SeenLines
from logscope.pipeline.parse.serving import SERVING_BYTES, SERVING_MARK
from logscope.pipeline.parse.signatures.loader import WARNING_LINE, bundled_signatures
from logscope.pipeline.parse.status_lines import is_a_status_line

_FULL_KEEP = 4000
_CATALOGUE_CHARS = 4000  # a longer line is no log record: it is not searched for wordings
_CODE_SPAN = re.compile(r"`([^`]{6,2000})`")
# the head of SGLang's server_args dump (catalog/sglang.json: "server_args={server_args!r}", logged at info by
# sglang.srt.entrypoints.engine, releases 0.3.0 .. 0.5.23)
_DUMP_HEAD = "server_args=ServerArgs("
# an exception named in parentheses in a sentence: "it crashed (AssertionError: Committed KV cache already freed
# (self.kv_committed_len=14))", one level of parentheses inside; also when cut before the closing parenthesis
# a launch command in a string of code that goes on past the line (cmd = """python -m sglang.launch_server ...):
# the rest of the line after the opening quote
_QUOTED_LAUNCH = re.compile(r"(?:\"\"\"|'''|[\"'])(" + PYTHON_M_SGLANG + r"\s[^\"'`]{4,2000})")


# a Markdown table row whose cell is a launch command written bare ("| Launch command | python3 -m sglang.launch_server
# --tp 2 |"): the cell, which a pipe inside a command would have had to escape, is the command
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_CELL_LAUNCH = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:" + PYTHON_M_SGLANG + r"|sglang\s+serve)\s+-")


def _table_cell_launches(text: str) -> list[str]:
    """The launch commands a Markdown table row's cells hold bare (a code span's command is read as a span)."""
    if not _TABLE_ROW.match(text):
        return []
    cells = (cell.strip() for cell in text.strip().strip("|").split("|"))
    return [cell for cell in cells if _CELL_LAUNCH.match(cell)]


def _argv_in_sentence(text: str) -> list[str]:
    """A launcher's argv list quoted in a sentence (command_shapes.argv_in_a_sentence), as the command its words make:
    read as a code span's command is, beside the failure the sentence states."""
    if "[" not in text or not argv_in_a_sentence(text):
        return []
    words = argv_words(text)
    return [shlex.join(words)] if words else []


def _failing_wording(event: Event) -> bool:
    """A catalogued wording that the released code logs at error or critical level."""
    return event.kind == kinds.CATALOGUED_LINE and event.data.get("level") in failing_records.FAILING_LOGGER_CALLS


def _before_failure(text: str) -> str:
    """The words of a line's last clause that holds failure words (after its last "but", "however" or ";"), up to
    them: "I added a retry but it still fails with RuntimeError: ..." gives "it still "."""
    words = [m.start() for m in _FAILURE_WORD.finditer(text)]
    if not words:
        return text
    # (the last turn with a failure word after it: one pass each, where searching on from every turn was quadratic
    # in a long line of turns)
    start = 0
    for m in _TURN.finditer(text, 0, words[-1]):
        start = m.end()
    found = next((at for at in words if at >= start), None)
    return text[start : found if found is not None else len(text)]


# a failure's word in a sentence, any case: an exception's name, an error, a failure, a crash, memory running out
_FAILURE_WORD = re.compile(
    r"(?i)\b(?:\w*(?:error|exception)|fail\w*|crash\w*|died|dies|abort\w*|killed|segmentation fault|out of memory|oom)\b"
)
# where a sentence turns to another clause
_TURN = re.compile(r"(?i)\bbut\b|\bhowever\b|;")


def _sentences_kept(span: str, bare: bool) -> str:
    """The span ("" when each of its sentences asks about, supposes, fixes or dismisses a failure), or, of a `bare`
    sentence's text, its sentences that do not when some do: a wording in a sentence that rules it out is no failure of
    this run."""
    parts = stated_failure.sentences(span)
    kept = [part for part in parts if not stated_failure.rules_out(part)]
    if not kept:
        return ""
    if not bare or len(kept) == len(parts) or _QUOTES_A_MESSAGE.search(span):
        return span  # (a message quoted in the line, an exception's or in a code span, is read whole)
    return " ".join(kept)


# a line of prose that quotes a program's message: a code span's mark, a double quote, an exception's head
_QUOTES_A_MESSAGE = re.compile(r"[`\"“”]|\b[A-Z]\w*(?:Error|Exception):")


def _quoted_launches(text: str) -> list[str]:
    """The launch commands in strings of code on the line (_QUOTED_LAUNCH). A string whose text stops at an escaped
    quote is a program's string literal with escapes (a Python repr: `['python3 -m sglang.launch_server ...
    --model-loader-extra-config \\'{"num_threads": 8}\\' --disable-cuda-graph']`): it goes on to its closing quote, and
    its value is read."""
    spans = []
    for m in _QUOTED_LAUNCH.finditer(text):
        span = m.group(1)
        if span.endswith("\\") and text[m.end() : m.end() + 1] in ("'", '"'):
            span = quoted_command(text, m.start(1), text[m.start(1) - 1])
        spans.append(span)
    return spans


# a launch command in a code span that the paste cut before it closed ("command `python -m sglang.launch_server ...
# --trust-re" at the end of a copy): the rest of the source's last line after the backtick (form seen in pastes:
# sglang-4160)
_CUT_CODE_SPAN = re.compile(r"`(" + PYTHON_M_SGLANG + r"\s[^`]{4,2000})$")
_PAREN_EXCEPTION = re.compile(r"\(((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception): (?:[^()]|\([^()]*\)){4,2000}?)\s*(?:\)|$)")
# an exception named after a sentence's words, with its message to the line's end: "switch to SGLang to chat, show logs is
# importlib.metadata.PackageNotFoundError: No package metadata was found for ...", "installed and chat again, RuntimeError:
# SGLang server initialization failed: ..." (after a blank or a clause mark, ASCII or full-width); read only where
# nothing else in the sentence is quoted, and not in a sentence that asks about it, supposes, fixes or denies it
_SENTENCE_EXCEPTION = re.compile(
    r"(?:(?<=[\s,;:(])|(?<=[\uff0c\uff1a\uff1b\u3001\u3002]))((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): \S.{3,2000})"
)
# in the sentence's words before the exception: another engine ("On vLLM this gives ValueError: ..., but SGLang works");
# anywhere in it: the run works, or the error is a designed answer of a change ("The router now returns HTTPException:
# 400 Bad Request for an empty prompt, which is what we want"). An exception's own message ("only works on sm80") is
# not read for these: the phrases are a sentence's, not a message's
_OTHER_ENGINE = re.compile(rf"(?i)\b(?:{OTHER_ENGINES}|transformers \d)")
_DESIGNED = re.compile(
    r"(?i)\bbut (?:\w+ )?works\b|\bworks fine\b|\bwhat we want\b|\b(?:which is|as) expected\b|\bnow (?:returns|raises)\b"
    r"|\bPR\b"
)
# a note's clause in a fence: what a program does with failures, not one that happened ("failed health checks are
# retried")
_POLICY = re.compile(r"(?i)\bfailed (?:\w+ ){0,2}?\w+s? (?:are|is|get|gets) (?:retried|ignored|skipped|logged|dropped|counted)\b")
# a Markdown list's item ("- Failed requests are retried.", "2. Error handling"), an HTML comment or an image (GitHub's
# '<!-- Failed to upload "image.png" -->' left in a fence the copy never closed): prose, even inside a fence
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+[A-Za-z]|^\s*(?:<!--|<img\b|!\[)")
_FAILURE_KINDS = frozenset(kinds.of_role(kinds.FAILURE)) | {kinds.STATED_FAILURE}
# a line of source code quoted in a fence (a statement, a call, a block's opener, a comment): the program's text
_SOURCE_LINE = re.compile(
    r"^\s*(?:if|elif|else|for|while|try|except|catch|def|class|return|raise|throw|with|assert|import|from|yield|await|"
    r"const|let|var|fn|func|#|//|/\*|\*)(?:\b|\s)|[;{}]\s*$|\b(?:raise|throw|except)\b|\w\((?:.*\))?\s*:\s*$|\bf?\"[^\"]*\{"
    # a string literal alone on its line (a message split over lines in the source: '"Failed to initialize ... "')
    r"|^\s*[rfbuRFBU]?([\"'])[^\"']*\1\s*[,)+]*\s*$"
)
# what makes an unrecognised line worth showing first: it reads like a failure
# a Markdown heading ("### Error Log", "## Failed attempts"); a root shell prompt is one "#" before a command
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}(?:#{2,6}|#(?=\s+[A-Z][a-z]+(?:\s+[A-Za-z]+)*\s*:?\s*$))\s+\S")
# an issue's section that states what should happen or what a change does, not what this run did (a Markdown heading
# or a line in bold alone: "### Expected behavior", "## Motivation", "**Feature request**")
_NO_REPORT_SECTION = re.compile(
    r"(?i)^\s*(?:#+|\*\*)\s*(?:\d+\.\s*)?\[?(?:expected|rfc|roadmap|docs?\b|fix(?:es|ed)?\b|feat|refactor|perf\b|chore|revert|motivation|modifications?|proposal|proposed|feature|checklist|"
    r"alternatives?|related (?:resources|issues?)|benchmark|accuracy|test plan|changes?|summary of changes|solution|"
    r"description of changes|what does this pr)"
)
# a caption that names the text below it: a few words that hold a failure word as a modifier and end in what was
# pasted ("Error log:", "Failed model start logs" (gpustack-5641), "Decode node crash logs:", "error message:", "crash
# info"); no verb between them ("Failed to open log", "Error reading output" are failures of their own)
_CAPTION = re.compile(
    r"(?i)^[#>*_\s]*(?:(?:the|my|full|whole|complete|detailed|server|decode|prefill|node)\s+){0,3}"
    r"(?:error|errors|failed|failure|crash(?:ed)?|exception)"
    r"(?:\s+(?!(?:to|the|a|an|at|in|of|on|for|from|with|while|when|during|is|was|are|were|has|had)\b)(?![a-z]+ing\b)[a-z]+){0,3}?"
    # (the text's place before or after its noun: "Error sequence from logs:", "Error output from the server:",
    # "Error logs below:", livekit/agents#3841, a probe)
    r"\s+(?:(?:from|in)\s+(?:the\s+)?)?(?:logs?|outputs?|messages?|info|information|details|traces?|tracebacks?"
    r"|stack ?traces?|screenshots?)"
    r"(?:\s+(?:from|of|on|in)\s+(?:the\s+|my\s+|our\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*)?)?"
    r"(?:\s+(?:below|above|here|as follows|attached))?"
    # (one class for the tail's blanks, emphasis and colon: adjacent optional runs of blanks backtrack as n^4 on a
    # pane copy's padded line, review16a item 7)
    r"[\s*_:\uff1a]*$"
)
_FENCE_OPEN = re.compile(r"^\s*(?:```|~~~)")
_SENTENCE_END = re.compile(r"\w[.!。！]\s*$")
_HEADING_LINE = re.compile(r"^\s{0,3}(?:(#{1,6})\s+\S|\*\*[^*]+\*\*:?\s*$)")
_SECTION_LOOKBACK = 300
# an issue template's heading over what the run did (GitHub's bug templates: "Actual Behavior", "Current behavior",
# "Actual result", "Observed behavior", "What happened?"; Chinese templates: 实际行为 / 实际结果 / 当前行为, the
# bilingual "当前行为 | Current Behavior"); an emoji or a mark may open it ("### ❌ Actual Behavior")
_OBSERVED_SECTION = re.compile(
    r"(?i)^\s{0,3}(?:#{1,6}\s+|\*\*)\s*(?:[^\w\s]+\s*)?(?:(?:actual|current|observed)\s+(?:behaviou?rs?|results?|outcomes?)\b"
    r"|what happened\b|实际(?:行为|结果|表现)|当前(?:行为|结果|表现))"
)
# (a CRITICAL record of Python logging's default format, "CRITICAL:<logger>:...", base.BASIC_PREFIX, when its words say
# something ended badly: CRITICAL is only the record's level, "CRITICAL:root:Running in offline mode" is no failure;
# WARN in a log4j level field, "[%-5p]" = "[WARN ]", is the record's level alone: TorchServe 0.12's WorkerLifeCycle logs
# every line its worker writes to stderr at warn, a progress bar included, so its words must say the failure)
FAILURE_LOOK = re.compile(
    FAILURE_WORDS + r"|(?<!\[)\bWARN\b|FAILURE\b"
    r"|^\s*CRITICAL:[\w.<>-]+:.*?(?i:\b(?:died|dead|killed|crash|exit(?:ed)? (?:code|status|with)|cannot|can't|could not"
    r"|unable|not found|no such|invalid|timed? ?out|terminat|fault|lost|refused|denied|out of memory|OOM|abort|error|fail))"
)

# the status line of a server's error answer, as curl -i / -v prints a response (curl 7.88.1, run here against a server
# answering 500: "HTTP/1.0 500 Internal Server Error", with -v "< HTTP/1.0 500 ..."): the server failed the request, a
# record that reads like a failure (matched at the line's start only: an alternative of FAILURE_LOOK, tried at every
# position of a long line, cost its search a third more)
# (the code ends the line or its reason phrase follows: "HTTP/1.1 500 is returned when ..." is prose, review15b item 11)
_SERVER_ERROR_STATUS = re.compile(r"\s*(?:< )?HTTP/[12](?:\.[01])? (5\d\d)(?=\s*$|\s+[A-Z][a-z])")
# a probe of the server's health (curl, wget, a request line): SGLang's /health and /health_generate answer 503 while
# the server is starting (server_status Starting) and during its shutdown (sglang 0.5.6, 0.5.10.post1
# srt/entrypoints/http_server.py health_generate), so a 503 answering it within _PROBE_REACH lines is the probe's
# answer, no failure; an unhealthy server's 503 there comes after its own logged "Health check failed. ..." record,
# which is read (review15b item 11)
_HEALTH_PROBE = re.compile(r"/health(?:_generate)?\b")
_PROBE_REACH = 5

_GRAMMARS = {grammar.name: grammar for grammar in LINE_GRAMMARS}

# A source of more events than this streams: its settled events are handed on as it is read (the assembler folds a
# crash loop's launches as they end), so memory stays flat whatever the number of launches. A smaller source is
# read whole first, as it always was.
STREAM_AFTER = 20_000
_RELEASE_EVERY = 1024  # a streaming source hands its settled events on this many at a time
# a Markdown code fence's line (GitHub's ``` or ~~~, as ingest.unwrap removes them)
_FENCE_LINE = re.compile(rb"^[ \t]*(?:```|~~~)", re.MULTILINE)
# a sentence that documents or explains a message it quotes, without having met it ("In the docs, `X` is the message you
# see when ..."; "The error message `X` is documented in ...")
_DOCUMENTS_A_MESSAGE = re.compile(
    r"\b(?:docs?|documentation|README|documented|(?:error )?messages? you (?:see|get)"
    r"|is (?:the|a) (?:message|error) (?:you|that|when))\b",
    re.IGNORECASE,
)
_BESIDE = 2  # the lines looked at above and below a line for the nearest filled one (_beside_a_record)
# a KEY=VALUE setting (from a word's start: "\S*=" tried at each character of a long word was quadratic, review14b item
# 10), a command-line flag
_SETTING_OR_FLAG = re.compile(r"(?<!\S)[^\s=]*=\S*|(?<!\S)--?[A-Za-z][\w-]*")
# the writer's own sentence under a log pasted with no fence: a pronoun or an article opening a sentence of six words or
# more ("The earlier connection failed error is gone with this version, ..."; "We see the health check failed twice."),
# no record a program prints
_WRITER_SENTENCE = re.compile(r"^\s*(?:I|We|My|Our|It|This|That|These|Those|The)\s+(?:\S+\s+){4,}\S")
_JOIN_LOOKBACK = 64  # events held back for a cut traceback to find its exception line (the event before it)
_FORGET_ABOVE = 4096  # a streaming source forgets the line numbers no later line can reach past this many


def _wrap_wanted(text: str) -> bool:
    """A line a terminal cut is joined again when the join holds a literal or a log prefix."""
    return literal_set.holds_literal(text) or PREFIX_TEXT.search(text) is not None


def _WANTED(value: str) -> bool:  # noqa: N802 - a predicate handed to unwrap.expand
    """A JSON string or flattened piece worth reading holds a prefilter literal, or several lines."""
    return "\n" in value or literal_set.holds_literal(value)


class SourceClassifier:
    """Drives the grammars over one source's logical lines and returns its events."""

    def __init__(self, source: Source, coverage: Coverage, chunks: Iterable[LineChunk] | None = None) -> None:
        self.source = source
        self.chunks = chunks
        self.coverage = coverage
        self.events: list[Event] = []
        self.readers: list[BlockReader] = block_readers(source.name)
        self.active: BlockReader | None = None
        self.active_since = 0  # the open block's first line
        self.last_missed: tuple[int, str] | None = None  # the last line read as an unread failure
        self.pending: tuple[int, str] | None = None  # a failed sglang candidate that a wrapped next line may complete
        self.recognized_physical = SeenLines()
        self.quoted = False  # classifying an inline code span from prose
        self.in_sentence = False  # classifying a whole sentence of prose
        self.chunk: LineChunk | None = None  # the chunk being read (its other lines: the section a sentence is in)
        # a chunk, its lines' byte lengths and the longest of them
        self.widest: tuple[LineChunk, list[int], int] | None = None
        # a chunk, the numbers of its lines inside a Markdown code fence (a paste's output, not its prose), and whether it
        # holds no fence at all
        self.fenced: tuple[LineChunk, frozenset[int], bool] | None = None
        self.rewrap: Rewrap | None = None  # a long message being joined back from the lines it was broken into
        self.unwrapped: dict[int, str] = {}  # line → how its text was unwrapped (JSON string, flattened, ...)
        self.opened = False  # feeding a message taken out of a JSON string or a flattened line: a record, not prose
        self.health_probe = -_PROBE_REACH - 1  # the line of the last health probe (_HEALTH_PROBE)
        self.failing_record = False  # feeding the message of a log record at a failing level (unwrap.FAILING_RECORDS)
        self.physical = ""  # the physical line being fed, before a logger's prefix was taken off (its level word)
        self.startup_parts: list[tuple[int, int | None]] = []  # the startup parts' lines: [first, after)
        self.repeats = RepeatedLines()  # plain records read before, classified once (a crash loop repeats them)
        # streaming (stream()): past `release_at` events held, settled events are handed on as lines are read
        self.release_at = float("inf")
        self.streaming = False
        self.serving = serving.ServingMarks()  # the source's serving lines, still to be placed
        self.joins = ExceptionsBeforeTracebacks()
        self.elided: set[int] = set()  # lines given as their head and tail (limits.READ_GAP), counted in the notes

    # ------------------------------------------------------------------ driver
    def run(self) -> list[Event]:
        """All the source's events, read whole."""
        return list(self.stream(None))

    def stream(self, hold: int | None) -> Iterator[Event]:
        """The source's events in reading order. Once more than `hold` are held (None: never), the source streams:
        every _RELEASE_EVERY events, those no later line can change are handed on (a cut traceback's look back
        keeps the last _JOIN_LOOKBACK; a chunk's serving line is placed first), and the line numbers and startup
        parts no later line can reach are forgotten."""
        if hold is not None:
            self.release_at = hold + 1
        chunks = self.chunks
        if chunks is None:
            chunks = self.source.chunks(literal_set.cached_literals(), None, SERVING_BYTES, serving.STARTUP)
        for chunk in chunks:
            self._mark_startup_parts(chunk)
            self.serving.chunk(chunk.first, chunk.matches)
            for settled in self._run_chunk(chunk):
                yield from settled
            self._mark_serving(chunk.first + chunk.size)
        self._release_rewrap()
        self._flush_pending()
        self._close_block(at_end=True)
        self._mark_serving(None)
        self.coverage.lines += self.source.lines
        self.coverage.recognized_lines += len(self.recognized_physical)
        self.source.recognized_lines = len(self.recognized_physical)
        self.source.notes.elided_lines = len(self.elided)
        if self.streaming:
            yield from self.joins.settle(self.events, keep=0)
            self.events = []
            return
        self.events = exception_printed_before_its_traceback(self.events)
        yield from self.events

    def _settled(self, next_line: int) -> list[Event]:
        """The events a streaming source hands on before `next_line` is read (none while it holds fewer than
        release_at, or while the chunk's serving line waits for the lines before it)."""
        if not self.streaming:
            self.streaming = True
            self.release_at = _RELEASE_EVERY
        # the lowest line an event or a count can still come from: an open joined or rewrapped line's first
        floor = next_line
        if self.pending is not None:
            floor = min(floor, self.pending[0])
        if self.rewrap is not None:
            floor = min(floor, self.rewrap.first)
        if self.active is not None:  # its lines may be handed back: still uncounted
            floor = min(floor, self.active_since)
        due = self.serving.due()
        if due:
            if self.active is not None or max(due) >= floor:
                return []
            self._mark_serving(next_line)
            if self.serving.due():
                return []  # it waits for the verdict on uvicorn's report before it
        self.recognized_physical.forget_below(floor)
        if len(self.startup_parts) > 1:
            self.startup_parts = [part for part in self.startup_parts if part[1] is None or part[1] > floor]
        if self.active is None and len(self.unwrapped) > _FORGET_ABOVE:
            self.unwrapped = {line: how for line, how in self.unwrapped.items() if line >= floor}
        events, self.events = self.events, []
        return self.joins.settle(events, keep=_JOIN_LOOKBACK)

    def _run_chunk(self, chunk: LineChunk) -> Iterator[list[Event]]:
        """Candidate lines in order; while a block or a wrapped line is open, every line in between."""
        candidates, texts = chunk.candidates, chunk.texts
        self.chunk = chunk
        # a terminal cuts what people paste, not a log file big enough for the range workers
        wraps = self._terminal_wraps(chunk)
        if wraps:  # a line a terminal cut is read whole, as a candidate where its first piece is
            merged = dict(zip(candidates, texts))
            for index, (joined, _) in wraps.items():
                merged[index] = joined
            candidates, texts = sorted(merged), [merged[i] for i in sorted(merged)]
        bare = self._undecorated(chunk, candidates, texts)
        if bare:  # a viewer's line numbers or a pane's borders on every line of a block: the lines inside are read
            texts = [bare.get(i, text) for i, text in zip(candidates, texts, strict=True)]
        next_candidate = 0
        position = 0
        while True:
            if self.active is not None or self.pending is not None or self.rewrap is not None:
                if position >= chunk.size:
                    return
                if next_candidate < len(candidates) and candidates[next_candidate] == position:
                    text = texts[next_candidate]
                    next_candidate += 1
                else:
                    text = bare[position] if position in bare else chunk.line(position)
            else:
                if next_candidate >= len(candidates):
                    return
                position = candidates[next_candidate]
                text = texts[next_candidate]
                next_candidate += 1
            if position in wraps:
                text, span = wraps[position]
                self.unwrapped.setdefault(chunk.first + position, REWRAPPED)
                while next_candidate < len(candidates) and candidates[next_candidate] < position + span:
                    next_candidate += 1
            self.physical = text
            # (a line whose literal lay in its unread middle comes as the gap alone; a short line quoting it was not cut)
            if text == READ_GAP or (len(text) > READ_CAP and READ_GAP in text):
                self.elided.add(chunk.first + position)
            for logical, how in _logical_lines(text):
                if how is not None:
                    self.unwrapped.setdefault(chunk.first + position, how)
                self.opened = how is not None and how != REWRAPPED  # a message taken out of JSON or a flat line
                self.failing_record = how in FAILING_RECORDS
                self.feed(chunk.first + position, logical)
            self.opened = self.failing_record = False
            position += wraps[position][1] if position in wraps else 1
            if len(self.events) >= self.release_at:
                yield self._settled(chunk.first + position)

    @staticmethod
    def _terminal_wraps(chunk: LineChunk) -> dict[int, tuple[str, int]]:
        """Lines a terminal cut, joined again. A line followed by a "Key: value" line was not cut when a grammar reads
        either whole (a 120-column launch command, then check_env's "Python: 3.12.3"; a 100-column commit URL, then
        "Flashinfer version: 0.5.0"). A file big enough for the range workers is no terminal paste."""
        if chunk.path is not None:
            return {}
        lines = chunk.all_lines()
        wraps = terminal_wraps(lines, _wrap_wanted, _starts_a_record, lines.of_width(WRAP_WIDTHS))
        return {
            index: wrap
            for index, wrap in wraps.items()
            if not (_KEY_VALUE.match(lines[index + 1]) and (_reads_whole(lines[index]) or _reads_whole(lines[index + 1])))
        }

    @staticmethod
    def _undecorated(chunk: LineChunk, candidates: list[int], texts: list[str]) -> dict[int, str]:
        """The chunk's lines without the gutter or pane border that every line of their block carries (ingest/gutters.py),
        looked for around the candidate lines that may carry one. A file big enough for the range workers is no copy
        of a viewer's screen."""
        if chunk.path is not None:
            return {}
        seeds = [i for i, text in zip(candidates, texts, strict=True) if may_be_decorated(text)]
        return undecorated(chunk.all_lines(), seeds) if seeds else {}

    def _mark_startup_parts(self, chunk: LineChunk) -> None:
        """The source's startup parts (from its start, or from a new launch, to the running server's first line):
        unread prefixed lines inside them are judged, none outside them."""
        last = len(chunk.startup_parts) - 1
        for n, (first, after) in enumerate(chunk.startup_parts):
            start, end = chunk.first + first, None if after is None else chunk.first + after
            if first == 0 and self.startup_parts and self.startup_parts[-1][1] is None:
                start = self.startup_parts.pop()[0]  # the part that went on from the previous chunk
            self.startup_parts.append((start, end))
            if end is not None:
                why = "cap" if chunk.startup_capped and n == last else "running"
                self.coverage.startup_ended(self.source.name, start, end, why)

    def _in_startup(self, lineno: int) -> bool:
        return any(first <= lineno and (end is None or lineno < end) for first, end in reversed(self.startup_parts))

    def _mark_serving(self, now: int | None) -> None:
        """The source's serving lines (serving.ServingMarks) due at line `now` (None: the source ended), as events:
        failures after the first are runtime failures. Placed after the chunk's lines (a streaming source places them
        once no line before them can still give an event)."""
        for lineno, text, past_warmup in self.serving.take(now):
            data = {serving.MAY_PRECEDE_READY: serving.may_precede_ready(text), "past_warmup": past_warmup}
            event = Event(SERVING_MARK, self.source.name, lineno, text.strip()[:TEXT_KEEP], None, None, data, "serving")
            at = len(self.events)
            while at > 0 and self.events[at - 1].line > lineno:
                at -= 1
            self.events.insert(at, event)

    def feed(self, lineno: int, text: str) -> None:
        if self.rewrap is not None:
            if self._continues(text) and self.rewrap.takes(text):
                self.rewrap.add(text)
                self.recognized_physical.add(lineno)
                if self.rewrap.complete():
                    self._release_rewrap()
                return
            self._release_rewrap()
        elif needs_more(text):
            self.rewrap = Rewrap(lineno, text, len(text))
            return
        self._feed_line(lineno, text)

    def _continues(self, text: str) -> bool:
        """A line that carries on a wrapped message: no record, traceback line or blank line of its own."""
        stripped = text.strip()
        return (
            bool(stripped)
            and not PREFIXED.match(text)
            and not _looks_like_a_record(text)
            and not stripped.startswith(('File "', "Traceback", "```", "#"))
        )

    def _release_rewrap(self) -> None:
        if self.rewrap is None:
            return
        held, self.rewrap = self.rewrap, None
        if held.lines > 1:
            self.unwrapped.setdefault(held.first, REWRAPPED)
        self._feed_line(held.first, held.text)

    def _feed_line(self, lineno: int, text: str) -> None:
        if "/health" in text and _HEALTH_PROBE.search(text):
            self.health_probe = lineno
        if self.active is not None:
            if not _a_record_of_its_own(self.active, text) and self.active.feed(lineno, text):
                self.recognized_physical.add(lineno)
                return
            self._close_block()
            if self.active is not None:  # a line the block handed back opened another: this line is offered to it
                self._feed_line(lineno, text)
                return
        if self.pending is not None and self._try_join(lineno, text):
            return
        self._flush_pending()
        if self._plain() and self._replay(lineno, text):
            self.serving.asgi.line(lineno, text)
            return
        for reader in self.readers:
            if reader.accepts(text):
                if reader.grammar == kinds.LAUNCH_COMMAND_GRAMMAR and _a_status_line(text):
                    continue  # a shell's report of the command a signal ended ("zsh: killed  python3 -m ..."): a record
                self.active = reader.open(lineno, text)
                self.active_since = lineno
                if reader.grammar == kinds.TRACEBACK_GRAMMAR:
                    self.serving.asgi.opened(lineno, text)
                    missed = self.last_missed
                    if isinstance(self.active, TracebackReader) and missed is not None and missed[0] == lineno - 1:
                        # the exception repr a logger printed right before it (logger.exception(repr(e)))
                        logged = logged_exception(missed[1], text)
                        self.active.logged = (lineno - 1, logged) if logged is not None else None
                self.coverage.seen[reader.grammar] += 1
                self.coverage.recognized[reader.grammar] += 1
                self.recognized_physical.add(lineno)
                return
        self.serving.asgi.line(lineno, text)
        if pip_status.states_nothing(text):  # pip's download line: a file name's literals, no statement (pip_status.py)
            return
        candidates = prefilter.grammars_for(text)
        if self.failing_record and "signature" not in candidates:
            candidates.append("signature")  # its level says it failed, whatever its words
        if not candidates:
            if not self._read_catalogue(lineno, text):
                self._judge_wording(lineno, text)
            return
        self._classify(lineno, text, candidates)

    def _server_error_status(self, lineno: int, text: str) -> bool:
        """A response's 5xx status line, unless it is the 503 of a health probe shortly before it."""
        status = _SERVER_ERROR_STATUS.match(text)
        return status is not None and not (status.group(1) == "503" and lineno - self.health_probe <= _PROBE_REACH)

    def _plain(self) -> bool:
        """A line read on its own: no block, joined line, quoted prose or unwrapped message around it."""
        return self.active is None and self.pending is None and not self.quoted and not self.opened

    def _replay(self, lineno: int, text: str) -> bool:
        """A line read before (at another time, in an earlier launch): the same event, counted the same way."""
        known = self.repeats.replay(text)
        if known is None:
            return False
        for name in known.tried:
            self.coverage.seen[name] += 1
        self.coverage.recognized[known.grammar] += 1
        self.recognized_physical.add(lineno)
        self._emit(known.kind, lineno, text, known.data, known.prefix, known.grammar)
        return True

    def _read_catalogue(self, lineno: int, text: str, recognized: bool = True) -> Parsed | None:
        """A line no grammar read, read through the catalogued wordings (parsers/catalogue.py); in prose, as a fact."""
        if len(text) > _CATALOGUE_CHARS:
            return None
        parsed = catalogue.parse_quoted(text) if self.quoted else _GRAMMARS[kinds.CATALOGUE_GRAMMAR].parse(text)
        if parsed is None:
            return None
        self.coverage.seen[kinds.CATALOGUE_GRAMMAR] += 1
        if recognized:
            self.coverage.recognized[kinds.CATALOGUE_GRAMMAR] += 1
            self.recognized_physical.add(lineno)
        self._emit(parsed.kind, lineno, text, parsed.data, parsed.prefix, kinds.CATALOGUE_GRAMMAR)
        # SGLang's log format prints no level: the released code's logger.error / logger.critical says it, and what
        # that code does next says whether it failed (core/error_outcomes.py)
        failing = recognized and not (self.quoted or self.in_sentence) and logged_at_failing_level(parsed)
        if failing and not self._failing_record(lineno, text, parsed) and logged_as_failure(parsed):
            self._miss_failure(lineno, text)
        return parsed

    def _failing_record(self, lineno: int, text: str, parsed: Parsed | None) -> bool:
        """A record at a failing level that no signature read, handled as failing_records.py says it means: read and no
        failure, flagged, or a failure. False where it means none of these (the caller lists it as unread)."""
        if self.quoted or self.in_sentence:
            return False
        meaning = record_meaning(text, parsed)
        if meaning is None:
            return False
        if meaning.verdict == failing_records.FLAGGED:
            self._miss_failure(lineno, text)
            return True
        self.recognized_physical.add(lineno)
        if meaning.verdict == failing_records.FAILURE:
            assert meaning.data is not None
            self.coverage.seen["signature"] += 1
            self.coverage.recognized["signature"] += 1
            self._emit(kinds.LOGGED_FAILURE, lineno, meaning.message, meaning.data, prefix_of(text), "signature")
        return True

    def _judge_wording(self, lineno: int, text: str) -> None:
        """A startup line with SGLang's prefix that no grammar reads: counted by its wording's verdict, and listed
        when no catalogued release prints that wording (parse/wordings.py). A line a reader read (the catalogue's
        reader, the engine's startup lines) is recognised, and never counted here as well: the coverage's recognised
        lines and its unread ones are one split of the lines."""
        if self.quoted or lineno in self.recognized_physical or not self._in_startup(lineno):
            return
        message = message_after_prefix(text)
        if message is None:
            return
        verdict = wordings.judge(message)
        self.coverage.prefixed[verdict] += 1
        if verdict == NEW_WORDING:
            self.coverage.miss(self.source.name, lineno, NEW_WORDING, text)

    # ------------------------------------------------------------------ one line
    def _classify(self, lineno: int, text: str, candidates: list[str]) -> None:
        if _MARKDOWN_HEADING.match(text):
            # an issue's "### Error Log" names a section; it is no failure and no record, but the release a heading
            # names is stated as a sentence states it ("## Collection summary for b200_sxm sglang:0.5.9")
            self._heading_version(lineno, text)
            return
        claimed = not self.opened and _claimed_failure(text, candidates)
        if claimed or (
            not self.opened and not _looks_like_a_record(text) and not _sglang_line(text, candidates) and not _dump(text)
        ):
            # prose that mentions a literal ("... with DeepEP low latency.") is no log record, but the code
            # spans it quotes, or failure wording it holds, are evidence (marked as quoted)
            before = len(self.events)
            self._classify_prose(lineno, text)
            failed = any(e.kind in _FAILURE_KINDS for e in self.events[before:])
            if not failed and (claimed or self._fenced_failure(lineno, text, candidates)):
                self._miss_failure(lineno, text)
            return
        looks_failed = "signature" in candidates
        candidates = [g for g in candidates if g != "signature"]
        tried: list[str] = []
        for name in candidates:
            grammar = _GRAMMARS[name]
            if grammar.only_in_prose or not grammar.fits(text):
                continue
            tried.append(name)
            self.coverage.seen[name] += 1
            parsed = grammar.parse(text)
            if parsed is not None:
                if name == kinds.SGLANG and parsed.kind == kinds.SCHEDULER_SUMMARY and self._ends_whole(lineno, text):
                    whole = sglang_line.parse_line(text, whole=True)
                    parsed = parsed if whole is None else Parsed(whole[1], whole[2], whole[0])
                if self._plain():
                    self.repeats.remember(text, Reading(parsed.kind, parsed.data, parsed.prefix, name, tuple(tried)))
                self._emit(parsed.kind, lineno, text, parsed.data, parsed.prefix, name)
                self.coverage.recognized[name] += 1
                self.recognized_physical.add(lineno)
                if name == kinds.LAUNCH_COMMAND_GRAMMAR and ('"' in text or "\u201c" in text):
                    self._read_quoted_failures(lineno, text)
                elif name == kinds.LAUNCH_COMMAND_GRAMMAR and looks_failed and _a_status_line(text):
                    self._failure_line(lineno, text)  # bash's report of the launch a signal ended: the command and its end
                elif looks_failed and _GRAMMARS[name].prose:
                    self._prose_read_record(lineno, text)
                return
        if looks_failed and self._failure_line(lineno, text):
            return
        failure_look = looks_failed and (
            self.failing_record or FAILURE_LOOK.search(text) is not None or self._server_error_status(lineno, text)
        )
        if tried and tried[0] == kinds.SGLANG and self.pending is None:
            self.pending = (lineno, text)  # a terminal may have cut it: read when the next line does not complete it
            return
        # a failure the catalogue reads stays listed (only a signature names a failure), unless its level and what
        # its printer does next say so
        parsed = self._read_catalogue(lineno, text, recognized=not failure_look)
        if parsed is not None and not failure_look:
            return
        if looks_failed and self._failing_record(lineno, text, parsed):
            return
        if not tried:
            if failure_look:
                self._miss_failure(lineno, text)
            else:
                self._judge_wording(lineno, text)
            return
        if failure_look:
            self._miss_failure(lineno, text)
        else:
            self.coverage.miss(self.source.name, lineno, tried[0], text)

    def _prose_read_record(self, lineno: int, text: str) -> None:
        """A record whose words a prose grammar read: its level too. The message of a structured record at a failing
        level (unwrap.FAILING_RECORDS: 'level=error msg="failed to start container" ...') is a failure line whatever else
        its words say (a time claim's "start"): listed as unread when nothing reads a failure from it."""
        if not self._failing_record(lineno, text, None) and self.failing_record:
            self._miss_failure(lineno, text)

    def _fenced_failure(self, lineno: int, text: str, candidates: list[str]) -> bool:
        """A line that reads like a failure inside a Markdown code fence of a paste, which nothing read a failure from: the
        output a program printed (a fence holds what the user copied from a terminal or a log), listed as an unread
        failure whatever its head ("Exec lifecycle hook (...) for Container ... failed - error: command ... exited with
        137"), not passed over as a sentence. A line of source code in the fence is the program's text
        (prose_guards.code_failure_text, _SOURCE_LINE)."""
        if self.quoted or "signature" not in candidates or FAILURE_LOOK.search(text) is None:
            return False
        if code_failure_text(text) is not None or _SOURCE_LINE.search(text) or _LIST_ITEM.match(text):
            return False
        if _POLICY.search(text):
            return False  # (a note: "Timeout waiting for the server to start; failed health checks are retried")
        if all(map(stated_failure.rules_out, stated_failure.sentences(text))):
            return False  # (a line that asks about, supposes, fixes or dismisses the failure)
        chunk = self.chunk
        if chunk is None or chunk.path is not None:
            return False  # (a file big enough for the range workers is a log, not an issue's Markdown)
        if self.fenced is None or self.fenced[0] is not chunk:
            inside, fences, lines = False, 0, set()
            for index, raw in enumerate(chunk.all_bytes().split(b"\n")[: chunk.size]):
                if _FENCE_LINE.match(raw):
                    inside, fences = not inside, fences + 1
                elif inside:
                    lines.add(chunk.first + index)
            self.fenced = (chunk, frozenset(lines), fences == 0)
        if lineno in self.fenced[1]:
            return True
        return self.fenced[2] and _WRITER_SENTENCE.match(text) is None and self._beside_a_record(lineno)

    def _beside_a_record(self, lineno: int) -> bool:
        """In a paste with no code fence at all (a log copied as it is, or a fence's content without its fence), a line
        whose nearest filled line above or below is a log record (a prefixed line, a traceback's line, a shell line): a
        line of the same output, not a sentence about it ("ibv_reg_mr_iova2 failed: Cannot allocate memory" between two
        records of the rank's log)."""
        chunk = self.chunk
        if chunk is None:
            return False
        index = lineno - chunk.first
        for step in (-1, 1):
            for near in range(index + step, index + step * (_BESIDE + 1), step):
                if not 0 <= near < chunk.size:
                    break
                line = chunk.line(near)
                if line.strip():
                    if _looks_like_a_record(line) and not _MARKDOWN_HEADING.match(line) and not _LIST_ITEM.match(line):
                        return True
                    break
        return False

    def _quoted_failure(self, sentence: str, span: str) -> bool:
        """A code span or a quote of a sentence that holds a program's failure message no signature knows ("I got
        `ibv_reg_mr_iova2 failed: Cannot allocate memory` on this node"): a message of a few words with a failure word,
        no source code, in a sentence that neither asks about, supposes, fixes nor dismisses it. Listed as an unread
        failure (it speaks only where nothing else failed)."""
        # (its words, less a command's settings and flags: "mpirun ... -x NCCL_DEBUG=WARN" holds no failure, nccl-1277)
        words = _SETTING_OR_FLAG.sub(" ", span)
        if FAILURE_LOOK.search(words) is None or len(words.split()) < 3:
            return False
        if code_failure_text(span) is not None or _SOURCE_LINE.search(span) or _CAPTION.match(span):
            return False
        if any(map(stated_failure.rules_out, stated_failure.sentences(sentence))):
            return False
        if _DOCUMENTS_A_MESSAGE.search(sentence.replace(span, " ")):
            return False  # (a sentence that documents or explains the message: "In the docs, `X failed: Y` is the message ...")
        # (a sentence that states the failure in its own words is read as that, its quote with it: 'it stuck here then got
        # "check timeout failed" Error.')
        return not (stated_failure.fits(sentence) and stated_failure.parse(sentence) is not None)

    def _ends_whole(self, lineno: int, text: str) -> bool:
        """The source's next line begins a record of its own: the line ends where its writer ended it (neither the
        copy's end nor a terminal cut it), and a paste holds a longer line (no column cut, as `cut -c` or `less -S`
        make, shortened every line to this one's width)."""
        chunk = self.chunk
        index = -1 if chunk is None else lineno - chunk.first + 1
        if chunk is None or not (0 < index < chunk.size and _starts_a_record(chunk.line(index))):
            return False
        if chunk.path is not None:  # a file big enough for the range workers is no paste a viewer cut
            return True
        if self.widest is None or self.widest[0] is not chunk:
            lengths = [len(raw.rstrip(b"\r")) for raw in chunk.all_lines().raws]
            self.widest = (chunk, lengths, max(lengths, default=0))
        own = self.widest[1][lineno - chunk.first]
        # longer than its physical line: joined from a terminal's wrapped pieces, which a column cut never leaves
        return len(text.encode()) > own or self.widest[2] > own

    def _miss_failure(self, lineno: int, text: str) -> None:
        """A line that reads like a failure and that no grammar or signature reads: listed as unread, and the NCCL
        release that torch's NCCL error ends with is still read off it (stated_env.TORCH_NCCL_ERROR). A caption that
        names the text below it ("Error log:", "Failed model start logs" above a fence) is none: the text is."""
        if _CAPTION.match(text) and self._captions(lineno, text):
            return
        if ZERO_COUNT.search(text) and FAILURE_LOOK.search(ZERO_COUNT.sub(" ", text)) is None:
            return
        if "NCCL INFO" in text and _NCCL_INFO_RECORD.search(text):
            return
        self.coverage.miss(self.source.name, lineno, "failure", text)
        self.last_missed = (lineno, text)
        self._torch_nccl_version(lineno, text)
        self._sglang_version_before_failure(lineno, text)

    def _torch_nccl_version(self, lineno: int, text: str) -> None:
        """The NCCL release torch's NCCL errors end with (c10d's ncclGetErrorWithVersion: ", NCCL version 2.22.3"),
        whatever read the rest of the line (a watchdog line that another wording matched, an unread line)."""
        version = TORCH_NCCL_ERROR.search(text) if ", NCCL version " in text else None
        if version is not None:
            data = {"nccl": version.group(1), "via": "torch"}
            self._emit(kinds.NCCL_VERSION, lineno, text, data, prefix_of(text), kinds.SGLANG)

    def _heading_version(self, lineno: int, text: str) -> None:
        """The SGLang release a Markdown heading names, in a sentence's form (the weak one: any other statement of the
        release outranks it)."""
        version = sentence_version(text)
        if version is not None:
            data = {"values": {"sglang": version}, "stated_by": SENTENCE}
            self._emit(kinds.STATED_ENV, lineno, text, data, prefix_of(text), kinds.STATED_ENV_GRAMMAR)

    def _sglang_version_before_failure(self, lineno: int, text: str) -> None:
        """The SGLang release a sentence states before the failure it describes, whatever read the failure."""
        version = version_before_failure(text)
        if version is not None:
            data = {"values": {"sglang": version}, "stated_by": SENTENCE}
            self._emit(kinds.STATED_ENV, lineno, text, data, prefix_of(text), kinds.STATED_ENV_GRAMMAR)

    def _failure_line(self, lineno: int, text: str) -> bool:
        """A line no grammar reads whose wording a line signature knows (torch allocator warnings, glog lines
        of transfer engines, NCCL result names, other backends' OOM texts)."""
        # a pattern anchored at the start ("^error: ...") is anchored at the message's, after SGLang's prefix: the
        # line's event is then the message, its prefix kept as the event's rank and time
        message = message_after_prefix(text)
        # the line, or the logger's prefix taken off it, says warning, or the released code logs its wording at warning
        # level (SGLang's prefix prints no level): the signatures quiet in warnings read nothing
        warned: bool | None = bool(WARNING_LINE.search(text) or WARNING_LINE.search(self.physical)) or None
        for sig in bundled_signatures().on("line"):
            if sig.quiet_in_warnings:
                if warned is None:
                    warned = _catalogued_warning(text)
                if warned:
                    continue
            read = text if sig.match(text) is not None else None
            if read is None and message is not None and sig.match(message) is not None:
                read = message
            if read is not None:
                self.coverage.seen["signature"] += 1
                self.coverage.recognized["signature"] += 1
                self.recognized_physical.add(lineno)
                if warned is None:
                    warned = _catalogued_warning(text)
                data = {"message": read.strip(), **({"warning": True} if warned else {})}
                self._emit(kinds.FAILURE_LINE, lineno, read, data, prefix_of(text), "signature")
                return True
        return False

    def _read_quoted_failures(self, lineno: int, text: str) -> None:
        """A failure quoted in the sentence that also holds a launch command ("ran python -m sglang.launch_server ...
        and got “ImportError: ...”"): the command is read, and so is the failure it quotes (marked as quoted). Quoted
        text inside a word that holds one of the command's values is the command's, never a failure: `--served-model-name
        "..."`, a JSON argument's strings (command_text.valued_words)."""
        words = valued_words(text) or []
        spans = [span for span in quoted_spans(text) if FAILURE_LOOK.search(span) and not quoted_in_its_words(span, words)]
        if not spans:
            return
        was = self.quoted
        self.quoted = True
        try:
            for span in spans:
                candidates = prefilter.grammars_for(span)
                if candidates and _looks_like_a_record(span):
                    self._classify(lineno, span, candidates)
                elif "signature" in candidates:
                    self._failure_line(lineno, span)
        finally:
            self.quoted = was

    def _classify_prose(self, lineno: int, text: str) -> None:
        code = code_failure_text(text)
        if code is not None and FAILURE_LOOK.search(code):
            return  # a line of quoted source code: its failure wording is the program's text, not this run's record
        spans = (
            _quoted_launches(text)
            + _argv_in_sentence(text)
            + _table_cell_launches(text)
            + quoted_spans(text)
            + _CODE_SPAN.findall(text)
            + _PAREN_EXCEPTION.findall(text)
        )
        cut = _CUT_CODE_SPAN.findall(text) if self._ends_the_source(lineno) else []
        # the copy ended in the span: its last word may be cut (`--tp 1` of `--tp 16`), as ContinuedCommandReader's
        # close_at_end reads it; a span left open before more lines was wrapped onto them, not cut
        spans = _without_command_words(spans + [span.rstrip().rpartition(" ")[0] for span in cut])
        named = _exceptions_in_sentence(text) if not spans and not self.quoted else []
        if mounted_over(text):  # the image's tag in a code span is no release that runs
            spans = [span for span in spans if not IMAGE_TAG.search(span)]
        if tag_replaced(text):  # "from `lmsysorg/sglang:v0.5.11` to `v0.5.12`": the sentence says which tag runs
            spans = [span for span in spans if not holds_tag(span)]
        labelled = after_label(text) if not spans else None
        tail: str | None = None
        if labelled is not None:  # "The start command is:  python3 -m ...": the command after the lead-in
            spans = [labelled[1]]
        elif not spans and not self.quoted and (in_sentence := command_in_sentence(text)) is not None:
            # "I launched with python3 -m ... --tp 4 and it fails": the command up to the sentence's words after it,
            # which are read as the sentence's (what failed)
            labelled, tail = in_sentence[:2], in_sentence[2]
            spans = [in_sentence[1]] + ([tail] if tail.strip(" .,;:!?") else [])
        if not spans and not self.quoted:
            spans = [text]
        if not spans:
            return
        was = self.quoted
        self.quoted = True
        before = len(self.events)
        try:
            if spans[0] is not text and not _CODE_SPAN.search(text):
                spans.append(text)  # quoted spans first; the whole sentence only when none of them was read
            for span in spans:
                if span is text and len(spans) > 1 and len(self.events) > before:
                    break
                candidates = prefilter.grammars_for(span)
                if not candidates:
                    continue
                # a wording in a bare sentence (the words after a command in it too), not in quotes or a code span
                self.in_sentence = span is text or span is tail
                if span is not text and _looks_like_a_record(span):
                    self._classify(lineno, span, candidates)
                elif "signature" in candidates and (kept := _sentences_kept(span, bare=self.in_sentence)):
                    # (a span whose every sentence asks about, supposes, fixes or dismisses the failure states none;
                    # of a bare sentence's line, a sentence that does is no part of what it states: "Background: ...
                    # During high concurrency, illegal memory access is more likely to occur, leading to crashes."; a
                    # quote or a code span is the program's own text, read whole: torch's "... Did you run some cuda
                    # functions before calling NumCudaDevices() that might have already set an error? Error 803: ...")
                    read = self._failure_line(lineno, kept)
                    if not read and span is not text and span is not tail and self._quoted_failure(text, span):
                        self._miss_failure(lineno, span)
            if named and labelled is None and len(self.events) == before:
                # the exception the sentence names after its words, when the sentence as a whole read nothing; it gives
                # way to any other failure of the input (signatures/match.py)
                self.in_sentence = False
                for span in named:
                    candidates = prefilter.grammars_for(span)
                    if candidates and _looks_like_a_record(span):
                        self._classify(lineno, span, candidates)
                for event in self.events[before:]:
                    event.data[NAMED_IN_SENTENCE] = True
            # a client step in a code span of a sentence that only means to run it ran no request
            self.events[before:] = [e for e in self.events[before:] if not _only_intended(e, text)]
            self.events[before:] = _one_version_a_package(self.events[before:])
            if all(e.kind in (kinds.FAILURE_LINE, kinds.STATED_ENV) for e in self.events[before:]):
                # a sentence quoting a failure or a pin (`sglang==0.5.12.post1`) may state other versions too
                self._read_prose(lineno, text)
            elif labelled is not None:
                self._read_prose(lineno, labelled[0])  # and the lead-in before a command
            elif not any(e.kind == kinds.STATED_ENV for e in self.events[before:]):
                self._sglang_version_before_failure(lineno, text)  # and the release, before the failure it quotes
            if len(self.events) == before:  # a catalogued wording quoted in a sentence (marked as quoted)
                self._read_catalogue(lineno, text)
                if len(self.events) > before and stated_failure.handles_it(_before_failure(text)):
                    # (a wording the released code logs at error level, in a sentence that fixes, handles or proposes
                    # a change for the failure, is none of this run: "update the lib to catch RuntimeError: CUDA error:
                    # out of memory", a pull request's line, read as the "error: {...}" of an error-level template;
                    # probe crynux-network/crynux-node#59)
                    self.events[before:] = [e for e in self.events[before:] if not _failing_wording(e)]
            self._read_prose(lineno, text, whole=True)  # what the sentence says besides (when it failed)
            if not any(e.kind in (kinds.TIME_CUE, kinds.TIME_CLAIM) for e in self.events[before:]):
                self._read_wrapped_cue(lineno, text)
            if not any(e.kind in _FAILURE_KINDS for e in self.events[before:]):
                self._read_observed(lineno, text)
        finally:
            self.quoted = was
            self.in_sentence = False

    def _read_observed(self, lineno: int, text: str) -> None:
        """A failure's label and its message ("Run failed: [models] Server Unavailable Error, ...") in the section an
        issue template keeps for what happened ("### ❌ Actual Behavior", "### Current behavior", "当前行为"): the heading
        says the line is the run's outcome, where the same words elsewhere may be a caption or a topic."""
        parsed = stated_failure.observed(text)
        if parsed is None or not self._in_observed_section(lineno):
            return
        self._emit(parsed.kind, lineno, text, parsed.data, None, kinds.STATED_FAILURE_GRAMMAR)

    def _in_observed_section(self, lineno: int) -> bool:
        """Whether the nearest heading above the line (up to _SECTION_LOOKBACK lines) names what the run did."""
        chunk = self.chunk
        if chunk is None:
            return False
        for index in range(lineno - chunk.first - 1, max(-1, lineno - chunk.first - 1 - _SECTION_LOOKBACK), -1):
            line = chunk.line(index)
            if _HEADING_LINE.match(line):
                return _OBSERVED_SECTION.match(line) is not None
        return False

    def _read_wrapped_cue(self, lineno: int, text: str) -> None:
        """When it failed, said by a sentence that prose hard-wrapped over lines ("During SGLang worker startup on an
        MI355X VF, two / small metadata operations failed ..."): the sentence's words read joined (the lines before this
        one back to the sentence's start, the lines after to its end), the cue kept on this line, where its failure word
        is (the words of each line alone name the time or the failure, not both)."""
        chunk = self.chunk
        if chunk is None or len(text) > _WRAPPED_WIDTH:
            return
        at = lineno - chunk.first
        joined = text.strip()
        if _WRAPPED_ON.match(joined):  # the sentence began on the lines before
            for index in range(at - 1, max(-1, at - 1 - _WRAP_LINES), -1):
                before = chunk.line(index).strip()
                if not _wrapped_piece(before) or _SENTENCE_ENDS.search(before) or _NOT_WRAPPED.match(before):
                    break
                joined = f"{before} {joined}"
                if not _WRAPPED_ON.match(before):
                    break
        if _wrapped_piece(text.strip()) and not _SENTENCE_ENDS.search(text.rstrip()):  # and goes on on the lines after
            for index in range(at + 1, min(chunk.size, at + 1 + _WRAP_LINES)):
                following = chunk.line(index).strip()
                if len(following) > _WRAPPED_WIDTH or not _WRAPPED_ON.match(following):
                    break
                joined = f"{joined} {following}"
                if _SENTENCE_ENDS.search(following) or not _wrapped_piece(following):
                    break
        # (the section's headings, looked for up to _SECTION_LOOKBACK lines back, only for a joined sentence that may
        # hold a cue: asked first, every prose line paid that look-back, review14a's note on 0f92c6a1)
        if joined == text.strip() or not time_cues.fits(joined) or not self._reporting(lineno):
            return
        parsed = time_cues.parse(joined)
        if parsed is not None:
            self.coverage.seen[kinds.TIME_CUE_GRAMMAR] += 1
            self.coverage.recognized[kinds.TIME_CUE_GRAMMAR] += 1
            self._emit(parsed.kind, lineno, text, parsed.data, None, kinds.TIME_CUE_GRAMMAR)

    def _ends_the_source(self, lineno: int) -> bool:
        """No line after this one in the chunk holds more than blanks (the chunk being read: a streamed source's
        earlier chunk is taken for its end)."""
        chunk = self.chunk
        return chunk is None or all(not chunk.line(i).strip() for i in range(lineno - chunk.first + 1, chunk.size))

    def _read_prose(self, lineno: int, text: str, whole: bool = False, stated_only: bool = False) -> None:
        """What a sentence states outright (a version tied to SGLang), through the grammars that read prose: those
        read when nothing in the sentence was, or (`whole`) those that read every sentence, whatever was read in it."""
        for name in prefilter.grammars_for(text):
            grammar = _GRAMMARS.get(name)
            if grammar is None or not grammar.prose or grammar.whole_sentence != whole or not grammar.fits(text):
                continue
            if stated_only and not grammar.only_in_prose:
                continue
            if grammar.only_in_prose and not self._reporting(lineno):
                continue
            parsed = grammar.parse(text)
            pointing = parsed is not None and parsed.data.pop(stated_failure.POINTS, False)
            if pointing and parsed is not None and not self._text_elsewhere(lineno, text, parsed.data["said"]):
                continue  # ("it crashes with the following log:" and the log: the log is the evidence, the sentence none)
            if parsed is not None:
                self.coverage.seen[name] += 1
                self.coverage.recognized[name] += 1
                self.recognized_physical.add(lineno)
                self._emit(parsed.kind, lineno, text, parsed.data, parsed.prefix, name)
                if not whole:
                    return

    def _captions(self, lineno: int, text: str) -> bool:
        """The caption ends with a colon, or the next line that holds more than blanks opens a code fence."""
        if text.rstrip().rstrip("*").rstrip().endswith((":", "\uff1a")):
            return True
        following = self._next_filled_line(lineno)
        return following is not None and _FENCE_OPEN.match(following) is not None

    def _next_filled_line(self, lineno: int) -> str | None:
        """The first of the next three lines of the chunk that holds more than blanks, or None."""
        chunk = self.chunk
        if chunk is None:
            return None
        for index in range(lineno - chunk.first + 1, min(chunk.size, lineno - chunk.first + 4)):
            following = chunk.line(index)
            if following.strip():
                return following
        return None

    def _text_elsewhere(self, lineno: int, text: str, said: str) -> bool:
        """A sentence that points at its failure's text ("it failes with the following log:") and a link or an image
        where that text would be: after its words on its line, or opening the next line that holds more than blanks
        (a pastebin or gist link, a screenshot, an attached file). The failure is then stated and its text is not in the
        paste; where the text follows, it is the evidence."""
        if stated_failure.ELSEWHERE_AFTER.search(text, text.find(said) + len(said)):
            return True
        following = self._next_filled_line(lineno)
        if following is not None and stated_failure.ATTACHED_LINE.match(following) and self.chunk is not None:
            # a line between that only says the logs are attached ("Decode/prefill/router logs are attached."): the
            # attachments follow it (sgl-project/sglang#23574)
            at = lineno + 1
            while at - self.chunk.first < self.chunk.size and not self.chunk.line(at - self.chunk.first).strip():
                at += 1
            following = self._next_filled_line(at)
        return following is not None and stated_failure.ELSEWHERE_LINE.match(following) is not None

    def _reporting(self, lineno: int) -> bool:
        """Whether the line is outside every section that states what should happen or what a change does: the
        headings above it, each shallower than the one below it, up to _SECTION_LOOKBACK lines."""
        chunk = self.chunk
        if chunk is None:
            return True
        depth = 99
        for index in range(lineno - chunk.first - 1, max(-1, lineno - chunk.first - 1 - _SECTION_LOOKBACK), -1):
            heading = _HEADING_LINE.match(chunk.line(index))
            if heading is None:
                continue
            level = len(heading.group(1) or "") or 7  # a line in bold alone: below every Markdown heading
            if level < depth:
                if _NO_REPORT_SECTION.match(chunk.line(index)):
                    return False
                depth = level
        return True

    # ------------------------------------------------------------------ wrapped lines
    def _try_join(self, lineno: int, text: str) -> bool:
        """Rejoin a line a terminal wrapped, only when the continuation is no line of its own."""
        assert self.pending is not None
        if PREFIXED.match(text) or any(
            # (the time cues read sentences, never a line of its own: a wrapped sentence's failure word joins it)
            _GRAMMARS[g].fits(text) if g == kinds.MEMORY_LINE_GRAMMAR else g != kinds.TIME_CUE_GRAMMAR
            for g in prefilter.grammars_for(text)
        ):
            return False
        first_line, first = self.pending
        result = sglang_line.parse_line(first + text)
        if result is None:
            return False
        self.pending = None
        prefix, kind, data = result
        data["joined_lines"] = [first_line, lineno]
        self.coverage.recognized[kinds.SGLANG] += 1
        self.recognized_physical.update((first_line, lineno))
        self._emit(kind, first_line, first + text, data, prefix, kinds.SGLANG)
        return True

    def _flush_pending(self) -> None:
        if self.pending is not None:
            lineno, text = self.pending
            self.pending = None
            failure_look = "signature" in prefilter.grammars_for(text) and FAILURE_LOOK.search(text) is not None
            parsed = self._read_catalogue(lineno, text, recognized=not failure_look)
            if parsed is not None and not failure_look:
                return
            if failure_look:
                if not self._failing_record(lineno, text, parsed):
                    self._miss_failure(lineno, text)
                return
            self.coverage.miss(self.source.name, lineno, kinds.SGLANG, text)
            if not PREFIXED.match(text) and _SENTENCE_END.search(text):
                # a sentence that only begins like one of SGLang's messages ("DeepEP V2 still fails during ...")
                self._read_prose(lineno, text, whole=True, stated_only=True)

    # ------------------------------------------------------------------ blocks
    def _close_block(self, at_end: bool = False) -> None:
        """The open block's events; the lines it hands back are read again, in order, as lines no block took."""
        while self.active is not None:
            closing, self.active = self.active, None
            events = closing.close_at_end(self._in_open_fence()) if at_end else closing.close()
            for event in events:
                self._append(event)
            if closing.grammar == kinds.TRACEBACK_GRAMMAR:
                self.serving.served_request(self.serving.asgi.closed(events))
            self._feed_handed_back(closing.handed_back())
            if not at_end:
                return

    def _feed_handed_back(self, lines: list[tuple[int, str]]) -> None:
        """Lines a block took and hands back, read as lines of their own: the unwrap and prose flags belong to the line
        that closed the block (a failing JSON record after a bash array), never to these."""
        flags = self.opened, self.failing_record, self.quoted, self.in_sentence
        self.opened = self.failing_record = self.quoted = self.in_sentence = False
        try:
            for lineno, text in lines:
                self.recognized_physical.discard(lineno)
                self._feed_line(lineno, text)
        finally:
            self.opened, self.failing_record, self.quoted, self.in_sentence = flags

    def _in_open_fence(self) -> bool:
        """The source's last chunk opens more Markdown code fences than it closes (an odd count of fence lines): the
        copy ended inside a code block. Ingest removes the fences from the lines, so they are counted on the bytes."""
        return self.chunk is not None and len(_FENCE_LINE.findall(self.chunk.all_bytes())) % 2 == 1

    # ------------------------------------------------------------------ output
    def _emit(self, kind: str, lineno: int, text: str, data: dict[str, Any], prefix: dict[str, Any] | None, grammar: str) -> None:
        rank = prefix.get("rank") if prefix else None
        time = prefix.get("time") if prefix else None
        stripped = text.strip()
        if len(stripped) > TEXT_KEEP:
            data["full_text"] = stripped[:_FULL_KEEP]
        if self.quoted:
            data["quoted"] = True
        if self.in_sentence:  # neither quoted nor a code span: a wording inside a sentence of prose
            data["in_sentence"] = True
        self._append(Event(kind, self.source.name, lineno, stripped[:TEXT_KEEP], rank, time, data, grammar))
        if kind != kinds.NCCL_VERSION and kind != kinds.EXCEPTION:  # launch_facts reads an exception's own message
            self._torch_nccl_version(lineno, stripped)

    def _append(self, event: Event) -> None:
        how = self.unwrapped.get(event.line)
        if how is not None:
            event.data.setdefault("unwrapped", how)
        self.events.append(event)


# a shell prompt: "$ ", "user@host:~$ ", "root@box:/dir# ", "(venv) ...$ "; a bare "# " only before a command
# (lower case, a path, an assignment): "### Error Log" and "# Environment" are Markdown headings, not prompts
_PROMPT = r"(?:\([^()\s]+\)\s+)?(?:[^\s#]\S*)?\$ |(?:\([^()\s]+\)\s+)?[^\s#]\S*# |# (?=[a-z./~]|[A-Z_][A-Z0-9_]*=)"
# (a source path and line opening a line: a program's own message, as a device-side assert or a Python warning prints)
# (a record of Go's standard logger, log.LstdFlags = Ldate | Ltime: "2009/01/23 01:23:23 message", src/log/log.go, as
# Go gateways and operators beside SGLang print it)
_RECORD_START = re.compile(
    r"^\s*(?:\[|\d{4}-\d{2}-\d{2}[ T]|\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}\b|"
    # (curl -v's received status line, "< HTTP/1.1 500 Internal Server Error")
    r"< HTTP/|[IWEF]\d{4}(?:\d{4})? |[\w.-]+:\d+:\d+ |/[\w./-]+:\d+: |"
    + UCX_LINE_HEAD
    + r"|File \"|"
    + _PROMPT
    # (a bash -x trace line, a command run under a wrapper; sglang's console script with a subcommand, sglang 0.5.12.post1
    # sglang/cli/main.py: serve, generate, version, or a release after the name, as a package list prints it: "sglang
    # crashed with no error message." is a sentence)
    + r"|export |[A-Z_]+=|\S*python|sglang\s+(?:serve|generate|version|[v=<>~]*\d)|\++ |"
    # a code span opened with a blank before its launcher ("` python -m sglang.launch_server ...", closed on a later
    # line or not at all): the command's line
    + r"`\s+(?:\S*python3?(?:\.\d+)?\s+-m\s+sglang|sglang\s+serve\s)|"
    + WRAPPED_COMMAND
    + r"|(?:ERROR|WARNING|INFO|DEBUG|CRITICAL)\b|Loading \w+ checkpoint shards:"
    r"|(?:[A-Za-z_][\w.]*)?(?:Error|Exception|Interrupt)\b|" + EXCEPTIONS_MODULE_CLASS + r": "
    # a structured record: an event name in capitals, then key=value fields ("NRL_SGLANG_REFIT_FAILURE transfer=broadcast")
    r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+ [a-z_]\w*=\S"
    # a syslog / journalctl record ("Jun  2 10:11:12 gpu-node-3 kernel: ...": RFC 3164's timestamp, journalctl's short
    # output) and the kernel's records copied without it ("kernel: python3[40923]: segfault at ...": not "kernel: 5.15.0",
    # a version an environment listing gives)
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \S+ |kernel: (?!\d))"
)


# a line of prose that ends its sentence (or opens a list, a code block) and a line that goes on with a sentence
# wrapped onto it (lower case, a code span or a parenthesis first; not a list item, a heading, a quote or a fence)
_SENTENCE_ENDS = re.compile(r"[.!?:;\u3002\uff01\uff1f\uff1a]\W{0,2}$|```")
_WRAPPED_ON = re.compile(r"[a-z(`]")
_NOT_WRAPPED = re.compile(r"(?:[-*+>|#]|\d+[.)]|```)")  # a list item, a quote, a table row, a heading, a fence
_WRAP_LINES = 2  # the lines a wrapped sentence is read on after its first
# a hard-wrapped line is at most an editor's or a terminal's width (72-200 columns): a longer line is no piece of a
# wrapped sentence (the 32 KiB heads of a log's long lines, joined, cost the time cues 5 ms a search)
_WRAPPED_WIDTH = 400
# and at least most of the narrowest such width: a short line ended its sentence there, whatever its punctuation ("it
# failed without error message" / "when I change ..., only 1 request is running": two sentences of an issue)
_WRAPPED_FULL = 50


def _wrapped_piece(line: str) -> bool:
    """A line a hard wrap may have cut before its sentence's end: wide enough to have reached the wrap, no wider than one."""
    return _WRAPPED_FULL <= len(line) <= _WRAPPED_WIDTH


def _logical_lines(physical: str) -> list[tuple[str, str | None]]:
    """The logical lines of a physical line, and how each was unwrapped: a JSON body or a flattened traceback is
    opened before ingest's cleaning splits at the log prefixes inside it."""
    if '"' in physical or "\\n" in physical:
        opened = unwrap(physical)
        inner = expand(opened, _WANTED)
        if inner[0].how is not None and _command_words(inner, opened):
            return [(line, None) for line in clean(physical)]  # a launch command: its strings are its words
        if inner[0].how is not None:
            return [(line, piece.how) for piece in inner for line in clean(piece.text)]
    return [(piece.text, piece.how) for line in clean(physical) for piece in expand(line, _WANTED)]


def _command_words(pieces: list[Piece], line: str) -> bool:
    """The strings taken out of a line are words of the launch command the line is (a JSON argument's strings, an
    option's quoted value): the line is read whole, as the command."""
    words = valued_words(line)
    return words is not None and all(quoted_in_its_words(piece.text, words) for piece in pieces)


def _without_command_words(spans: list[str]) -> list[str]:
    """The spans quoted in a sentence less those that are words of a launch command quoted in it too (`python3 -m
    sglang.launch_server --served-model-name "..."` in a code span): the command's, never a failure."""
    commands = [words for span in spans if (words := valued_words(span))]
    if not commands:
        return spans
    return [span for span in spans if not any(quoted_in_its_words(span, words) for words in commands)]


def _starts_a_record(text: str) -> bool:
    """A line that begins a record of its own (a log prefix, a traceback line, a shell line): never the rest of
    a line a terminal cut."""
    text = unwrap(text)  # behind a compose / kubectl / Ray prefix, as the classifier will see it
    return bool(PREFIXED.match(text) or _RECORD_START.match(text))


_KEY_VALUE = re.compile(r"[A-Za-z][\w ]{0,30}: \S")  # check_env's "Python: 3.12.3", "CUDA available: True"


def _reads_whole(text: str) -> bool:
    """Whether a line grammar reads the line as it stands (a native log line's message is free text, which a terminal
    may cut anywhere: its grammar reads a cut line as well as a whole one)."""
    text = unwrap(text)
    return any(
        name not in ("signature", kinds.NATIVE_LOG_GRAMMAR)
        and not _GRAMMARS[name].only_in_prose
        and _GRAMMARS[name].fits(text)
        and _GRAMMARS[name].parse(text) is not None
        for name in prefilter.grammars_for(text)
    )


# the grammars that read prose as well as records: a line only they read may be a line of a message
_PROSE_GRAMMARS = frozenset({kinds.STATED_ENV_GRAMMAR, kinds.STATED_FAILURE_GRAMMAR, kinds.TIME_CUE_GRAMMAR, "signature"})


def _a_record_of_its_own(reader: BlockReader, text: str) -> bool:
    """A line a grammar reads, under an exception line whose message the reader is taking from the lines below it:
    the message ended above it (a torch OOM text, a phase line, another exception are records of their own)."""
    if not isinstance(reader, TracebackReader) or not reader.reading_message:
        return False
    return bool(set(prefilter.grammars_for(text)) - _PROSE_GRAMMARS)


def _catalogued_warning(text: str) -> bool:
    """A catalogued SGLang wording that the released code logs at warning level."""
    if len(text) > _CATALOGUE_CHARS:
        return False
    parsed = _GRAMMARS[kinds.CATALOGUE_GRAMMAR].parse(text)
    return parsed is not None and parsed.kind == kinds.CATALOGUED_LINE and parsed.data.get("level") == "warning"


def _sglang_line(text: str, candidates: list[str]) -> bool:
    """A whole line in one of SGLang's printed forms, pasted without its log prefix ("KV Cache is allocated. #tokens:
    367404, K size: 8.23 GB, V size: 8.23 GB" on a line of its own): a record, though no message head begins it."""
    grammar = _GRAMMARS[kinds.SGLANG]
    return kinds.SGLANG in candidates and grammar.fits(text) and grammar.parse(text) is not None


def _dump(text: str) -> bool:
    """SGLang's server_args dump behind words no prefix reader knows (a log collector's pod and container names:
    "sglang-7d9f8c-abcde sglang [2026-02-01 10:00:00] server_args=ServerArgs(model_path=..."), or a launch's argv as a
    list of strings (a JSON spec's line, `{"cmd": ["python3", "-m", "sglang.launch_server", ...]}`): a record wherever
    it starts, as no sentence writes a dataclass's repr; read as prose, the catalogue's wording took the dump and cut its
    value at the first comma, and the list gave nothing. A sentence that quotes the argv list between its words ("...
    neither works: ["python3", "-m", ...] crashes with CUDA error: ...") stays a sentence: the failure it states is read
    as prose's (command_shapes.argv_in_a_sentence)."""
    if _DUMP_HEAD in text:
        return True
    return "[" in text and argv_words(text) is not None and not argv_in_a_sentence(text)


def _a_status_line(text: str) -> bool:
    """A shell's or a container tool's status line (status_lines.py), also behind SGLang's prefix (a launcher that
    prefixes its children's output: "[2025-06-01 10:00:00 TP3] zsh: killed  python3 -m ...")."""
    if is_a_status_line(text):
        return True
    message = message_after_prefix(text)
    return message is not None and is_a_status_line(message)


def _one_version_a_package(events: list[Event]) -> list[Event]:
    """The versions a sentence's spans state, less a package they give two versions ("triggers the installation of the
    latest `torch==2.10.0`, ..., as `sglang` is built with `torch==2.9.0`"): neither is said to run, as a sentence's
    own words stating two would not be (stated_env.named_versions)."""
    stated = [e for e in events if e.kind == kinds.STATED_ENV and e.data.get("values")]
    seen: dict[str, set[str]] = {}
    for event in stated:
        for key, value in event.data["values"].items():
            seen.setdefault(key, set()).add(str(value))
    twice = {key for key, values in seen.items() if len(values) > 1}
    if not twice:
        return events
    kept = []
    ids = {id(e) for e in stated}
    for event in events:
        if id(event) in ids and set(event.data["values"]) & twice:
            event.data["values"] = {k: v for k, v in event.data["values"].items() if k not in twice}
            if not event.data["values"]:
                continue
        kept.append(event)
    return kept


# a record NCCL prints at its INFO level (`host:pid:tid [cudaDev] NCCL INFO ...`, debug.h's INFO() macro; a failure is
# WARN()'s `NCCL WARN`): its failure words are a step NCCL goes on after, "NET/Plugin: Failed to find ncclNetPlugin_v9
# symbol." before it loads v8 or its own transport (nccl 2.19-2.27 src/plugin/net.cc, net_v8.cc, net_v9.cc), no failure
# to list (probe pytorch/pytorch#105287)
_NCCL_INFO_RECORD = re.compile(r"\[\d+\] NCCL INFO ")


# a sentence that labels the code span after it ("Error message: `KeyError: 'layers.0.attention.wk.weight'`", probe
# sgl-project/sglang#519; "Error log: `...`", "Error message is `...`"): prose whose span is the record, not a record that
# opens with the word "Error"
_LABELLED_SPAN = re.compile(
    r"^\s*(?:Error|Exception)\s+(?:messages?|logs?|info|information|details?|output|text|trace)"
    r"(?:\s+(?:is|was))?[\s:：]*`"
)


# between the failure's words and the claim, a count of none ("Failed requests: 0 after ...", "Failed: none after
# ...") or a verb of recovery or of another subject ("Failed health checks stopped after ...", "Killed processes are
# restarted after ..."): the line says something else of a healthy run (review16b item 2)
_COUNTED_OR_RECOVERED = re.compile(
    r"(?i):\s*(?:0|none|no|zero)\b|\b(?:zero|no)\s+\w+"
    r"|\b(?:stopped|stop|stops|ceased|recovered|recover|recovers|restarted|resumed|succeeded|passed|cleared|vanished"
    r"|disappeared|went away|go away|goes away|decreased|dropped)\b"
)
# a line that opens with the shell's word for a process a signal ended ("Killed", bash's status of SIGKILL)
_OPENS_KILLED = re.compile(r"\s*Killed\b")
# or with memory running out ("CUDA out of memory after 2 hours of serving.", an issue's title; review16b item 9)
_OPENS_OOM = re.compile(r"(?i)\s*(?:(?:CUDA|GPU|HIP|NPU)\s+)?(?:OOM|out[- ]of[- ]memory)\b")


def _claimed_failure(text: str, candidates: list[str]) -> bool:
    """A line that opens with a failure's words and says when it came, with no log record's start ("Segmentation fault
    after 3 hours of generation.", "Killed after 2 hours of inference.": an issue's title pasted first): a sentence, read
    as prose, so the failure is kept and the claim is its time (review16a item 4: read as the claim only, an all-clear)."""
    if kinds.TIME_CLAIM_GRAMMAR not in candidates or "signature" not in candidates:
        return False
    if FAILURE_LOOK.search(text) is None and _OPENS_KILLED.match(text) is None and _OPENS_OOM.match(text) is None:
        return False
    if _record_shaped(text) or prefix_of(text) is not None:
        return False
    claim = _GRAMMARS[kinds.TIME_CLAIM_GRAMMAR].parse(text)
    if claim is None:
        return False
    # (no count of none or verb of recovery between the failure's words and the claim: _COUNTED_OR_RECOVERED)
    at = text.find(str(claim.data["said"]))
    return at > 0 and _COUNTED_OR_RECOVERED.search(text[:at]) is None


def _record_shaped(text: str) -> bool:
    """A log record's start, a line behind a shell prompt, a flag line, a status line or a command line."""
    return bool(
        _RECORD_START.match(text) or behind_prompt(text) or flag_line(text) or is_a_status_line(text) or command_line(text)
    )


def _looks_like_a_record(text: str) -> bool:
    """A log record, a traceback line, a shell line, or a line that starts with a known message head (not a sentence that
    labels the code span after it, _LABELLED_SPAN)."""
    if _LABELLED_SPAN.match(text):
        return False
    if _record_shaped(text):
        return True
    # a line that opens with a message head's words but is a label before a launch command ("启动指令：sglang serve
    # ...": 启动 heads a catalogued message) is prose with a command in it, read by after_label as "Command: ..." is
    return text.lstrip().startswith(prefilter.heads()) and after_label(text) is None


def classify_sources(
    sources: list[Source], chunks: list[Iterator[LineChunk]], stream_after: int | None = None
) -> tuple[Iterator[SourceEvents], Coverage]:
    """Each source's events, from its line chunks (ingest.scan_sources with the prefilter's literals, the serving
    line's pattern and the startup scan: pipeline/analyze.py), one source after the other as they are asked for:
    a source is read when the one before it has been (its events, when they stream, and the coverage are complete
    then)."""
    coverage = Coverage()
    hold = STREAM_AFTER if stream_after is None else stream_after
    return (source_events(s, coverage, each, hold) for s, each in zip(sources, chunks)), coverage


def source_events(source: Source, coverage: Coverage, chunks: Iterator[LineChunk], stream_after: int) -> SourceEvents:
    """A source's events in time order: read whole when it holds up to `stream_after`; else the first
    `stream_after` decide the order and the rank tags, and the rest stream. A log listed newest first is read
    whole to be reversed (streamed, it would be read backwards)."""
    classifier = SourceClassifier(source, coverage, chunks)
    events = classifier.stream(stream_after)
    head: list[Event] = []
    for event in events:
        head.append(event)
        if classifier.streaming and len(head) >= stream_after:
            break
    if not classifier.streaming or newest_first(head):
        whole = in_time_order(head + list(events) if classifier.streaming else head)
        return SourceEvents(source.name, whole, any(e.rank is not None for e in whole), {e.grammar for e in whole})
    read = SourceEvents(source.name, [], any(e.rank is not None for e in head), streamed=True)
    read.events = _streamed(head, events, read.grammars)
    return read


def _streamed(head: list[Event], rest: Iterator[Event], grammars: set[str]) -> Iterator[Event]:
    """The events read to decide, each let go once handed on, then the rest as it is read; their grammars noted."""
    held = deque(head)
    head.clear()
    while held:
        event = held.popleft()
        grammars.add(event.grammar)
        yield event
    for event in rest:
        grammars.add(event.grammar)
        yield event


def in_time_order(events: list[Event]) -> list[Event]:
    """A log exported newest first (cloud logging consoles do) is read oldest first: the events are reversed
    when their timestamps mostly go back in time. Line numbers stay those of the input."""
    return events[::-1] if newest_first(events) else events


def newest_first(events: list[Event]) -> bool:
    times = [e.time for e in events if e.time]
    back = sum(1 for a, b in zip(times, times[1:]) if b < a)
    forward = sum(1 for a, b in zip(times, times[1:]) if b > a)
    return back >= 2 and back > 2 * forward


def _only_intended(event: Event, sentence: str) -> bool:
    return event.kind == kinds.TIME_CLAIM and time_claims.only_intended(str(event.data["said"]), sentence)


def _exceptions_in_sentence(text: str) -> list[str]:
    """The exception a sentence names after its own words (_SENTENCE_EXCEPTION), with its message: none when the
    sentence asks about it, supposes it, fixes or dismisses it, or denies it in the clause before it."""
    found = _SENTENCE_EXCEPTION.search(text)
    if found is None or found.start() == len(text) - len(text.lstrip()):
        return []  # (an exception line of its own is a record, read as one)
    before = text[: found.start()]
    sentence = stated_failure.sentences(before)[-1:] or [""]
    denied = DENIED.search(CLAUSE.split(before)[-1]) or NEGATED.search(before)
    if denied or stated_failure.rules_out(sentence[0] + " " + found.group(1)):
        return []
    if _OTHER_ENGINE.search(sentence[0]) or _DESIGNED.search(sentence[0]) or _DESIGNED.search(found.group(1)):
        return []  # (another engine's error, or a designed answer)
    return [found.group(1).strip()]

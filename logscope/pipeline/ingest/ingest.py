"""Inputs → numbered physical lines, and the paste-wrapper cleaning of one physical line.

Every input (file, glob, directory, .gz, stdin) becomes a ``Source``; its physical lines keep the
1-based number they have in the file, so evidence points at what the user sees in an editor.
Cleaning turns one physical line into the logical lines it holds: ANSI codes removed, a lone CR is
a line break (tqdm), docker-compose / Ray / kubectl / Markdown wrappers stripped, and a log line
glued to the end of a progress bar split off.
"""

from __future__ import annotations

import glob
import io
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from logscope.core.errors import InputError
from logscope.core.limits import ReadNotes, cut_long_lines, expanded, is_compressed
from logscope.pipeline.ingest import ranges
from logscope.pipeline.ingest.decoding import SNIFF_BYTES, UTF8, binary_reason, decode_stream, has_bare_cr, sniff_encoding
from logscope.pipeline.ingest.folders import read_folder
from logscope.pipeline.ingest.interleaved import undoubled
from logscope.pipeline.ingest.linescan import (
    AnchoredPattern,
    LineChunk,
    LiteralScan,
    StartupRoom,
    StartupScan,
    lines_matching,
    settle_parts,
    with_startup_lines,
)
from logscope.pipeline.ingest.unwrap import FAILING_RECORD_LEVELS, GLUED_MIN, PADDED_MIN, glued_check_env, padded_rows

__all__ = ["LineChunk", "Source", "clean", "expand_inputs", "rank_hint_from_name", "scan_sources", "unwrap"]

CHUNK_BYTES = 1 << 22  # 4 MiB of complete lines per read of a stream (stdin, .gz, a small file)

_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
# a colour code whose ESC a copy dropped (a rendered page keeps "[36m(TaskRunner pid=1234)[0m RuntimeError: ..." of
# Ray's coloured prefix): taken off a line that holds the reset code's remnant "[0m"; a bracket that a word closes
# ("[0ms]", "[5min]") is none
_SGR_LEFT = re.compile(r"\[\d{1,3}(?:;\d{1,3}){0,4}m(?![A-Za-z]*\])")
# GitHub's autolink of an issue or pull request number, as a copy of a rendered page writes it back into the text: a
# C++ backtrace's "frame #44: ..." (torch's c10 frames), gdb's "#3  0x... in ...", a list's "#12" became
# "frame [#44](https://github.com/<owner>/<repo>/pull/44): ..." (awesome-ml-sys-tutorial-106); the link's own number is
# the text's, so the number alone is what the program printed
_AUTOLINK = re.compile(r"\[#(\d+)\]\(https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/\1\)")
# kubectl logs --timestamps (a space), a log console's export (a tab), and the CRI log files kubelet writes under
# /var/log/pods ("<time> stdout F <line>": the stream, then F for a full line or P for a partial one)
_K8S_TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})(?: (?:stdout|stderr) [FP])?[ \t]")
# cloud log exports: a severity and an RFC 3339 time before the line, in either order, and Cloud Logging's
# "[severity: ERROR]" label after them when the export renders it
_SEVERITY = r"(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|WARN|ERROR|CRITICAL|ALERT|EMERGENCY)"
_RFC3339 = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})"
# ... and the emitting function after them, as Rust's tracing formatter prints its target (Dynamo's workers:
# "2025-12-10T13:50:14.788089Z  INFO model_runner.load_model: Load weight end. ..."): all lower-case names, so an
# exception's class ("torch.distributed.DistBackendError: ...") is never taken for it
# (the Full format puts the span context before the target: "shaving_yaks{yaks=3}:shave{yak=1}: fmt::yak_shave: ...",
# each span's name and fields joined by ":", tracing-subscriber fmt::format::Full's documented output; SGLang's router:
# "http_request{method=POST uri=/generate}: sglang_router_rs::routers::http::pd_router: ...")
_SPANS = r"(?:[A-Za-z_]\w*(?:\{[^{}\n]{0,400}\})?(?::[A-Za-z_]\w*(?:\{[^{}\n]{0,400}\})?){0,8}: (?=[a-z_]\w*(?:\.|::)))?"
_TARGET = r"(?:" + _SPANS + r"[a-z_]\w*(?:(?:\.|::)[a-z_]\w*)+: )?"
_EXPORTER = re.compile(
    rf"^(?:{_SEVERITY}\s+{_RFC3339}|{_RFC3339}\s+(?P<level>{_SEVERITY}))\s+(?:\[severity: {_SEVERITY}\]\s+)?(?P<target>{_TARGET})"
)
# loguru's default format (loguru 0.7.3 _defaults.py LOGURU_FORMAT: "{time:YYYY-MM-DD HH:mm:ss.SSS} | {level: <8} |
# {name}:{function}:{line} - {message}"), what Python programs beside SGLang print: its time, level and place
_LOGURU = re.compile(
    r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} \| (?P<level>TRACE|DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL) *\| "
    r"[\w.<>-]+:[\w.<>-]+:\d+ - "
)
# Python logging's "%(asctime)s | %(levelname)s | %(name)s | %(message)s" (FastChat fastchat/utils.py build_logger, with
# datefmt "%Y-%m-%d %H:%M:%S"; fairseq's scripts; asctime's default adds ",%(msecs)03d"): FastChat's SGLang worker runs
# the server with sys.stdout and sys.stderr redirected to the loggers "stdout" (INFO) and "stderr" (ERROR) through its
# StreamToLogger, so every line a process printed carries the stream's level, not a record's own
_PIPED_LOGGING = re.compile(
    r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:,\d{3})? \| (?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) \| "
    r"(?P<name>[\w.-]+) \| "
)
_STREAM_LOGGERS = frozenset({"stdout", "stderr"})
# LMCache's logger format (lmcache/logging.py build_format: "[%(asctime)s] LMCache %(levelname)s: %(message)s
# (%(filename)s:%(lineno)d:%(name)s)", asctime logging's default "2025-09-25 00:42:06,089"), what a vLLM or SGLang
# process with LMCache prints: its time, level and the library's name
_LMCACHE = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}\] LMCache (?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL): ")
# tracing-subscriber's default format ("<RFC 3339 time> <LEVEL> <target>: <message>", tracing_subscriber::fmt::format::Full,
# what SGLang's router and Dynamo's Rust runtime print) states the record's own level: an ERROR record keeps its level
# word, so a failure no wording names is still read as one. (A cloud export's severity is its stream's, stderr = ERROR
# for every line of a traceback: dropped.) A traceback or an exception line after it is read as it stands.
# dynamo-run's vLLM engine relays each line of its vLLM subprocess through tracing (ai-dynamo/dynamo
# lib/llm/src/engines/vllm/worker.rs start_vllm, the dynamo-run tree of 2025-03, commit 26fdb52): a stdout line split
# at its first three blanks, the first word taken for the level and the next two (vLLM's date and time) dropped, then
# tracing::debug!/info!/warn!("VLLM: {rest}") for DEBUG, INFO and WARNING, tracing::info!("VLLM: {level} {rest}") for
# any other first word, and every stderr line as tracing::warn!("VLLM: {line}"); a worker's line that vLLM prefixed
# "(VllmWorkerProcess pid=N) ERROR 03-31 ..." so loses its pid and level ("VLLM: (VllmWorkerProcess 03-31 03:33:02
# multiproc_worker_utils.py:242] ..."). What is left is vLLM's file and line before its message, and the level word
# only where the relay kept it
_VLLM_RELAY_TARGET = re.compile(r"(?:^|::|\.)engines::vllm::worker: $")
_VLLM_RELAY = re.compile(
    r"^VLLM: (?:\((?!\s)[^()\n]{1,64} \d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? [\w.-]+\.py:\d+\] "
    r"|(?:(?P<level>ERROR|CRITICAL) )?[\w.-]+\.py:\d+\] )?"
)
# dynamo-run's SGLang engine relays its SGLang subprocesses' lines the same way (ai-dynamo/dynamo
# lib/llm/src/engines/sglang/worker.rs start_sglang, the dynamo-run tree of 2025-03, commit 845bc39): each stdout line as
# tracing::info!("SGLANG{tp_rank} {line}"), each stderr line with a leading "[YYYY-MM-DD HH:MM:SS] " stamp dropped
# (SGLANG_LOG_RE; a stamp with a rank tag, "[... TP0] ", does not match and stays) as tracing::info!("SGLANG{tp_rank}
# {rest}"). The relay's level is its own, not the record's: SGLang's line is what is left after "SGLANG{rank} "
_SGLANG_RELAY_TARGET = re.compile(r"(?:^|::|\.)engines::sglang::worker: $")
_SGLANG_RELAY = re.compile(r"^SGLANG\d{1,4} ")
_INDENT_MAX = 8  # the blanks of an indented block (four, or a list item's indent before them)
_FAILING_PREFIX_LEVELS = frozenset(level.upper() for level in FAILING_RECORD_LEVELS)
# (ninja's progress "[3/11] " opens no record of its own: ninja 1.13.2's NINJA_STATUS default "[%f/%t] ")
_OWN_RECORD = re.compile(r"\s*(?:Traceback \(|File \"|\[(?!\d+/\d+\] )|(?:[A-Za-z_][\w.]*)?(?:Error|Exception)\b)")
# Talos Linux's `talosctl dmesg`: the node, the kernel record's facility and severity (padded), its time, then the
# message ("172.20.1.2: kern:    info: [2021-11-10T10:09:37.662764956Z]: Command line: ...": siderolabs/talos
# website/content/docs/v0.14/Guides/logging.md)
_TALOS_DMESG = re.compile(r"^[\w.:-]+: [a-z]+: +[a-z]+: \[" + _RFC3339 + r"\]: ")
# the kernel's own time stamp before each record dmesg prints (CONFIG_PRINTK_TIME: "[%5lu.%06lu] ", seconds since boot;
# kernel/printk/printk.c print_time); UCX's own "[1744019893.262318] [host:pid:tid]" is seconds since the epoch (ten
# digits) and another bracket follows it: no kernel's
_PRINTK_TIME = re.compile(r"^\[\s*\d{1,8}\.\d{6}\] (?!\s*\[)")
# the systemd journal's lines (journalctl(1) --output=short, the classic syslog line, and short-precise, short-iso,
# short-iso-precise: the time, the host, the identifier and its [pid], then the message) before each line a service
# wrote: "Dec 07 04:24:14 gpu-node python3[1234]:   File ..."
_JOURNAL = re.compile(
    r"^(?:[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d{6})?"
    r"|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{6})?(?:Z|[+-]\d{2}:?\d{2}))"
    r" [\w.-]+ [^\s\[\]:]+\[\d+\]: "
)
# pm2's log stream (pm2 lib/API/Log.js Log.stream: pad(' '.repeat(min_padding), pm_id + '|' + name) + ' | ', the padding
# at least one space): "0|sglang  | [2025-...] ..."
_PM2 = re.compile(r"^\d+\|[^\s|]+ +\| ")
# a CI console's time stamp in brackets before each line (Jenkins' Timestamper, "[2025-11-06T02:10:00.702Z] ")
_BRACKETED_RFC3339 = re.compile(rf"^\[{_RFC3339}\](?: |$)")
# docker compose's service and replica ("sglang-1  | "), padded to the longest name: a name without a replica number
# needs that padding (one space before the bar is a Markdown table's row: "DeepEP | 1.2.1")
_COMPOSE = re.compile(r"^[A-Za-z0-9][\w.-]*(?:[-_]\d+\s+|\s{2,})\| ?")
# the longest name takes no padding: one space before the bar (compose v1 log_printer.build_log_prefix:
# name.ljust(max_name_width) + " | "), read only before a traceback's line, a log record or an exception line, and
# never on a row with another bar (a Markdown table's "DeepEP | 1.2.1 |")
_COMPOSE_LONGEST = re.compile(
    r"^[A-Za-z0-9][\w.-]* \| (?=\s|\[|Traceback \(|File \"|(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)\b)(?!.*\|)"
)
# Ray's driver prints each worker line as "({actor or task name} pid={pid}, ip={ip}) {line}" (ray/_private/worker.py
# print_worker_logs; ", ip=" only for another node): the name is the actor's, any word a user gave it ("model_worker/12");
# vLLM's processes print the same shape with a name of words (vllm 0.10.1.1 utils decorate_logs / _add_prefix:
# f"({worker_name} pid={pid}) ", the worker's name "VllmWorker TP0", older releases' "VllmWorker rank=0"); an actor class
# that defines __repr__ is named by its repr, parentheses and blanks inside ("(WorkerDict(rank=54 pod=n-18) pid=384, ip=...)":
# Ray's "Customizing prefixes for Actor logs", ray.util.state.common.ActorState.repr_name)
_RAY = re.compile(r"^\((?:[^\s()]+(?:\([^()]{0,200}\))? ){0,3}pid=\d+(?:, ip=[\w.:-]+)?\) ")
# a time stamp in brackets before Ray's prefix ("[2026-03-12 11:50:36] (TaskRunner pid=3483799) "): Ray's driver prints
# none, so whatever captured the driver's output stamped it (a wrapper's, never a log record's own prefix)
_STAMPED_RAY = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?\] (?=" + _RAY.pattern[1:] + ")")
# torchrun's (torch.distributed.elastic) tee of its workers' output: each line after the header f"[{name}{local_rank}]:"
# (torch 2.9.1 distributed/elastic/multiprocessing/tail_log.py TailLog; the agent's role name, "default" unless set:
# "[default0]:  File ..."); torch's own "[rank0]:" excepthook prefix is read by the SGLang grammar (it names the rank)
_TAIL_LOG = re.compile(r"^\[(?!rank\d)[A-Za-z_][\w-]*?\d+\]:")
# ai-dynamo's test harness (tests/utils/managed_process.py ManagedProcess): each line of the process it runs after
# f"[{command[0].upper()}] " ("[BASH] ", "[PYTHON3] ", "[DYNAMO] "; "[UNKNOWN] " without a command): the programs its
# tests run, a shell, the interpreter or Dynamo's CLI (a level word or an error code in brackets is no such name)
_MANAGED_PROCESS = re.compile(r"^\[(?:BASH|SH|PYTHON(?:3(?:\.\d+)?)?|DYNAMO|UNKNOWN)\] ")
# kubectl logs --prefix: "[pod/<pod>/<container>] " before each line
_KUBECTL_PREFIX = re.compile(r"^\[pod/[^\s/\]]+/[^\s/\]]+\] ")
# a launcher's task label (srun --label, torchrun's "0: " node prefix) before a log record, a traceback's line or
# an exception line (never before other text: an issue's "1: " list item stays as written)
_TASK_LABEL = re.compile(r"^\d{1,4}: (?=[\[\s]|Traceback |(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning)\b)")
# pdsh's / mpirun --tag-output's / a pod log's host name before the same lines (a lower-case host name with a digit or
# a hyphen, never a word of prose), or before NCCL's own "<host>:<pid>:<tid> [dev]" prefix that repeats it
_HOST_LABEL = re.compile(
    r"^(?P<host>[a-z0-9](?=[a-z0-9.-]*[-\d])[a-z0-9.-]*[a-z0-9]): "
    r"(?=[\[\s]|Traceback |(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning)\b|(?P=host):\d+:\d+ \[)"
)
# vLLM's logger format ("ERROR 02-09 16:43:26 tp_worker_overlap_thread.py:112] "), which SGLang processes print
# when vLLM's logging config is in force: level, month-day, time, source file and line
# (vllm logger.py _FORMAT "%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s"); later releases put the
# file in brackets ("ERROR 08-08 17:42:35 [core.py:682] ", _FORMAT "... [%(fileinfo)s:%(lineno)d] %(message)s", fileinfo a
# file name or, with VLLM_LOGGING_IMPORT_PACKAGE_FILE, a package path)
_VLLM_PREFIX = re.compile(
    r"^(?P<vllm_level>DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? "
    r"(?:[\w.-]+\.py:\d+\]|\[[\w./-]+\.py:\d+\]) "
)
# spdlog's default pattern (spdlog 1.x pattern_formatter.h full_formatter, the "%+" pattern: "[%Y-%m-%d %H:%M:%S.%e] [%n]
# [%l] %v", the logger's name left out when it is empty; level names SPDLOG_LEVEL_NAMES "trace", "debug", "info",
# "warning", "error", "critical", "off"): the native libraries' C++ logger beside the Python ones
_SPDLOG = re.compile(
    r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?\] (?:\[[\w.:-]+\] )?"
    r"\[(?P<level>trace|debug|info|warning|error|critical)\] "
)
# a line of a traceback vLLM logs (its formatter prefixes every line of a record's message): a source line or a caret
# line, indented or all marks; the level is not that line's own
_TRACEBACK_BODY = re.compile(r"\s|[~^]+\s*$")
# pytest's failure report: the exception's lines behind its fail marker "E" and the indent (pytest 9.2.0
# _pytest/_code/code.py FormattedExcinfo.get_exconly: fail_marker + indentstr[1:], "E   " and more), and a short test
# summary line's message after the test's node id (_pytest/terminal.py _get_line_with_reprcrash_message:
# f"{word} {node}" + f" - {msg}", word FAILED or ERROR)
_PYTEST_FAIL = re.compile(r"^E {3,}(?=\S)|^(?:FAILED|ERROR) [\w./-]+\.py(?:::\S+)? - (?=\S)")
_RAY_REPEAT = re.compile(r"\s*\[repeated \d+x across cluster\]\s*$")
_QUOTE = re.compile(r"^(?:>[ \t]?)+")
# an added line of a unified diff (GNU diff / git diff: "+" in the first column, then the line as written, its indent
# kept), as a Markdown ```diff fence shows a changed launch script ("+              exec python3 -m dynamo.sglang \");
# never a list item or a shell trace ("+ " and one space), a table's border ("+----", "+===") or a count ("+1")
_DIFF_ADDED = re.compile(r"^\+(?=[ \t]{2,}\S|[A-Za-z_])")
# an exception line set in Markdown strong emphasis as a line of its own ("**AttributeError: 'X' object has no attribute
# 'y'**", "__RuntimeError: ...__"; CommonMark 0.31 §6.2: `**`/`__` delimiter runs): the emphasis is the issue's
# presentation, the line is the exception's (a bold line of other words stays a heading: "**Feature request**")
_BOLD_EXCEPTION = re.compile(
    r"^\s*(\*\*|__)((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit)(?:\([A-Za-z_]\w*\))?: \S.*?)\1\s*$"
)
# ... and a whole log record set in strong emphasis the same way, a logger's prefix before the exception's line
# ("**ERROR 12-08 22:01:13 engine.py:135] ValueError: Error in model execution ...**", vLLM's logger format below):
# the emphasis goes when what its prefixes leave is an exception's line; any other bold line stays as written
# (one emphasis layer: an inside that starts with another `*`/`_` is no record's line, a banner of stars is not
# peeled layer by layer; the inside is read once through the prefix strips below, never through this one again:
# review15a item 3, a recursion per four stars crashed a 4 KiB line of stars with a word in it)
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(?![*_])(\S.*?)\1\s*$")
_EXCEPTION_LINE = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit)(?:\([A-Za-z_]\w*\))?: \S")
_FENCE = re.compile(r"^\s*(?:```|~~~)(?:[A-Za-z][\w+-]*(?=\s|$))?")
_HTML = re.compile(r"</?(?:details|summary|pre|code)[^>]*>", re.IGNORECASE)
# an HTML line break inside a line (a Markdown table cell's way to break its lines: "--tp 8<br>--mem-fraction-static
# 0.8"): a break between words, read as a blank (removed, it glued the words around it into one)
# (a match starts only where a blank run starts: a leading \s* tried at every blank of a long run before a `<` that is
# no break was quadratic, review14a item 14)
_HTML_BREAK = re.compile(r"(?:(?<=\S)|^)\s*<br\s*/?>\s*", re.IGNORECASE)
# a log viewer's or collector's time stamp and a bar before each line, as docker compose puts a service's name
# ("2026-06-09 12:30:47.434 | Capturing batches (bs=24 ...)")
_VIEWER_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\s+\| ?")
# a log viewer's table copied row by row: the time stamp column on a line of its own (a TAB after it) before each
# line ("2025-05-21 16:20:15<TAB>" then "Fatal Python error: ..."; a form seen in pastes only): a line holding nothing
# else, dropped so that the records it parts are read as one block
_TIME_ALONE = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\t\s*$")
# a logging format of one's own before each line of a traceback logged line by line (time, level, pid, then the rank
# tags and the source file and line in brackets: "2025-08-28 21:19:34 ERROR 125765 [ DP10 TP10 EP10 scheduler.py:2655] ");
# its other lines keep the head, which the SGLang grammar reads (custom_prefix: the rank tags, else the pid)
_TRACEBACK_HEAD = re.compile(
    r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)? +(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) +\d+ +"
    r"\[ ?(?:[A-Z_]+\d+ )*[\w.-]+:\d+\] ?"
    r"(?=$|Traceback \(most recent call last\)|  +\S|During handling of the above|The above exception"
    r"|(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt): )"
)
# a log console's time stamp (month-day and a time to the millisecond, no year) before each line of a traceback it
# collected, the line's own indent kept after it ("04-20 13:32:25.784  File \"/app/sglang/python/sglang/srt/managers/
# scheduler.py\", line 3770, in run_scheduler_process"; a form seen in pastes only): taken off before a traceback's line
# only (an indented frame, a caret line, a source line's four-blank indent, the opener, an exception line); a line of
# other words after two blanks keeps it (Android logcat's "MM-DD HH:MM:SS.mmm  PID  TID L TAG: msg" is no traceback)
_CONSOLE_STAMP = re.compile(
    r"^\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}"
    r"(?=[ \t]{2,}(?:File \"|\^|~)|[ \t]{4,}\S"
    r"|[ \t]*(?:Traceback \(|File \"|(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)\b))"
)
# Open MPI's mpirun --tag-output ("[<jobid>,<rank>]<stdout|stderr|stddiag>:") before each line of a rank, after its
# --timestamp-output time in ctime()'s form ("Thu Jan 23 11:55:50 2025")
_MPI_TAG = re.compile(r"^(?:[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})?\[\d+,\d+\]<std(?:out|err|diag)>:")
# A log record glued after a progress bar: "...3.89it/s][2026-05-07 13:39:14 DP1 TP1 EP1] Load weight end."
# (also the undated prefix of older releases, with its rank tags: "^@[17:43:23 TP6] Load weight end. ...", the NUL a
# crashed writer left shown in caret notation), or after a tag that ends in a colon, a bar or a bullet and a space:
# pdsh's / mpirun's host ("node01: [2026-...] ..."), grep -n's line number, syslog's "host python3[1234]: ", "- "
_EMBEDDED_PREFIX = re.compile(
    r"(?:(?<=\S)|(?<=[:|>*-])\s+)(?=\[(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{3})?(?: [A-Z_]+\d+)*"
    r"|\d{2}:\d{2}:\d{2}(?:\.\d{3})?(?: [A-Z_]+\d+)+)\] )"
)

# tqdm updates pasted without their carriage returns: "...2.0it/s]Capturing batches (bs=144 ..."; and the shell's
# "Killed" (bash's report of a job SIGKILL ended) glued after the last update: "...| 3/8 [00:02<00:03,  1.28it/s]Killed"
_GLUED_PROGRESS = re.compile(
    r"(?<=\S)(?=Capturing (?:batches|num tokens|prefill shape) \(|Loading (?:safetensors|pt) checkpoint shards:)"
    r"|(?<=it/s\]|s/it\])(?=Killed\s*$)"
)

_RANK_FROM_NAME = [
    (re.compile(r"(?:^|[^a-z])rank[_-]?(\d+)", re.I), "rank"),
    (re.compile(r"(?:^|[^a-z])tp[_-]?(\d+)", re.I), "tp"),
    (re.compile(r"(?:^|[^a-z])node[_-]?(\d+)", re.I), "node"),
]


@dataclass(slots=True)
class Source:
    """One input: a file, a member of a glob or directory, or stdin."""

    name: str
    path: Path | None
    data: bytes | None = None  # text given in memory (rule cases, tests)
    stream: io.BufferedIOBase | None = None  # stdin: read once, streamed like a file
    rank_hint: dict[str, int] = field(default_factory=dict)
    lines: int = 0
    recognized_lines: int = 0
    notes: ReadNotes = field(default_factory=ReadNotes)  # encoding, lines cut, where reading stopped
    read_bytes: int = CHUNK_BYTES  # per read of a stream; smaller where a deadline is checked between chunks
    uploaded: bool = False  # data sent as a file (the paste page): binary refused, as the CLI refuses a file

    def open_binary(self) -> io.BufferedIOBase:
        if self.data is not None:
            return io.BufferedReader(io.BytesIO(self.data))  # type: ignore[arg-type]
        if self.stream is not None:
            return self.stream
        assert self.path is not None
        try:
            return open(self.path, "rb")  # noqa: SIM115 - returned to the caller, closed by it
        except OSError as exc:
            raise InputError(f"{self.name}: cannot read: {exc.strerror or exc}") from None

    def raw_reads(self, stream: io.BufferedIOBase) -> Iterator[bytes]:
        while True:
            try:
                data = stream.read(self.read_bytes)
            except OSError as exc:
                raise InputError(f"{self.name}: cannot read: {exc.strerror or exc}") from None
            if not data:
                return
            yield data

    def reads(self) -> Iterator[bytes]:
        """The input as UTF-8 in reads of at most CHUNK_BYTES: decompressed with a cap, decoded, binary refused
        (logscope/core/limits.py, logscope/pipeline/ingest/decoding.py); a corrupt compressed stream is a one-line input error."""
        stream = self.open_binary()
        try:
            # text given in memory (a triage block, a rule case) was text to its caller: never refused as binary
            raw = expanded(self.name, self.raw_reads(stream), self.read_bytes, self.notes)
            encoding, texts = decode_stream(self.name, raw, refuse_binary=self.data is None or self.uploaded)
            if encoding != UTF8:
                self.notes.encoding = encoding.label
            last = b""
            for text in texts:
                if text:
                    last = text
                yield text
            self.notes.unterminated = bool(last) and not last.endswith(b"\n")
        finally:
            stream.close()

    def complete_reads(self) -> Iterator[bytes]:
        """The input in reads cut at their last newline (the unfinished line is carried to the next read),
        each line longer than limits.LINE_CAP cut there and counted in notes.cut_lines."""
        return cut_long_lines(self.reads(), self.notes)

    def chunks(
        self,
        literals: tuple[str, ...],
        scan: LiteralScan | None = None,
        first_of: AnchoredPattern | None = None,
        startup: StartupScan | None = None,
    ) -> Iterator[LineChunk]:
        """Numbered batches of physical lines with the indices and texts of the lines holding a literal, read
        on this thread (stdin, .gz, small files; large files go to `scan_sources`' worker processes); the first
        chunk holding a line that `first_of` matches carries it. With `startup`, the prefixed lines of the
        startup parts are handed over too, and each chunk says where its parts are."""
        scan = scan or LiteralScan(literals)
        self.lines = 0
        starting = True  # a startup part goes on at the start of the next chunk
        room = None if startup is None else StartupRoom(startup.cap)
        matched: list[tuple[int, str]] = []  # the input's lines `first_of` matched so far: later chunks are not searched
        first_settled = False
        for data in self.complete_reads():
            size, found = scan.candidates(data, 0, len(data))
            parts: list[tuple[int, int | None]] = []
            capped = False
            if startup is not None and room is not None and not room.full:
                prefixed, parts, capped = room.keep(*startup.parts(data, 0, len(data), found, starting, room.room))
                found = with_startup_lines(found, prefixed)
                if parts:
                    starting = parts[-1][1] is None
            chunk = LineChunk.in_memory(self.lines + 1, size, found, data)
            chunk.startup_parts, chunk.startup_capped = parts, capped
            if first_of is not None and not first_settled:
                chunk.matches = lines_matching(first_of, data, 0, len(data))
                # kept: asking `enough` again each read parses time stamps
                first_settled = first_of.add(matched, [(self.lines + index, text) for index, text in chunk.matches])
            yield chunk
            self.lines += size

    def range_chunks(self, scanned: Iterator[ranges.RangeScan], startup: StartupScan | None = None) -> Iterator[LineChunk]:
        """The chunks of a file whose byte ranges worker processes scanned (in order); a line between
        candidates is read back from the file only when the classifier asks for it. Each worker read its range
        as if a startup part went on at its start; where the file was not starting there, that part is settled."""
        assert self.path is not None
        self.lines = 0
        starting = True
        room = None if startup is None else StartupRoom(startup.cap)
        for part in scanned:
            prefixed, parts, capped = part.startup, part.startup_parts, part.startup_capped
            if startup is not None and room is not None:
                prefixed, parts = settle_parts(startup, starting, part.found, prefixed, parts)
                capped = capped and bool(parts) and parts[-1][1] == part.startup_parts[-1][1]
                prefixed, parts, capped = room.keep(prefixed, parts, capped)
                if parts:
                    starting = parts[-1][1] is None
            chunk = LineChunk.in_file(
                self.lines + 1, part.lines, with_startup_lines(part.found, prefixed), str(self.path), part.start, part.end
            )
            chunk.matches = part.matches
            chunk.startup_parts, chunk.startup_capped = parts, capped
            yield chunk
            self.lines += part.lines
            self.notes.cut_lines += part.cut_lines
        self.notes.unterminated = _ends_unterminated(self.path)

    def is_plain_file(self) -> bool:
        """A regular file of UTF-8 text with LF line ends: one that workers can read by byte ranges as it is.
        Compressed, marked or UTF-16/32, bare-CR and binary inputs are read on this thread, where they are
        decoded, expanded under the cap, or refused."""
        if self.path is None or self.data is not None or self.stream is not None:
            return False
        try:
            with open(self.path, "rb") as handle:
                head = handle.read(SNIFF_BYTES)
        except OSError:
            return False  # the sequential read reports it with the input's name
        return not is_compressed(head) and sniff_encoding(head) == UTF8 and not has_bare_cr(head) and binary_reason(head) is None


def _ends_unterminated(path: Path | str) -> bool:
    """Whether a file's last byte is not a newline (an empty or unreadable file: no)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell() == 0:
                return False
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) != b"\n"
    except OSError:
        return False


@contextmanager
def scan_sources(
    sources: list[Source],
    literals: tuple[str, ...],
    first_of: AnchoredPattern | None = None,
    startup: StartupScan | None = None,
    parallel: bool = True,
    started: Callable[[], object] | None = None,
) -> Iterator[list[Iterator[LineChunk]]]:
    """Each source's line chunks. Plain files of RANGE_MIN_BYTES or more are cut into byte ranges that worker
    processes (one per core) scan in parallel, every file's ranges queued at once so the cores stay busy across
    files; the rest are read on this thread when their turn comes. Each chunk carries its first line that
    `first_of` matches and, with `startup`, the prefixed lines of the startup part, found where its bytes are
    read (a file is never read twice for them). `parallel=False` reads every source on this thread. `started` is
    called once the workers have their first ranges (never where no worker starts)."""
    scan = LiteralScan(literals)
    sizes = {id(s): _size(s) for s in sources}
    large = [s for s in sources if parallel and sizes[id(s)] >= ranges.RANGE_MIN_BYTES and s.is_plain_file()]
    with ranges.RangeScanner(literals, enabled=bool(large), first_of=first_of, startup=startup) as scanner:
        queued = {id(s): scanner.submit(s.name, str(s.path), sizes[id(s)]) for s in large} if scanner.parallel else {}
        scanner.no_more_files()
        if queued and started is not None:
            started()
        yield [
            s.range_chunks(queued[id(s)], startup) if id(s) in queued else s.chunks(literals, scan, first_of, startup)
            for s in sources
        ]


def _size(source: Source) -> int:
    if source.path is None or source.data is not None or source.stream is not None:
        return 0
    try:
        return os.stat(source.path).st_size
    except OSError:
        return 0


def rank_hint_from_name(name: str) -> dict[str, int]:
    stem = Path(name).name
    hint: dict[str, int] = {}
    for pattern, key in _RANK_FROM_NAME:
        m = pattern.search(stem)
        if m:
            hint[key] = int(m.group(1))
    return hint


class Inputs(list[Source]):
    """The sources named, and what a folder's reading left out (`left_out`: "path: why"); the files found in a
    folder (`from_folders`) may be left out when read too (binary, unreadable), the rest still analysed."""

    def __init__(self) -> None:
        super().__init__()
        self.left_out: list[str] = []
        self.from_folders: set[str] = set()


def expand_inputs(args: list[str], stdin: io.BufferedIOBase | None = None) -> Inputs:
    """Files, quoted globs, directories (their regular files, sorted: pipeline/ingest/folders.py, the reading
    `scan` makes) and '-' for stdin."""
    sources = Inputs()
    if args.count("-") > 1:
        raise InputError("-: stdin is named more than once (it can be read only once)")
    for arg in args:
        if arg == "-":
            sources.append(Source(name="<stdin>", path=None, stream=stdin or stdin_stream()))
            continue
        path = Path(arg)
        if path.is_dir():
            reading = read_folder(arg)
            if not reading.files:
                problems = "; ".join(reading.problems)
                raise InputError(
                    problems
                    if problems.startswith(f"{arg}: ")
                    else f"{arg}: directory holds no file to read" + (f" ({problems})" if problems else "")
                )
            sources.extend(_file_source(Path(p)) for p in reading.files)
            sources.left_out += reading.problems
            sources.from_folders.update(reading.files)
            continue
        if not path.exists() and any(ch in arg for ch in "*?["):
            matches = sorted(glob.glob(arg, recursive=True))
            files = [Path(m) for m in matches if Path(m).is_file()]
            if not files:
                raise InputError(f"{arg}: no file matches this pattern")
            sources.extend(_file_source(p) for p in files)
            continue
        if not path.exists():
            raise InputError(f"{arg}: no such file or directory")
        if not path.is_file() and not _is_pipe(path):
            raise InputError(f"{arg}: not a regular file or a pipe")
        if not os.access(path, os.R_OK):
            raise InputError(f"{arg}: permission denied")
        sources.append(_file_source(path))
    return sources


def stdin_stream() -> io.BufferedIOBase:
    """stdin for '-': closed, or a terminal nobody pipes into, is a one-line input error."""
    stream = sys.stdin
    try:
        if stream is None or stream.closed:
            raise OSError
        os.fstat(stream.fileno())
    except io.UnsupportedOperation:
        pass  # no descriptor behind it (an in-process test's stand-in): read it as it is
    except (OSError, ValueError):
        raise InputError("-: stdin is closed (pipe a log into it, or name the files)") from None
    if stream.isatty():
        raise InputError("-: stdin is a terminal with nothing piped in (pipe the input into it, or name a file)")
    return stream.buffer  # type: ignore[return-value]


def _is_pipe(path: Path) -> bool:
    """A FIFO or socket: a named pipe, or a process substitution (<(cat x.log) is /dev/fd/N), read once."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _file_source(path: Path) -> Source:
    return Source(name=str(path), path=path, rank_hint=rank_hint_from_name(str(path)))


# Markdown's escaped backtick: text written through a tool that escapes it (a bot's or a CLI's comment body, a copy of
# the Markdown source) shows "\`code\`" where the writer meant a code span. A line whose every backtick is escaped, in
# pairs, is read with its code spans as written
_ESCAPED_TICK = re.compile(r"(?<!\\)`")


def _unescaped_code_spans(line: str) -> str:
    """The line with its escaped backticks as backticks, when every backtick of it is escaped and they pair up."""
    count = line.count("\\`")
    if count < 2 or count % 2 or _ESCAPED_TICK.search(line):
        return line
    return line.replace("\\`", "`")


def clean(physical: str) -> list[str]:
    """One physical line → the logical lines it holds, wrappers removed. Empty results are dropped."""
    if "\x1b" in physical:
        physical = _ANSI.sub("", physical)
    if "[0m" in physical:
        physical = _SGR_LEFT.sub("", physical)
    if "](https://github.com/" in physical:
        physical = _AUTOLINK.sub(r"#\1", physical)
    if physical.endswith("\r"):
        physical = physical[:-1]
    if "\\`" in physical:
        physical = _unescaped_code_spans(physical)
    out: list[str] = []
    for segment in physical.split("\r") if "\r" in physical else (physical,):
        segment = unwrap(segment)
        if not segment.strip():
            continue
        if "File   File" in segment or "Fatal Python error: Fatal" in segment:  # two ranks' faulthandler lines at once
            segment = undoubled(segment) or segment
        rows = padded_rows(segment) if len(segment) >= PADDED_MIN else None
        if rows is None and len(segment) >= GLUED_MIN and ("PyTorch: " in segment or "PyTorch version: " in segment):
            rows = glued_check_env(segment)  # check_env run into one line by a copy of the rendered page
        if rows is not None:  # a dump padded to a width and glued: its lines again
            out.extend(line for row in rows for line in clean(row))
            continue
        pieces = _EMBEDDED_PREFIX.split(segment) if "[" in segment and segment.find("[", 1) > 0 else [segment]
        for piece in pieces:
            glued = "Capturing " in piece or "checkpoint shards:" in piece or "]Killed" in piece
            if glued and _GLUED_PROGRESS.search(piece):
                out.extend(p for p in _GLUED_PROGRESS.split(piece) if p.strip())
            elif piece.strip():
                out.append(piece)
    return out


def _with_own_level(wrapper: re.Match[str], rest: str) -> str:
    """The line after a logger's prefix, with the record's level word before it when that level reports a failure
    (tracing's and loguru's, which prefix only a record's first line; vLLM's prefixes every line of a traceback it logs,
    and a cloud export's severity without a tracing target is its stream's: neither is kept)."""
    level = wrapper.groupdict().get("level")
    if wrapper.re is _EXPORTER and not wrapper.group("target"):
        level = None
    if wrapper.re is _EXPORTER and rest.startswith("VLLM: ") and _VLLM_RELAY_TARGET.search(wrapper.group("target")):
        relay = _VLLM_RELAY.match(rest)
        if relay:
            return _with_own_level(relay, rest[relay.end() :])
    if wrapper.re is _EXPORTER and rest.startswith("SGLANG") and _SGLANG_RELAY_TARGET.search(wrapper.group("target")):
        relay = _SGLANG_RELAY.match(rest)
        if relay:
            return rest[relay.end() :]
    if wrapper.re is _VLLM_PREFIX and not _TRACEBACK_BODY.match(rest):
        level = wrapper.group("vllm_level")  # a record's own first line, or its message's own lines
    if wrapper.re is _PIPED_LOGGING and (wrapper.group("name") in _STREAM_LOGGERS or _TRACEBACK_BODY.match(rest)):
        level = None  # a redirected stream's level, or a line inside a traceback the record holds
    level = level.upper() if level else None
    if level in _FAILING_PREFIX_LEVELS and not _OWN_RECORD.match(rest):
        return f"{level} {rest}"
    return rest


def unwrap(text: str, *, bold: bool = True) -> str:
    """Remove paste wrappers; repeated because they nest (a quoted docker-compose paste). `bold=False`: a bold line's
    inside, read once without the bold strip (no recursion, one emphasis layer)."""
    for _ in range(4):
        before = text
        if text.startswith(">"):
            text = _QUOTE.sub("", text)
        if text.startswith("+"):
            text = _DIFF_ADDED.sub("", text)
        if bold and text.lstrip()[:2] in ("**", "__"):
            text = _BOLD_EXCEPTION.sub(r"\2", text)
            if text == before and (line := _BOLD_LINE.match(text)) and _EXCEPTION_LINE.match(unwrap(line.group(2), bold=False)):
                text = line.group(2)
        if "`" in text[:8] or "~~~" in text[:8]:
            text = _FENCE.sub("", text)
        if "<" in text:
            text = _HTML.sub("", text)
            text = _HTML_BREAK.sub(" ", text).rstrip() if "<" in text else text
        if text[:1] in " \t" and text.lstrip(" \t")[:1].isdigit():
            # a tracing record in a block the paste indented (a Markdown indented code block: four blanks before
            # every line, CommonMark 0.31 §4.4), read as the record when its time, level and target all stand there
            flush = text.lstrip(" \t")
            m = _EXPORTER.match(flush) if len(text) - len(flush) <= _INDENT_MAX else None
            if m and m.group("target"):
                text = _with_own_level(m, flush[m.end() :])
        if text[:1].isalpha() or text[:1].isdigit():
            m = (
                _EXPORTER.match(text)
                or _LOGURU.match(text)
                or _PIPED_LOGGING.match(text)
                or _JOURNAL.match(text)
                or _TALOS_DMESG.match(text)
                or _K8S_TS.match(text)
                or _TASK_LABEL.match(text)
                or _VLLM_PREFIX.match(text)
                or _HOST_LABEL.match(text)
                or _PYTEST_FAIL.match(text)
            )
            if m:
                text = _with_own_level(m, text[m.end() :])
        if text.startswith("[") and text[11:12] == "T":
            m = _BRACKETED_RFC3339.match(text)
            if m:
                text = text[m.end() :]
        if text.startswith("[") and text[11:12] == " ":
            m = _STAMPED_RAY.match(text)
            if m:
                text = text[m.end() :]
            elif m := _LMCACHE.match(text) or _SPDLOG.match(text):
                text = _with_own_level(m, text[m.end() :])
        if text.startswith("[") and "." in text[:20]:
            m = _PRINTK_TIME.match(text)
            if m:
                text = text[m.end() :]
        if text.startswith("[pod/"):
            m = _KUBECTL_PREFIX.match(text)
            if m:
                text = text[m.end() :]
        elif text[:2] in ("[B", "[S", "[P", "[D", "[U"):
            m = _MANAGED_PROCESS.match(text)
            if m:
                text = text[m.end() :]
        elif text.startswith("[") and "]:" in text[:40]:
            m = _TAIL_LOG.match(text)
            if m:
                text = text[m.end() :]
        if text.startswith("("):
            m = _RAY.match(text)
            if m:
                text = _RAY_REPEAT.sub("", text[m.end() :])
        if "|" in text[:64] and not text.startswith(("|", "+")):
            m = _COMPOSE.match(text) or _VIEWER_TIME.match(text) or _PM2.match(text) or _COMPOSE_LONGEST.match(text)
            if m:
                text = text[m.end() :]
        if "]<std" in text[:48]:
            m = _MPI_TAG.match(text)
            if m:
                text = text[m.end() :]
        if text[:1].isdigit():
            m = _TRACEBACK_HEAD.match(text) or _CONSOLE_STAMP.match(text)
            if m:
                text = text[m.end() :]
            elif _TIME_ALONE.match(text):
                return ""
        if text == before:
            break
    return text

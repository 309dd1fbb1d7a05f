"""rules/signatures/<mechanism>.yaml → Signature objects, validated like the rules (file:line:col).

A file names one mechanism and the finding its signatures imply; each signature names the evidence it
reads (`on`), a pattern (logscope.pipeline.parse.signatures.pattern), the source whose wording it copies, and optionally
the phase the evidence locates or a finding of its own (a fallback, say). `phases.yaml` holds frame
patterns that only locate a phase.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final, Literal

from logscope.core import user_cache
from logscope.core.errors import RuleError
from logscope.core.phases import STAGES
from logscope.core.resources import rules_dir
from logscope.core.yamlfile import compose_file, safe_loader, yaml
from logscope.pipeline.parse.signatures.pattern import Pattern, compile_pattern

# innermost_frame: the Python frame that raised an exception the paste shows (no native frame under it), tried last;
# signal: a native crash's fatal signal by its name ("fatal signal SIGSEGV"), whichever handler printed it
# (core/signals.py), given only with the crash's native frames
EVIDENCE_KINDS = ("line", "exception", "frame", "native_frame", "innermost_frame", "signal")
_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_MECHANISM = re.compile(r"^[a-z][a-z0-9_]*$")
_FILE_KEYS = {"mechanism", "finding", "title", "signatures"}
_SIG_KEYS = {
    "id", "on", "pattern", "exception", "unless", "phase", "finding", "source", "status_line", "gives_way",
    "quiet_in_warnings", "only",
}  # fmt: skip
# `status_line`: the signature's wording opens a status line a shell or a container tool prints of a process it ran, after
# a script's name and a colon (`after_script`: bash's "%s: line %d: "), after a container's name (`after_name`: docker
# compose's "<container> exited with code %d") or at the line's start (`at_start`); a line that begins so is a record of
# its own, never prose, whatever the status it reports (pipeline/parse/status_lines.py)
StatusLineStart = Literal["after_script", "after_name", "at_start"]
STATUS_LINE_STARTS: Final[tuple[StatusLineStart, ...]] = ("after_script", "after_name", "at_start")
# `gives_way`: the signature's failure gives way to another failure (parse/signatures/match.py): `next_line`, a line that
# announces the failure the next line states (libstdc++'s "terminate called after throwing an instance of 'c10::Error'"
# before its "  what():  CUDA error: ..."), to the failure read from the line right after it; `other_failure`, a parent
# process's report that a child died, to any other failure of its input (the child's own); `earlier_failure`, the end
# of a process tree its own program killed right after logging why, only to a failure read before it in its input
# with no line between them that shows the program went on (a phase line, a progress bar, a batch or ready line)
GivesWay = Literal["next_line", "other_failure", "earlier_failure"]
NEXT_LINE: Final = "next_line"
OTHER_FAILURE: Final = "other_failure"
EARLIER_FAILURE: Final = "earlier_failure"
GIVES_WAY: Final[tuple[GivesWay, ...]] = (NEXT_LINE, OTHER_FAILURE, EARLIER_FAILURE)
MAX_FILE_BYTES = 128 * 1024
# a line that reports a warning: CPython warnings.formatwarning ("<file>:<n>: <Category>: <message>", a category named
# ...Warning), a log record at WARNING / WARN level (logging's "WARNING:root:", vLLM's "WARNING 12-07 ...", a level
# field), glog's W record ("W1207 10:11:12.123456 ...")
WARNING_LINE = re.compile(r"\b[A-Z]\w*Warning: |(?<![\w-])WARN(?:ING)?(?![\w-])|^\s*W\d{4} \d\d:\d\d:\d\d")


@dataclass(frozen=True)
class Signature:
    id: str
    mechanism: str
    finding: str | None  # None: a phase locator only
    on: str
    pattern: Pattern
    source: str
    path: str
    exception: tuple[str, ...] = ()
    phase: str | None = None
    # captures whose value, as written, vetoes the match (`unless: {code: 0}`: an exit code of 0 is no failure; a list
    # names several values)
    unless: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # captures whose value, as written, must be one of these (`only: {status: 500}`: a server's own error answer, not a
    # gateway's 502-504 that the same wording reports)
    only: tuple[tuple[str, tuple[str, ...]], ...] = ()
    status_line: StatusLineStart | None = None
    gives_way: GivesWay | None = None
    # a wording that a program also reports as a warning it goes on after (torchvision's "Failed to load image Python
    # extension: '...so: undefined symbol: ...'", a WARNING record): on a warning's line it is no failure
    quiet_in_warnings: bool = False

    def match(self, text: str) -> dict[str, Any] | None:
        """The pattern's captures of its first match in `text` where no capture has a value `unless` names, else
        None."""
        if self.quiet_in_warnings and WARNING_LINE.search(text):
            return None
        if not self.unless and not self.only:
            return self.pattern.match(text)
        return self.pattern.match(text, accept=self._not_vetoed)

    def _not_vetoed(self, values: dict[str, Any]) -> bool:
        # a value as written, without the sentence's punctuation after it ("CUDA_ERROR_OUT_OF_MEMORY.")
        written = {key: str(value).rstrip(".,;:!?") for key, value in values.items()}
        return not any(written.get(key) in vetoed for key, vetoed in self.unless) and all(
            written.get(key) in allowed for key, allowed in self.only
        )

    def matches_exception(self, name: str | None) -> bool:
        if not self.exception:
            return True
        if not name:
            return False
        short = name.rsplit(".", 1)[-1]
        return name in self.exception or short in self.exception


@dataclass(frozen=True)
class SignatureSet:
    signatures: tuple[Signature, ...] = field(default_factory=tuple)
    # grouped once: the classifier asks for the line signatures on every candidate line
    _by_kind: dict[str, tuple[Signature, ...]] = field(init=False, repr=False, compare=False)
    _naming: dict[str, tuple[Signature, ...]] = field(init=False, repr=False, compare=False)
    _status_lines: tuple[tuple[StatusLineStart, Pattern], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_kind = {kind: tuple(s for s in self.signatures if s.on == kind) for kind in EVIDENCE_KINDS}
        object.__setattr__(self, "_by_kind", by_kind)
        object.__setattr__(self, "_naming", {kind: tuple(s for s in found if s.finding) for kind, found in by_kind.items()})
        object.__setattr__(self, "_status_lines", tuple((s.status_line, s.pattern) for s in self.signatures if s.status_line))

    def on(self, kind: str) -> tuple[Signature, ...]:
        return self._by_kind.get(kind, ())

    def naming(self, kind: str) -> tuple[Signature, ...]:
        """The signatures of this evidence kind that name a finding (not the phase locators)."""
        return self._naming.get(kind, ())

    def status_lines(self) -> tuple[tuple[StatusLineStart, Pattern], ...]:
        """(where the wording starts, the pattern) of each signature marked `status_line`."""
        return self._status_lines

    def giving_way(self, to: GivesWay) -> frozenset[str]:
        """The ids of the signatures whose failure gives way `to` (one of GIVES_WAY)."""
        return frozenset(s.id for s in self.signatures if s.gives_way == to)

    def line_literals(self) -> tuple[str, ...]:
        """One literal per line signature: a line without any of them cannot match (the prefilter's share)."""
        return tuple(dict.fromkeys(s.pattern.longest_literal() for s in self.signatures if s.on == "line"))


def _mark(node: yaml.Node) -> str:
    return f"{node.start_mark.line + 1}:{node.start_mark.column + 1}"


def load_signature_file(path: Path, finding_ids: set[str] | None = None) -> list[Signature]:
    name = str(path)
    _, root = compose_file(path, MAX_FILE_BYTES, "signature file")
    nodes = _fields(name, root, _FILE_KEYS, ("mechanism", "title", "signatures"), "a signature file")
    mechanism = _scalar(name, nodes["mechanism"][1], "mechanism")
    if not _MECHANISM.match(mechanism) or path.stem != mechanism:
        raise RuleError(
            f"{name}:{_mark(nodes['mechanism'][1])}: mechanism {mechanism!r} must be snake_case and "
            f"match the file name {path.name!r}"
        )
    default_finding = _scalar(name, nodes["finding"][1], "finding") if "finding" in nodes else None
    _check_finding(name, nodes["finding"][1] if "finding" in nodes else root, default_finding, finding_ids)
    items = nodes["signatures"][1]
    if not isinstance(items, yaml.SequenceNode) or not items.value:
        raise RuleError(f"{name}:{_mark(items)}: signatures: expected a non-empty list")
    out = []
    for item in items.value:
        out.append(_signature(name, item, mechanism, default_finding, finding_ids))
    return out


def _signature(
    name: str, item: yaml.Node, mechanism: str, default_finding: str | None, finding_ids: set[str] | None
) -> Signature:
    fields = _fields(name, item, _SIG_KEYS, ("id", "on", "pattern", "source"), "a signature")
    sig_id = _scalar(name, fields["id"][1], "id")
    if not _ID.match(sig_id):
        raise RuleError(f"{name}:{_mark(fields['id'][1])}: id {sig_id!r} must be kebab-case")
    on = _scalar(name, fields["on"][1], "on")
    if on not in EVIDENCE_KINDS:
        raise RuleError(f"{name}:{_mark(fields['on'][1])}: on should be one of {', '.join(EVIDENCE_KINDS)}")
    pattern = compile_pattern(_scalar(name, fields["pattern"][1], "pattern"), f"{name}:{_mark(fields['pattern'][1])}")
    finding = _scalar(name, fields["finding"][1], "finding") if "finding" in fields else default_finding
    if "finding" in fields:
        _check_finding(name, fields["finding"][1], finding, finding_ids)
    phase = _scalar(name, fields["phase"][1], "phase") if "phase" in fields else None
    if phase is not None and phase not in STAGES:
        raise RuleError(f"{name}:{_mark(fields['phase'][1])}: phase {phase!r} is not one of {', '.join(STAGES)}")
    if finding is None and phase is None:
        raise RuleError(f"{name}:{_mark(item)}: a signature with no finding must locate a phase")
    exception: tuple[str, ...] = ()
    if "exception" in fields:
        node = fields["exception"][1]
        if on != "exception":
            raise RuleError(f"{name}:{_mark(node)}: exception: only with on: exception")
        value = yaml.load(yaml.serialize(node), Loader=safe_loader())  # noqa: S506 - a safe loader
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise RuleError(f"{name}:{_mark(node)}: exception: expected a list of exception class names")
        exception = tuple(value)
    unless = _values_of_captures(name, fields, "unless", pattern)
    only = _values_of_captures(name, fields, "only", pattern)
    status_line: StatusLineStart | None = None
    if "status_line" in fields:
        written = _scalar(name, fields["status_line"][1], "status_line")
        status_line = next((start for start in STATUS_LINE_STARTS if start == written), None)
        if status_line is None or on != "line":
            raise RuleError(
                f"{name}:{_mark(fields['status_line'][1])}: status_line: one of {', '.join(STATUS_LINE_STARTS)}, with on: line"
            )
    gives_way: GivesWay | None = None
    if "gives_way" in fields:
        written = _scalar(name, fields["gives_way"][1], "gives_way")
        gives_way = next((to for to in GIVES_WAY if to == written), None)
        if gives_way is None:
            raise RuleError(f"{name}:{_mark(fields['gives_way'][1])}: gives_way: one of {', '.join(GIVES_WAY)}")
    quiet = fields.get("quiet_in_warnings")
    quiet_in_warnings = False
    if quiet is not None:
        value = yaml.load(yaml.serialize(quiet[1]), Loader=safe_loader())  # noqa: S506 - a safe loader
        if not isinstance(value, bool) or on != "line":
            raise RuleError(f"{name}:{_mark(quiet[1])}: quiet_in_warnings: true or false, with on: line")
        quiet_in_warnings = value
    return Signature(
        id=sig_id,
        mechanism=mechanism,
        finding=finding,
        on=on,
        pattern=pattern,
        source=_scalar(name, fields["source"][1], "source"),
        path=name,
        exception=exception,
        phase=phase,
        unless=unless,
        only=only,
        status_line=status_line,
        gives_way=gives_way,
        quiet_in_warnings=quiet_in_warnings,
    )


def _values_of_captures(
    name: str, fields: dict[str, tuple[yaml.Node, yaml.Node]], key: str, pattern: Pattern
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`unless` / `only`: a mapping of the pattern's captures to a value or a list of values, as written."""
    if key not in fields:
        return ()
    node = fields[key][1]
    value = yaml.load(yaml.serialize(node), Loader=safe_loader())  # noqa: S506 - a safe loader
    names = {p.name for segment in pattern.segments for p in segment if p.name}
    if not isinstance(value, dict) or not value or not set(value) <= names:
        raise RuleError(f"{name}:{_mark(node)}: {key}: expected a mapping of the pattern's captures to values")
    return tuple((str(k), tuple(str(x) for x in (v if isinstance(v, list) else [v]))) for k, v in value.items())


def _fields(
    name: str, node: yaml.Node, allowed: set[str], required: tuple[str, ...], what: str
) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    """key → (key node, value node) of a mapping, with unknown and missing keys reported at their place."""
    if not isinstance(node, yaml.MappingNode):
        raise RuleError(f"{name}:{_mark(node)}: {what} is a mapping of {', '.join(required)}, ...")
    fields = {k.value: (k, v) for k, v in node.value}
    for key, (knode, _) in fields.items():
        if key not in allowed:
            raise RuleError(f"{name}:{_mark(knode)}: unknown key {key!r} (allowed: {', '.join(sorted(allowed))})")
    for key in required:
        if key not in fields:
            raise RuleError(f"{name}:{_mark(node)}: {what} lacks the required key {key!r}")
    return fields


def _scalar(name: str, node: yaml.Node, key: str) -> str:
    if not isinstance(node, yaml.ScalarNode) or not str(node.value).strip():
        raise RuleError(f"{name}:{_mark(node)}: {key}: expected a non-empty string")
    return str(node.value).strip()


def _check_finding(name: str, node: yaml.Node, finding: str | None, finding_ids: set[str] | None) -> None:
    if finding is not None and finding_ids is not None and finding not in finding_ids:
        raise RuleError(f"{name}:{_mark(node)}: finding {finding!r} is no rule id (known: {', '.join(sorted(finding_ids))})")


def signature_files(folder: Path | None = None) -> list[Path]:
    base = folder or rules_dir() / "signatures"
    return sorted(p for p in base.glob("*.yaml") if not p.name.endswith(".cases.yaml"))


def load_signatures(folder: Path | None = None, finding_ids: set[str] | None = None) -> SignatureSet:
    seen: dict[str, str] = {}
    out: list[Signature] = []
    for path in signature_files(folder):
        for sig in load_signature_file(path, finding_ids):
            if sig.id in seen:
                raise RuleError(f"{path}: signature id {sig.id!r} is also used in {seen[sig.id]}")
            seen[sig.id] = str(path)
            out.append(sig)
    return SignatureSet(tuple(out))


@cache
def bundled_signatures() -> SignatureSet:
    """The bundled set, read from the user cache while the files and this code are unchanged."""
    from logscope.pipeline.parse.signatures import pattern

    key = user_cache.content_key(signature_files(), (__file__, pattern.__file__))  # type: ignore[arg-type]
    return user_cache.cached("signatures", key, load_signatures, lambda v: isinstance(v, SignatureSet))


def describe(sig: Signature) -> dict[str, Any]:
    return {
        "id": sig.id,
        "mechanism": sig.mechanism,
        "finding": sig.finding,
        "on": sig.on,
        "pattern": sig.pattern.source,
        "phase": sig.phase,
        "source": sig.source,
    }

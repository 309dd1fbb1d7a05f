"""The mined corpus (fixtures/mined/, schema in its README): validation, and recall / precision per class, by split.

A paste's labels were written from its text before logscope ran on it. Each class compares one kind of fact of the
logscope/1 document with the labels (fixtures/mined/README.md, "Scoring"); findings are compared by rule id.
Details of misses are printed for the `built` part only: the `heldback` part is never looked into while building.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "fixtures" / "mined"
HELD_OUT_LIST = Path("/work/shared/corpus/held-out-issues.txt")

SPLITS = ("built", "heldback")
FACT_CLASSES = ("phase_lines", "pools", "versions", "commands", "dumps")
LIBRARIES = (
    "nccl", "torch-oom", "custom-ar", "deepep", "nvshmem", "mooncake", "nixl", "ucx", "flashinfer", "flashmla",
    "sgl-kernel", "deepgemm", "triton", "cuda", "cuda-driver", "host-memory", "symm-mem", "sglang", "python", "unknown",
)  # fmt: skip
VERSION_KEYS = frozenset(
    ("sglang", "sgl_kernel", "torch", "cuda", "driver", "nccl", "flashinfer", "triton", "transformers", "python",
     "deep_ep", "mooncake", "nixl")
)  # fmt: skip
POOL_PHASES = frozenset(("kv_cache_allocated", "other_pool_allocated", "scheduler_summary"))
READING_FIELDS = frozenset(("avail_gib", "usage_gib", "elapsed_s", "bs"))
# fields of a phase entry that are not read off the line: where it stands, what it is derived from
PHASE_META = frozenset(("phase", "model", "line", "time", "source", "drop_gib", "drop_since", "graph", "pool", "kv_gib"))
# which failure findings name a library: their `mechanism`, or the library's name inside `mechanism` / `signature`
LIBRARY_MECHANISMS: dict[str, frozenset[str]] = {
    "nccl": frozenset({"nccl"}),
    "torch-oom": frozenset({"memory"}),
    "custom-ar": frozenset({"custom_all_reduce"}),
    "deepep": frozenset({"deepep"}),
    "nvshmem": frozenset({"deepep", "nvshmem", "symmetric_memory"}),
    "mooncake": frozenset({"pd_transfer", "mooncake"}),
    "nixl": frozenset({"pd_transfer", "nixl"}),
    "ucx": frozenset({"pd_transfer", "ucx", "nixl"}),
    "cuda-driver": frozenset({"cuda_driver"}),
    "host-memory": frozenset({"host_memory"}),
    "symm-mem": frozenset({"symmetric_memory"}),
    # serving.yaml's signatures are SGLang's own messages (its KV pool's prefill/decode OOM, leak check, watchdog)
    "sglang": frozenset({"kv_budget", "process", "phases", "memory", "memory_balance", "sglang", "serving"}),
}
LABEL_KEYS = frozenset(("phases", "versions", "config", "gpus", "links", "failure", "findings", "findings_optional"))
TOP_KEYS = ("id", "source_url", "repository", "number", "kind", "title", "date", "read_on", "split", "classes", "labels")


def thread_split(repository: str, number: int) -> str:
    digest = int(hashlib.sha1(f"{repository}#{number}".encode()).hexdigest(), 16)
    return "heldback" if digest % 3 == 0 else "built"


def held_out_threads(path: Path = HELD_OUT_LIST) -> set[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def is_held_out(repository: str, number: int, held: set[str]) -> bool:
    return f"{repository}#{number}" in held or f"{repository.split('/')[1]}#{number}" in held


def problems(path: Path) -> list[str]:
    """What is wrong with one mined yaml against the schema (empty when it is valid)."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = [f"missing {key}" for key in TOP_KEYS if key not in doc]
    if out:
        return out
    if doc["id"] != path.stem:
        out.append(f"id {doc['id']} is not the file stem")
    if not path.with_suffix(".txt").is_file():
        out.append("no .txt beside it")
    match = re.fullmatch(r"https://github\.com/([^/]+/[^/]+)/(issues|pull)/(\d+)", doc["source_url"])
    if not match or match[1] != doc["repository"] or int(match[3]) != doc["number"]:
        out.append("source_url does not match repository and number")
    elif doc["kind"] != ("issue" if match[2] == "issues" else "pull"):
        out.append("kind does not match source_url")
    if doc["split"] != thread_split(doc["repository"], doc["number"]):
        out.append(f"split {doc['split']} breaks the sha1 rule")
    for cls in doc["classes"]:
        if cls not in FACT_CLASSES and not (cls.startswith("failures:") and cls.split(":", 1)[1] in LIBRARIES):
            out.append(f"unknown class {cls}")
    labels = doc["labels"] or {}
    out += [f"unknown label {key}" for key in set(labels) - LABEL_KEYS]
    for row in labels.get("phases", []):
        if len(row) != 4 or not isinstance(row[1], str) or not isinstance(row[2], str):
            out.append(f"phase row {row} is not [rank, phase, field, value]")
    for row in labels.get("gpus", []):
        if len(row) != 4 or not isinstance(row[0], int):
            out.append(f"gpu row {row} is not [index, name, used_mib, total_mib]")
    for row in labels.get("links", []):
        if len(row) != 3 or not (isinstance(row[0], int) and isinstance(row[1], int)) or row[0] >= row[1]:
            out.append(f"link {row} is not [a, b, kind] with a < b")
    if not set(labels.get("versions", {})) <= VERSION_KEYS:
        out.append(f"version keys outside {sorted(VERSION_KEYS)}")
    failure = labels.get("failure")
    if failure is not None:
        if failure.get("library") not in LIBRARIES or failure.get("time") not in ("startup", "serving", "unknown"):
            out.append(f"failure {failure} needs a known library and time startup|serving|unknown")
        if f"failures:{failure.get('library')}" not in doc["classes"]:
            out.append("failure label without its failures:<library> class")
    for item in [*labels.get("findings", []), *labels.get("findings_optional", [])]:
        if not all(re.fullmatch(r"[a-z0-9-]+:(error|warning|info)", alt) for alt in item.split("|")):
            out.append(f"finding {item} is not rule:severity[|rule:severity]")
    return out


# ---- facts


def _norm(value: Any) -> Any:
    """A value as compared: numbers (and strings that spell one, as an untyped flag's value is kept) as floats."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    text = str(value)
    if re.fullmatch(r"-?\d+(\.\d+)?", text):
        return float(text)
    return text


def _phase_rows(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    rows = []
    for launch in report["launches"]:
        for rank in launch["ranks"]:
            for entry in rank["phases"]:
                for name, value in entry.items():
                    if name not in PHASE_META and isinstance(value, int | float) and not isinstance(value, bool):
                        rows.append((rank["rank"], entry["phase"], name, _norm(value)))
    return rows


def _phase_class(row: tuple[Any, ...] | list[Any]) -> str:
    return "pools" if row[1] in POOL_PHASES and row[2] not in ("avail_gib", "usage_gib") else "phase_lines"


def _versions(report: dict[str, Any]) -> dict[str, str]:
    out = {k: str(v) for k, v in report.get("versions", {}).items() if k in VERSION_KEYS}
    for launch in report["launches"]:
        out.update({k: str(v) for k, v in launch.get("versions", {}).items() if k in VERSION_KEYS})
        stated = (launch.get("sglang_version") or {}).get("version")
        if stated:
            out.setdefault("sglang", str(stated))
    # The labels' `cuda` covers nvidia-smi's header ("CUDA Version: 13.0", the README's schema), which logscope names
    # more exactly as the driver's CUDA API: it answers a `cuda` label where logscope reads no toolkit CUDA.
    driver_api = report.get("versions", {}).get("cuda_driver_api") or next(
        (la["versions"]["cuda_driver_api"] for la in report["launches"] if la.get("versions", {}).get("cuda_driver_api")),
        None,
    )
    if driver_api and "cuda" not in out:
        out["cuda"] = str(driver_api)
    return out


def _argument(value: Any) -> Any:
    """A server argument as printed (the command's word, the dump's Python value) in the labels' typed form."""
    if isinstance(value, str):
        text = value.strip("'\"")
        if text in ("True", "true", "False", "false"):
            return text in ("True", "true")
        if re.fullmatch(r"-?\d+(\.\d+)?", text):
            return float(text)
        return text
    return _norm(value)


def _config(report: dict[str, Any]) -> set[tuple[str, Any]]:
    """Every server argument read (`server_args`, as printed), with `config`'s typed value where it has the key."""
    out = set()
    for launch in report["launches"]:
        merged = {k: _argument(v) for k, v in launch.get("server_args", {}).items()}
        merged.update({k: _norm(v) for k, v in launch["config"].items()})
        out |= set(merged.items())
    return out


def _dumps(report: dict[str, Any]) -> set[tuple[Any, ...]]:
    gpus: set[tuple[Any, ...]] = {
        ("gpu", g["index"], g.get("name"), _norm(g.get("memory_used_mib")), _norm(g.get("memory_total_mib")))
        for g in report["gpus"]
        # a GPU only an OOM text names (no name, no memory column) is no dump row
        if g.get("name") is not None or g.get("memory_total_mib") is not None or g.get("memory_used_mib") is not None
    }
    links = {("link", min(a, b), max(a, b), str(kind)) for a, b, kind in report["topology"]["links"]}
    return gpus | links


def _failure_findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if "mechanism" in f and f.get("severity") != "info"]  # a notice is no failure


def _names_library(finding: dict[str, Any], library: str) -> bool:
    mechanism = str(finding.get("mechanism", ""))
    # the finding's `library` (logscope/1): the library a generic mechanism's evidence names (kernel_library's CUDA check)
    text = f"{mechanism} {finding.get('signature', '')} {finding.get('library') or ''}".lower()
    return mechanism in LIBRARY_MECHANISMS.get(library, frozenset()) or library.replace("-", "_") in text.replace("-", "_")


def _time_of(finding: dict[str, Any]) -> str:
    phase = finding.get("phase", "unknown")
    if phase == "disaggregation":  # PD set-up or a request's transfer: logscope leaves the time open (match._VAGUE)
        return "unknown"
    return phase if phase in ("serving", "unknown") else "startup"


@dataclass
class Count:
    """Labelled facts found (recall) and given facts that match (precision)."""

    found: int = 0
    labelled: int = 0
    right: int = 0
    given: int = 0
    misses: list[str] = field(default_factory=list)
    false: list[str] = field(default_factory=list)

    def add(self, other: Count) -> None:
        self.found += other.found
        self.labelled += other.labelled
        self.right += other.right
        self.given += other.given


def _sets(given: Iterable[Any], labelled: Iterable[Any]) -> Count:
    g, e = set(given), set(labelled)
    return Count(len(g & e), len(e), len(g & e), len(g), sorted(map(str, e - g)), sorted(map(str, g - e)))


def _phase_count(given: list[tuple[Any, ...]], labelled: list[tuple[Any, ...]]) -> Count:
    """A label of rank null (a line without a rank tag) matches that reading on any rank."""

    def hit(row: tuple[Any, ...], other: tuple[Any, ...]) -> bool:
        return (row[0] is None or row[0] == other[0]) and row[1:] == other[1:]

    found = [row for row in labelled if any(hit(row, g) for g in given)]
    right = [g for g in set(given) if any(hit(row, g) for row in labelled)]
    return Count(
        len(found),
        len(labelled),
        len(right),
        len(set(given)),
        [str(r) for r in labelled if r not in found],
        [str(g) for g in set(given) if g not in right],
    )


def score_paste(doc: dict[str, Any], report: dict[str, Any]) -> dict[str, Count]:
    """Counts per class for one paste, plus `findings`."""
    labels = doc["labels"] or {}
    out: dict[str, Count] = {}
    given_rows = _phase_rows(report)
    label_rows = [(r[0], r[1], r[2], _norm(r[3])) for r in labels.get("phases", [])]
    for cls in ("phase_lines", "pools"):
        out[cls] = _phase_count(
            [r for r in given_rows if _phase_class(r) == cls], [r for r in label_rows if _phase_class(r) == cls]
        )
    versions = {k: str(v) for k, v in labels.get("versions", {}).items()}
    out["versions"] = _sets(_versions(report).items(), versions.items())
    config = labels.get("config", {})
    pairs = {(k, _norm(v)) for one in (config if isinstance(config, list) else [config]) for k, v in one.items()}
    keys = {k for k, _ in pairs}
    given_config = _config(report)
    scored = given_config if "commands" not in doc["classes"] else {p for p in given_config if p[0] in keys}
    out["commands"] = _sets(scored, pairs)
    label_dumps: set[tuple[Any, ...]] = {("gpu", r[0], r[1], _norm(r[2]), _norm(r[3])) for r in labels.get("gpus", [])}
    label_dumps |= {("link", r[0], r[1], str(r[2])) for r in labels.get("links", [])}
    out["dumps"] = _sets(_dumps(report), label_dumps)
    out["failures"] = _failure_count(labels.get("failure"), _failure_findings(report))
    out["findings"] = _findings_count(labels, report)
    return out


def _failure_count(label: dict[str, Any] | None, findings: list[dict[str, Any]]) -> Count:
    """Facts: the library named (unless labelled unknown), the time, and the phase when labelled. With no failure
    labelled, a failure finding's library and time are two false facts."""
    count = Count()
    if not label:
        count.given = 2 * bool(findings)
        count.false = [f"{f['rule']} ({f.get('mechanism')}, {f.get('phase')})" for f in findings]
        return count
    checks: list[tuple[str, Callable[[dict[str, Any]], bool]]] = [
        ("time " + label["time"], lambda f: _time_of(f) == label["time"])
    ]
    if label["library"] != "unknown":
        checks.append(("library " + label["library"], lambda f: _names_library(f, label["library"])))
    if label.get("phase"):
        checks.append(("phase " + label["phase"], lambda f: f.get("phase") == label["phase"]))
    for what, test in checks:
        count.labelled += 1
        count.given += bool(findings)
        if any(test(f) for f in findings):
            count.found += 1
            count.right += 1
        else:
            count.misses.append(f"{what} (gave {[(f.get('mechanism'), f.get('phase')) for f in findings]})")
    return count


def _findings_count(labels: dict[str, Any], report: dict[str, Any]) -> Count:
    given = {f["rule"] for f in report["findings"]}
    wanted = [{alt.split(":")[0] for alt in item.split("|")} for item in labels.get("findings", [])]
    allowed = set().union(*wanted, *({a.split(":")[0] for a in i.split("|")} for i in labels.get("findings_optional", [])))
    found = [w for w in wanted if w & given]
    false = sorted(given - allowed)
    return Count(
        len(found),
        len(wanted),
        len(given) - len(false),
        len(given),
        ["|".join(sorted(w)) for w in wanted if not w & given],
        false,
    )


def findings_by_rule(labels: dict[str, Any], report: dict[str, Any]) -> dict[str, Count]:
    """Per expected finding (its alternatives joined by `|`): found or not; where not, the failure findings given
    instead (`misses`), so a split's table says which rule its misses went to without naming a paste."""
    given = {f["rule"] for f in report["findings"]}
    out: dict[str, Count] = {}
    for item in labels.get("findings", []):
        wanted = {alt.split(":")[0] for alt in item.split("|")}
        key = "|".join(sorted(wanted))
        hit = bool(wanted & given)
        count = out.setdefault(key, Count())
        count.labelled += 1
        count.found += hit
        if not hit:
            count.misses.append("+".join(sorted(given - wanted)) or "(nothing)")
    return out


# ---- the corpus


def load() -> list[dict[str, Any]]:
    docs = []
    for path in sorted(FOLDER.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        doc["_path"] = path.with_suffix(".txt")
        docs.append(doc)
    return docs


def class_of_failure(doc: dict[str, Any]) -> str:
    failure = (doc["labels"] or {}).get("failure")
    return f"failures:{failure['library']}" if failure else "failures:(none labelled)"


def run(analyze: Callable[[Path], dict[str, Any]], why: bool = False, ids: set[str] | None = None) -> str:
    """The report: per split, per class, recall and precision; totals; the pastes and their dates. `ids`: only those
    pastes (a batch scored at first sight, before any reader is changed for it)."""
    docs = [d for d in load() if ids is None or d["id"] in ids]
    lines = []
    for split in SPLITS:
        part = [d for d in docs if d["split"] == split]
        if not part:
            continue
        dates = sorted(str(d["date"]) for d in part if d.get("date"))
        lines.append(
            f"== mined/{split}: {len(part)} pastes, {len({(d['repository'], d['number']) for d in part})} threads, "
            f"dated {dates[0] if dates else '-'} .. {dates[-1] if dates else '-'} ({len(dates)} with a date)"
        )
        per_class: dict[str, Count] = {}
        findings_by_class: dict[str, Count] = {}
        total_facts, total_findings = Count(), Count()
        false_rules: Counter[str] = Counter()  # the rules of the false findings, so a split says which without a paste
        by_rule: dict[str, Count] = {}
        for doc in part:
            report = analyze(doc["_path"])
            counts = score_paste(doc, report)
            for rule, count in findings_by_rule(doc["labels"] or {}, report).items():
                by_rule.setdefault(rule, Count()).add(count)
                by_rule[rule].misses += count.misses
            for cls in FACT_CLASSES:
                per_class.setdefault(cls, Count()).add(counts[cls])
                total_facts.add(counts[cls])
            per_class.setdefault(class_of_failure(doc), Count()).add(counts["failures"])
            total_facts.add(counts["failures"])
            total_findings.add(counts["findings"])
            false_rules.update(counts["findings"].false)
            for cls in [*doc["classes"], "(all)"]:
                findings_by_class.setdefault(cls, Count()).add(counts["findings"])
            if why and split == "built":
                lines += _why(doc["id"], counts)
        lines.append(f"{'class':<28} {'facts recall':>22} {'facts precision':>22} {'findings recall':>22}")
        for cls in sorted(per_class, key=lambda c: (c.startswith("failures"), c)):
            c, f = per_class[cls], findings_by_class.get(cls)
            lines.append(
                f"{cls:<28} {_ratio(c.found, c.labelled):>22} {_ratio(c.right, c.given):>22} "
                f"{_ratio(f.found, f.labelled) if f else '':>22}"
            )
        lines.append(
            f"{'TOTAL facts':<28} {_ratio(total_facts.found, total_facts.labelled):>22} "
            f"{_ratio(total_facts.right, total_facts.given):>22}"
        )
        lines.append(
            f"{'TOTAL findings':<28} {_ratio(total_findings.found, total_findings.labelled):>22} "
            f"{_ratio(total_findings.right, total_findings.given):>22}   false findings: "
            f"{total_findings.given - total_findings.right}"
            + (f" ({', '.join(f'{r} x{n}' for r, n in false_rules.most_common())})" if false_rules else "")
        )
        lines.append(f"{'expected finding':<28} {'recall':>22}   given instead where missed")
        for rule in sorted(by_rule):
            c = by_rule[rule]
            instead = ", ".join(f"{m} x{n}" for m, n in Counter(c.misses).most_common())
            lines.append(f"{rule:<28} {_ratio(c.found, c.labelled):>22}   {instead}")
        lines.append("")
    return "\n".join(lines)


def _why(paste: str, counts: dict[str, Count]) -> list[str]:
    out = []
    for cls, c in counts.items():
        out += [f"    {paste} {cls} missed: {m}" for m in c.misses]
        out += [f"    {paste} {cls} false: {m}" for m in c.false]
    return out


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:5.1f}%" if b else f"{a}/{b} =     -"

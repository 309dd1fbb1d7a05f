"""How each catalogued SGLang release logs its server arguments, read from its wheel (nothing imported):

    python -m tools.upstream.server_args_forms [-o fixtures/upstream/server-args-forms.json]

Per release: the form of the line (`repr`: `server_args=ServerArgs(field=value, ...)`, the dataclass repr up to
0.5.18; `dict`: `server_args={'field': value, ...}`, `resolved_dict()` / `_server_args_for_logging` from 0.5.19,
nested records expanded) with the engine's file:line, every ServerArgs field with its literal default (None
where the default is computed), and the fields of the nested CUDA graph records (0.5.14+ `CudaGraphConfig` of
`PhaseConfig`s). `render()` writes a release's line from those defaults and the values a launch resolved, so a
test reads the line exactly as that release prints it."""

from __future__ import annotations

import argparse
import ast
import json
import re
import zipfile
from pathlib import Path
from typing import Any

from tools.upstream.sources import cache_dir, sglang_versions
from tools.upstream.write import ROOT

OUT = ROOT / "fixtures" / "upstream" / "server-args-forms.json"
_ENGINE = "sglang/srt/entrypoints/engine.py"
_SERVER_ARGS = "sglang/srt/server_args.py"
_FIELDS_DIR = "sglang/srt/arg_groups/fields/"
_GRAPH_CONFIG = "sglang/srt/model_executor/cuda_graph_config.py"
_LOG_LINE = re.compile(r"logger\.info\(f\"(\{server_args=\}|server_args=\{[^}]*\})\"\)")


def _default(node: ast.expr | None) -> Any:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None  # computed (field(default_factory=...), a call): resolved at launch


def _class_fields(text: str, name: str | None) -> list[list[Any]]:
    """[field, literal default] of the class `name` (every class of the module when None), in order."""
    rows: list[list[Any]] = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef) and (name is None or node.name == name):
            for item in node.body:
                if (
                    isinstance(item, ast.AnnAssign)
                    and isinstance(item.target, ast.Name)
                    and not item.target.id.startswith("_")
                    and "ClassVar" not in ast.unparse(item.annotation)
                ):
                    rows.append([item.target.id, _default(item.value)])
    return rows


def read_form(wheel: Path) -> dict[str, Any] | None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())

        def source(name: str) -> str:
            return archive.read(name).decode("utf-8") if name in names else ""

        engine = source(_ENGINE)
        found = next(
            ((lineno, m.group(1)) for lineno, line in enumerate(engine.splitlines(), 1) if (m := _LOG_LINE.search(line))),
            None,
        )
        if found is None:
            return None
        lineno, logged = found
        fields = _class_fields(source(_SERVER_ARGS), "ServerArgs")
        for name in sorted(n for n in names if n.startswith(_FIELDS_DIR) and n.endswith(".py")):
            fields += _class_fields(source(name), None)
        graph_source = source(_GRAPH_CONFIG)
        phase = _class_fields(graph_source, "PhaseConfig") if "class PhaseConfig" in graph_source else None
    return {
        "form": "repr" if logged == "{server_args=}" else "dict",
        "at": f"{_ENGINE}:{lineno}",
        "fields": fields,
        "phase_fields": phase,
    }


def render(form: dict[str, Any], values: dict[str, Any]) -> str:
    """The release's `server_args=` text: its fields' defaults with `values` (the launch's resolved settings)
    over them; `cuda_graph_config` is given as {'decode': {...}, 'prefill': {...}} and written as the release
    writes it (a field the release lacks is dropped, as it would never print it)."""
    known = {name for name, _ in form["fields"]}
    merged = {name: values.get(name, default) for name, default in form["fields"]}
    graph = values.get("cuda_graph_config")
    phases = form.get("phase_fields")
    if "cuda_graph_config" in known and isinstance(graph, dict) and phases:
        merged["cuda_graph_config"] = {
            phase: {name: graph.get(phase, {}).get(name, default) for name, default in phases} for phase in ("decode", "prefill")
        }
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"fields this release does not have: {', '.join(unknown)}")
    if form["form"] == "dict":
        return "server_args=" + repr(merged)
    parts = []
    for name, value in merged.items():
        if name == "cuda_graph_config" and isinstance(value, dict):
            records = ", ".join(
                f"{phase}=PhaseConfig({', '.join(f'{k}={v!r}' for k, v in settings.items())})"
                for phase, settings in value.items()
            )
            parts.append(f"{name}=CudaGraphConfig({records})")
        else:
            parts.append(f"{name}={value!r}")
    return f"server_args=ServerArgs({', '.join(parts)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=OUT)
    args = parser.parse_args(argv)
    forms: dict[str, Any] = {}
    for version in sglang_versions():
        wheels = sorted((cache_dir() / "sglang" / version).glob("*.whl"))
        if not wheels:
            raise SystemExit(
                f"sglang {version}: no wheel in {cache_dir() / 'sglang' / version} (python -m tools.upstream refresh)"
            )
        form = read_form(wheels[0])
        if form is not None:
            forms[version] = form
    rows = ",\n".join(f"{json.dumps(version)}: {json.dumps(form)}" for version, form in forms.items())
    args.output.write_text("{\n" + rows + "\n}\n", encoding="utf-8")
    print(f"{args.output}: {len(forms)} release(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""python -m tools.upstream refresh   download the wheels (cached in ~/.cache/logscope-upstream), extract, write
                                    catalog/sglang.json and docs/upstream-coverage.md
                                    and fixtures/upstream/sglang-<version>-tp2.log
python -m tools.upstream libraries write catalog/libraries.json: what names NCCL, UCX, DeepEP, FlashMLA ... in a
                                    frame or a CUDA check, and catalog/library_messages.json: the failure wordings
                                    only one of them prints (tools/upstream/libraries.py)
python -m tools.upstream modules   write catalog/python_modules.json: the library each top-level Python package
                                    of the released wheels belongs to (tools/upstream/python_modules.py)
python -m tools.upstream asserts   write catalog/sglang_asserts.json: the messages of SGLang's assert statements per
                                    release (tools/upstream/sglang_asserts.py)
python -m tools.upstream classes   write catalog/sglang_classes.json: the classes SGLang's own code defines, per
                                    release (tools/upstream/sglang_classes.py)
python -m tools.upstream extensions  write catalog/extension_modules.json: the compiled extension modules a
                                    library's setup.py installs at the top level (tools/upstream/extension_modules.py)
python -m tools.upstream raises    write catalog/library_raises.json: the messages FlashInfer's and sgl-kernel's
                                    Python code raises (tools/upstream/library_raises.py)
python -m tools.upstream sglang-raises  write catalog/sglang_raises.json: the messages of SGLang's own raise
                                    statements per release (tools/upstream/sglang_raises.py)
python -m tools.upstream serving   write catalog/serving_only.json: where each release prints the messages only a
                                    running server prints (tools/upstream/serving_only.py)
python -m tools.upstream oom       write catalog/oom_wordings.json: the out-of-memory wordings of torch's allocators
                                    per release (tools/upstream/oom_wordings.py)
python -m tools.upstream pip-status  write catalog/pip_status.json: pip's download and search-scope status lines
                                    per release (tools/upstream/pip_status.py)
python -m tools.upstream stages    write catalog/stages.json: which functions run only at startup (and in which step)
                                    or only while serving, per release (tools/upstream/stages.py)
python -m tools.upstream signal-handlers  write catalog/signal_handlers.json: the functions SGLang installs as signal
                                    handlers, which place nothing in time (tools/upstream/signal_handlers.py)
python -m tools.upstream error-outcomes  write catalog/error_outcomes.json: whether SGLang's process dies or goes
                                    on after each of its error-level log calls, per release (tools/upstream/error_outcomes.py)
python -m tools.upstream native-stages  write catalog/native_stages.json: the NCCL and NVSHMEM code that sets up a
                                    communicator or its transports, per release (tools/upstream/native_stages.py)
python -m tools.upstream nccl-demoted  write catalog/nccl_demoted.json: the NCCL WARN wordings that a later NCCL
                                    release prints as INFO (tools/upstream/nccl_demoted.py)
python -m tools.upstream package-wordings  write catalog/package_wordings.json: where each wording of another Python
                                    package (torch, openai, httpx, aiohttp, requests, CPython ...) that a signature
                                    cites is in that package's released source (tools/upstream/package_wordings.py)
python -m tools.upstream package-raises  write catalog/package_raises.json: the messages transformers' and
                                    huggingface_hub's Python code raises (tools/upstream/package_raises.py)
python -m tools.upstream engine-stages  write catalog/engine_stages.json: the functions of vLLM's engine that run only
                                    while it starts or only once it serves, checked against its released wheels
                                    (tools/upstream/engine_stages.py)
python -m tools.upstream checkout-folders  write catalog/checkout_folders.json: the top-level folders the native
                                    libraries' repositories keep code in, per release tag (from their git sources,
                                    tools/upstream/checkout_folders.py)
python -m tools.upstream docs      rewrite docs/upstream-coverage.md and the fixtures from the committed catalogue
python -m tools.upstream flags     write catalog/server_flags.json (each release's launch_server flags; refresh does too)

A developer tool, run by hand (never by CI: CI has neither network nor wheels). Adding a release: append its
version to tools/upstream/versions.txt, run `refresh`, commit catalog/ and docs/."""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from tools.upstream import build, cli_flags, coverage_doc, fixtures, sources, write

# the catalogues one module writes on its own: command -> (the module under tools/upstream, its file, the help line)
WRITERS = {
    "libraries": ("libraries", "libraries.json", "from the native libraries' packages"),
    "modules": ("python_modules", "python_modules.json", "from the released wheels' top-level packages"),
    "asserts": ("sglang_asserts", "sglang_asserts.json", "from the released SGLang wheels"),
    "classes": ("sglang_classes", "sglang_classes.json", "the classes SGLang's code defines, per release"),
    "extensions": ("extension_modules", "extension_modules.json", "the top-level extension modules of DeepEP's builds"),
    "raises": ("library_raises", "library_raises.json", "from FlashInfer's and sgl-kernel's wheels"),
    "sglang-raises": ("sglang_raises", "sglang_raises.json", "from the released SGLang wheels"),
    "serving": ("serving_only", "serving_only.json", "from the released SGLang wheels"),
    "oom": ("oom_wordings", "oom_wordings.json", "torch's out-of-memory wordings, from the released torch wheels"),
    "stages": ("stages", "stages.json", "startup-only and serving-only functions per release"),
    "signal-handlers": ("signal_handlers", "signal_handlers.json", "the functions SGLang installs as signal handlers"),
    "error-outcomes": ("error_outcomes", "error_outcomes.json", "what SGLang does after it logs at error level"),
    "native-stages": ("native_stages", "native_stages.json", "NCCL's and NVSHMEM's init code"),
    "nccl-demoted": ("nccl_demoted", "nccl_demoted.json", "NCCL WARN wordings a later release prints as INFO"),
    "package-wordings": ("package_wordings", "package_wordings.json", "other Python packages' wordings signatures cite"),
    "package-raises": ("package_raises", "package_raises.json", "the messages transformers' and huggingface_hub's code raises"),
    "engine-stages": ("engine_stages", "engine_stages.json", "vLLM engine functions that run only at start or only serving"),
    "pip-status": ("pip_status", "pip_status.json", "pip's download and search-scope status lines, from the pip wheels"),
    "checkout-folders": ("checkout_folders", "checkout_folders.json", "the native libraries' code folders"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.upstream")
    sub = parser.add_subparsers(dest="command", required=True)
    refresh = sub.add_parser("refresh", help="download, extract, write catalog/sglang.json and the coverage doc")
    refresh.add_argument("--no-natives", action="store_true", help="skip the native libraries (large downloads)")
    refresh.add_argument("--workers", type=int, default=2)
    sub.add_parser("docs", help="rewrite docs/upstream-coverage.md and fixtures/upstream/ from the committed catalogue")
    for command, (_, file, what) in WRITERS.items():
        sub.add_parser(command, help=f"write catalog/{file}: {what}")
    sub.add_parser("flags", help="write catalog/server_flags.json: each release's launch_server flags and their fields")
    args = parser.parse_args(argv)
    if args.command in WRITERS:
        module, file, _ = WRITERS[args.command]
        target = write.ROOT / "catalog" / file
        importlib.import_module(f"tools.upstream.{module}").write(target)
        print(f"wrote {target.relative_to(write.ROOT)}")
        return 0
    if args.command in ("refresh", "flags"):
        print(f"wrote {cli_flags.write_flags(sources.sglang_versions()).relative_to(write.ROOT)}")
        if args.command == "flags":
            return 0
    if args.command == "refresh":
        catalogue = build.build(sources.sglang_versions(), workers=args.workers)
        natives = None
        if not args.no_natives:
            from tools.upstream import natives as native_libs

            natives = native_libs.extract()
        elif write.CATALOG.is_file():  # keep what the last full refresh read
            natives = json.loads(write.CATALOG.read_text()).get("natives")
        path = write.write(catalogue, natives)
        print(f"wrote {path.relative_to(write.ROOT)}")
    doc = coverage_doc.write()
    print(f"wrote {doc.relative_to(write.ROOT)}")
    print(f"wrote {len(fixtures.write_all())} fixtures under {fixtures.OUT.relative_to(write.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

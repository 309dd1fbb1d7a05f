"""The compiled extension modules a library's build installs at the top level of site-packages, beside its package
(DeepEP v1.2.1's setup.py: `CUDAExtension(name='deep_ep_cpp', ...)`, installed as
`site-packages/deep_ep_cpp.cpython-312-x86_64-linux-gnu.so`): a native frame or a Python frame of that file is the
library's, though no package folder and no symbol of it names the library.

Read from the release tags (`v<digits>...`) of the libraries that publish no wheel (python_modules.GIT_SOURCES: their
git source, named by an environment variable): every `Extension(` / `CUDAExtension(` / `CppExtension(` of their
setup.py, by its `name` (first argument or keyword); a name inside the library's own package (`deep_ep._C`, a later
tree's) is that package's already and left out.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

from tools.upstream.python_modules import GIT_SOURCES
from tools.upstream.write import write_generated

_EXTENSION = re.compile(r"\b(?:CUDA|Cpp)?Extension\(\s*(?:name\s*=\s*)?['\"]([\w.]+)['\"]")


def extension_names(setup_py: str) -> set[str]:
    """The top-level extension modules a setup.py builds (dotted names inside a package left out)."""
    return {name for name in _EXTENSION.findall(setup_py) if "." not in name}


def _tags(git: list[str]) -> list[str]:
    tags = subprocess.run([*git, "tag", "--sort=v:refname"], capture_output=True, text=True, check=True).stdout.split()
    return [t for t in tags if re.match(r"^v\d", t)]


def extract() -> dict[str, Any]:
    modules: dict[str, str] = {}
    read: dict[str, str] = {}
    for library, env in GIT_SOURCES:
        git_dir = os.environ.get(env)
        if not git_dir:
            raise SystemExit(f"{library} publishes no wheel: set {env} to a git directory of its source")
        git = ["git", f"--git-dir={git_dir}"]
        tags = _tags(git)
        for tag in tags:
            shown = subprocess.run([*git, "show", f"{tag}:setup.py"], capture_output=True, text=True)
            for name in sorted(extension_names(shown.stdout)) if shown.returncode == 0 else []:
                modules.setdefault(name, library)
        read[library] = f"git tags {tags[0]}-{tags[-1]}" if tags else "no release tag"
    return {"read": read, "modules": dict(sorted(modules.items()))}


def write(path: Path) -> None:
    about = (
        "Top-level compiled extension module -> the library whose setup.py builds it, read from the release tags of "
        "the libraries that publish no wheel by tools/upstream/extension_modules.py (python -m tools.upstream "
        "extensions). Generated: never edit by hand."
    )
    write_generated(path, about, extract(), indent=0)

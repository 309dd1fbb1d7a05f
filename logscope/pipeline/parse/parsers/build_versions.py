"""Versions a build or an install step states: CMake's report of a package it found (a source build of sgl-kernel or
DeepEP configures with the Python and the CUDA toolkit of the machine), a wheel file that pip installs (its name
holds its exact version), and pip's summary of what it installed."""

from __future__ import annotations

import re

# CMake 3.25.1 Modules/FindPackageHandleStandardArgs.cmake:581 FIND_PACKAGE_MESSAGE(... "Found ${_NAME}:
# ${<first required var>} ${VERSION_MSG} ${COMPONENT_MSG}"), VERSION_MSG "(found version \"<v>\")" or "(found suitable
# [exact ]version \"<v>\"[, minimum required is ...])" (lines 345-365, 568); a STATUS message, printed after "-- "
_CMAKE_FOUND = re.compile(
    r"^\s*-- Found (Python3?|PythonInterp|CUDA|CUDAToolkit): \S.*?\(found (?:suitable )?(?:exact )?version"
    r" \"(\d+(?:\.\d+)+)\""
)
# the key check_env gives each: Python's version, and the CUDA toolkit's release as nvcc's "release 12.4" gives it
# (FindCUDAToolkit reports nvcc's full "12.4.131")
_CMAKE_KEYS = {"Python": "Python", "Python3": "Python", "PythonInterp": "Python", "CUDA": "cuda", "CUDAToolkit": "cuda"}
# a wheel file on pip's command line: PEP 427 names it {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl
# (the distribution with "_" for "-"), so the file names the exact release installed
_WHEEL_INSTALL = re.compile(
    r"\bpip3?\s+install\b[^|;&]*?(?<![\w.-])([A-Za-z0-9]+(?:_[A-Za-z0-9]+)*)-(\d+(?:\.\d+)+(?:(?:\.post|rc|\.dev)\d+)?"
    r"(?:\+[A-Za-z0-9.]+)?)(?:-\d\w*)?-[\w.]+-[\w.]+-[\w.]+\.whl\b"
)


# pip's summary after an install (pip 26.3 commands/install.py installed_packages_summary: f"Successfully installed
# {' '.join(summary)}", each f"{display_name}-{version}", the name as the user requested it)
_INSTALLED = re.compile(r"^\s*Successfully installed ((?:[A-Za-z0-9][\w.-]*-\d[\w.+!]*\s*)+)$")
_INSTALLED_ITEM = re.compile(r"([A-Za-z0-9][\w.-]*?)-(\d+(?:\.\d+)+(?:(?:\.post|rc|\.dev|a|b)\d+)*(?:\+[A-Za-z0-9.]+)?)$")


# pip's line for a requirement the environment already holds, the installed version last in parentheses ("Requirement
# already satisfied: torch in /usr/local/lib/python3.11/dist-packages (from nixl) (2.8.0.dev20250319+cu128)", pip 19 ..
# 26; the requirement may carry a specifier, "altair<6,>=4.0", which is the requirement's, not the version)
_SATISFIED = re.compile(
    r"^\s*Requirement already satisfied: ([A-Za-z0-9][\w.-]*)(?:\[[\w,.-]*\])?(?:\s*[<>=!~][^\s]*)? in \S.*?"
    r"(?: \(from [^()]*(?:\([^()]*\)[^()]*)*\))? \((\d+(?:\.\d+)+(?:(?:\.post|rc|\.dev|a|b)\d+)*(?:\+[A-Za-z0-9.]+)?)\)\s*$"
)


def already_satisfied(text: str, keys: dict[str, str]) -> dict[str, str] | None:
    """{key: version} of pip's "Requirement already satisfied: name in path [(from parent)] (version)" line for a
    distribution `keys` names, else None."""
    m = _SATISFIED.match(text)
    if m is None:
        return None
    key = _key_of(m.group(1), keys)
    return {key: m.group(2)} if key else None


def pip_installed(text: str, keys: dict[str, str]) -> dict[str, str] | None:
    """{key: version} of the packages `keys` names in pip's "Successfully installed a-1.0 b-2.0" line, else None."""
    m = _INSTALLED.match(text)
    if m is None:
        return None
    found: dict[str, str] = {}
    for item in m.group(1).split():
        named = _INSTALLED_ITEM.match(item)
        if named is None:
            continue
        key = _key_of(named.group(1), keys)
        if key:
            found[key] = named.group(2)
    return found or None


def cmake_found(text: str) -> dict[str, str] | None:
    """{check_env's key: version} from CMake's "-- Found Python: ... (found version "3.10.12")", else None."""
    m = _CMAKE_FOUND.match(text)
    if m is None:
        return None
    key = _CMAKE_KEYS[m.group(1)]
    version = ".".join(m.group(2).split(".")[:2]) if key == "cuda" else m.group(2)
    return {key: version}


def installed_wheel(text: str, keys: dict[str, str]) -> dict[str, str] | None:
    """{key: version} of a wheel that `pip install` installs from its file, for a distribution `keys` names (its
    name in lower case, "_" or "-" between words), else None."""
    m = _WHEEL_INSTALL.search(text)
    if m is None:
        return None
    key = _key_of(m.group(1), keys)
    return {key: m.group(2)} if key else None


# pip freeze's line for a package installed from a wheel file or a wheel's URL (PEP 440 direct reference, pip 26.3
# operations/freeze.py writes "{name} @ {url}" from the distribution's direct_url.json): "sgl-kernel @
# file:///tmp/wheels/sgl_kernel-0.3.9.post2-cp310-abi3-manylinux2014_x86_64.whl"; the wheel's PEP 427 name holds the
# release (a URL writes its "+" as "%2B": "sglang_kernel-0.4.3%2Bmusa43-cp39-abi3-..."), a source tree
# ("sglang @ file:///sgl-workspace/sglang/python") none
_FREEZE_WHEEL = re.compile(
    r"^\s*([A-Za-z0-9][\w.-]*)\s+@\s+\S*/([A-Za-z0-9]+(?:_[A-Za-z0-9]+)*)-(\d+(?:\.\d+)+(?:(?:\.post|rc|\.dev)\d+)?"
    r"(?:(?:\+|%2[Bb])[A-Za-z0-9.]+)?)(?:-\d\w*)?-[\w.]+-[\w.]+-[\w.]+\.whl\s*$"
)


def frozen_wheel(text: str, keys: dict[str, str]) -> dict[str, str] | None:
    """{key: version} of pip freeze's "name @ .../name-version-...whl" line for a distribution `keys` names (the
    wheel's name the line's own), else None."""
    m = _FREEZE_WHEEL.match(text)
    if m is None:
        return None
    key = _key_of(m.group(1), keys)
    if key is None or key != _key_of(m.group(2), keys):
        return None
    return {key: re.sub("%2[Bb]", "+", m.group(3))}


def _key_of(distribution: str, keys: dict[str, str]) -> str | None:
    """The key `keys` gives a distribution's name, in lower case, with "_" or "-" between its words."""
    name = distribution.lower()
    return keys.get(name) or keys.get(name.replace("_", "-")) or keys.get(name.replace("-", "_"))

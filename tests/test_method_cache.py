"""The dataclass methods compiled once per Python build (logscope/method_cache.py): the classes are the same as
without the cache, and a damaged or foreign cache file is ignored and written anew."""

from __future__ import annotations

import dataclasses
import gc
import marshal
import subprocess
import sys
import textwrap

import pytest

from logscope import method_cache
from logscope.compiled_store import CompiledStore
from tests.helpers import ROOT

# a module of its own, without `from __future__ import annotations`: the annotations stay objects, so a method
# compiled with the wrong flags would show in them
_CLASSES = textwrap.dedent(
    """
    import dataclasses

    @dataclasses.dataclass(frozen=True, order=True)
    class Reading:
        phase: str
        gib: float = 0.0
        tags: tuple = dataclasses.field(default_factory=tuple)

    @dataclasses.dataclass
    class Plain:
        name: str
        count: int = 1
    """
)


def _make_classes() -> dict:
    namespace: dict = {"__name__": "made_here"}
    exec(compile(_CLASSES, "made_here", "exec", dont_inherit=True), namespace)  # noqa: S102 - test classes
    return namespace


def _shape(namespace: dict) -> list:
    """What a class's generated methods are: their code, annotations and defaults."""
    shape = []
    for name in ("Reading", "Plain"):
        cls = namespace[name]
        for method in ("__init__", "__repr__", "__eq__", "__hash__", "__lt__", "__setattr__"):
            func = cls.__dict__.get(method)
            code = getattr(func, "__code__", None)
            shape.append((name, method, code and code.co_code, code and code.co_flags, getattr(func, "__annotations__", None)))
        shape.append((name, "defaults", cls.__init__.__defaults__))
    return shape


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    method_cache.uninstall()
    yield tmp_path / method_cache.file_name()
    method_cache.uninstall()


def test_classes_made_through_the_cache_are_the_same_and_the_second_process_compiles_nothing(cache, monkeypatch):
    plain = _shape(_make_classes())
    method_cache.install()
    first = _make_classes()
    assert _shape(first) == plain
    method_cache.save()
    stored = marshal.loads(cache.read_bytes())
    assert len(stored) >= 8 and all(text.startswith("def __create_fn__") for text in stored)

    method_cache.uninstall()
    method_cache.install()
    compiled = []
    real_compile = compile
    monkeypatch.setattr("builtins.compile", lambda *a, **k: compiled.append(a[0]) or real_compile(*a, **k))
    second = _make_classes()
    monkeypatch.undo()
    assert compiled == [_CLASSES]  # only the test's own module text: every method came from the file
    assert _shape(second) == plain
    reading = second["Reading"]("capture_end", 1.5)
    assert reading == second["Reading"]("capture_end", 1.5) < second["Reading"]("capture_end", 2.0)
    assert repr(reading) == "Reading(phase='capture_end', gib=1.5, tags=())"
    with pytest.raises(dataclasses.FrozenInstanceError):
        reading.gib = 3.0  # type: ignore[misc]


@pytest.mark.parametrize(
    "content",
    [
        b"not marshal at all \x00\xff",
        b"",
        marshal.dumps({"def f(): pass": "not code"}),
        marshal.dumps(["a list"]),
        None,  # truncated: set below
    ],
)
def test_a_damaged_cache_file_is_ignored_and_written_anew(cache, content):
    method_cache.install()
    _make_classes()
    method_cache.save()
    whole = cache.read_bytes()
    cache.write_bytes(whole[: len(whole) // 2] if content is None else content)
    method_cache.uninstall()

    method_cache.install()
    namespace = _make_classes()
    assert namespace["Plain"]("x") == namespace["Plain"]("x", 1)
    method_cache.save()
    assert marshal.loads(cache.read_bytes()).keys() == marshal.loads(whole).keys()


def test_an_unwritable_cache_folder_leaves_dataclasses_alone(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(blocker / "cache"))
    method_cache.uninstall()
    method_cache.install()
    try:
        assert not hasattr(dataclasses, "exec")
        method_cache.save()
    finally:
        method_cache.uninstall()


def test_the_command_fills_the_cache_and_reads_it_back(tmp_path):
    env = {"LOGSCOPE_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "logscope", "analyze", "fixtures/synthetic/full-startup-tp2-with-smi.log"]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    files = list(tmp_path.glob("dataclass-methods-*.marshal"))
    assert len(files) == 1 and len(marshal.loads(files[0].read_bytes())) > 100
    stamp = files[0].stat().st_mtime_ns
    second = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert (second.returncode, second.stdout) == (first.returncode, first.stdout)
    assert files[0].stat().st_mtime_ns == stamp  # nothing new to store: not written again


def test_a_store_past_its_cap_starts_again_with_what_the_command_used(tmp_path, monkeypatch):
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    store = CompiledStore("test-store", lambda key, value: isinstance(key, str) and isinstance(value, int), cap=3)
    assert store.open()
    for n in range(5):
        store.put(f"old-{n}", n)
    store.save()
    store.close()
    assert store.open() and len(store.entries) == 5  # what the filling command used: all five
    assert store.get("old-1") == 1
    store.put("new", 9)
    store.save()
    assert marshal.loads((tmp_path / store.file_name()).read_bytes()) == {"old-1": 1, "new": 9}


def test_a_command_leaves_the_standard_library_as_it_found_it_and_help_reads_no_cache(tmp_path, monkeypatch):
    from logscope import entry, lifetime, pattern_cache

    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(lifetime.os, "_exit", lambda code: None)
    compiler = pattern_cache._compiler.compile
    opened = []
    real_open = CompiledStore.open
    monkeypatch.setattr(CompiledStore, "open", lambda self: opened.append(self.kind) or real_open(self))
    for argv, reads in (
        (["logscope", "--help"], []),
        (["logscope", "analyze", "--help"], []),
        (["logscope", "rules", "list"], ["dataclass-methods", "regex-code"]),
    ):
        opened.clear()
        monkeypatch.setattr(sys, "argv", argv)
        monkeypatch.setattr("logscope.cli.main", lambda: sys.exit(0))
        entry.main()
        assert opened == reads, argv
        assert not hasattr(dataclasses, "exec") and pattern_cache._compiler.compile is compiler


def test_a_long_running_command_keeps_the_start_and_puts_the_caches_away(tmp_path, monkeypatch):
    from logscope import lifetime, pattern_cache

    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(lifetime, "_normal_exit", False)
    compiler = pattern_cache._compiler.compile
    was = gc.isenabled()
    method_cache.install()
    pattern_cache.install()
    try:
        _make_classes()
        lifetime.long_running()
        assert not hasattr(dataclasses, "exec") and pattern_cache._compiler.compile is compiler
        assert len(marshal.loads((tmp_path / method_cache.file_name()).read_bytes())) >= 8  # the start's methods kept
    finally:
        method_cache.uninstall()
        pattern_cache.uninstall()
        (gc.enable if was else gc.disable)()

"""Redaction as properties (logscope/core/redact.py): every kind of secret or address, generated, planted in the
failure lines of a paste, is found in no output (text, JSON, Markdown, HTML, the triage comment, the fleet's
tables) and in the unredacted ones (so the check can fail); versions, file names, module paths and numbers are
never taken for an address or a host."""

from __future__ import annotations

import ipaddress
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from logscope.core.redact import redact, redact_document
from logscope.report.formats import renderer
from logscope.triage.run import triage_text
from tests.helpers import ROOT, analyze_text

LOG = (ROOT / "fixtures/synthetic/full-startup-tp2-with-smi.log").read_text()
_B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_B64URL = _B62 + "-_"


def _random(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=size, max_size=size)


def _entropy(value: str) -> float:
    return -sum(value.count(c) / len(value) * math.log2(value.count(c) / len(value)) for c in set(value))


def _mixed(value: str) -> bool:
    return any(c.islower() for c in value) and any(c.isupper() for c in value) and any(c.isdigit() for c in value)


# endings of file names (`a-1.b.c.json` is a file): the hosts generated end otherwise
FILE_ENDINGS = {"py", "pyc", "pyi", "pyx", "so", "cc", "cpp", "cxx", "hh", "hpp", "cu", "cuh", "json", "yaml", "yml", "toml"}
FILE_ENDINGS |= {"txt", "log", "md", "lark", "bin", "pt", "pth", "gguf", "sh", "gz", "xz", "zst", "tar", "zip", "whl", "csv"}
FILE_ENDINGS |= {"tsv", "html", "htm", "ini", "cfg", "conf", "lock", "out", "err", "pem", "key", "crt", "onnx", "engine"}
FILE_ENDINGS |= {"plan", "npz", "npy", "ckpt", "jsonl", "pkl", "pickle", "sqlite", "db", "png", "jpg", "svg", "rs", "go"}
FILE_ENDINGS |= {"java", "js", "ts", "cmake", "mk", "ptx", "cubin", "fatbin", "parquet"}
_label = st.from_regex(r"\A[a-z][a-z0-9]{1,6}\Z")
_ipv6 = st.integers(1 << 64, (1 << 128) - 1).map(lambda n: ipaddress.IPv6Address(n).compressed)
# RFC 5952 text forms: compressed around zero runs, with a zone, in brackets with a port, the loopback
IPV6 = st.one_of(
    _ipv6,
    st.tuples(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF), st.integers(1, 0xFFFF)).map(
        lambda t: ipaddress.IPv6Address(f"fd00:{t[0]:x}:{t[1]:x}::{t[2]:x}").compressed
    ),
    _ipv6.map(lambda a: a + "%eth0"),
    st.just("::1"),
)
HOST = (
    st.tuples(_label, st.integers(0, 99), _label, _label, st.from_regex(r"\A[a-z]{2,6}\Z"))
    .map(lambda t: f"{t[0]}-{t[1]}.{t[2]}.{t[3]}.{t[4]}")
    .filter(lambda h: h.rsplit(".", 1)[1] not in FILE_ENDINGS)
)
TOKEN = st.one_of(
    _random(_B62, 20).map(lambda v: "glpat-" + v),
    _random(_B64URL, 35).map(lambda v: "AIza" + v),
    _random(_B62, 36).map(lambda v: "ghp_" + v),
    _random(_B62, 34).map(lambda v: "hf_" + v),
    _random(_B62, 40).map(lambda v: "sk-" + v),
    st.tuples(_random(_B64URL, 20), _random(_B64URL, 30), _random(_B64URL, 43)).map(lambda t: f"eyJ{t[0]}.eyJ{t[1]}.{t[2]}"),
)
ENTROPY = _random(_B62, 32).filter(lambda v: _mixed(v) and _entropy(v) >= 4.0)
NAME = st.from_regex(r"\A[A-Za-z][A-Za-z]{2,10}\Z").filter(lambda n: n.lower() not in {"password", "passwd", "pwd"})


def _planted(ip6: str, host: str, nccl_host: str, token: str, name: str, value: str) -> str:
    return (
        f"RuntimeError: NCCL error: remote process exited or there was a network error, peer [{ip6}]:29500 on {host}\n"
        f"{nccl_host}:1234:1234 [0] NCCL WARN Call to connect returned Connection refused, retrying\n"
        f"ERROR: upload failed with {token} while {name}={value} was set\n"
    )


def _outputs(text: str) -> dict[str, str]:
    document = analyze_text(text)
    comment = renderer("comment")(triage_text(text, "issue"), 400)
    found = {fmt: renderer(fmt)(document, 400) for fmt in ("text", "json", "markdown", "html")}
    return {**found, "comment": comment}


def _redacted(text: str) -> dict[str, str]:
    document = redact_document(analyze_text(text))
    comment = renderer("comment")(redact_document(triage_text(text, "issue")), 400)
    found = {fmt: renderer(fmt)(document, 400) for fmt in ("text", "json", "markdown", "html")}
    return {**found, "comment": comment}


@given(IPV6, HOST, _label.map(lambda v: f"{v}-node-17"), TOKEN, NAME, ENTROPY)
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.generate],
)
def test_no_planted_kind_reaches_any_output(ip6, host, nccl_host, token, name, value):
    text = _planted(ip6, host, nccl_host, token, name, value) + LOG
    secrets = {"ipv6": ip6.split("%")[0], "host": host, "nccl-host": nccl_host, "token": token, "entropy": value}
    plain = _outputs(text)
    for kind, secret in secrets.items():
        assert any(secret in out for out in plain.values()), f"{kind} {secret!r} never reaches an output: the check is void"
    leaks = [(fmt, kind) for fmt, out in _redacted(text).items() for kind, secret in secrets.items() if secret in out]
    assert leaks == []


def test_no_planted_kind_reaches_the_fleet_tables(tmp_path: Path):
    pl = pytest.importorskip("polars")
    secrets = {
        "ipv6": "2001:db8:85a3::8a2e:370:7334",
        "host": "gpu17.cs.uni-example.edu",
        "nccl-host": "gpu-node-17",
        "token": "glpat-Ab3dEf6hIj9kLm2nOp5q",
        "entropy": "Zx8Qp2Lm9Rt4Vw7Yb3Nc6Kd1Hg5Jf0aa",
    }
    job = tmp_path / "jobs" / "job-1"
    job.mkdir(parents=True)
    text = _planted(secrets["ipv6"], secrets["host"], secrets["nccl-host"], secrets["token"], "MY_VAR", secrets["entropy"])
    (job / "rank0.log").write_text(text + LOG)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "logscope", "scan", str(tmp_path / "jobs"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr
    cells = [
        str(v) for table in out.glob("*.parquet") for column in pl.read_parquet(table).iter_columns() for v in column.to_list()
    ]
    assert any("NCCL" in cell for cell in cells)  # the failure lines reached the tables
    assert [(kind, s) for kind, s in secrets.items() if any(s in cell for cell in cells)] == []


VERSION_CONTEXTS = ["Driver Version: {}", "driver version {}", "NCCL version {}", "v{}", "torch=={}", "sglang-{}", "release {}"]


@given(
    st.sampled_from(VERSION_CONTEXTS),
    st.tuples(*[st.integers(0, 255)] * 4).map(lambda t: ".".join(map(str, t))),
)
@settings(max_examples=200, deadline=None)
def test_a_version_is_never_taken_for_an_address(context, version):
    text = context.format(version)
    assert redact(text) == text


@given(
    st.one_of(
        st.from_regex(r"\A[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{1,3}(\.post[0-9]|\.dev[0-9]|rc[0-9]|\+cu12[0-9])?\Z"),
        st.tuples(_label, st.sampled_from(["cc", "py", "cpp", "cu", "h", "so", "json", "yaml"]), st.integers(1, 9999)).map(
            lambda t: f"{t[0]}.{t[1]}:{t[2]}"
        ),
        st.lists(st.from_regex(r"\A[a-z][a-z0-9]{0,6}_[a-z0-9]{1,6}\Z"), min_size=1, max_size=4).map(
            lambda p: "sglang.srt." + ".".join(p)
        ),
        st.tuples(_label, st.from_regex(r"\A[a-z]{2,8}_[a-z]{2,8}\Z")).map(lambda t: f"{t[0]}.{t[1]}"),
        st.floats(0, 1e6, allow_nan=False).map(lambda f: f"{f:.2f} GB"),
        st.floats(1e-9, 1e9, allow_nan=False).map(repr),
    )
)
@settings(max_examples=300, deadline=None)
def test_versions_file_names_module_paths_and_numbers_are_kept(text):
    line = f"[2026-10-01 12:00:00 TP0] at {text} (see {text})"
    assert redact(line) == line


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Driver Version: 5.0.21.47", None),
        ("sglang 0.5.16.post1, torch 2.5.1+cu124, proxy.cc:518", None),
        ("c10::Error at::Tensor c10d::ProcessGroupNCCL 12:34:56 00:1a:2b:3c:4d:5e", None),
        ("peer 2001:db8:85a3::8a2e:370:7334 and fd00:a:b:c::17", "peer <redacted:ip> and <redacted:ip>"),
        ("[fe80::1%eth0]:8080 ::ffff:10.0.0.1", "[<redacted:ip>]:8080 <redacted:ip>"),
        ("gpu-node-17:1234:1234 [0] NCCL WARN x", "<redacted:host>:1234:1234 [0] NCCL WARN x"),
        ("on gpu17.cs.example.edu and node3.corp.acme.de", "on <redacted:host> and <redacted:host>"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc", "<redacted:jwt>"),
        ("REPO_KEY=glpat-abcdefghij0123456789", "REPO_KEY=<redacted:gitlab-token>"),
        ("x 3f786850e387550fdab836ed7e6dc881de23001b y", None),
    ],
)
def test_address_host_and_token_forms(text, expected):
    assert redact(text) == (text if expected is None else expected)

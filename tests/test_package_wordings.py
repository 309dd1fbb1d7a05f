"""Wordings of other Python packages (torch's torchrun, openai, httpx, httpcore, aiohttp, requests, CPython's
http.client) that signatures read are in those packages' released source: tools/upstream/package_wordings.py reads
each cited wheel and writes catalog/package_wordings.json; these tests check the committed catalogue against the
signatures as they are now (a wording edited without rereading the source fails here)."""

from __future__ import annotations

import json

import pytest

from logscope.core.errors import RuleError
from logscope.pipeline.parse.signatures.client_errors import client_accepted, load_client_accepted
from tools.upstream.package_wordings import CITED, cited_signatures, find, pieces
from tools.upstream.write import ROOT

CATALOGUE = json.loads((ROOT / "catalog" / "package_wordings.json").read_text())["signatures"]


def test_every_signature_citing_a_python_package_is_found_in_each_cited_release():
    cited = {sig["id"]: sig for sig in cited_signatures()}
    assert sorted(CATALOGUE) == sorted(cited)  # none unread, none stale
    for sig_id, sig in cited.items():
        entry = CATALOGUE[sig_id]
        assert (entry["package"], entry["versions"], entry["files"]) == (sig["package"], sig["versions"], sig["files"])
        assert sorted(entry["found"]) == sorted(sig["versions"])
        for version, found in entry["found"].items():
            assert sorted(found) == sorted(sig["pieces"]), (sig_id, version)
            missing = [piece for piece, where in found.items() if where is None]
            assert not missing, f"{sig_id}: not in {sig['package']} {version}: {missing}"


def test_the_client_wordings_and_torchrun_s_and_http_client_s_are_all_checked():
    ids = {sig.id for sig in client_accepted()}
    assert len(ids) == 8
    assert all(CITED.match(sig.source) for sig in client_accepted())
    checked = ids | {
        "process-torch-elastic-worker-failed",
        "process-torch-elastic-root-cause",
        "process-http-remote-disconnected",
    }
    assert checked <= set(CATALOGUE)
    assert CATALOGUE["client-openai-internal-server-error"]["found"]["3.63.0"] == {
        "InternalServerError: Error code:": "openai/_exceptions.py:193 (class); openai/_base_client.py:485"
    }
    assert CATALOGUE["process-torch-elastic-root-cause"]["versions"] == ["2.5.1", "2.12.0"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (
            "failed (exitcode: {code:int}) local_rank: {local_rank:int} (pid: {pid:int})",
            ["failed (exitcode:", ") local_rank:", "(pid:"],
        ),
        ("Server error '{status:int} {reason:text}' for url", ["Server error", "for url"]),
        ("^sglang: error: {error:text}", ["sglang: error:"]),
        ("NCCL error in: {file:word}:{line:int}, {error:text}", ["NCCL error in:"]),
        ("a *b\\*c", ["b*c"]),  # a one-letter piece is no wording; an escaped star is a literal
    ],
)
def test_a_pattern_splits_into_its_literal_pieces(pattern, expected):
    assert pieces(pattern) == expected


def test_a_piece_is_found_in_a_string_constant_a_class_name_or_a_traceback_line_of_both():
    files = {
        "pkg/errors.py": 'class BoomError(Exception):\n    """x"""\n',
        "pkg/client.py": (
            'def f(code):\n    msg = f"Error code: {code}"\n'
            '    return ("Remote end closed connection without"\n            " response")\n'
        ),
    }
    assert find("Remote end closed connection without response", files) == "pkg/client.py:3"  # joined literals
    assert find("Error code:", files) == "pkg/client.py:2"  # an f-string's text
    assert find("BoomError", files) == "pkg/errors.py:1 (class)"
    assert find("BoomError: Error code:", files) == "pkg/errors.py:1 (class); pkg/client.py:2"
    assert find("OtherError: Error code:", files) is None
    assert find("Error code: 500", files) is None  # a value the source fills in is no wording of it
    assert find("msg", files) is None  # a name in the code is no wording


# review12a item 5: the placing file's `phase:` is read; a wording written with another phase is refused, not placed
# while serving
def test_a_client_wording_with_a_phase_other_than_serving_is_refused(tmp_path):
    head = "mechanism: client_accepted\ntitle: t\nsignatures:\n"
    entry = '  - id: client-x\n    on: line\n    pattern: "Server disconnected before answering"\n    phase: {}\n    source: s\n'
    (tmp_path / "ok").mkdir()
    (tmp_path / "bad").mkdir()
    (tmp_path / "ok" / "client_accepted.yaml").write_text(head + entry.format("serving"))
    (tmp_path / "bad" / "client_accepted.yaml").write_text(head + entry.format("startup"))
    assert [s.phase for s in load_client_accepted(tmp_path / "ok" / "client_accepted.yaml")] == ["serving"]
    with pytest.raises(RuleError, match="client-x: phase: serving is the only phase"):
        load_client_accepted(tmp_path / "bad" / "client_accepted.yaml")
    assert {s.phase for s in client_accepted()} == {"serving"}

"""`logscope watch` against a stand-in SGLang server (tests/sglang_standin.py: the shapes of 0.5.9, 0.5.20 and
0.5.23 as their source builds them) and a fake NVML on two GPUs; JSON compared with fixtures/watch/<release>.json
(regenerate: python -m pytest tests/test_measure_watch.py --update-goldens)."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from logscope.measure.endpoints import WatchError, parse_metrics
from logscope.measure.watch import Options, read_watch, render_markdown
from logscope.measure.watch_document import WatchDocument
from tests.fake_nvml import FakeNvml
from tests.sglang_standin import metrics, standin

GOLDEN = Path(__file__).parent.parent / "fixtures" / "watch"
# the scheduler processes of TP0 and TP1: 125 000 MiB on GPU 0 (with the fake's other process: 1000 MiB) and 127 100 on GPU 1
STATE = '{"pid": 11, "mib": 127000, "gpu": 0}\n{"pid": 12, "mib": 127100, "gpu": 1}\n'


def _read(tmp_path: Path, url: str, **extra: object) -> WatchDocument:
    state = tmp_path / "state.jsonl"
    state.write_text(STATE)
    document = read_watch(Options(url, nvml_module=FakeNvml(state, count=2), **extra))  # type: ignore[arg-type]
    return replace(document, url="http://127.0.0.1:PORT")


def _watch(tmp_path: Path, url: str, **extra: object) -> dict:
    return _read(tmp_path, url, **extra).to_json()


@pytest.mark.parametrize("version", ["0.5.9", "0.5.20", "0.5.23"])
def test_watch_matches_golden(tmp_path: Path, version: str, update_goldens: bool) -> None:
    with standin(version) as url:
        document = _watch(tmp_path, url)
    golden = GOLDEN / f"{version}.json"
    text = json.dumps(document, indent=2) + "\n"
    if update_goldens:
        golden.write_text(text)
    assert text == golden.read_text()


def test_watch_ledger_numbers(tmp_path: Path) -> None:
    with standin("0.5.23") as url:
        document = _watch(tmp_path, url)
    tp0, tp1 = document["ranks"]
    assert (tp0["rank"], tp0["gpu"], tp1["rank"], tp1["gpu"]) == ("TP0", 0, "TP1", 1)
    assert tp0["sglang"]["sources"] == ["metrics", "server_info"] and tp1["sglang"]["sources"] == ["metrics"]
    assert tp0["device"]["used_gib"] == 125.0  # (124 000 + 1000) MiB / 1024
    assert tp0["residual_gib"] == round(125.0 - 30.8 - 91.56 - 1.4, 2)
    assert tp1["sglang"]["graph_gib"] == 1.43 and tp1["residual_gib"] == round(127100 / 1024 - 30.8 - 91.56 - 1.43, 2)
    sized = [c["gib"] for c in document["cells"] if c["gib"] is not None]  # a row shown as n/a has no size
    assert sized and document["cells_gib"] == round(sum(sized), 3)
    assert tp0["residual_after_cells_gib"] == round(tp0["residual_gib"] - document["cells_gib"], 2)
    assert document["missing"] == []


def test_older_server_names_what_is_missing(tmp_path: Path) -> None:
    with standin("0.5.9") as url:
        document = _watch(tmp_path, url)
    assert document["missing"] == [
        "memory_usage.startup_available and the graph per phase: from SGLang 0.5.17 (this server: 0.5.9)",
        "/metrics sglang:weight_memory_usage_gb, sglang:kv_cache_memory_usage_gb, sglang:graph_memory_usage_gb{phase}: "
        "from SGLang 0.5.17 (this server: 0.5.9)",
        "/metrics sglang:startup_available_gpu_memory_gb: from SGLang 0.5.11 (this server: 0.5.9)",
    ]
    assert [r["rank"] for r in document["ranks"]] == ["TP0"]
    with standin("0.5.23", metrics_on=False) as url:
        document = _watch(tmp_path, url)
    assert document["missing"] == ["/metrics: not served (start the server with --enable-metrics for the memory gauges)"]


def test_api_key_header(tmp_path: Path) -> None:
    with standin("0.5.23", api_key="s3cret") as url:
        with pytest.raises(WatchError, match=r"HTTP 401: the server wants an API key \(--header"):
            _watch(tmp_path, url)
        document = _watch(tmp_path, url, headers=(("Authorization", "Bearer s3cret"),))
    assert document["version"] == "0.5.23"


def test_not_sglang_and_unreachable_are_one_line_errors(tmp_path: Path) -> None:
    with standin("0.5.23", body=b"<html>hello</html>") as url, pytest.raises(WatchError, match="not JSON: not an SGLang server"):
        _watch(tmp_path, url)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(WatchError, match=f"127.0.0.1:{port}/server_info: unreachable: Connection refused"):
        _watch(tmp_path, f"http://127.0.0.1:{port}")
    with pytest.raises(WatchError, match="not an http:// or https:// URL"):
        _watch(tmp_path, "127.0.0.1:30000")


def test_timeout_and_tls_are_one_line_errors(tmp_path: Path) -> None:
    with socket.socket() as sock:  # accepts the connection, never answers
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        with pytest.raises(WatchError, match=r"timed out"):
            _watch(tmp_path, url, timeout_s=0.3)
    with standin("0.5.23") as url, pytest.raises(WatchError, match="TLS"):
        _watch(tmp_path, url.replace("http://", "https://"), timeout_s=2.0)


def test_cli_once_exit_codes(tmp_path: Path) -> None:
    with standin("0.5.20") as url:
        done = subprocess.run(
            [sys.executable, "-m", "logscope", "watch", url, "--format", "markdown", "--no-nvml"], capture_output=True, text=True
        )
    assert done.returncode == 0, done.stderr
    assert "| TP1 | 1? | 30.80 | 91.56 | 1.43 | - | - | - |" in done.stdout
    assert "device not read (--no-nvml)" in done.stdout
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = subprocess.run(
        [sys.executable, "-m", "logscope", "watch", f"http://127.0.0.1:{port}", "--once"], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "unreachable" in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_markdown_view(tmp_path: Path) -> None:
    with standin("0.5.9") as url:
        text = render_markdown(_read(tmp_path, url))
    assert "| TP0 | 0? | 30.80 | 91.56 | 1.40 | 125.00 | 1.24 |" in text


def test_metrics_parser_reads_labels() -> None:
    gauges = parse_metrics(metrics("0.5.23"), ("sglang:graph_memory_usage_gb",))
    decode = [g for g in gauges if g.labels["phase"] == "decode"]
    assert [(g.labels["tp_rank"], g.value) for g in decode] == [("0", 1.4), ("1", 1.43)]


def test_smi_dump_gives_the_device(tmp_path: Path) -> None:
    """--smi: the device's use from an nvidia-smi -q dump of the server's host (here one GPU: TP1 has none)."""
    with standin("0.5.23") as url:
        document = read_watch(Options(url, smi="fixtures/calibration/h200-ws1-smi-q.txt")).to_json()
    # that dump's GPU holds 1.64 GiB, not the 123.76 GiB this server states TP0 holds: another machine, flagged
    # rather than a residual of -122 GiB
    tp0, tp1 = document["ranks"]
    assert tp0["device"] is None and tp0["residual_gib"] is None and tp1["device"] is None
    assert document["device_note"] == (
        "nvidia-smi dump fixtures/calibration/h200-ws1-smi-q.txt: GPU 0 uses 1.64 GiB, less than the 123.76 GiB that "
        "TP0 of this server holds on it (weights, KV cache, graphs): not this server's GPUs (another machine, or read "
        "before the server started); no residual is computed"
    )


def test_smi_dump_of_the_servers_host_gives_the_device(tmp_path: Path) -> None:
    dump = tmp_path / "smi.csv"
    dump.write_text(
        "index, name, memory.total [MiB], memory.used [MiB], memory.reserved [MiB]\n"
        "0, NVIDIA H200, 143771 MiB, 128000 MiB, 616 MiB\n"
    )
    with standin("0.5.23") as url:
        document = read_watch(Options(url, smi=str(dump))).to_json()
    tp0, tp1 = document["ranks"]
    assert tp0["device"]["used_gib"] == round(128000 / 1024, 3) and document["device_note"] is None
    assert tp0["residual_gib"] == round(128000 / 1024 - 30.8 - 91.56 - 1.4, 2)
    assert tp1["device"] is None and tp1["residual_gib"] is None  # the documented keys, null: no GPU 1 in the dump


def test_json_keys_are_all_there_when_no_gpu_is_read(tmp_path: Path) -> None:
    with standin("0.5.9") as url:
        document = read_watch(Options(url, nvml=False)).to_json()
    for rank in document["ranks"]:
        assert {"device", "residual_gib", "residual_after_cells_gib"} <= rank.keys() and rank["device"] is None
        assert {"weight_gib", "kv_cache_gib", "graph_gib", "graph_phases", "startup_available_gib", "token_capacity"} <= (
            rank["sglang"].keys()
        )


def test_one_deadline_bounds_the_whole_request(tmp_path: Path) -> None:
    """A server that answers at once, then sends its body a byte every 0.2 s: --timeout 1 ends it in about 1 s."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        stop = threading.Event()

        def drip() -> None:
            conn, _ = sock.accept()
            with conn:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
                while not stop.wait(0.2):
                    with contextlib.suppress(OSError):
                        conn.sendall(b" ")

        thread = threading.Thread(target=drip, daemon=True)
        thread.start()
        started = time.monotonic()
        with pytest.raises(WatchError, match=r"timed out after 1 s \(connecting, headers and body together\)"):
            _watch(tmp_path, f"http://127.0.0.1:{sock.getsockname()[1]}", timeout_s=1.0)
        stop.set()
    assert time.monotonic() - started < 3


def test_a_metrics_page_over_the_cap_is_said_never_cut_silently(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from logscope.measure import watch

    monkeypatch.setattr(watch, "METRICS_CAP", 600)  # the stand-in's 0.5.23 page is about 2 KB
    with standin("0.5.23") as url:
        document = _watch(tmp_path, url)
    assert document["missing"] == [
        "/metrics: the page is larger than 600 bytes; only its first 600 bytes were read, so a gauge not found "
        "there is unknown, not missing"
    ]
    assert document["ranks"][0]["sglang"]["weight_gib"] == 30.8  # from server_info


def test_the_watch_document_travels_typed(tmp_path: Path) -> None:
    """read_watch returns typed values (the cells as the sizing stage's Cell) that the views read; only to_json()
    writes the dict, whose bytes the goldens above hold."""
    from logscope.core.cell import Cell
    from logscope.measure.watch_document import DeviceUse, SglangFigures, WatchRank

    with standin("0.5.23") as url:
        document = _read(tmp_path, url)
    assert isinstance(document, WatchDocument) and document.cells and all(isinstance(c, Cell) for c in document.cells)
    tp0 = document.ranks[0]
    assert isinstance(tp0, WatchRank) and isinstance(tp0.sglang, SglangFigures) and isinstance(tp0.device, DeviceUse)
    assert (tp0.sglang.weight_gib, tp0.sglang.kv_cache_gib, tp0.device.used_gib) == (30.8, 91.56, 125.0)
    assert document.cells_gib == round(sum(c.gib or 0 for c in document.cells), 3)
    assert document.to_json()["cells"] == [c.as_json() for c in document.cells]

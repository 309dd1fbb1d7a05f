"""The paste form under attack (logscope/paste/multipart.py, paste/page.py): crafted headers, too many parts
and deep nesting are each a quick 400 while /healthz keeps answering; a request holds a slot from its first
body byte, so one more is answered 503 before its body is sent; a stalled upload meets its one deadline;
binary uploads are refused as the CLI refuses them; an abandoned upload is one log line, no traceback."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import urllib.request

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logscope.paste.multipart import MAX_PARTS, FormError, FormParser, header_params
from tests.helpers import REAL, free_port, start_server, stop_server

CT = "multipart/form-data; boundary=b"


def _form(*parts: tuple[bytes, bytes]) -> bytes:
    return b"".join(b"--b\r\n" + h + b"\r\n\r\n" + d + b"\r\n" for h, d in parts) + b"--b--\r\n"


TEXT = b'Content-Disposition: form-data; name="text"'
CRAFTED = _form((TEXT + b"\r\nContent-Type: text/plain; " + b";".join([b"a=b"] * 120_000), b"hello"))
MANY = _form(*[(b'Content-Disposition: form-data; name="x"', b"y")] * 100_000)
NESTED = (
    b"".join(b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (i, i + 1) for i in range(2000))
    + b'--b2000\r\nContent-Disposition: form-data; name="text"\r\n\r\nhello\r\n'
    + b"".join(b"--b%d--\r\n" % i for i in range(2000, -1, -1))
)


def _parse(body: bytes, content_type: str = CT, chunk: int = 7) -> list:
    parser = FormParser(content_type)
    for at in range(0, len(body), chunk):
        parser.feed(body[at : at + chunk])
    return parser.close()


def test_the_form_is_read_in_any_chunking_with_names_and_file_names():
    body = _form(
        (TEXT, b"line one\r\nline two --b not a boundary"),
        (b'Content-Disposition: form-data; name="files"; filename="rank1.log"\r\nContent-Type: text/plain', b"x" * 100),
        (b"Content-Disposition: form-data; name=\"files\"; filename*=UTF-8''r%C3%A4nk2.log", b"z"),
    )
    for chunk in (1, 3, 7, 64, len(body)):
        parts = _parse(body, chunk=chunk)
        assert [(p.name, p.filename, bytes(p.data)) for p in parts] == [
            ("text", None, b"line one\r\nline two --b not a boundary"),
            ("files", "rank1.log", b"x" * 100),
            ("files", "ränk2.log", b"z"),
        ]


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        (CRAFTED, CT, "headers are longer than 8 KiB"),
        (_form((TEXT + b"\r\nContent-Type: text/plain; " + b";".join([b"a=b"] * 20), b"hi")), CT, "more than 16 parameters"),
        (MANY, CT, f"more than {MAX_PARTS} parts"),
        (NESTED, "multipart/form-data; boundary=b0", "nested multipart part"),
        (b"--b\r\n" + b"X-A: b\r\n" * 2000 + b"\r\nhi\r\n--b--\r\n", CT, "headers are longer than 8 KiB"),
        (b"--b\r\nno colon here\r\n\r\nhi\r\n--b--\r\n", CT, "no colon"),
        (_form((TEXT, b"hi"))[:-8], CT, "ends before its closing boundary"),
        (b"x", "text/plain", "multipart/form-data"),
        (b"x", "multipart/form-data", "no valid boundary"),
    ],
)
def test_every_bad_form_is_a_form_error_in_linear_time(body, content_type, message):
    started = time.monotonic()
    with pytest.raises(FormError, match=message):
        _parse(body, content_type, chunk=65536)
    assert time.monotonic() - started < 2.0  # the e-mail parser took 36 s (header), 15 s (parts)


def test_header_params_are_capped_and_quoted_values_kept():
    assert header_params('form-data; name="a;b"; filename="c \\"d\\".log"') == (
        "form-data",
        {"name": "a;b", "filename": 'c "d".log'},
    )
    with pytest.raises(FormError):
        header_params("text/plain" + "; a=b" * 17)


def _raw_post(
    port: int, body: bytes, length: int | None = None, content_type: str = CT, timeout: float = 30
) -> tuple[int, bytes]:
    """(status, answer) of a POST that sends `body` as is (possibly less than `length` declares)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        head = f"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\nContent-Length: {length or len(body)}\r\n\r\n"
        with contextlib.suppress(OSError):
            sock.sendall(head.encode() + body)
        answer = b""
        while b"</html>" not in answer:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    return int(answer.split(b" ", 2)[1]), answer


@pytest.fixture(scope="module")
def served():
    proc, url = start_server(["serve", "--max-concurrent", "1"])
    yield proc, int(url.rsplit(":", 1)[1])
    stop_server(proc)


@pytest.mark.parametrize(
    ("name", "body", "content_type"),
    [("header", CRAFTED, CT), ("parts", MANY, CT), ("nesting", NESTED, "multipart/form-data; boundary=b0")],
)
def test_crafted_forms_are_a_quick_400_and_healthz_never_waits(served, name, body, content_type):
    _, port = served
    latencies: list[float] = []
    done = threading.Event()

    def probe() -> None:
        while not done.is_set():
            started = time.monotonic()
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=60).read()
            latencies.append(time.monotonic() - started)
            time.sleep(0.05)

    thread = threading.Thread(target=probe)
    thread.start()
    started = time.monotonic()
    try:
        status, answer = _raw_post(port, body, content_type=content_type)
    finally:
        done.set()
        thread.join()
    assert status == 400, answer[:300]
    assert time.monotonic() - started < 5 and max(latencies) < 2


def test_a_request_holds_its_slot_from_its_first_byte_and_the_next_is_503_before_its_body(served):
    _, port = served
    with socket.create_connection(("127.0.0.1", port), timeout=30) as stalled:
        stalled.sendall(
            f"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: {CT}\r\nContent-Length: 4000000\r\n\r\n".encode() + b"--b\r\n"
        )
        time.sleep(0.5)
        status, answer = _raw_post(port, b"", length=4_000_000, timeout=10)  # headers only: no body sent
        assert status == 503 and b"retry-after: 15" in answer.lower()
    time.sleep(0.5)
    assert _raw_post(port, _form((TEXT, b"hello")))[0] == 200  # the slot is free again


def test_a_binary_upload_is_refused_as_the_cli_refuses_it(served):
    _, port = served
    elf = (b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 64)[:8000]
    status, answer = _raw_post(port, _form((b'Content-Disposition: form-data; name="files"; filename="rank0.log"', elf)))
    assert status == 400 and b"rank0.log: binary data, not a text log: an ELF executable" in answer


def test_an_abandoned_upload_is_one_log_line_and_a_stalled_one_meets_its_deadline(monkeypatch):
    proc, url = start_server(["serve"])
    port = int(url.rsplit(":", 1)[1])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(f"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: {CT}\r\nContent-Length: 100000\r\n\r\n--b\r\n".encode())
            time.sleep(0.5)
        time.sleep(1.0)
    finally:
        _, err = stop_server(proc)
    lines = [line for line in err.splitlines() if "paste" in line and "status=" in line]
    assert len(lines) == 1 and "closed the connection during the upload" in lines[0], err
    assert "Traceback" not in err


def test_a_stalled_upload_is_answered_408_at_its_deadline():
    uvicorn = pytest.importorskip("uvicorn")
    from starlette.applications import Starlette

    from logscope.paste import page
    from logscope.paste.budget import Budget

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(Starlette(routes=page.routes(Budget(upload_seconds=1.0))), port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        started = time.monotonic()
        status, answer = _raw_post(port, b"--b\r\n", length=100_000, timeout=20)
        assert status == 408 and b"did not arrive within 1 s" in answer
        assert time.monotonic() - started < 5
        log = (REAL / "f-010-sglang-8974.log").read_bytes()
        assert _raw_post(port, _form((TEXT, log)))[0] in (200, 400)
    finally:
        server.should_exit = True
        thread.join(10)


_PIECES = st.sampled_from(
    [b"--b", b"--b--", b"\r\n", b"\r\n\r\n", b"Content-Disposition: form-data; name=", b'"text"', b'"files"', b"; filename=",
     b"Content-Type: multipart/mixed; boundary=c", b";", b"=", b'"', b"\\", b"x", b"\xff", b":", b" ", b"*=UTF-8''%ff"]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=40).map(b"".join) | st.binary(max_size=200), st.integers(1, 50))
@settings(max_examples=500, deadline=None)
def test_any_body_is_parts_or_a_form_error(body, chunk):
    try:
        parts = _parse(body, chunk=chunk)
    except FormError:
        return
    assert len(parts) <= MAX_PARTS and all(isinstance(p.data, bytearray) for p in parts)

"""The paste page (`logscope serve`, on 127.0.0.1) in headless Chromium: a real log pasted into the form
and an uploaded file give the report with the verdict `analyze` gives on the same text (redacted); no
request leaves the server, the Content Security Policy blocks nothing the page needs (a blocked style or
script would be a console error), planted secrets never reach the page, and a submission over the cap is
refused with a message."""

from __future__ import annotations

import http.client
import json
import re
import urllib.request

import pytest

from logscope.core.redact import redact_document
from logscope.report.view import build_view
from tests.helpers import CHROMIUM, REAL, analyze_text, needs_browser, start_server, stop_server

SECRETS = ["hf_AbCdEfGhIjKlMnOpQrStUv", "alice@example.com", "/home/alice/models", "ghp_" + "x1" * 12]
PLANTED = (
    "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUv python -m sglang.launch_server --model-path /home/alice/models/llama\n"
    "contact: alice@example.com, GITHUB_TOKEN=ghp_" + "x1" * 12 + "\n"
)
LOG = REAL / "f-004-sglang-5285.log"
CAP = 64 << 10


@pytest.fixture(scope="module")
def server():
    proc, url = start_server(["serve", "--max-paste", str(CAP)])
    yield url
    stop_server(proc)


def _verdict_of(text: str, name: str) -> str:
    return build_view(redact_document(analyze_text(text, name))).verdict


def test_form_page_headers_and_the_size_cap(server):
    with urllib.request.urlopen(server + "/", timeout=10) as response:
        csp = response.headers["Content-Security-Policy"]
        page = response.read().decode()
    assert csp.startswith("default-src 'none'; style-src 'sha256-") and "script-src" not in csp
    assert "form-action 'self'" in csp and "frame-ancestors 'none'" in csp
    assert '<form method="post" action="/" enctype="multipart/form-data">' in page and "<script" not in page
    port = int(server.rsplit(":", 1)[1])
    body = b'--b\r\nContent-Disposition: form-data; name="text"\r\n\r\n' + b"x" * (CAP + 1) + b"\r\n--b--\r\n"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/", body=body, headers={"Content-Type": "multipart/form-data; boundary=b"})
    response = connection.getresponse()
    answer = response.read().decode()
    connection.close()
    assert response.status == 413 and "more than 64 KiB sent: paste less" in answer


@needs_browser
def test_paste_and_upload_in_chromium(server, tmp_path):
    from playwright import sync_api as playwright

    pasted = PLANTED + LOG.read_text(encoding="utf-8")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            requests, errors = [], []
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(server + "/")
            page.fill("#text", pasted)
            with page.expect_navigation():
                page.click("#analyze")
            verdict = page.inner_text("#verdict").strip()
            assert verdict == _verdict_of(pasted, "pasted")
            assert verdict.startswith("error [capture-oom]")
            content = page.content()
            assert not [s for s in SECRETS if s in content]
            embedded = json.dumps(json.loads(page.eval_on_selector("#logscope-data", "e => e.textContent")))
            assert '"HF_TOKEN": "<redacted>"' in embedded and "/home/<user>/models/llama" in embedded
            # an uploaded file, read under its own name
            upload = tmp_path / "rank0.log"
            upload.write_text(LOG.read_text(encoding="utf-8"), encoding="utf-8")
            page.goto(server + "/")
            page.set_input_files("#files", str(upload))
            with page.expect_navigation():
                page.click("#analyze")
            assert page.inner_text("#verdict").strip() == _verdict_of(LOG.read_text(encoding="utf-8"), "rank0.log")
            assert "rank0.log" in page.content()
            assert errors == []  # (the 400 below is logged as a console error by Chromium)
            # nothing pasted: the form again, with why
            page.goto(server + "/")
            with page.expect_navigation():
                page.click("#analyze")
            assert page.inner_text("#error") == "nothing was pasted or uploaded"
        finally:
            browser.close()
    assert requests and all(re.match(rf"{re.escape(server)}/", url) for url in requests), requests

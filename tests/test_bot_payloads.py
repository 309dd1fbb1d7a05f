"""Property tests of the webhook handler (in process, through its ASGI interface, no socket): any signed
body, JSON or form-encoded, of any shape, is answered 200/202/400/403 with a reason, never 500; only a
payload of the needed shape is queued, and what is queued is an owner/name repository and a positive
issue number."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import urllib.parse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logscope.bot.app import Settings, create_app
from logscope.bot.payload import REPO_NAME, Delivery, Ignored, PayloadError, decode_body, read_delivery
from logscope.bot.queue import JobQueue

SECRET = b"property"
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
ISSUE = {"number": 5, "title": "t", "body": "b", "labels": [{"name": "bug"}], "user": {"login": "u", "type": "User"}}
TEMPLATE = {
    "action": "opened",
    "issue": ISSUE,
    "repository": {"full_name": "org/repo"},
    "installation": {"id": 3},
    "comment": {"body": "c", "user": {"login": "u", "type": "User"}},
}


@st.composite
def near_valid(draw: st.DrawFn) -> dict:
    """A payload of the right shape with some fields, at any depth, replaced by any JSON value."""
    payload = json.loads(json.dumps(TEMPLATE))
    for _ in range(draw(st.integers(0, 3))):
        path = draw(
            st.sampled_from(
                [
                    ("action",),
                    ("issue",),
                    ("issue", "number"),
                    ("issue", "labels"),
                    ("issue", "body"),
                    ("issue", "user"),
                    ("repository",),
                    ("repository", "full_name"),
                    ("installation",),
                    ("installation", "id"),
                    ("comment",),
                    ("comment", "user"),
                ]
            )
        )
        target = payload
        for key in path[:-1]:
            target = target[key] if isinstance(target.get(key), dict) else target.setdefault(key, {})
            if not isinstance(target, dict):
                break
        else:
            target[path[-1]] = draw(json_values | st.integers(-(2**70), 2**70))
    return payload


def _call(app, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    async def run() -> tuple[int, dict]:
        sent: list[dict] = []
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> dict:
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "path": "/webhook",
            "raw_path": b"/webhook",
            "query_string": b"",
            "root_path": "",
            "scheme": "http",
            "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
            "server": ("127.0.0.1", 80),
            "client": ("127.0.0.1", 1),
        }
        await app(scope, receive, send)
        return sent[0]["status"], json.loads(b"".join(m.get("body", b"") for m in sent[1:]))

    return asyncio.run(run())


def _signed(body: bytes, event: str, delivery: str, content_type: str) -> dict[str, str]:
    return {
        "Content-Type": content_type,
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest(),
    }


class Harness:
    def __init__(self, tmp_path_factory) -> None:
        self.queue = JobQueue(tmp_path_factory.mktemp("queue"))
        self.app = create_app(Settings(SECRET, "logscope[bot]", repos=("org/*",)), self.queue, None)
        self.sent = 0

    def post(self, payload: object, event: str, form: bool) -> tuple[int, dict]:
        self.sent += 1
        body = json.dumps(payload).encode()
        content_type = "application/json"
        if form:
            body = urllib.parse.urlencode({"payload": body.decode()}).encode()
            content_type = "application/x-www-form-urlencoded"
        return _call(self.app, body, _signed(body, event, f"p-{self.sent}", content_type))


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> Harness:
    return Harness(tmp_path_factory)


@settings(max_examples=300, deadline=None)
@given(payload=json_values | near_valid(), event=st.sampled_from(["issues", "issue_comment", "ping", "push"]), form=st.booleans())
def test_any_signed_payload_is_answered_with_a_reason_never_a_500(harness, payload, event, form):
    before = sum(harness.queue.counts().values())
    status, answer = harness.post(payload, event, form)
    assert status in (200, 202, 400, 403), (status, answer)
    if status >= 400:
        assert answer["error"]
    queued = sum(harness.queue.counts().values()) - before
    assert queued == (1 if answer.get("queued") else 0)
    if queued:
        job = harness.queue.db.execute("SELECT repo, issue FROM jobs ORDER BY id DESC LIMIT 1").fetchone()
        assert REPO_NAME.fullmatch(job[0]) and job[0].startswith("org/") and isinstance(job[1], int) and job[1] > 0


@settings(max_examples=500, deadline=None)
@given(payload=json_values | near_valid(), event=st.sampled_from(["issues", "issue_comment"]))
def test_read_delivery_returns_a_delivery_an_ignored_or_raises_payload_error(payload, event):
    try:
        read = read_delivery(event, payload)
    except PayloadError as exc:
        assert str(exc)
        return
    assert isinstance(read, Delivery | Ignored)
    if isinstance(read, Delivery):
        assert REPO_NAME.fullmatch(read.repo) and read.issue > 0
        assert read.installation is None or read.installation > 0
        json.dumps(read.thread)  # a dry run stores it as JSON


@settings(max_examples=300, deadline=None)
@given(
    body=st.binary(max_size=200),
    content_type=st.sampled_from(
        ["application/json", "application/x-www-form-urlencoded", "", "text/plain", "application/json; charset=utf-8"]
    ),
)
def test_any_bytes_decode_to_json_or_raise_payload_error(body, content_type):
    try:
        decode_body(content_type, body)
    except PayloadError as exc:
        assert str(exc)

"""A client library's error that shows the server had taken a client's request: it was up and serving.

The wordings come from the client libraries' released packages (and CPython's http.client): a 500 answer is the server
application's own error reply to the request; a connection the server closed before it answered shows the request had
been accepted. A refused connection, a timeout or a gateway's 502/503/504 show no such thing (the server may not be up),
and SGLang's own warmup request (its launcher's requests.post, http_server.py _wait_and_warmup) is startup's."""

from __future__ import annotations

import re

from logscope.core.events import Event

# (wording, where it is raised): the first that the failure's text holds places it
_ACCEPTED = (
    # httpcore 1.0.9 _sync/http11.py and _async/http11.py _receive_event; httpx re-raises it as RemoteProtocolError
    ("Server disconnected without sending a response", "httpcore 1.0.9 http11.py _receive_event"),
    # aiohttp 3.14.5 client_exceptions.py ServerDisconnectedError ("Server disconnected"), client_proto.py
    # connection_lost (ClientPayloadError "Response payload is not completed: ...")
    ("ServerDisconnectedError", "aiohttp 3.14.5 client_exceptions.py ServerDisconnectedError"),
    ("Response payload is not completed", "aiohttp 3.14.5 client_proto.py connection_lost"),
    # CPython 3.11 http/client.py HTTPResponse.begin (RemoteDisconnected), which requests and urllib3 wrap
    ("Remote end closed connection without response", "CPython 3.11 http/client.py RemoteDisconnected"),
    # curl lib/http.c (curl/curl@0ebd3d6): failf(data, "Empty reply from server"), CURLE_GOT_NOTHING
    ("Empty reply from server", "curl lib/http.c CURLE_GOT_NOTHING"),
    # openai 3.63.0 _base_client.py _make_status_error_from_response: f"Error code: {status}", InternalServerError >= 500
    ("InternalServerError: Error code: 500", "openai 3.63.0 _base_client.py _make_status_error_from_response"),
    # httpx 0.29.0 _models.py Response.raise_for_status; requests 2.34.2 models.py Response.raise_for_status
    ("Server error '500 Internal Server Error' for url", "httpx 0.29.0 _models.py raise_for_status"),
    ("500 Server Error: Internal Server Error for url", "requests 2.34.2 models.py raise_for_status"),
)
_PATTERN = re.compile("|".join(re.escape(wording) for wording, _ in _ACCEPTED))
# the frames of SGLang's own warmup request (entrypoints/http_server.py, server.py before 0.4.1)
_WARMUP_FRAMES = re.compile(r"\b(?:_wait_and_warmup|_execute_server_warmup)\b")


def placed_by_client(event: Event) -> tuple[str, str] | None:
    """("serving", basis) when the failure is a client library's error that shows the server had taken the request."""
    text = str(event.data.get("full_text") or event.text)
    frames = " ".join(str(f) for f in event.data.get("frame_paths") or event.data.get("frames") or [])
    found = _PATTERN.search(text)
    if found is None or _WARMUP_FRAMES.search(frames + text):
        return None
    where = next(raised for wording, raised in _ACCEPTED if wording == found.group(0))
    return "serving", (
        f"a client's request got '{found.group(0)}' ({where}): the server had taken the request, so it was up and"
        " serving requests"
    )

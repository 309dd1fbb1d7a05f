"""A webhook delivery read against the shape the bot needs: the body decoded (JSON, or GitHub's default
form encoding with the JSON in its `payload` field) and every field the bot uses checked for its type. A
body that does not fit raises PayloadError with the reason (answered 400); an event the bot does not act
on is an Ignored with why (202); anything else is a Delivery, ready to be queued."""

from __future__ import annotations

import json
import re
import urllib.parse
from dataclasses import dataclass
from typing import Any

ACCEPTED = {("issues", "opened"), ("issues", "edited"), ("issue_comment", "created"), ("issue_comment", "edited")}
# GitHub's rules: an owner is 1-39 letters, digits and single hyphens; a repository name 1-100 of [A-Za-z0-9._-]
REPO_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/(?!\.\.?$)[A-Za-z0-9._-]{1,100}")
MAX_ID = (1 << 53) - 1  # GitHub's ids fit a double; anything larger is no GitHub id (and would overflow SQLite)


class PayloadError(ValueError):
    """The body is not a payload the bot can act on; the message says why."""


@dataclass(frozen=True, slots=True)
class Ignored:
    reason: str


@dataclass(frozen=True, slots=True)
class Delivery:
    event: str
    action: str
    repo: str
    issue: int
    installation: int | None
    labels: tuple[str, ...]
    comment_user: dict[str, Any] | None  # the comment's author (issue_comment events)
    thread: dict[str, Any]  # the issue and the comment as delivered: what a dry run triages


def decode_body(content_type: str, body: bytes) -> Any:
    """The payload's JSON value, from either content type GitHub sends."""
    media = content_type.split(";")[0].strip().lower()
    if media == "application/x-www-form-urlencoded":
        try:
            fields = urllib.parse.parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            raise PayloadError("form body is not URL-encoded UTF-8") from None
        if list(fields) != ["payload"] or len(fields["payload"]) != 1:
            raise PayloadError("form body needs exactly one field, payload")
        text = fields["payload"][0]
    elif media in ("application/json", ""):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise PayloadError("body is not UTF-8") from None
    else:
        raise PayloadError(f"content type {media} is neither application/json nor application/x-www-form-urlencoded")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise PayloadError("body is nested too deeply") from None
    except ValueError as exc:
        raise PayloadError(f"body is not JSON ({exc})") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PayloadError(f"{where} is {_kind(value)}, not an object")
    return value


def _id(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_ID:
        raise PayloadError(f"{where} is {_kind(value)}, not a positive integer")
    return value


def _text(value: Any, where: str, optional: bool = True) -> str:
    if value is None and optional:
        return ""
    if not isinstance(value, str):
        raise PayloadError(f"{where} is {_kind(value)}, not a string")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return f"the integer {value}" if abs(value) < 10**12 else "an integer out of range"
    return {float: "a non-integer number", str: "a string", list: "an array", dict: "an object"}.get(type(value), "?")


def _user(value: Any, where: str) -> dict[str, Any]:
    user = _object(value, where)
    return {"login": _text(user.get("login"), f"{where}.login"), "type": _text(user.get("type"), f"{where}.type")}


def read_delivery(event: str, payload: Any) -> Delivery | Ignored:
    data = _object(payload, "the payload")
    action = _text(data.get("action"), "action")
    if (event, action) not in ACCEPTED:
        return Ignored(f"{event}.{action}" if action else event or "no event")
    issue = _object(data.get("issue"), "issue")
    if "pull_request" in issue:
        return Ignored("a pull request")
    number = _id(issue.get("number"), "issue.number")
    labels = issue.get("labels")
    labels = [] if labels is None else labels
    if not isinstance(labels, list):
        raise PayloadError(f"issue.labels is {_kind(labels)}, not an array")
    names = tuple(_text(_object(label, "issue.labels[]").get("name"), "issue.labels[].name", False) for label in labels)
    repo = _text(_object(data.get("repository"), "repository").get("full_name"), "repository.full_name", False)
    if not REPO_NAME.fullmatch(repo):
        raise PayloadError(f"repository.full_name {repo[:100]!r} is not owner/name")
    installation = None
    if data.get("installation") is not None:
        installation = _id(_object(data["installation"], "installation").get("id"), "installation.id")
    thread_issue = {
        "number": number,
        "title": _text(issue.get("title"), "issue.title"),
        "body": _text(issue.get("body"), "issue.body"),
        "user": _user(issue["user"], "issue.user") if issue.get("user") is not None else None,
    }
    comments: list[dict[str, Any]] = []
    comment_user = None
    if event == "issue_comment":
        comment = _object(data.get("comment"), "comment")
        comment_user = _user(comment.get("user"), "comment.user")
        comments.append({"body": _text(comment.get("body"), "comment.body"), "user": comment_user})
    return Delivery(event, action, repo, number, installation, names, comment_user, {"issue": thread_issue, "comments": comments})

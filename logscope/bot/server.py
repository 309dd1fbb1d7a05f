"""`logscope bot serve`: the settings read and checked (each problem one line, a StartError), the GitHub client
made (a GitHub App, a token, or none in a dry run), the queue opened, one start line on stderr (URL, mode,
data folder, limits), then the webhook app, the paste page and the worker on uvicorn."""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import uvicorn

from logscope.bot.app import MAX_BODY, Settings, create_app
from logscope.bot.auth import AppAuth, load_private_key
from logscope.bot.github import GitHub, StaticToken
from logscope.bot.metrics import Metrics
from logscope.bot.payload import REPO_NAME
from logscope.bot.queue import JobQueue
from logscope.bot.worker import BACKOFF, Worker
from logscope.core.errors import LogscopeError
from logscope.lifetime import long_running
from logscope.paste.budget import Budget, size, start_forkserver
from logscope.paste.page import routes


class StartError(LogscopeError):
    """A setting the bot cannot start with; the message says which and what to do."""


@dataclass(frozen=True)
class BotOptions:
    host: str = "127.0.0.1"
    port: int = 8080
    dry_run: bool = False
    dry_run_dir: Path | None = None
    data_dir: Path = Path("logscope-bot-data")
    allow_repo: tuple[str, ...] = ()
    label: tuple[str, ...] = ()
    app_id: str = ""
    app_key: Path | None = None
    mutation_interval: float = 1.0
    retry_wait: float = 60.0
    max_body: int = MAX_BODY
    budget: Budget = field(default_factory=Budget)


@dataclass(frozen=True)
class Environment:
    """What the bot reads from its environment (secrets stay out of the command line and the start line)."""

    secret: str
    token: str
    api: str
    login: str

    @classmethod
    def read(cls) -> Environment:
        return cls(
            os.environ.get("LOGSCOPE_WEBHOOK_SECRET", ""),
            os.environ.get("GITHUB_TOKEN", ""),
            os.environ.get("GITHUB_API_URL", "https://api.github.com"),
            os.environ.get("LOGSCOPE_BOT_LOGIN", ""),
        )


def _access_log() -> None:
    """One line per delivery on stderr (logscope.bot.access); uvicorn's own log stays at warnings."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%dT%H:%M:%S%z"))
    access = logging.getLogger("logscope.bot.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    access.propagate = False


def _github(options: BotOptions, env: Environment) -> tuple[GitHub | None, str, str]:
    """(the client, the bot's login, the mode as the start line says it)."""
    login = env.login
    if options.dry_run:
        where = options.dry_run_dir or options.data_dir / "dry-run"
        return None, login, f"dry run (nothing posted; comments written under {where})"
    if options.app_id and options.app_key:
        try:
            auth = AppAuth(env.api, options.app_id, load_private_key(options.app_key), default_wait=options.retry_wait)
        except (OSError, ValueError) as exc:
            raise StartError(f"--app-key: {exc}") from None
        github = GitHub(env.api, auth, options.mutation_interval, options.retry_wait)
        if not login:
            try:
                login = f"{auth.slug()}[bot]"
            except Exception as exc:  # noqa: BLE001 - said in one line, as every start-up problem
                raise StartError(f"cannot read the app's slug from {env.api}/app ({exc}); set LOGSCOPE_BOT_LOGIN") from None
        return github, login, f"GitHub App {options.app_id} as {login} at {env.api}"
    if env.token:
        github = GitHub(env.api, StaticToken(env.token), options.mutation_interval, options.retry_wait)
        if not login:
            try:
                login = github.login()
            except Exception as exc:  # noqa: BLE001 - said in one line, as every start-up problem
                raise StartError(f"cannot read the token's login from {env.api}/user ({exc}); set LOGSCOPE_BOT_LOGIN") from None
        return github, login, f"token (GITHUB_TOKEN) of {login} at {env.api}"
    raise StartError(
        "no GitHub credentials: set LOGSCOPE_APP_ID and LOGSCOPE_APP_KEY_FILE (a GitHub App) or "
        "GITHUB_TOKEN, or run with --dry-run, which needs neither"
    )


def start_line(options: BotOptions, mode: str) -> str:
    host = f"[{options.host}]" if ":" in options.host else options.host
    url = f"http://{host}:{options.port}"
    repos = ", ".join(options.allow_repo) or "any"
    labels = ", ".join(options.label) or "any"
    return (
        f"logscope bot serve: {url}/webhook (and the paste page at {url}/, {url}/metrics, {url}/healthz); "
        f"mode: {mode}; data folder: {options.data_dir.resolve()} (the job queue); repositories: {repos}; "
        f"labels: {labels}; limits: webhook body {size(options.max_body)}, {options.budget.describe()}, "
        "the worker one job at a time"
    )


def serve(options: BotOptions, env: Environment | None = None, out: TextIO = sys.stderr) -> None:
    env = env or Environment.read()
    if not env.secret:
        raise StartError("LOGSCOPE_WEBHOOK_SECRET is not set: the bot verifies every delivery with it")
    for pattern in options.allow_repo:
        if not (REPO_NAME.fullmatch(pattern) or REPO_NAME.fullmatch(pattern.replace("/*", "/x"))):
            raise StartError(f"--allow-repo {pattern!r}: not owner/name or owner/*")
    if bool(options.app_id) != bool(options.app_key):
        raise StartError("a GitHub App needs both --app-id (LOGSCOPE_APP_ID) and --app-key (LOGSCOPE_APP_KEY_FILE)")
    github, login, mode = _github(options, env)
    try:
        queue = JobQueue(options.data_dir)
    except (OSError, sqlite3.Error) as exc:
        raise StartError(f"{options.data_dir}: cannot open the job queue: {exc}") from None
    retry_wait = options.retry_wait
    backoff = tuple(min(b, retry_wait) for b in BACKOFF) if retry_wait < BACKOFF[0] else BACKOFF
    metrics = Metrics()
    login = login or "logscope[bot]"
    worker = Worker(
        queue,
        github,
        login,
        dry_run_dir=(options.dry_run_dir or options.data_dir / "dry-run") if options.dry_run else None,
        backoff=backoff,
        metrics=metrics,
        budget=options.budget,
    )
    settings = Settings(
        env.secret.encode(),
        login,
        options.max_body,
        options.allow_repo,
        options.label,
        needs_installation=bool(options.app_id) and not options.dry_run,
        metrics=metrics,
    )
    _access_log()
    out.write(start_line(options, mode) + "\n")
    out.flush()
    start_forkserver()
    long_running()  # a server runs for days: the collector and the normal exit a command goes without (entry.py)
    app = create_app(settings, queue, worker, routes(options.budget))
    uvicorn.run(app, host=options.host, port=options.port, log_level="warning")

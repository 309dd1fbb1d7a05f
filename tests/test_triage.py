"""`logscope triage`: blocks found with their origin in every way people post logs, the same findings as
`analyze` on the bare log, secrets never echoed, and a comment that stays under GitHub's limit."""

from __future__ import annotations

import json

import pytest

from logscope.report.comment import MARKER, render_comment
from logscope.triage.issue import Post, read_issue, split_blocks
from logscope.triage.run import triage_text
from tests.helpers import REAL, analyze_paths, run

FENCE = "`" * 3


def test_blocks_and_their_origins():
    body = "\n".join(
        [
            "Startup fails on 8 GPUs:",  # 1 prose
            "",
            FENCE + "text",  # 3
            "[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB",
            FENCE,
            "<details><summary>nvidia-smi</summary>",  # 6
            "",
            "~~~",
            "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |",
            "~~~",
            "</details>",
            "> [2026-01-01 10:00:05 TP0] Load weight end. avail mem=40.00 GB, mem usage=30.00 GB.",  # 12
            "",
            "    RuntimeError: boom",  # 14 indented
        ]
    )
    blocks = split_blocks(Post("body", None, body))
    # <details>/<summary> lines hold no text of their own once their tags are read: no block of their own
    assert [(b.name, b.kind, b.first_line) for b in blocks] == [
        ("body#1", "prose", 1),
        ("body#2", "fenced", 4),
        ("body#3", "fenced", 9),
        ("body#4", "quoted", 12),
        ("body#5", "indented", 14),
    ]
    assert blocks[3].text.startswith("[2026-01-01 10:00:05 TP0]") and blocks[4].text == "RuntimeError: boom"


def test_the_rest_api_json_gives_the_body_and_each_comment():
    issue = {"title": "crash", "body": "see below", "user": {"login": "alice"}}
    comments = [{"body": "```\nRuntimeError: x\n```", "user": {"login": "bob"}}, {"body": "thanks"}]
    for text in (json.dumps([issue, *comments]), json.dumps({"issue": issue, "comments": comments})):
        title, posts = read_issue(text, "x.json")
        assert title == "crash" and [p.origin for p in posts] == ["body", "comment 1", "comment 2"]
        assert posts[1].author == "bob"


def _wrapped(log: str) -> list[str]:
    """The ways people post a log: prose and a fence, a <details> block, quoted in the second comment."""
    details = f"Here is what happened.\n\n<details>\n<summary>log</summary>\n\n{FENCE}\n{log}\n{FENCE}\n</details>\n"
    quoted = "\n".join("> " + line for line in log.splitlines())
    api = json.dumps(
        [
            {"title": "startup fails", "body": "Any idea?", "user": {"login": "u"}},
            {"body": "Which version?", "user": {"login": "m"}},
            {"body": f"Log:\n\n{quoted}\n"},
        ]
    )
    return [f"Startup fails:\n\n{FENCE}log\n{log}\n{FENCE}\n\nThanks!\n", details, api]


CASES = sorted(p.name for p in REAL.glob("f-*.log"))[:12]


@pytest.mark.parametrize("name", CASES)
def test_triage_finds_what_analyze_finds_on_the_bare_log(name):
    log = (REAL / name).read_text(encoding="utf-8")
    expected = sorted(f["rule"] for f in analyze_paths(str(REAL / name))["findings"])
    for text in _wrapped(log):
        document = triage_text(text)
        assert sorted(f["rule"] for f in document["findings"]) == expected, name


SECRETS = {
    "hf": "hf_Abcdefghijklmnopqrstuvwxyz012345",
    "ghp": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "sk": "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "bearer": "eyJhbGciOiJIUzI1NiJ9.payload.signature",
    "email": "alice.smith@example.com",
    "user": "alicesmith",
    "ip": "192.168.10.42",
    "host": "gpu-node-17.corp.example.net",
}


def test_no_planted_secret_survives_into_the_comment_or_the_json():
    log = (
        f"[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n"
        f"Traceback (most recent call last):\n"
        f'  File "/home/{SECRETS["user"]}/sglang/srt/distributed/parallel_state.py", line 10, in init\n'
        f"RuntimeError: NCCL error: unhandled system error, remote process exited: connect to "
        f"{SECRETS['host']} ({SECRETS['ip']}) failed; HF_TOKEN={SECRETS['hf']} {SECRETS['ghp']} {SECRETS['pat']} "
        f"{SECRETS['sk']} {SECRETS['aws']} Authorization: Bearer {SECRETS['bearer']} {SECRETS['email']}\n"
    )
    text = f"cc @maintainer, see #4242 and `{SECRETS['hf']}`\n\n{FENCE}\n{log}{FENCE}\n"
    document = triage_text(text)
    assert document["findings"], "the NCCL error is found"
    comment = render_comment(document)
    dumped = json.dumps(document, ensure_ascii=False)
    for kind, secret in SECRETS.items():
        assert secret not in comment and secret not in dumped, kind
    assert "@maintainer" not in comment and "#4242" not in comment


def test_quoted_text_cannot_close_its_fence_or_mention_anyone():
    log = "RuntimeError: CUDA error: out of memory ``` @everyone #1 <b>bold</b>\n"
    comment = render_comment(triage_text(f"{FENCE}\n{log}{FENCE}\n"))
    assert "````\n" in comment  # a fence longer than the run of backticks quoted inside it
    assert "@everyone" not in comment and "<b>" not in comment.split("<details>", 1)[0]


def test_the_comment_stays_under_the_limit_and_keeps_the_verdict():
    lines = [f"[2026-01-01 10:00:{i % 60:02d} TP{i % 8}] Load weight begin. avail mem={70 + i % 9}.00 GB" for i in range(4000)]
    lines += [f"RuntimeError: NCCL error {i}: unhandled cuda error, NCCL version 2.21.5" for i in range(400)]
    document = triage_text(FENCE + "\n" + "\n".join(lines) + "\n" + FENCE + "\n")
    comment = render_comment(document, max_chars=6000)
    assert comment.startswith(MARKER + "\n**logscope** · ")
    assert len(comment) < 6000
    assert "Cut to stay under 6000 characters" in comment
    full = render_comment(document)
    assert len(full) < 60_000


def test_cli_triage_reads_stdin_and_writes_the_comment():
    done = run("triage", "-", input=f"{FENCE}\nRuntimeError: NCCL error: unhandled system error\n{FENCE}\n".encode())
    assert done.returncode == 1  # an error-severity finding
    out = done.stdout.decode()
    assert out.startswith(MARKER) and "nccl-error" in out
    bad = run("triage", "-", "--keep", "passwords", input=b"x")
    assert bad.returncode == 2 and bad.stderr.decode().count("\n") == 1


def test_the_example_workflow_runs_triage_on_the_thread_json(tmp_path):
    import yaml

    workflow = yaml.safe_load((REAL.parent.parent / "examples" / "logscope-triage.yml").read_text())
    assert set(workflow[True]) == {"issues", "issue_comment"}  # YAML reads the `on:` key as True
    script = workflow["jobs"]["triage"]["steps"][-1]["run"]
    assert "logscope triage thread.json --format comment -o comment.md" in script and MARKER in script
    thread = {
        "issue": {"title": "t", "body": f"{FENCE}\nRuntimeError: NCCL error: unhandled system error\n{FENCE}\n"},
        "comments": [{"body": "same here", "user": {"login": "x", "type": "User"}}],
    }
    path = tmp_path / "thread.json"
    path.write_text(json.dumps(thread))
    done = run("triage", str(path), "--format", "comment", "-o", str(tmp_path / "comment.md"))
    assert done.returncode == 1 and (tmp_path / "comment.md").read_text().startswith(MARKER)


def test_triage_renders_every_format_of_the_table():
    from logscope.report.formats import RENDERERS

    issue = f"Fails:\n\n{FENCE}\nRuntimeError: NCCL error: unhandled system error\n{FENCE}\n".encode()
    for fmt in RENDERERS:
        done = run("triage", "-", "--format", fmt, input=issue)
        assert done.returncode == 1, fmt
        out = done.stdout.decode()
        if fmt == "html":
            assert out.startswith("<!doctype html>") and 'id="logscope-data"' in out and "body#2" in out
        if fmt == "json":
            assert json.loads(out)["triage"]["blocks"][1]["name"] == "body#2"


def test_a_comment_with_no_finding_shows_what_was_read_and_what_to_paste_next():
    issue = (
        "### Describe the bug\nServer hangs on a 4-node cluster.\n\n"
        "- `--tp-size 32`\n- `--dp-size 32`\n- `--ep-size 32`\n- `--moe-a2a-backend deepep`\n"
    )
    comment = render_comment(triage_text(issue))
    assert "### What was read" in comment
    assert "layout tp 32, dp 32, ep 32, moe_a2a_backend deepep" in comment
    assert "- GPUs: 0 GPUs" in comment
    assert "the server log from its start to the failure" in comment
    assert "`python3 -m sglang.check_env`" in comment
    assert "the launch command" not in comment  # the flags were read

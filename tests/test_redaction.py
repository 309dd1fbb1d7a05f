"""One redaction for every output (logscope/core/redact.py): every kind of secret planted in a paste, none found in
any format of analyze, triage, diff or plan (the CLI run in-process: 40 runs); the same outputs with --no-redact hold
every one, so the check can fail; and redaction changes no figure of a document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from logscope.cli import app
from logscope.core.redact import apply_rules, redact, redact_document
from logscope.report.comment import render_comment
from logscope.triage.run import triage_text
from tests.helpers import ROOT

# kind → the secret as planted; the line that plants it is in PLANTED
SECRETS = {
    "hf-token": "hf_AbCdEfGhIjKlMnOpQrStUv",
    "api-key": "sk-proj-abcdefghijklmnopqrstuv",
    "bearer": "eyJhbGciOiJIUzI1NiJ9.cGF5bG9hZA.c2ln",
    "aws-key-id": "AKIAIOSFODNN7EXAMPLE",
    "aws-key-id-any-name": "AKIAJJJJJJJJJJJJJJJJ",
    "aws-secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "url-password": "Sup3rS3cret",
    "password-value": "hunter2",
    "slack": "xoxb-1234567890-abcdefghijkl",
    "github-pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "github-token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "email": "alice.smith@example.com",
    "home-user": "alicesmith",
    "mac-home-user": "bobjones",
    "private-ip": "192.168.1.20",
    "ip": "10.12.34.56",
    "host": "node17.cluster.internal",
}
S = SECRETS
PLANTED = (
    f"HF_TOKEN={S['hf-token']} AWS_ACCESS_KEY_ID={S['aws-key-id']} python3 -m sglang.launch_server --model-path "
    f"/home/{S['home-user']}/models/Qwen3-32B --api-key {S['api-key']} --host {S['ip']} --tp 2\n"
    f"export MY_KEY={S['aws-key-id-any-name']}\n"
    f"RuntimeError: Failed to reach postgres://admin:{S['url-password']}@db.internal:5432 (Authorization: Bearer "
    f"{S['bearer']}) from {S['private-ip']}\n"
    f"ERROR: upload failed for {S['email']} with {S['slack']} and {S['github-pat']} password={S['password-value']} "
    f"on {S['host']} under /Users/{S['mac-home-user']}/cache\n"
    f"ValueError: AWS_SECRET_ACCESS_KEY={S['aws-secret']} of {S['aws-key-id']} and {S['github-token']} rejected "
    f"in /home/{S['home-user']}\n"
    f"OSError: You are trying to access a gated repo with token {S['hf-token']} and key {S['api-key']}\n"
)
LOG = (ROOT / "fixtures/synthetic/full-startup-tp2-with-smi.log").read_text()
FORMATS = ("text", "json", "markdown", "html")


@pytest.fixture(scope="module")
def paste(tmp_path_factory) -> Path:
    """The planted lines before a whole TP=2 startup, in a file under a home directory (its path is echoed)."""
    home = tmp_path_factory.mktemp("run") / "home" / S["home-user"]
    home.mkdir(parents=True)
    path = home / "run.log"
    path.write_text(PLANTED + LOG)
    return path


def outputs(*args: str, formats: tuple[str, ...] = FORMATS, extra: tuple[str, ...] = ()) -> dict[str, str]:
    found = {}
    for fmt in formats:
        done = CliRunner().invoke(app, [*args, "--format", fmt, *extra])
        assert done.exit_code in (0, 1), done.output
        found[fmt] = done.stdout
    return found


def leaks(found: dict[str, str]) -> list[tuple[str, str]]:
    return [(fmt, kind) for fmt, text in found.items() for kind, secret in SECRETS.items() if secret in text]


def shown(found: dict[str, str]) -> set[str]:
    return {kind for kind, secret in SECRETS.items() if any(secret in text for text in found.values())}


def test_analyze_redacts_every_format_and_no_redact_keeps_them(paste):
    assert leaks(outputs("analyze", str(paste))) == []
    assert shown(outputs("analyze", str(paste), extra=("--no-redact",))) == set(SECRETS)


def test_triage_redacts_every_format(paste, tmp_path):
    thread = [
        {"title": f"crash on {S['host']}", "body": f"My run:\n\n```\n{PLANTED}{LOG}```\n", "user": {"login": "someone"}},
        {"body": f"mail me at {S['email']}; my token `{S['hf-token']}`", "user": {"login": "someone"}},
    ]
    issue = tmp_path / "issue.json"
    issue.write_text(json.dumps(thread))
    formats = ("comment", *FORMATS)
    assert leaks(outputs("triage", str(issue), formats=formats)) == []
    # the bot's comment: what its worker renders of the thread it reads from the API
    bot = render_comment(triage_text(json.dumps(thread), "owner/repo#1"))
    assert leaks({"bot": bot}) == [] and "<redacted:" in bot
    assert shown(outputs("triage", str(issue), formats=formats, extra=("--no-redact",))) == set(SECRETS)


def test_diff_and_plan_redact_every_format(paste, tmp_path):
    other = tmp_path / "home" / S["mac-home-user"] / f"{S['host']}.log"
    other.parent.mkdir(parents=True)
    other.write_text(LOG.replace("mem_fraction_static=0.88", "mem_fraction_static=0.85"))
    runs = [("diff", str(paste), str(other)), ("plan", "--from", str(paste), "--tp", "4")]
    for args in runs:
        assert leaks(outputs(*args)) == [], args
    # what they echo of the planted text (input paths, the model path) is there without redaction
    for args in runs:
        kept = shown(outputs(*args, extra=("--no-redact",)))
        assert {"home-user"} <= kept, (args, kept)


def test_redaction_changes_no_figure():
    """Every golden document redacted: the same shape, the same numbers and booleans; strings change only where
    a pattern matched."""
    documents = sorted((ROOT / "fixtures/golden").glob("*.json"))
    assert documents

    def leaves(value, path=""):
        if isinstance(value, dict):
            for key, item in value.items():
                yield from leaves(item, f"{path}/{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                yield from leaves(item, f"{path}[{index}]")
        else:
            yield path, value

    for golden in documents:
        document = json.loads(golden.read_text())
        before = list(leaves(document))
        after = list(leaves(redact_document(document)))
        assert [p for p, _ in before] == [p for p, _ in after], golden.name
        assert [v for _, v in before if not isinstance(v, str)] == [v for _, v in after if not isinstance(v, str)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[TP0] KV Cache is allocated. #tokens: 1500000, K size: 45.78 GB", None),
        (
            "avail mem=11.87 GB, mem usage=30.80 GB, elapsed=12.5 s, 10.5.0.1 bs=256",
            "avail mem=11.87 GB, mem usage=30.80 GB, elapsed=12.5 s, <redacted:ip> bs=256",
        ),
        ("max_total_tokens=12345 page_token_budget=6", None),
        ("export SLACK=xoxp-98765-43210-abcdefghij", "export SLACK=<redacted:slack-token>"),
        ("DB_PASSWORD=ab x", "DB_PASSWORD=<redacted> x"),
        ('{"password": "pw1"}', '{"password": "<redacted>"}'),
        ("https://user:pa55@registry.example.com/v2", "https://user:<redacted>@<redacted:host>/v2"),
        ("KEY_ID=AKIAIOSFODNN7EXAMPLE,", "KEY_ID=<redacted:aws-key-id>,"),
        ("/Users/bob/x and C:\\Users\\eve\\y", "/Users/<user>/x and C:\\Users\\<user>\\y"),
        ("evidence cut at 300 characters ... token hf_AbCd", "evidence cut at 300 characters ... token <redacted:cut>"),
        ("see https://docs.sglang.ai/x and huggingface.co/Qwen", None),
        # runtime16 (probe sgl-project/sglang#519): a weight loader's parameter path is no host; a host still is
        ("Error message: `KeyError: 'layers.0.attention.wk.weight'`", None),
        ("KeyError: 'model.layers.13.mlp.experts.0.bias'", None),
        ("connect to gpu-3.example.com failed", "connect to <redacted:host> failed"),
        # C++ mangled names (c10's destructor, torch's TensorImpl method) are symbols, not secrets
        ("common_ops.abi3.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev", None),
        ("undefined symbol: _ZNK3c1010TensorImpl36is_contiguous_nondefault_policy_implENS_12MemoryFormatE", None),
        # a random value that opens with _Z is still a secret when no length-prefixed name follows
        ("got _ZqW8rT2yU5iO1pA4sD7fG3hJ6kL0X9 back", "got <redacted:secret> back"),
        # symbols of other shapes (abi tag, template arguments, std substitutions, function types) read whole
        ("undefined symbol: _ZNK4llvm3opt3Arg11getAsStringB5cxx11ERKNS0_7ArgListE", None),
        ("undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs", None),
        ("undefined symbol: _ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE", None),
        (
            "undefined symbol: _ZN2at4_ops5empty4callEN3c108ArrayRefINS2_6SymIntEEESt8optionalINS2_10ScalarTypeEES6_"
            "INS2_6LayoutEES6_INS2_6DeviceEES6_IbES6_INS2_12MemoryFormatEE",
            None,
        ),
        # review14a item 10: a random value that opens with `_Z` and a length-prefixed name is still a secret when the
        # rest does not read as a mangled name (`Q` is no piece of one), nor a name alone with no parameter types
        (
            "I pasted the value _Z4AbCdQ9x7Lm2Pq8Rt5Vw3Yz6Kj1Hg0Fe from the dashboard",
            "I pasted the value <redacted:secret> from the dashboard",
        ),
        ("got _Z24AbCdEfGhIjKlMnOpQrStUvWx back", "got <redacted:secret> back"),
        ("got _ZN9x7Lm2Pq8Rt5Vw3Yz6Kj1Hg0Fe back", "got <redacted:secret> back"),
    ],
)
def test_patterns(text, expected):
    assert redact(text) == (text if expected is None else expected)


# texts built from the pieces the rules look for, so the generated strings reach every rule
_PIECES = st.sampled_from(
    [
        *SECRETS.values(),
        "hf_",
        "ghp_",
        "sk-",
        "AKIA",
        "Bearer ",
        "bearer ",
        "password",
        "TOKEN",
        "=",
        ":",
        "@",
        "/",
        "\\",
        ".",
        " ",
        "a",
        "Z9",
        "xoxb-",
        "xapp-",
        "github_pat_",
        "://",
        "com",
        "_",
        "-",
    ]
)


@given(st.lists(_PIECES, max_size=12).map("".join) | st.text(max_size=40))
@settings(max_examples=400, deadline=None)
def test_the_quick_test_skips_only_texts_no_rule_changes(text):
    assert redact(text) == apply_rules(text, set())


def test_a_count_of_tokens_is_kept_and_a_numeric_secret_is_not():
    from logscope.core.redact import redact

    line = "DSV4 memory calculation: bytes_per_full_token=15955.85, available_bytes=45.78 GB, full_token=1641472"
    assert redact(line) == line
    assert redact("max_prefill_token: 16384") == "max_prefill_token: 16384"
    assert redact("GITHUB_TOKEN=12345678") == "GITHUB_TOKEN=<redacted>"
    assert redact("DB_PASSWORD=12345678") == "DB_PASSWORD=<redacted>"
    assert redact("api_token=abc123def456") == "api_token=<redacted>"
    assert redact("full_token=hf_abcdefghijklmnop") == "full_token=<redacted>"


def test_a_loggers_dotted_module_name_in_a_log_records_head_is_no_host():
    # Python logging's %(name)s beside %(levelname)s (Xinference: "%(asctime)s %(name)s %(process)d %(levelname)s")
    line = "2026-03-30 03:00:34,192 xinference.core.supervisor 109 ERROR    Failed to launch replica qwen3.5-0: [pid=438]"
    assert redact(line) == line
    assert (
        redact("2025-01-01 12:00:00,000 - vllm.engine.llm - INFO - started")
        == "2025-01-01 12:00:00,000 - vllm.engine.llm - INFO - started"
    )
    assert redact("ERROR:xinference.api.restful_api:Failed") == "ERROR:xinference.api.restful_api:Failed"
    # a host in the same place is still one: a hyphen or a digit-led label, or a domain suffix
    assert redact("gpu-node-3.cluster.internal 109 ERROR x") == "<redacted:host> 109 ERROR x"
    assert redact("mail.example.com INFO x") == "<redacted:host> INFO x"


def test_a_server_argument_that_counts_tokens_keeps_its_value_and_a_key_does_not():
    # ktransformers' SGLang fork: `--kt-max-deferred-experts-per-token 2` is a count (ktransformers#1678's command)
    text = "python -m sglang.launch_server --kt-max-deferred-experts-per-token 2 --api-key 12345678 --tp 2"
    result = CliRunner().invoke(app, ["analyze", "-", "-f", "json"], input=text)
    args = json.loads(result.stdout)["launches"][0]["server_args"]
    assert args["kt_max_deferred_experts_per_token"] == "2"
    assert args["api_key"] == "<redacted>"
    assert args["tp_size"] == "2"

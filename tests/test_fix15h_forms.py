"""review15b items 5, 10, 12, 15, 16, 17 (fix15h): each input of the review, as a negative and a positive."""

from __future__ import annotations

import pytest

from logscope.core.redact import redact

# review15b item 5: a hand-made CamelCase key is a secret wherever it stands outside code
KEY = "MyCompanyProductionApiSecretKeyV2"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"python -m sglang.launch_server --api-key {KEY} --port 30000", "--api-key <redacted> --port 30000"),
        (f"--admin-api-key={KEY}", "--admin-api-key=<redacted>"),
        (f'ServerArgs(api_key="{KEY}")', "api_key=<redacted>"),
        (f"ValueError: invalid key {KEY} for admin", "invalid key <redacted:secret> for admin"),
        (f"export MY_SERVICE_KEY={KEY}", "MY_SERVICE_KEY=<redacted>"),
        (f"token={KEY}", "token=<redacted>"),
        (f"Authorization: {KEY}", "Authorization: <redacted>"),
        # a version at its end: not spared even before "failed"
        (f"login: {KEY} failed", "login: <redacted:secret> failed"),
    ],
)
def test_a_camel_case_secret_is_redacted(text, expected):
    out = redact(text)
    assert expected in out
    assert "MyCompanyProductionApiSecretKey" not in out


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: BatchPrefillWithPagedKVCacheSM90Run failed with error: operation not supported",
        "what(): BatchDecodeWithPagedKVCacheDispatched failed",
        "Error in function 'BatchPrefillWithPagedKVCacheDispatched' at /usr/local/lib/x.cuh",
        "--kt-max-deferred-experts-per-token 2 --max-total-tokens 4096",
    ],
)
def test_an_identifier_in_a_code_position_is_kept(text):
    assert redact(text) == text

"""What a credential's name looks like (HF_TOKEN, AWS_SECRET_ACCESS_KEY, AWS_ACCESS_KEY_ID, api_key,
DB_PASSWORD): the one rule both the launch facts (environment, server args) and the redaction of every output
(logscope/core/redact.py) use to never echo its value. A key id is half of a key pair: it is not shown either."""

from __future__ import annotations

import re

CREDENTIAL_NAME = re.compile(r"(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY(?:_ID)?|CREDENTIALS?)$", re.IGNORECASE)
REDACTED = "<redacted>"


# a count of tokens (SGLang's "full_token=1641472", "max_prefill_token: 16384", the server argument
# kt_max_deferred_experts_per_token=2): a whole number after a snake_case name that ends in "token" is a count, not a
# token (an environment variable holding one is upper case); a password or secret is hidden whatever its value
_TOKEN_COUNT_NAME = re.compile(r"^[a-z][a-z0-9_]*token$")
_WHOLE_NUMBER = re.compile(r"\d+[,;.]?")


def is_credential(name: str) -> bool:
    return CREDENTIAL_NAME.search(name) is not None


def hides(name: str, value: object) -> bool:
    """Whether the value of `name` is a credential's, never to be echoed."""
    if not is_credential(name):
        return False
    return not (_TOKEN_COUNT_NAME.search(name) and _WHOLE_NUMBER.fullmatch(str(value).strip()))

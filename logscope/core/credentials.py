"""What a credential's name looks like (HF_TOKEN, AWS_SECRET_ACCESS_KEY, AWS_ACCESS_KEY_ID, api_key,
DB_PASSWORD): the one rule both the launch facts (environment, server args) and the redaction of every output
(logscope/core/redact.py) use to never echo its value. A key id is half of a key pair: it is not shown either."""

from __future__ import annotations

import re

CREDENTIAL_NAME = re.compile(r"(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY(?:_ID)?|CREDENTIALS?)$", re.IGNORECASE)
REDACTED = "<redacted>"


def is_credential(name: str) -> bool:
    return CREDENTIAL_NAME.search(name) is not None

"""What a credential's name looks like (HF_TOKEN, AWS_SECRET_ACCESS_KEY, api_key, DB_PASSWORD): the one rule
both the launch facts (environment, server args) and the triage redaction use to never echo its value."""

from __future__ import annotations

import re

CREDENTIAL_NAME = re.compile(r"(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY|CREDENTIALS?)$", re.IGNORECASE)
REDACTED = "<redacted>"


def is_credential(name: str) -> bool:
    return CREDENTIAL_NAME.search(name) is not None

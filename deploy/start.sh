#!/bin/sh
# The Dockerfile's start step: the bot (webhook, paste page, /metrics, /healthz), configured from the
# environment: LOGSCOPE_WEBHOOK_SECRET; LOGSCOPE_APP_ID and LOGSCOPE_APP_KEY_FILE (a GitHub App) or
# GITHUB_TOKEN; LOGSCOPE_HOST, LOGSCOPE_PORT, LOGSCOPE_DATA_DIR, LOGSCOPE_ALLOW_REPOS, LOGSCOPE_LABELS,
# LOGSCOPE_DRY_RUN (README: "Deploy the bot").
set -eu
exec "${LOGSCOPE_VENV:-/opt/logscope}/bin/logscope" bot serve

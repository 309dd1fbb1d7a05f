#!/bin/sh
# The Dockerfile's install step (tests/test_deploy.py runs it too): a venv at $LOGSCOPE_VENV holding logscope
# and its bot extra, built from the source tree in the current folder (pip builds a wheel, so the venv does
# not point into the tree).
set -eu
: "${LOGSCOPE_VENV:=/opt/logscope}"
python3 -m venv "$LOGSCOPE_VENV"
"$LOGSCOPE_VENV/bin/python" -m pip install --quiet --disable-pip-version-check ".[bot]"
"$LOGSCOPE_VENV/bin/logscope" --help > /dev/null

#!/bin/sh
# The Dockerfile's health check: /healthz answers "ok" (the slim image has no curl; the venv's Python asks).
set -eu
exec "${LOGSCOPE_VENV:-/opt/logscope}/bin/python" -c '
import os, sys, urllib.request
url = "http://127.0.0.1:%s/healthz" % os.environ.get("LOGSCOPE_PORT", "8080")
sys.exit(0 if urllib.request.urlopen(url, timeout=4).read() == b"ok" else 1)'

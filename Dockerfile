# logscope's triage bot and paste page. Build: docker build -t logscope-bot .   Run: see deploy/compose.yaml
# and the README's "Deploy the bot". The install and start steps are scripts in deploy/ that
# tests/test_deploy.py runs as plain commands in a fresh venv (the exec-form RUN and CMD lines below).
FROM python:3.12-slim

ENV LOGSCOPE_VENV=/opt/logscope \
    LOGSCOPE_DATA_DIR=/data \
    LOGSCOPE_HOST=0.0.0.0 \
    LOGSCOPE_PORT=8080 \
    PIP_NO_CACHE_DIR=1 \
    XDG_CACHE_HOME=/tmp/cache \
    PYTHONUNBUFFERED=1

RUN ["useradd", "--system", "--uid", "10001", "--no-create-home", "--shell", "/usr/sbin/nologin", "logscope"]
WORKDIR /src
COPY . /src
RUN ["sh", "deploy/install.sh"]
RUN ["install", "-d", "-o", "logscope", "-g", "logscope", "-m", "0700", "/data"]

# the job queue (SQLite) and dry-run comments: keep them across restarts and upgrades
VOLUME ["/data"]
USER logscope
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["sh", "deploy/healthcheck.sh"]
CMD ["sh", "deploy/start.sh"]

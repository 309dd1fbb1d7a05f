"""`logscope bot serve`: a GitHub webhook service that comments logscope's triage on issues.

app.py receives and verifies deliveries and puts them in the durable queue (queue.py) before it answers;
worker.py takes jobs in order, triages the issue as it is now, and creates or updates the one marked
comment through github.py, which paces mutations and honours GitHub's rate limits."""

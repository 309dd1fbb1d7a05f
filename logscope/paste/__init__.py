"""The paste page: `GET /` is a form (paste text or upload files), `POST /` answers with the HTML report of
what was sent, redacted, size-capped, kept in memory only for the request, under a strict Content Security
Policy (no script, no outside request). Served by `logscope serve` alone, and by `logscope bot serve`."""

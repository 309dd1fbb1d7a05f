"""`logscope triage`: a GitHub issue (Markdown body, or the REST API's issue and comments JSON) → its logs,
dumps and commands as blocks with their origin → the analysis → one redacted Markdown comment."""

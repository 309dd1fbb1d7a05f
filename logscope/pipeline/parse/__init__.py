"""Parse: classify lines into events (grammars and block readers in parsers/, failure signatures in
signatures/, the prefilter built from both, and the serving marker)."""

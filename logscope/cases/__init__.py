"""Known cases: the public threads whose pasted text logscope has analysed (logscope/data/known_cases.json, built
by `python -m tools.cases build`), and the nearest of them for each failure finding of a new paste."""

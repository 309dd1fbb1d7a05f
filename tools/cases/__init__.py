"""The known-cases index (logscope/data/known_cases.json) built from mined public thread pastes
(fixtures/mined/ format: `<id>.txt` beside `<id>.yaml`): `python -m tools.cases build`."""

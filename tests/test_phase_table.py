"""The phase table is the one place a phase is declared: a row added to it (here, in the test) reaches the
JSON, the text and the Markdown report without touching a renderer."""

from __future__ import annotations

from logscope.cli import Format, render
from logscope.core import phases
from logscope.report.formats import RENDERERS
from tests.helpers import analyze_text

LOG = """\
[2026-05-07 13:38:01 TP0] Init torch distributed begin.
[2026-05-07 13:38:02 TP0] Init torch distributed ends. mem usage=0.53 GB
[2026-05-07 13:38:02 TP0] TP LM-head PyNCCL all-to-all warmup completed in 0.125s (tp_size=1, bytes_per_peer=4096)
[2026-05-07 13:38:03 TP0] Load weight begin. avail mem=139.22 GB
"""


def test_a_phase_added_to_the_table_shows_in_every_format(monkeypatch):
    row = phases.Phase("lm_head_warmup", 1, column=phases.Column("LM-head warmup s", "elapsed_s"))
    monkeypatch.setattr(phases, "PHASES", (*phases.PHASES[:3], row, *phases.PHASES[3:]))
    report = analyze_text(LOG)
    (rank,) = report["launches"][0]["ranks"]
    warmup = next(p for p in rank["phases"] if p["phase"] == "lm_head_warmup")
    assert (warmup["elapsed_s"], warmup["line"], warmup["bytes_per_peer"]) == (0.125, 3, 4096)
    text = render(report, Format.text, 200)
    assert "LM-head warmup s" in text and "0.12" in text.split("LM-head warmup s", 1)[1]
    markdown = render(report, Format.markdown)
    header = next(line for line in markdown.splitlines() if line.startswith("| rank |"))
    row_line = next(line for line in markdown.splitlines() if line.startswith("| TP0 |"))
    titles = [c.strip() for c in header.split("|")]
    values = [c.strip() for c in row_line.split("|")]
    assert values[titles.index("LM-head warmup s")] == "0.12"


def test_without_the_row_it_is_no_phase():
    report = analyze_text(LOG)
    (rank,) = report["launches"][0]["ranks"]
    assert all(p["phase"] != "lm_head_warmup" for p in rank["phases"])
    assert "LM-head" not in render(report, Format.text, 200)


def test_the_table_is_well_formed():
    ids = [p.id for p in phases.PHASES]
    assert len(ids) == len(set(ids))
    assert [p.order for p in phases.PHASES] == sorted(p.order for p in phases.PHASES)
    for phase in phases.PHASES:
        if phase.gantt is not None:
            assert phase.gantt[1] in ids and phases.order_of(phase.gantt[1]) < phase.order
    # the stage in progress after each line follows SGLang's fixed order as the phases do
    stages = ("init_distributed", "load_weight", "memory_pool", "capture", "warmup", "serving")
    after = [stages.index(p.after) for p in phases.PHASES]
    assert after == sorted(after)
    # both ledger chains (KV pool sized before or after the graphs) link the same readings, each item once
    for post_capture in (False, True):
        links = phases.ledger_links(post_capture)
        assert {p for p, _, _ in links} == {p.id for p in phases.ledger_chain()}
        items = [item for _, item, _ in links if item is not None]
        assert len(items) == len(set(items)) == len(links) - 1


def test_every_format_choice_has_a_renderer():
    assert {f.value for f in Format} == set(RENDERERS)

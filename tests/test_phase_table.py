"""The phase table is the one place a phase is declared: a row added to it (here, in the test) reaches the
JSON, the text and the Markdown report without touching a renderer."""

from __future__ import annotations

from logscope.cli import Format, render
from logscope.core import kinds, phases
from logscope.report.formats import RENDERERS
from tests.helpers import analyze_text

LOG = """\
[2026-05-07 13:38:01 TP0] Init torch distributed begin.
[2026-05-07 13:38:02 TP0] Init torch distributed ends. mem usage=0.53 GB
[2026-05-07 13:38:02 TP0] TP LM-head PyNCCL all-to-all warmup completed in 0.125s (tp_size=1, bytes_per_peer=4096)
[2026-05-07 13:38:03 TP0] Load weight begin. avail mem=139.22 GB
"""


def test_a_phase_added_to_the_table_shows_in_every_format(monkeypatch):
    row = phases.Phase("lm_head_warmup", same_point=True, column=phases.Column("LM-head warmup s", "elapsed_s"))
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
    orders = [phases.order_of(i) for i in ids]  # non-decreasing, one step at each row not at the same point
    assert orders == [sum(not p.same_point for p in phases.PHASES[: n + 1]) - 1 for n in range(len(ids))]
    assert orders == sorted(orders)
    for phase in phases.PHASES:
        if phase.gantt is not None:
            assert phase.gantt[1] in ids and phases.order_of(phase.gantt[1]) < phases.order_of(phase.id)
    # the stage in progress after each line follows SGLang's fixed order as the phases do
    after = [phases.STAGES.index(p.after) for p in phases.PHASES]
    assert after == sorted(after)
    # both ledger chains (KV pool sized before or after the graphs) link the same readings, each item once
    for post_capture in (False, True):
        links = phases.ledger_links(post_capture)
        assert {p for p, _, _ in links} == {p.id for p in phases.ledger_chain()}
        items = [item for _, item, _ in links if item is not None]
        assert len(items) == len(set(items)) == len(links) - 1


def test_every_format_choice_has_a_renderer():
    assert {f.value for f in Format} == set(RENDERERS)


def test_a_phase_inserted_between_two_gets_an_order_between_theirs(monkeypatch):
    load_end = [p.id for p in phases.PHASES].index(kinds.LOAD_WEIGHT_END)
    row = phases.Phase("inserted_phase", after="memory_pool")
    before = {p.id: phases.order_of(p.id) for p in phases.PHASES}
    monkeypatch.setattr(phases, "PHASES", (*phases.PHASES[: load_end + 1], row, *phases.PHASES[load_end + 1 :]))
    assert phases.order_of(kinds.LOAD_WEIGHT_END) < phases.order_of("inserted_phase") < phases.order_of(kinds.KV_CACHE_ALLOCATED)
    after = {p.id: phases.order_of(p.id) for p in phases.PHASES if p.id != "inserted_phase"}
    moved = {i for i in before if after[i] != before[i]}
    assert moved == {i for i in before if before[i] > before[kinds.LOAD_WEIGHT_END]}  # only the later ones move on
    assert all(after[i] == before[i] + 1 for i in moved)
    # a row at the same point as the one above shares its order
    same = phases.Phase("inserted_reading", same_point=True)
    monkeypatch.setattr(phases, "PHASES", (*phases.PHASES[:1], same, *phases.PHASES[1:]))
    assert phases.order_of("inserted_reading") == phases.order_of(kinds.INIT_DISTRIBUTED_BEGIN)

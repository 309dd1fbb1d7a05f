"""logscope diff and logscope plan, on the corpus's real pair (two launches of one PR, h-019 / h-025) and on a
constructed TP 4 -> TP 8 pair whose numbers follow SGLang's profile formula; every expected value below is
worked out by hand from the logged figures."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from logscope.cli import app
from logscope.compare.diff import attribute, diff, setting_delta, side
from logscope.compare.document import diff_document, plan_document
from logscope.compare.load import load
from logscope.compare.plan import PlanRefused, Setting, plan
from logscope.memory_model.kv_pool import GIB, derive_cell, kv_sizing
from logscope.report.formats import DOCUMENTS, renderer
from tests.helpers import ROOT

H019 = str(ROOT / "fixtures/real/h-019-sglang-17392.log")
H025 = str(ROOT / "fixtures/real/h-025-sglang-17392.log")
TP4 = str(ROOT / "fixtures/compare/llama70b-tp4.log")
TP8 = str(ROOT / "fixtures/compare/llama70b-tp8.log")
LLAMA = json.loads((ROOT / "fixtures/compare/llama70b-config.json").read_text())
runner = CliRunner()


def _side(spec: str, config: dict | None = None):
    return side(spec, *load(spec, config), config)


def test_sizing_of_a_real_run_reads_its_profile_inputs():
    s = _side(H019).sizing
    # Load weight end: avail 121.90 (DP1, DP2), 121.95, 122.14, each with mem usage 16.39 -> before 138.29 at least
    assert (s.pre_gib.value, s.pre_gib.kind) == (138.29, "measured")
    assert (s.post_gib.value, s.post_gib.rank) == (121.90, "DP1 TP1 EP1")
    assert (s.tokens.value, s.kv_gib.value) == (1029388, 94.24)
    # 94.24 GiB / 1029389 rows = 98302.6 B, +/- 10.4: the one multiple of 32 is 98304 (4 KV heads x 256 x 48 x 2 B)
    assert (s.cell_bytes.value, s.attention) == (98304.0, "MHA")
    # not stated: inferred as 1 - (121.90 - 1029388 x 98304 / 2^30) / 138.29
    used = 1029388 * 98304 / GIB
    assert s.mem_fraction_static.kind == "inferred"
    assert s.mem_fraction_static.value == pytest.approx(1 - (121.90 - used) / 138.29)
    # DPd TPd tags with a global TP index: DP attention, attention TP 4 / 4 = 1
    assert (s.layout.dp_attention, s.layout.attention_tp, s.layout.stated["dp_attention"]) == (True, 1, False)


def test_derived_cell_snaps_only_when_one_multiple_fits_the_rounding():
    assert derive_cell(33.84, 443547, 1, "MHA") == (81920.0, 0.0, True)
    cell, half, snapped = derive_cell(0.42, 350257, 1, "MHA")  # 0.01 GiB over 350k tokens: +/- 30 B, two multiples
    assert not snapped and cell == pytest.approx(0.42 * GIB / 350258) and half == pytest.approx(0.01 * GIB / 350258)


def test_constructed_pair_attribution_adds_up_to_the_logged_change():
    d = diff(_side(TP4), _side(TP8))
    t = d.attribution
    assert (t.tokens_a, t.tokens_b, t.change) == (443547, 1309540, 865993)
    parts = {p.name: p for p in t.parts}
    cell_a = 81920
    # free before weights: MIN 78.40 (TP2) -> 78.10 (TP2), times mem_fraction_static 0.85; on TP2 init distributed
    # took 1.60 -> 1.90 GiB, so the free memory before init is 80.00 on both sides: the communicators are the cause
    assert parts["budget: eager communicators (init distributed)"].gib == pytest.approx(-0.85 * (1.90 - 1.60))
    assert parts["budget: free before init (card, context, other processes)"].gib == pytest.approx(0.0)
    # weights: loading took 78.40 - 45.60 = 32.80 -> 78.10 - 61.67 = 16.43 on the limiting ranks
    assert parts["budget: weights (MIN free after loading)"].gib == pytest.approx(32.80 - 16.43)
    assert parts["budget: weights (MIN free after loading)"].tokens == pytest.approx(16.37 * GIB / cell_a)
    assert parts["budget: mem_fraction_static"].gib == pytest.approx(0.0)
    # cell: 81920 -> 40960 B at B's budget 61.67 - 78.10 x 0.15 = 49.955 GiB
    budget_b = 61.67 - 78.10 * 0.15
    step = parts["cell: KV heads per rank"]
    assert step.tokens == pytest.approx(budget_b * GIB * (1 / 40960 - 1 / 81920))
    assert step.kind == "assumed"  # attention tp 4 -> 8 halves the heads per rank unless they are replicated
    rest = parts["page floor and print rounding"]
    implied_a, implied_b = (45.60 - 78.40 * 0.15) * GIB / 81920, budget_b * GIB / 40960
    assert rest.tokens == pytest.approx(865993 - (implied_b - implied_a))
    assert abs(rest.tokens) < t.rounding_bound_tokens
    assert sum(p.tokens for p in t.parts) == pytest.approx(865993, abs=1e-6)
    assert d.headline() == "single variable: tp_size 4 -> 8; KV tokens 443,547 -> 1,309,540 (+865,993)"


def test_the_diff_cell_rows_travel_typed():
    """Diff.cells holds each side's Cell (the sizing stage's), not a dict; the document's rows come from to_json()."""
    from logscope.compare.diff import CellRow
    from logscope.core.cell import Cell

    d = diff(_side(TP4), _side(TP8))
    assert d.cells and all(isinstance(row, CellRow) for row in d.cells)
    row = next(r for r in d.cells if r.mechanism == "custom_ar")
    assert isinstance(row.a, Cell) and isinstance(row.b, Cell) and (row.a.group, row.b.group) == ("tp", "tp")
    assert row.delta_gib == (None if None in (row.a_gib, row.b_gib) else round(row.b_gib - row.a_gib, 2))
    sized_only_one_side = CellRow("tp", "x", None, row.b)
    assert sized_only_one_side.a_gib is None and sized_only_one_side.timing == row.b.timing
    assert diff_document(d)["diff"]["cells"] == [r.to_json() for r in d.cells]


def test_cell_steps_come_from_the_model_config_and_leave_the_rest_unexplained():
    d = diff(_side(TP4, LLAMA), _side(TP8, LLAMA))
    parts = {p.name: p for p in d.attribution.parts}
    assert parts["cell: KV heads per rank"].kind == "derived"  # 8 KV heads: 2 per rank at TP 4, 1 at TP 8
    assert "2 -> 1" in parts["cell: KV heads per rank"].evidence
    assert "cell: not explained by the stated settings" not in parts
    # the same pair read as fp8 on B: the dtype step halves the cell again, and what the KV line shows (the
    # same 40960 B) is then "not explained": it adds back exactly what the dtype step took
    a, b = _side(TP4, LLAMA).sizing, _side(TP8, LLAMA).sizing
    b.kv_dtype = "fp8_e4m3"
    parts = {p.name: p for p in attribute(a, b).parts}
    budget = b.budget_gib.value * GIB
    assert parts["cell: KV dtype"].tokens == pytest.approx(budget * (1 / 20480 - 1 / 40960))
    assert parts["cell: not explained by the stated settings"].tokens == pytest.approx(budget * (1 / 40960 - 1 / 20480))


def test_real_pair_without_readings_before_the_pool_is_not_attributed():
    d = diff(_side(H019), _side(H025))
    assert d.attribution.change == 1
    assert [p.name for p in d.attribution.parts] == ["not attributable"]
    assert "B: no free-memory reading before the weights" in d.attribution.unattributed_reason
    pool_end = {(r["rank_a"], r["phase"]): r for r in d.phases}
    row = pool_end[("DP2 TP2 EP2", "memory_pool_end")]
    assert (row["a_gib"], row["b_gib"], row["delta_gib"]) == (27.57, 27.55, -0.02)
    assert d.matching.startswith("4 rank(s) on each side")


def test_setting_delta_ignores_run_identity_and_lists_one_sided_settings():
    a, b = load(TP4)[1], load(TP8)[1]
    differ, one_side = setting_delta(a, b)
    assert differ == [{"key": "tp_size", "a": 4, "b": 8}]  # port and random_seed differ too: run identity
    assert one_side == []


def test_attribution_needs_both_pools():
    a, b = _side(TP4).sizing, _side(TP8).sizing
    b.tokens = None
    b.missing.append("no KV pool line (KV Cache is allocated / max_total_num_tokens)")
    out = attribute(a, b)
    assert out.change is None and out.parts == [] and "B: no KV pool line" in out.unattributed_reason


def test_launch_spec_picks_a_launch_and_refuses_an_ambiguous_input(tmp_path):
    both = tmp_path / "two.log"
    both.write_text(
        (ROOT / "fixtures/compare/llama70b-tp4.log").read_text() + (ROOT / "fixtures/compare/llama70b-tp8.log").read_text()
    )
    result = runner.invoke(app, ["diff", f"{both}#1", f"{both}#2", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["diff"]["kv_tokens"]["change"] == 865993
    result = runner.invoke(app, ["diff", str(both), TP8])
    assert result.exit_code == 2 and "holds 2 launches (#1, #2); pick one with" in result.output
    result = runner.invoke(app, ["diff", f"{both}#7", TP8])
    assert result.exit_code == 2 and "no launch 7" in result.output


@pytest.mark.parametrize("fmt", list(DOCUMENTS["diff"]))
def test_diff_renders_in_every_format(fmt):
    text = renderer(fmt, "diff")(diff_document(diff(_side(TP4), _side(TP8))), 0)
    assert "865,993" in text or "865993" in text
    if fmt == "html":
        embedded = text.split('id="logscope-data">')[1].split("</script>")[0]
        assert "<svg" in text and "<" not in embedded and json.loads(embedded)["diff"]["kv_tokens"]["change"] == 865993


def test_plan_reproduces_a_real_run_of_the_same_setting():
    # The corpus holds no model at two TP sizes; h-019 and h-025 are two launches of one setting, so the plan
    # from h-019 at its own setting must give h-025's logged tokens (1029389) within 5% (it gives h-019's own).
    a = _side(H019)
    result = plan(H019, a.launch, a.sizing, Setting())
    assert result.tokens == 1029388
    assert abs(result.tokens - 1029389) / 1029389 < 0.05


def test_plan_from_tp4_predicts_the_tp8_run():
    a = _side(TP4, LLAMA)
    result = plan(TP4, a.launch, a.sizing, Setting(tp=8), LLAMA)
    # eager cells: pynccl the same; custom AR v2 (SM90 table, no GPU in the log) W=4: 8 slots x 896 KiB + 16 MiB pull
    # + 64 x 128 B + graph_params 131072 x 4 x 8 B = 27 MiB + 8 KiB (0.026 GiB); W=8: 16 x 128 KiB + 16 MiB + 8 KiB
    # + 8 MiB = 26 MiB + 8 KiB (0.025 GiB): before weights 78.40 + 0.001; the torch device group is lazy.
    # weights 32.80 x 4 / 8 = 16.40; budget = 62.001 - 78.401 x 0.15; cell 1 KV head x 256 x 80 x 2 B
    pre = 78.40 + (0.026 - 0.025)
    expected = math.floor((pre - 16.40 - pre * 0.15) * GIB / 40960)
    assert result.tokens == expected
    assert result.figures["cell_bytes"].value == 40960
    assert abs(result.tokens - 1309540) / 1309540 < 0.05  # the TP 8 run's logged tokens
    assert not any("assumes the model has at least" in note for note in result.assumptions)  # the config says


def test_plan_flags_replicated_heads_from_the_model_config():
    a = _side(TP4, LLAMA)
    result = plan(TP4, a.launch, a.sizing, Setting(tp=16), LLAMA)
    assert result.figures["cell_bytes"].value == 40960  # 8 KV heads at attention TP 16: one head, replicated
    assert "replicated" in result.figures["cell_bytes"].basis


def test_plan_refuses_what_it_cannot_size():
    a = _side(H025)
    with pytest.raises(PlanRefused, match="free memory before the weights"):
        plan(H025, a.launch, a.sizing, Setting(tp=8))
    hybrid = str(ROOT / "fixtures/pastes/hybrid-swa-two-pools.log")
    h = _side(hybrid)
    with pytest.raises(PlanRefused, match="hybrid KV pools"):
        plan(hybrid, h.launch, h.sizing, Setting(tp=4))
    result = runner.invoke(app, ["plan", "--from", hybrid, "--tp", "4"])
    assert result.exit_code == 2 and "hybrid KV pools" in result.output
    result = runner.invoke(
        app, ["plan", "--from", str(ROOT / "fixtures/pastes/post-capture-kv-sizing.log"), "--mem-fraction-static", "0.9"]
    )
    assert result.exit_code == 2 and "post-capture KV sizing" in result.output


def test_plan_exit_code_says_when_a_rank_has_no_margin():
    # at 0.99 only 78.40 x 0.01 = 0.78 GiB stays outside the pool: less than the run's 0.35 GiB request pool plus
    # its 1.10 GiB of CUDA graphs
    result = runner.invoke(app, ["plan", "--from", TP4, "--mem-fraction-static", "0.99", "--format", "json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.output)
    assert doc["schema"] == "logscope/1" and min(r["margin_gib"] for r in doc["plan"]["ranks"]) < 0
    result = runner.invoke(app, ["plan", "--from", TP4, "--tp", "8"])
    assert result.exit_code == 0 and "KV tokens per rank: 1,317,033 (estimated)" in result.output


@pytest.mark.parametrize("fmt", list(DOCUMENTS["plan"]))
def test_plan_renders_in_every_format(fmt):
    a = _side(TP4)
    text = renderer(fmt, "plan")(plan_document(plan(TP4, a.launch, a.sizing, Setting(tp=8))), 0)
    assert "1,317,033" in text or "1317033" in text


def test_kv_sizing_uses_a_stated_fraction():
    a = load(TP4)
    s = kv_sizing(a[1])
    assert (s.mem_fraction_static.value, s.mem_fraction_static.kind) == (0.85, "stated")
    assert s.budget_gib.value == pytest.approx(45.60 - 78.40 * 0.15)
    assert s.graphs_gib.value == 1.10 and s.pool_end_gib.value == pytest.approx(45.60 - 33.84 - 0.35, abs=0.01)

"""Every held-out paste (fixtures/heldout/, written with its expectation before the code it measures) names the
right mechanism, phase, rank and figures, with no false finding: bench/heldout.py's judge, one case a paste."""

from __future__ import annotations

import importlib.util

import pytest
import yaml

from tests.helpers import ROOT

_SPEC = importlib.util.spec_from_file_location("heldout_bench", ROOT / "bench" / "heldout.py")
assert _SPEC is not None and _SPEC.loader is not None
heldout = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(heldout)

EXPECT = yaml.safe_load((heldout.FOLDER / "expect.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_a_held_out_paste_gets_its_expected_verdict(name: str):
    ok, why = heldout.judge(name, EXPECT[name])
    assert ok, f"{name}: {why}"

"""A wording that code of both times prints places nothing (logscope/core/stage_functions.py over the `both` runs
that tools/upstream/stages.py keeps for wordings): in the paste's release, or, with no release shown, in any release;
a shorter catalogued head of that wording does not place it either, while another wording in the text still may."""

from __future__ import annotations

import pytest

from logscope.core import stage_functions

HOST = "Not enough host memory available"  # sglang's host KV pool check: both sides in 0.5.10-0.5.13 and 0.5.19+
HOST_RUNS = (
    ("startup", "memory_pool", "0.5.2", "0.5.9", "HostKVCache.__init__", "Scheduler.init_memory_pool_and_cache"),
    ("both", None, "0.5.10", "0.5.13", "HostKVCache.__init__", None),
    ("startup", "memory_pool", "0.5.14", "0.5.18", "HostKVCache.__init__", "Scheduler.init_memory_pool_and_cache"),
    ("both", None, "0.5.19", "0.5.23", "HostKVCache.__init__", None),
)
SHORT = "Not enough host memory"  # a shorter head some other function prints, at startup only
SHORT_RUNS = (("startup", None, "0.5.2", "0.5.23", "check", "Scheduler.__init__"),)
OTHER = "KV transfer failed for the request"
OTHER_RUNS = (("serving", None, "0.5.2", "0.5.23", "transfer_worker", "transfer_worker"),)


@pytest.fixture
def catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    wordings = tuple(sorted(((HOST, HOST_RUNS), (SHORT, SHORT_RUNS), (OTHER, OTHER_RUNS)), key=lambda p: -len(p[0])))
    monkeypatch.setattr(stage_functions, "_placed", lambda: ({}, wordings))


@pytest.mark.parametrize("releases", [None, ("0.5.11", "0.5.11"), ("0.5.9", "0.5.10"), ("0.5.20", "0.5.23")])
def test_a_wording_both_sides_print_in_the_releases_read_places_nothing(catalogue: None, releases) -> None:
    assert stage_functions.place_wording(f"ValueError: {HOST}. Need 300 GB", releases) is None


@pytest.mark.parametrize("releases", [("0.5.5", "0.5.5"), ("0.5.14", "0.5.18")])
def test_the_same_wording_places_in_a_release_where_only_startup_prints_it(catalogue: None, releases) -> None:
    placed = stage_functions.place_wording(f"ValueError: {HOST}. Need 300 GB", releases)
    assert placed is not None
    assert (placed[0].stage, placed[0].phase, placed[1]) == ("startup", "memory_pool", HOST)


def test_another_wording_of_the_text_still_places_it(catalogue: None) -> None:
    placed = stage_functions.place_wording(f"{HOST}; then: {OTHER} 7", None)
    assert placed is not None
    assert (placed[0].stage, placed[1]) == ("serving", OTHER)
    assert stage_functions.place_wording(f"{SHORT} for the pool", None) is not None  # the head alone, said alone

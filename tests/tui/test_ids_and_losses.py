"""Ids in their short form where the context says the rest (whole in the raw view); losses grouped."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tui import screenshots
from tui.app import make_app
from tui.live import LiveRun
from tui.panes.compaction import CompactionPane, grouped_losses
from tui.panes.context import ContextPane
from tui.panes.exchanges import ExchangesPane
from tui.text import pause_mark, short_id

RUN = "qitos_20261201_062653_824080"


def test_the_run_id_a_request_id_repeats_is_dropped() -> None:
    assert short_id(f"{RUN}:req-0006", RUN) == "req-0006"
    assert short_id(f"receipt x by {RUN}:req-0006", RUN) == "receipt x by req-0006"
    assert short_id("other_run:req-0006", RUN) == "other_run:req-0006"  # another run's: kept whole
    assert short_id("req-0006") == "req-0006"


def test_hashes_are_shown_by_their_ends() -> None:
    assert short_id("3a85045169721c9b02f364fd30433869") == "3a8504…3869"
    assert short_id("compaction_b99b554409d7641abf201540") == "compaction_b99b55…1540"
    assert short_id("sha256:7bbc") == "sha256:7bbc"  # short enough already
    assert short_id("ex-000001") == "ex-000001"


async def test_panes_show_short_ids_and_the_raw_view_whole_ones(demo_live: Callable[..., LiveRun]) -> None:
    """The demo paused: Context and Compaction name the request and receipt by short ids; `v` in
    Exchanges shows the events whole."""
    app = make_app(live=demo_live())
    async with app.run_test(size=(160, 48)) as pilot:
        await screenshots.settle(pilot)
        screen = app.screen
        assert "request req-0006" in screen.query_one(ContextPane).plain(200)
        compaction = screen.query_one(CompactionPane).plain(200)
        assert (
            "receipt compaction_b99b55…1540" in compaction
            and "compaction_b99b554409d7641abf201540" not in compaction
        )
        exchanges = screen.query_one(ExchangesPane)
        assert "demo_run:req-" not in exchanges.plain(200)
        await pilot.press("v", "x")
        await screenshots.settle(pilot)
        assert '"request_id": "demo_run:req-0006"' in exchanges.plain(400)
        await pilot.press("q", "y")


def test_repeated_losses_are_grouped_and_the_rest_kept_in_order() -> None:
    losses = [f"exchange ex-00000{n} omitted whole, without a summary" for n in range(1, 10)]
    assert grouped_losses(losses) == ["9 exchanges omitted whole, without a summary: ex-000001 … ex-000009"]
    mixed = ["tool output bodies", *losses[:2], "intermediate reasoning", "tool input bodies"]
    assert grouped_losses(mixed) == [
        "tool output bodies",
        "2 exchanges omitted whole, without a summary: ex-000001, ex-000002",
        "intermediate reasoning",
        "tool input bodies",
    ]
    assert grouped_losses(losses[:1]) == [losses[0]]


def test_the_paused_mark_falls_back_to_ascii_outside_a_utf8_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    assert pause_mark() == "‖"  # the suite's UTF-8 locale (conftest)
    monkeypatch.setenv("LC_ALL", "C")
    assert pause_mark() == "|"
    monkeypatch.setenv("LC_ALL", "en_US.ISO-8859-1")
    assert pause_mark() == "|"
    monkeypatch.setenv("LC_ALL", "de_DE.utf8@euro")
    assert pause_mark() == "‖"
    monkeypatch.delenv("LC_ALL")
    monkeypatch.setenv("LC_CTYPE", "POSIX")
    assert pause_mark() == "|"

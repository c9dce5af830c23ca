"""Snapshots of issue 18's readable screens, at 80x24 and 160x48, from the demo paused before its
write (deterministic: fixed run id and clock)."""

from __future__ import annotations

import pytest

from tui import screenshots
from tui.app import make_app

SIZES = [(80, 24), (160, 48)]
IDS = ["80x24", "160x48"]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_reply_structured_and_expanded(snap_compare, demo_live, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The decision to write calc.py: thought, action, one argument a line, the code whole (x)."""
    app = make_app(live=demo_live())
    assert snap_compare(app, press=["x"], terminal_size=size, run_before=screenshots.settle)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_compaction_short_ids(snap_compare, demo_live, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The Compaction pane (4): the receipt id and digest by their ends, never wrapped mid-value;
    the five exchanges lost whole in one line."""
    app = make_app(live=demo_live())
    assert snap_compare(app, press=["4"], terminal_size=size, run_before=screenshots.settle)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_paused_mark_in_an_ascii_locale(snap_compare, demo_live, monkeypatch, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Where the locale is not UTF-8 the paused mark in the bar and the step list is ASCII."""
    monkeypatch.setenv("LC_ALL", "C")
    app = make_app(live=demo_live())
    assert snap_compare(app, terminal_size=size, run_before=screenshots.settle)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_budget_bars_line_up_with_their_figures(snap_compare, demo_live, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The Budget pane (3): every category's bar starts in the same column, after its figures."""
    app = make_app(live=demo_live())
    assert snap_compare(app, press=["3"], terminal_size=size, run_before=screenshots.settle)

"""Request diff: what changed from one model request to the next, in Exchanges, Context and Budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui import screenshots
from tui.app import make_app
from tui.panes.budget import BudgetPane
from tui.panes.context import ContextPane
from tui.panes.exchanges import SHOWN_EXCHANGES, ExchangesPane
from tui.request_diff import contribution_marks, message_diff, removal_cause
from tui.store import RunStore
from tui.synthetic import synthetic_events

SIZES = [(80, 24), (160, 48)]


def _store(steps: int = 6) -> RunStore:
    store = RunStore()
    for event in synthetic_events(steps):
        store.source.append(event)  # type: ignore[attr-defined]
    store.apply(store.source.events())
    return store


def test_messages_added_and_removed_and_what_removed_them() -> None:
    store = _store()
    diff = message_diff(store, store.exchanges[4])  # step 4 against step 3
    assert diff is not None and diff.previous_number == 4
    assert [(m.role, m.content) for m in diff.added] == [("user", "Step 4: continue fixing calc.py")]
    assert [(m.role, m.content) for m in diff.removed] == [("user", "Step 3: continue fixing calc.py")]
    assert diff.removal_cause == "receipt rcpt-0004 by closed_window"
    assert message_diff(store, store.exchanges[0]) is None  # the first request: nothing before it


def test_contributions_new_gone_changed_with_the_unit_delta() -> None:
    store = _store()
    from qitos.trace.payloads import ModelRequest
    from tui.request_diff import previous_view

    step = store.steps[4]
    _, before = previous_view(store, step)
    after = ModelRequest.read(store.load(step.requests[-1]).payload).view
    assert after is not None
    marks = contribution_marks(before, after)
    assert marks["memory:mem-004"].mark == "new"
    assert marks["memory:mem-003"].mark == "gone" and marks["memory:mem-003"].units == 260
    assert "task" not in marks and "repo-map" not in marks  # unchanged ones are not marked
    assert removal_cause(None, None) == "no receipt or policy recorded"


async def test_panes_show_the_diff_and_w_toggles_the_whole_request(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(160, 48)) as pilot:
        await screenshots.settle(pilot)
        await pilot.press("right", "right", "right", "right")
        await pilot.pause()
        exchanges = app.screen.query_one(ExchangesPane)
        text = exchanges.plain(120)
        assert "user · new since #4  Step 4" in text
        assert "− removed user  Step 3: continue fixing calc.py" in text
        assert "removed by: receipt rcpt-0004 by closed_window" in text
        assert "system  You are a careful coding agent." not in text.split("#5 ex-0004")[1]
        context = app.screen.query_one(ContextPane).plain(120)
        assert "memory:mem-004  300 units · prio 50 · new" in context
        assert "memory:mem-003  gone · 260 units before" in context
        budget = app.screen.query_one(BudgetPane).plain(120)
        assert "change since step 3's request" in budget
        assert "context          360   +40" in budget
        await pilot.press("w")
        await pilot.pause()
        whole = exchanges.plain(120).split("#5 ex-0004")[1]
        assert "system  You are a careful coding agent." in whole  # the whole request
        assert "user · new since #4  Step 4" in whole and "removed" not in whole


async def test_every_exchange_is_reachable_by_scrolling_up(long_run: Path, shown_whole) -> None:  # type: ignore[no-untyped-def]
    app = make_app(replay=long_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown_whole(pilot)
        await pilot.press("end")
        await pilot.pause()
        pane = app.screen.query_one(ExchangesPane)
        assert pane.earlier == 60 - SHOWN_EXCHANGES
        pane.focus()
        for _ in range(400):  # page up until the very first exchange is rendered
            await pilot.press("pageup")
            if pane.earlier == 0 and pane.scroll_y == 0:
                break
        await pilot.pause()
        assert pane.earlier == 0
        assert "#1 ex-0000 · step 0" in pane.plain(120)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_snapshot_request_diff(snap_compare, synthetic_run: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Step 4: Exchanges shows what changed, Context marks new and gone, Budget the deltas."""
    app = make_app(replay=synthetic_run)
    keys = ["right"] * 4 + (["3"] if size == (80, 24) else [])
    assert snap_compare(app, press=keys, terminal_size=size, run_before=screenshots.settle)

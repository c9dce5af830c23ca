"""The Events timeline pane: every event, filtered by kind and text; Enter goes to the event's step."""

from __future__ import annotations

from pathlib import Path

import pytest

from qitos.trace.events import EventKind
from tui import screenshots
from tui.app import make_app
from tui.event_kinds import ERROR, FILTERS, MEMORY
from tui.panes.events import EventsPane
from tui.search import search

SIZES = [(80, 24), (160, 48)]


async def test_seven_shows_every_event_and_filters_narrow_it(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await screenshots.settle(pilot)
        await pilot.press("7")
        await pilot.pause()
        pane = app.screen.query_one(EventsPane)
        store = app.screen.store
        assert app.screen.active_pane == 6 and pane.display
        assert list(pane.rows) == list(range(store.event_count))  # every event, in order
        assert "+0.000s INIT" in pane.plain(120)
        pane.focus()
        await pilot.press("t")  # errors
        await pilot.pause()
        assert FILTERS[pane.kind_filter][0] == "errors"
        assert pane.rows and all(store.categories[i] == ERROR for i in pane.rows)
        assert all(store.load(i).step_id == 2 for i in pane.rows)  # the failed tool result
        await pilot.press("t", "t", "t", "t")  # memory
        await pilot.pause()
        assert FILTERS[pane.kind_filter][0] == "memory"
        phases = {store.load(i).phase for i in pane.rows}
        assert phases == {EventKind.MEMORY_RECALL, EventKind.MEMORY_APPEND}
        assert all(store.categories[i] == MEMORY for i in pane.rows)
        # Text on top of the kind: only memory events that mention mem-004.
        await pilot.press("T")
        await pilot.press(*"mem-004", "enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert pane.text_filter == "mem-004"
        assert [store.load(i).step_id for i in pane.rows] == [4]  # the recall at step 4
        await pilot.press("enter")  # go to that event's step
        await pilot.pause()
        assert store.steps[app.screen.selected].step == 4


async def test_search_covers_every_event_not_only_exchanges(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await screenshots.settle(pilot)
        store = app.screen.store
        # "sign bug" is only in memory recalls (steps 1 and 4), never in an exchange.
        assert [store.steps[pos].step for pos, _ in search(store, "SIGN BUG")] == [1, 4]
        # A skill's name lives only in the skill_publish event.
        assert [store.steps[pos].step for pos, _ in search(store, "fix_sign_bug")] == [4]


async def test_the_cursor_stays_on_screen_when_the_pane_changes_height(synthetic_run: Path) -> None:
    """The selected step's first event stays on the timeline's rows whatever heights the pane went
    through (its first layout, a status line coming), and where it stands depends on the step only."""
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(160, 48)) as pilot:
        await screenshots.settle(pilot)
        await pilot.press("end")
        await pilot.pause()
        pane = app.screen.query_one(EventsPane)

        def on_screen() -> bool:
            top = int(pane.scroll_y)
            return top <= pane.cursor < top + pane.scrollable_content_region.height - 1

        assert pane.cursor > 0 and on_screen()
        first = int(pane.scroll_y)
        for size in ((160, 46), (160, 45), (160, 48)):  # shorter (every pane still shown), then back
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert on_screen(), size
        assert int(pane.scroll_y) == first  # back at the first height: back where the step put it
        pane.focus()
        await pilot.press("up", "up")  # moved by hand: a new height keeps it in view, not at the step
        await pilot.pause()
        moved = pane.cursor
        await pilot.resize_terminal(160, 45)
        await pilot.pause()
        await pilot.pause()
        assert pane.cursor == moved and on_screen()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_snapshot_events_timeline(snap_compare, synthetic_run: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The timeline at step 2, filtered to errors: the failed tool result."""

    async def focus_and_filter(pilot) -> None:  # type: ignore[no-untyped-def]
        await screenshots.settle(pilot)
        await pilot.press("right", "right", "7")
        await pilot.pause()
        pilot.app.screen.query_one(EventsPane).focus()
        await pilot.press("t")
        await pilot.pause()

    app = make_app(replay=synthetic_run)
    assert snap_compare(app, terminal_size=size, run_before=focus_and_filter)

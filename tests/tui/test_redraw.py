"""Partial redraws: what a key redraws line by line must equal a full redraw of the screen."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.widget import Widget

from tui.app import make_app
from tui.screens.run import RunScreen
from tui.widgets.step_list import StepList

ShownWhole = Callable[..., Awaitable[None]]  # the conftest fixture


async def _screen_after_full_redraw(app) -> str:  # type: ignore[no-untyped-def]
    for widget in app.screen.query(Widget):
        widget.refresh()  # drops every cached line: each widget renders again from scratch
    await app.workers.wait_for_complete()
    return app.export_screenshot()


@pytest.mark.parametrize("size", [(80, 24), (170, 48)])
async def test_keys_redraw_exactly_what_a_full_redraw_shows(
    long_run: Path, size: tuple[int, int], shown_whole: ShownWhole
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=size) as pilot:
        await shown_whole(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        keys = ["right"] * 4 + ["down", "down", "left", "end", "up", "home"] + ["pagedown", "right", "h"]
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            shown = app.export_screenshot()
            redrawn = await _screen_after_full_redraw(app)
            assert shown == redrawn, f"stale lines on screen after {key!r} (step {screen.selected})"


async def test_moving_the_cursor_within_view_redraws_two_rows_only(
    long_run: Path, shown_whole: ShownWhole
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown_whole(pilot)
        steps = app.screen.query_one(StepList)
        drawn: list[int] = []
        original = steps.render_line

        def counting(y: int):  # type: ignore[no-untyped-def]
            drawn.append(y)
            return original(y)

        steps.render_line = counting  # type: ignore[method-assign]
        await pilot.press("right")
        await pilot.pause()
        assert sorted(drawn) == [0, 1]  # the old cursor row and the new one
        drawn.clear()
        await pilot.press("end")  # far away: the list scrolls and every row is new
        await pilot.pause()
        assert len(drawn) == steps.scrollable_content_region.height


async def test_the_first_frame_shows_panes_at_their_real_width(
    long_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first frame after a layout is drawn before any Resize event arrives; a pane that only
    # rendered on Resize would show what it rendered at width 0 (one character per line) in it.
    from textual.screen import Screen

    from tui.panes.exchanges import ExchangesPane

    first: list[tuple[int, str]] = []
    draw = Screen._compositor_refresh

    def recording(screen: Screen) -> None:  # type: ignore[type-arg]
        draw(screen)
        if not first and isinstance(screen, RunScreen):
            pane = screen.query_one(ExchangesPane)
            width = pane.scrollable_content_region.width
            shown = [pane.render_line(y).text for y in range(pane.scrollable_content_region.height)]
            first.append((width, "\n".join(shown)))

    monkeypatch.setattr(Screen, "_compositor_refresh", recording)
    app = make_app(replay=long_run)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
    width, text = first[0]
    assert width > 40
    assert "── #" in text and "tokens" in text  # whole title lines, not a column of characters


async def test_a_live_run_redraws_exactly_what_a_full_redraw_shows(demo_live) -> None:  # type: ignore[no-untyped-def]
    # Rows and panes change while events stream in (a step's phase and action arrive after its
    # row): whatever was redrawn piecemeal must match drawing everything again.
    from tui import screenshots

    app = make_app(live=demo_live())
    async with app.run_test(size=(170, 48)) as pilot:
        await screenshots.settle(pilot)  # paused by the demo's policy
        assert app.screen.store.display_status == "paused"
        assert app.export_screenshot() == await _screen_after_full_redraw(app)
        await pilot.press("r")
        await screenshots.settle(pilot)
        assert app.screen.store.display_status == "finished"
        assert app.export_screenshot() == await _screen_after_full_redraw(app)


async def test_step_rows_changed_by_later_events_are_redrawn() -> None:
    # An event for an earlier step (its tool failed after the next step began) changes that row,
    # away from the cursor: the list must redraw it, and nothing else it shows may go stale.
    from textual.app import App, ComposeResult

    from qitos.trace.events import RunEvent
    from tui.store import ListSource, RunStore

    store = RunStore(ListSource())

    class ListApp(App[None]):
        def compose(self) -> ComposeResult:
            yield StepList(store)

    def fold(*events: RunEvent) -> None:
        store.apply(list(events))
        steps.revision += 1

    app = ListApp()
    async with app.run_test(size=(60, 20)) as pilot:  # room for every row: no scrollbar comes
        steps = app.query_one(StepList)
        fold(*(RunEvent("r", k, "DECIDE", payload={}) for k in range(3)))
        steps.cursor = 2
        await pilot.pause()
        fold(RunEvent("r", 0, "ACT", ok=False, payload={}, error="tool read_file failed"))
        await pilot.pause()
        assert "✗" in steps.render_line(0).text
        assert app.export_screenshot() == await _screen_after_full_redraw(app)
        fold(*(RunEvent("r", k, "DECIDE", payload={}) for k in range(3, 12)))  # ids reach two digits
        await pilot.pause()
        assert app.export_screenshot() == await _screen_after_full_redraw(app)

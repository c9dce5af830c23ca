"""The scroll gutter: where the thumb is drawn, and scrolling with the mouse through it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from textual import events

from tui.app import make_app
from tui.panes.exchanges import ExchangesPane
from tui.synthetic import synthetic_events, write_trace
from tui.widgets.scroll_gutter import offset_for, thumb_rows
from tui.widgets.step_list import StepList

ShownWhole = Callable[..., Awaitable[None]]  # the conftest fixture


# ------------------------------------------------------------------------------ the geometry
def test_no_thumb_when_everything_fits() -> None:
    assert thumb_rows(20, 20, 0) == range(0)
    assert thumb_rows(20, 5, 0) == range(0)
    assert thumb_rows(0, 50, 0) == range(0)


def test_the_thumb_runs_from_the_top_to_the_bottom() -> None:
    assert thumb_rows(20, 40, 0) == range(0, 10)  # half the content shown: half the track
    assert thumb_rows(20, 40, 20) == range(10, 20)  # at the end: touching the bottom
    assert thumb_rows(20, 100_000, 0) == range(0, 1)  # never thinner than a row
    assert thumb_rows(20, 100_000, 100_000 - 20) == range(19, 20)


@given(
    window=st.integers(1, 200),
    extra=st.integers(1, 10**6),
    at=st.floats(0, 1),
)
def test_the_thumb_stays_on_the_track_and_follows_the_offset(window: int, extra: int, at: float) -> None:
    total = window + extra
    offset = round(at * extra)
    thumb = thumb_rows(window, total, offset)
    assert 1 <= len(thumb) <= window and thumb.start >= 0 and thumb.stop <= window
    further = thumb_rows(window, total, min(extra, offset + 1))
    assert further.start >= thumb.start


def test_a_click_in_the_gutter_maps_to_an_offset() -> None:
    assert offset_for(0, 20, 100) == 0
    assert offset_for(19, 20, 100) == 80  # the bottom row: the end
    assert offset_for(10, 20, 100) == round(80 * 10 / 19)
    assert offset_for(5, 20, 10) == 0  # nothing to scroll


# ------------------------------------------------------------------------------ in the app
def _gutter_top(widget) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """The mouse offset (from the widget's border box) of the gutter's top row."""
    region = widget.scrollable_content_region
    return region.x - widget.region.x + region.width - 1, region.y - widget.region.y


def _gutter_backgrounds(widget) -> list[str]:  # type: ignore[no-untyped-def]
    """The background colour of the last cell of every row the widget draws."""
    rows = widget.scrollable_content_region.height
    return [str(list(widget.render_line(y))[-1].style.bgcolor) for y in range(rows)]


async def test_the_step_list_draws_its_thumb_and_no_scrollbar_widget(
    long_run: Path, shown_whole: ShownWhole
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown_whole(pilot)
        steps = app.screen.query_one(StepList)
        assert steps.scrollbar_size_vertical == 0  # Textual's bar takes no column
        window = steps.scrollable_content_region.height
        thumb = thumb_rows(window, 60, 0)
        colours = _gutter_backgrounds(steps)
        thumb_colour, track_colour = colours[0], colours[-1]
        assert {colours[y] for y in thumb} == {thumb_colour} != {track_colour}
        assert set(colours[thumb.stop :]) == {track_colour}
        await pilot.press("end")
        await pilot.pause()
        colours = _gutter_backgrounds(steps)
        assert colours[-len(thumb) :] == [thumb_colour] * len(thumb)  # the thumb is at the bottom now
        assert set(colours[: -len(thumb)]) == {track_colour}


async def test_a_short_list_has_no_track(tmp_path: Path, shown_whole: ShownWhole) -> None:
    run_dir = tmp_path / "short"
    write_trace(run_dir, synthetic_events(4, run_id="short"))
    app = make_app(replay=run_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown_whole(pilot)
        steps = app.screen.query_one(StepList)
        row = list(steps.render_line(steps.scrollable_content_region.height - 1))
        assert row[-1].style == row[0].style  # the gutter cell is the list's own background


async def test_clicking_and_dragging_in_the_gutter_scroll_the_list(
    long_run: Path, shown_whole: ShownWhole
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown_whole(pilot)
        steps = app.screen.query_one(StepList)
        region = steps.scrollable_content_region
        gutter_x, top_y = _gutter_top(steps)
        await pilot.press("home")
        await pilot.pause()
        selected = app.screen.selected
        await pilot.click(StepList, offset=(gutter_x, top_y + region.height - 1))
        await pilot.pause()
        assert steps.scroll_y == steps.max_scroll_y > 0
        assert app.screen.selected == selected  # the gutter scrolls; it picks no row
        await pilot.mouse_down(StepList, offset=(gutter_x, top_y))
        await pilot.hover(StepList, offset=(gutter_x, top_y + region.height // 2))
        await pilot.pause()
        assert 0 < steps.scroll_y < steps.max_scroll_y  # dragged to the middle
        await pilot.mouse_up(StepList, offset=(gutter_x, top_y + region.height // 2))
        await pilot.hover(StepList, offset=(gutter_x, top_y))
        await pilot.pause()
        assert 0 < steps.scroll_y < steps.max_scroll_y  # released: moving no longer scrolls


async def test_the_mouse_wheel_still_scrolls_a_pane(long_run: Path, shown_whole: ShownWhole) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown_whole(pilot)
        await pilot.press("end")  # eight exchanges: more than the pane shows
        await pilot.pause()
        pane = app.screen.query_one(ExchangesPane)
        assert pane.max_scroll_y > 0 and pane.scroll_y == pane.max_scroll_y  # at its end
        assert pane.allow_vertical_scroll
        x, y = pane.region.center
        pane.post_message(
            events.MouseScrollUp(pane, x, y, 0, 0, 0, False, False, False, screen_x=x, screen_y=y)
        )
        await pilot.pause()
        assert pane.scroll_y < pane.max_scroll_y


async def test_clicking_a_row_selects_that_step(long_run: Path, shown_whole: ShownWhole) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown_whole(pilot)
        await pilot.press("home")
        await pilot.pause()
        steps = app.screen.query_one(StepList)
        region = steps.scrollable_content_region
        left, top = region.x - steps.region.x, region.y - steps.region.y
        await pilot.click(StepList, offset=(left + 3, top + 2))
        await pilot.pause()
        assert app.screen.selected == 2  # the third row on screen
        await pilot.click(StepList, offset=(left + 3, 0))  # the border: nothing
        await pilot.pause()
        assert app.screen.selected == 2


async def test_the_gutter_scrolls_the_exchanges_away_from_their_end(
    long_run: Path, shown_whole: ShownWhole
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown_whole(pilot)
        await pilot.press("end")
        await pilot.pause()
        pane = app.screen.query_one(ExchangesPane)
        assert pane.first_shown_line() == pane.max_scroll_y > 0  # kept at the end of the log
        await pilot.click(ExchangesPane, offset=_gutter_top(pane))  # its top row: the start of the log
        await pilot.pause()
        assert pane.scroll_y == 0 and pane.first_shown_line() == 0
        assert "showing what changed" in pane.render_line(0).text  # the top of the log

"""Partial redraws: what a key redraws line by line must equal a full redraw of the screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget

from tui.app import make_app
from tui.screens.run import RunScreen
from tui.synthetic import synthetic_events, write_trace
from tui.widgets.step_list import StepList


@pytest.fixture
def long_run(tmp_path: Path) -> Path:
    """A 60-step run: longer than the step list at 80x24, so moving the cursor also scrolls it."""
    run_dir = tmp_path / "long_run"
    write_trace(run_dir, synthetic_events(60, run_id="long_run"))
    return run_dir


async def _screen_after_full_redraw(app) -> str:  # type: ignore[no-untyped-def]
    for widget in app.screen.query(Widget):
        widget.refresh()  # drops every cached line: each widget renders again from scratch
    await app.workers.wait_for_complete()
    return app.export_screenshot()


@pytest.mark.parametrize("size", [(80, 24), (170, 48)])
async def test_keys_redraw_exactly_what_a_full_redraw_shows(long_run: Path, size: tuple[int, int]) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunScreen)
        keys = ["right"] * 4 + ["down", "down", "left", "end", "up", "home"] + ["pagedown", "right", "h"]
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            shown = app.export_screenshot()
            redrawn = await _screen_after_full_redraw(app)
            assert shown == redrawn, f"stale lines on screen after {key!r} (step {screen.selected})"


async def test_moving_the_cursor_within_view_redraws_two_rows_only(long_run: Path) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
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

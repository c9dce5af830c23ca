"""Panes and keys at 80x24 and 160x48: 1-6 focus and show their pane, z zooms, panes scroll with
the keys help lists, the header and footer keep what is essential, step ids are the recorded ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Footer

from tui import screenshots
from tui.app import make_app
from tui.panes.base import Pane
from tui.panes.budget import BudgetPane
from tui.panes.exchanges import ExchangesPane
from tui.screens.dialogs import HelpScreen
from tui.screens.run import RunScreen
from tui.widgets.pane_tabs import PaneTabs
from tui.widgets.run_header import RunHeader
from tui.widgets.step_list import StepList

SIZES = [(80, 24), (160, 48)]
IDS = ["80x24", "160x48"]


def _line(widget: object) -> str:
    return widget.render_line(0).text  # type: ignore[attr-defined]


async def _open(pilot: object) -> RunScreen:
    await screenshots.settle(pilot)
    screen = pilot.app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, RunScreen)
    return screen


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_digits_focus_and_show_their_pane_and_its_keys_scroll_it(
    long_run: Path, size: tuple[int, int]
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=size) as pilot:
        screen = await _open(pilot)
        await pilot.press("end")
        for k in range(6):
            await pilot.press(str(k + 1))
            await pilot.pause()
            pane = screen.focused
            assert isinstance(pane, Pane) and pane.index == k and pane.display
            assert pane.region.width > 0 and pane.region.height > 0  # on screen, not behind a tab
        await pilot.press("1")
        await pilot.pause()
        exchanges = screen.query_one(ExchangesPane)
        assert screen.focused is exchanges and exchanges.max_scroll_y > 0
        selected, top = screen.selected, exchanges.scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        # PageUp scrolls the focused pane; the step selection stays where it was.
        assert exchanges.scroll_y < top and screen.selected == selected
        await pilot.press("pagedown", "up", "down")
        await pilot.pause()
        assert screen.selected == selected
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        rows = help_screen.rows
        assert ("pgup", "Page up") in rows and ("pgdn", "Page down") in rows  # the focused pane's keys
        described = [d for _, d in rows]
        assert "Zoom pane" in described and "Next pane" in described
        assert any("(step list)" in d for d in described)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_z_zooms_the_focused_pane_to_the_whole_screen_and_back(
    synthetic_run: Path, size: tuple[int, int]
) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=size) as pilot:
        screen = await _open(pilot)
        budget = screen.query_one(BudgetPane)
        await pilot.press("3", "z")
        await pilot.pause()
        await pilot.pause()
        assert screen.zoomed == 2 and screen.focused is budget
        assert budget.region.width == size[0]  # the whole width: no step list, no other pane
        assert not screen.query_one(StepList).display or screen.query_one(StepList).region.width == 0
        assert all(p.region.width == 0 for p in screen.query(Pane) if p is not budget)
        assert "available" in budget.plain(200)
        await pilot.press("1")  # another pane while zoomed: the zoom follows
        await pilot.pause()
        await pilot.pause()
        assert screen.zoomed == 0 and screen.query_one(ExchangesPane).region.width == size[0]
        await pilot.press("z")
        await pilot.pause()
        assert screen.zoomed is None and screen.query_one(StepList).region.width > 0
        assert budget.region.width < size[0]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_nothing_essential_is_cut(synthetic_run: Path, size: tuple[int, int]) -> None:
    """The header keeps the status, the step id and the tokens; the footer keeps q Quit; every tab
    is on screen at once."""
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=size) as pilot:
        screen = await _open(pilot)
        header = _line(screen.query_one(RunHeader))
        tokens = screen.store.tokens
        assert header.lstrip().startswith("● finished  step 0 (0–5)") and f"{tokens} tok" in header
        quit_key = next(
            k for k in screen.query_one(Footer).query("FooterKey") if getattr(k, "key", "") == "q"
        )
        assert quit_key.region.right <= size[0] and quit_key.region.width > 0
        if size == (80, 24):
            tabs = screen.query_one(PaneTabs)
            row = tabs.render_line(0).text
            assert all(f"{k} " in row for k in range(1, 7)), row


async def test_step_ids_are_the_recorded_ones_everywhere(synthetic_run: Path, tmp_path: Path) -> None:
    """`g 3` selects the step recorded as 3: the step list, the header, Budget and the export agree."""
    app = make_app(replay=synthetic_run, export_dir=tmp_path / "out")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await _open(pilot)
        await pilot.press("g", "3", "enter")
        await pilot.pause()
        steps = screen.query_one(StepList)
        assert steps.render_line(screen.selected).text[2:].lstrip().startswith("3 ")
        assert "step 3 (0–5)" in _line(screen.query_one(RunHeader))
        assert "step 3 max" in screen.query_one(BudgetPane).plain(200)
        await pilot.press("e")
        await pilot.pause()
        (exported,) = (tmp_path / "out").iterdir()
        assert "-step3-" in exported.name


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_a_live_runs_footer_keeps_q_quit(demo_live, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Live, the footer also offers p / r / s: q Quit still fits at 80 columns."""
    app = make_app(live=demo_live())
    async with app.run_test(size=size) as pilot:
        await screenshots.settle(pilot)  # paused by the demo's policy: r and s apply
        keys = {getattr(k, "key", ""): k for k in app.screen.query_one(Footer).query("FooterKey")}
        assert {"r", "s", "q"} <= set(keys)
        assert keys["q"].region.width > 0 and keys["q"].region.right <= size[0]
        header = _line(app.screen.query_one(RunHeader))
        assert header.lstrip().startswith("● paused") and " tok" in header
        await pilot.press("q", "y")
        await screenshots.settle(pilot)


async def test_the_run_list_scrolls_its_columns_into_view_at_80x24(built_upstream_dirs: list[Path]) -> None:
    from tui.widgets.run_table import RunTable

    app = make_app(replay=built_upstream_dirs[0].parent)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one(RunTable)
        assert table.hidden_right()  # the columns are wider than the screen
        assert table.header_text().rstrip().endswith("→")  # and the header says so
        keys = {getattr(k, "key", ""): k for k in app.screen.query_one(Footer).query("FooterKey")}
        assert "right" in keys and keys["right"].region.right <= 80  # the footer says how
        second = table.header_text().split()[1]
        await pilot.press("right")
        await pilot.pause()
        assert table.first_column == 2 and second not in table.header_text().split()[1:2]
        assert table.header_text().split()[0] == "run"  # the run column stays
        for _ in range(10):
            await pilot.press("right")
        await pilot.pause()
        assert not table.hidden_right() and "updated" in table.header_text()  # the last column in view
        await pilot.press("left")
        await pilot.pause()
        assert table.hidden_right()

"""The paused demo's `i` dialog in the theme's tones (issue 14 item 3) and its Memory pane with
short record ids (issue 18), at 80x24 and 160x48."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rich.console import Console
from textual.color import Color

from tui import screenshots
from tui.app import make_app
from tui.live import LiveRun
from tui.panes.memory import MemoryPane
from tui.screens.pause_dialogs import PendingDialog
from tui.widgets.toned_static import TonedStatic
from tui.widgets.tones import TONES

SIZES = [(80, 24), (160, 48)]
IDS = ["80x24", "160x48"]
LIGHT = "textual-light"
RECALLED = "3a85045169721c9b02f364fd30433869"  # the demo's first memory record (a digest of its text)


async def _dialog_in_light(pilot) -> None:  # type: ignore[no-untyped-def]
    pilot.app.theme = LIGHT
    await screenshots.settle(pilot)
    await pilot.press("i")
    await pilot.pause()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_pending_dialog_in_a_light_theme(snap_compare, demo_live, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """i on the paused demo in textual-light: the write to calc.py as a diff in the light tones."""
    assert snap_compare(make_app(live=demo_live()), terminal_size=size, run_before=_dialog_in_light)


def _line_colour(renderable, starts: str) -> tuple[int, int, int] | None:  # type: ignore[no-untyped-def]
    """The colour of the first drawn line that starts with ``starts`` (after its indent)."""
    console = Console(width=120, color_system="truecolor")
    for line in console.render_lines(renderable, console.options, pad=False):
        text = "".join(seg.text for seg in line)
        if text.strip().startswith(starts):
            for seg in line:
                if seg.text.strip() and seg.style is not None and seg.style.color is not None:
                    return seg.style.color.get_truecolor()[:3]
            return None
    raise AssertionError(f"no line starts with {starts!r}")


def _tone(app, tone: str) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    return Color.parse(app.get_css_variables()[TONES[tone].removeprefix("$")]).rgb


async def test_the_pending_diff_takes_each_themes_tones(demo_live: Callable[..., LiveRun]) -> None:
    """In the `i` dialog the added line is the theme's good tone and the removed one its bad
    tone; switching the theme with the dialog open redraws it in the new theme's."""
    app = make_app(live=demo_live())
    async with app.run_test(size=(120, 40)) as pilot:
        await screenshots.settle(pilot)
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, PendingDialog)
        seen = {}
        for theme in ("textual-dark", LIGHT, "textual-dark"):
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            shown = app.screen.query_one("#pending-full", TonedStatic).content
            added, removed = (
                _line_colour(shown, "+    return a + b"),
                _line_colour(shown, "-    return a - b"),
            )
            assert (added, removed) == (_tone(app, "good"), _tone(app, "bad")), theme
            seen[theme] = added
        assert seen[LIGHT] != seen["textual-dark"]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_memory_pane_shows_short_record_ids(snap_compare, demo_live, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The paused demo's Memory pane (5 focuses it; at 80x24 its tab): the recalled record's
    digest as 3a8504…3869, its text wrapping under it, never the id over two lines."""
    assert snap_compare(
        make_app(live=demo_live()), press=["5"], terminal_size=size, run_before=screenshots.settle
    )


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_memory_pane_ids_are_short_and_whole_in_the_recorded_event(
    demo_live: Callable[..., LiveRun], size: tuple[int, int]
) -> None:
    """The pane says 3a8504…3869 and never the 32-digit id (whole, it wrapped mid-value); the
    recorded event, which raw views and exports read, keeps the whole id."""
    app = make_app(live=demo_live())
    async with app.run_test(size=size) as pilot:
        await screenshots.settle(pilot)
        await pilot.press("5")
        await pilot.pause()
        pane = app.screen.query_one(MemoryPane)
        shown = pane.plain(width=pane.content_width)
        assert "3a8504…3869 (agent)" in shown and RECALLED not in shown
        step = pane.step
        assert step is not None
        raw = [str(pane.store.load(i).payload) for i in step.memory]
        assert any(RECALLED in payload for payload in raw)

"""Colours come from the theme: the demo in a light built-in theme, a theme switch redraws the panes
in the new theme's tones, and NO_COLOR leaves nothing but greys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.color import Color

from tui import screenshots
from tui.app import make_app
from tui.panes.context import ContextPane
from tui.store import ListSource, RunStore
from tui.widgets.run_header import RunHeader
from tui.widgets.tones import TONES

SIZES = [(80, 24), (160, 48)]
LIGHT = "textual-light"


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_live_demo_paused_in_a_light_theme(snap_compare, demo_live, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The paused demo (pause bar, removed messages, budget deltas, memory) in textual-light."""

    async def light(pilot) -> None:  # type: ignore[no-untyped-def]
        pilot.app.theme = LIGHT
        await screenshots.settle(pilot)

    assert snap_compare(make_app(live=demo_live()), terminal_size=size, run_before=light)


def _tone_colour(app, tone: str) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    """The colour tone ``tone`` has in the app's current theme, from the theme's own variables."""
    variable = TONES[tone].removeprefix("$")
    return Color.parse(app.get_css_variables()[variable]).rgb


def _pane_colours(pane: ContextPane) -> set[tuple[int, int, int]]:
    return {
        seg.style.color.get_truecolor()[:3]
        for line in pane._lines
        for seg in line
        if seg.style is not None and seg.style.color is not None
    }


async def _at_step_3(pilot) -> None:  # type: ignore[no-untyped-def]
    """The synthetic replay folded, step 3 selected (dropped and selected context, an omitted exchange)."""
    await screenshots.settle(pilot)
    for _ in range(3):
        await pilot.press("right")
    await pilot.pause()


async def test_a_theme_switch_redraws_the_panes_in_the_new_themes_tones(synthetic_run: Path) -> None:
    """Dropped context (bad) and selected context (good) take each theme's colours, the cached
    lines of the previous theme are not shown again; the header's status follows too."""
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(160, 48)) as pilot:
        await _at_step_3(pilot)
        pane = app.screen.query_one(ContextPane)
        seen: dict[str, set[tuple[int, int, int]]] = {}
        for theme in ("textual-dark", LIGHT, "nord", "textual-dark"):
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            colours = _pane_colours(pane)
            bad, good = _tone_colour(app, "bad"), _tone_colour(app, "good")
            assert bad in colours and good in colours, theme
            seen[theme] = colours
            header = app.screen.query_one(RunHeader)
            status = header.render().spans[0].style
            assert status.color.get_truecolor()[:3] == _tone_colour(app, "info"), theme  # finished
        assert _tone_colour(app, "bad") not in seen[LIGHT]  # the dark theme's red is gone in light


async def test_no_color_leaves_only_greys(monkeypatch: pytest.MonkeyPatch, synthetic_run: Path) -> None:
    """NO_COLOR (honoured by Textual's own filter) turns every colour the screen draws into a grey."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(160, 48)) as pilot:
        await _at_step_3(pilot)
        assert app.no_color
        svg = app.export_screenshot()
    # Text colours (the -rN classes) and cell backgrounds; not the SVG's window buttons.
    colours = {
        *re.findall(r"-r\d+ \{ fill: (#[0-9a-fA-F]{6})", svg),
        *re.findall(r'<rect fill="(#[0-9a-fA-F]{6})"', svg),
    }
    assert len(colours) > 1  # the screen was drawn, in more than one grey
    # Greys, or within a few steps of one (the SVG's default text colour is #c5c8c6).
    spread = {
        c: max(int(c[i : i + 2], 16) for i in (1, 3, 5)) - min(int(c[i : i + 2], 16) for i in (1, 3, 5))
        for c in colours
    }
    assert not {c for c, s in spread.items() if s > 8}


async def test_tones_are_the_theme_variables_worked_out_once_per_set_of_variables() -> None:
    """Every tone is its theme variable's colour; looked up again only when Textual works the
    variables out anew (a theme switch), and plain for a widget in no app's DOM."""
    from textual.app import App
    from textual.theme import Theme

    from tui.widgets.tones import PLAIN, theme_tones

    app: App[None] = App()
    # A theme whose variable carries an opacity: the tone takes the colour, as `color: $x` does.
    app.register_theme(Theme("half", primary="#336699", variables={"text-error": "#ff0000 50%"}))
    header = RunHeader(RunStore(ListSource()))
    assert header.tone("bad") == PLAIN  # not mounted: no theme to take it from
    async with app.run_test() as pilot:
        await app.mount(header)
        expected = {name: _tone_colour(app, name) for name in TONES}  # works the variables out
        tones = theme_tones(app)
        assert {name: tones[name].color.get_truecolor()[:3] for name in TONES} == expected
        assert theme_tones(app) is tones  # the same variables: nothing worked out again
        assert header.tone("bad") == tones["bad"]
        app.theme = "half"
        await pilot.pause()
        assert theme_tones(app) is not tones
        assert header.tone("bad").color.get_truecolor()[:3] == (255, 0, 0)

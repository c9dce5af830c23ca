"""Snapshots of issue 18's layout at 80x24 and 160x48: the step list sized from the width and its
rows, compact step rows, the one-line pause banner, readable pane titles; dark, light, NO_COLOR."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui import screenshots
from tui.app import make_app

SIZES = [(80, 24), (160, 48)]
IDS = ["80x24", "160x48"]
THEMES = ["textual-dark", "textual-light"]


def _in_theme(theme: str) -> Any:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        pilot.app.theme = theme
        await screenshots.settle(pilot)

    return run_before


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_step_rows_and_width_in_a_replay(snap_compare, synthetic_run: Path, size, theme) -> None:  # type: ignore[no-untyped-def]
    """The list as wide as its rows need (mark, step, tool and argument, cost where it fits), a
    failed step and the answer; at 80 columns the least width, the panes the rest."""
    app = make_app(replay=synthetic_run)
    assert snap_compare(app, press=["end"], terminal_size=size, run_before=_in_theme(theme))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_one_line_banner_and_readable_titles(snap_compare, demo_live, size, theme) -> None:  # type: ignore[no-untyped-def]
    """Paused by the demo's policy: the banner on one line with the action in brief and the keys;
    Context focused (2), so a focused title and unfocused ones show side by side at 160x48."""
    app = make_app(live=demo_live())
    assert snap_compare(app, press=["2"], terminal_size=size, run_before=_in_theme(theme))


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_no_color(snap_compare, demo_live, monkeypatch, size) -> None:  # type: ignore[no-untyped-def]
    """NO_COLOR: greys only; the key letters (bold, underlined) and the focused title (bold) still
    stand out."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(live=demo_live())
    assert snap_compare(app, press=["2"], terminal_size=size, run_before=screenshots.settle)

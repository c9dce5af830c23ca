"""What every pane of a run screen renders at every step: for comparing a live run with its replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui.panes.base import Pane
from tui.screens.run import RunScreen


async def every_pane_at_every_step(pilot: Any, export_dir: Path | None = None) -> list[dict[str, str]]:
    """Each pane's text at each step, in each view (plain/raw, folded/expanded), plus the files
    ``e`` exports at each step into ``export_dir`` (when given)."""
    screen = pilot.app.screen
    assert isinstance(screen, RunScreen)
    seen: list[dict[str, str]] = []
    await pilot.press("home")
    for pos in range(len(screen.store.steps)):
        if pos:
            await pilot.press("right")
        await pilot.pause()
        assert screen.selected == pos
        views: dict[str, str] = {}
        for raw in (False, True):
            for expanded in (False, True):
                screen.raw, screen.expanded = raw, expanded
                await pilot.pause()
                await pilot.pause()
                for pane in screen.query(Pane):
                    views[f"step {pos} {type(pane).__name__} raw={raw} expanded={expanded}"] = pane.plain(120)
        screen.raw = screen.expanded = False
        if export_dir is not None:
            await pilot.press("e")
            await pilot.pause()
        seen.append(views)
    if export_dir is not None:
        for path in sorted(export_dir.iterdir()):
            seen.append({f"export {path.name}": path.read_text(encoding="utf-8")})
    return seen

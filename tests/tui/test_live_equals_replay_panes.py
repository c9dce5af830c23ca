"""The demo run live shows, pane for pane and step for step, exactly what its replay shows.

Summary fields per step are not enough: a live feed that dropped, say, every tool_result would keep
the step list right and leave the Exchanges pane without the tools' observations. So this compares
every pane's rendered text at every step, in every view, and the exports.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pane_views import every_pane_at_every_step

from tui import screenshots
from tui.app import make_app
from tui.live import LiveRun
from tui.screens.run import WIDE


async def test_the_demo_live_renders_every_pane_as_its_replay_does(
    demo_live: Callable[..., LiveRun],
    tmp_path: Path,
    shown_whole: Callable[..., Awaitable[None]],
) -> None:
    live = demo_live()
    live_exports = tmp_path / "live_exports"
    live_exports.mkdir()
    app = make_app(live=live, export_dir=live_exports)
    async with app.run_test(size=WIDE) as pilot:
        await screenshots.settle(pilot)  # paused by the demo's own policy before it writes
        await pilot.press("r")
        await screenshots.settle(pilot)
        assert app.screen.store.display_status == "finished"
        live_views = await every_pane_at_every_step(pilot, live_exports)

    replay_exports = tmp_path / "replay_exports"
    replay_exports.mkdir()
    app = make_app(replay=tmp_path / "runs" / "demo_run", export_dir=replay_exports)
    async with app.run_test(size=WIDE) as pilot:
        await shown_whole(pilot)
        replay_views = await every_pane_at_every_step(pilot, replay_exports)

    assert len(live_views) == len(replay_views) > 11  # eleven steps and their exports
    for live_view, replay_view in zip(live_views, replay_views, strict=True):
        assert _differences(live_view, replay_view) == []
    # The comparison covers what a dropped kind of event would take away.
    shown = "\n".join(text for view in live_views for text in view.values())
    for needle in ("read_file", "write_file", "run_tests"):
        assert needle in shown


def _differences(live: dict[str, Any], replay: dict[str, Any]) -> list[str]:
    """The views that differ, each with its first differing line (a readable failure)."""
    out = []
    for key in sorted(set(live) | set(replay)):
        a, b = live.get(key, "<absent>"), replay.get(key, "<absent>")
        if a != b:
            pairs = zip(a.splitlines(), b.splitlines(), strict=False)
            first = next(((x, y) for x, y in pairs if x != y), (a[-200:], b[-200:]))
            out.append(f"{key}: live {first[0]!r} / replay {first[1]!r}")
    return out

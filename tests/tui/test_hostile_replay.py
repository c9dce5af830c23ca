"""A hostile trace replayed in the app: its problems reach the status bar, and every pane renders."""

from __future__ import annotations

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "trace"))
from hostile_traces import HOSTILE_LINES  # noqa: E402
from rich.console import Console

from tui.app import make_app
from tui.panes.base import Pane
from tui.panes.events import EventsPane
from tui.screens.run import RunScreen
from tui.widgets.run_header import StatusBar


def _hostile_run(tmp_path: Path) -> Path:
    run = tmp_path / "hostile"
    run.mkdir()
    lines = [
        b'{"run_id": "hostile", "step_id": 0, "phase": "INIT", "payload": {}}',
        b'{"step_id": 0, "phase": "shiny_new_kind", "payload": {}}',
        b'{"step_id": 1, "phase": "ACT", "payload": {oops}}',  # looks like an object: found when parsed
        *HOSTILE_LINES,
    ]
    (run / "events.jsonl").write_bytes(b"\n".join(lines) + b'\n{"step_id": 2, "pha')
    (run / "manifest.json").write_bytes(b"[1, 2]")
    return run


async def test_problems_of_a_hostile_trace_reach_the_status_bar_and_panes_render(tmp_path: Path) -> None:
    """Manifest, unknown kind, damaged line found while parsing, cut-off tail: all in the status bar."""
    app = make_app(replay=_hostile_run(tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen._flush_now()  # the flush timer's work, now
        await pilot.pause()
        notices = "\n".join(screen.notices)
        assert "manifest.json is not a JSON object (it holds a JSON list)" in notices
        assert "unknown event kind 'shiny_new_kind' (first at event 2): shown as raw events" in notices
        assert "events.jsonl line 3: invalid JSON" in notices
        assert "events.jsonl: incomplete last line" in notices
        # A damaged line is noticed by the reader and by the fold (the first frame's, the background
        # one's), in the same words: the status bar shows one notice a line.
        assert "events.jsonl line 20: a JSON list, not an object; shown as a raw event" in notices
        lines = [n.split(":", 1)[0] for n in screen.notices if n.startswith("events.jsonl line ")]
        assert len(lines) == len(set(lines)) > 10, notices
        bar = screen.query_one(StatusBar)
        shown = bar.content().plain
        assert bar.notices is screen.notices and "⚠ unknown event kind 'shiny_new_kind'" in shown
        assert f"… {len(screen.notices) - 3} more notices" in shown
        # Every step of the hostile trace renders in every pane (shown or not) without an exception.
        console = Console(width=100, file=io.StringIO(), color_system=None)
        panes = list(screen.query(Pane))
        assert len(panes) == 7
        for step in screen.store.steps:
            for pane in panes:
                console.print(pane.content(step))
        timeline = screen.query_one(EventsPane)
        for index in range(screen.store.event_count):  # every event's timeline row, inert
            assert timeline.row_text(index)[0].isprintable()
        for pos in range(len(screen.store.steps)):
            screen.selected = pos
            await pilot.pause()

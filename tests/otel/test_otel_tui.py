"""The TUI shows an OTLP export's losses in its status bar while the run goes on."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from waits import wait_until

from tui import screenshots
from tui.app import make_app
from tui.screens.run import RunScreen
from tui.widgets.run_header import StatusBar

pytest.importorskip("opentelemetry.sdk.trace", reason="the otel extra is not installed")


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


async def test_status_bar_shows_spans_lost_to_a_dead_collector(tmp_path: Path) -> None:
    from qitos.trace.otel.setup import live_export

    export = live_export(otlp_url=_dead_url(), timeout=0.5)
    live = screenshots.demo_live(tmp_path)
    live.extra_hooks.append(export)
    app = make_app(live=live)
    async with app.run_test(size=(100, 30)) as pilot:
        await screenshots.settle(pilot)  # paused by the demo's own policy
        await pilot.press("r")
        await screenshots.settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen) and screen.store.display_status == "finished"
        await wait_until(
            lambda: "LOST" in screen.query_one(StatusBar).content().plain, what="the lost spans on the bar"
        )
        bar = screen.query_one(StatusBar).content().plain
        assert "LOST" in bar and "spans not delivered to http://127.0.0.1" in bar
    stats = export.close(timeout=1)
    assert stats.spans_lost > 0

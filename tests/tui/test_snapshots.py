"""Snapshot tests of the real app at 80x24 and 160x48: replay (synthetic and upstream), live, paused."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from waits import block_until

from tui import screenshots
from tui.app import make_app

SIZES = [(80, 24), (160, 48)]


def release_once_stopped(app, gate: threading.Event, timeout: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    """Open ``gate`` once ``app`` has stopped running, i.e. once its screenshot is taken.

    The held run's thread must be let go before the event loop closes (asyncio waits for it), but
    not before the screenshot: a fixed delay lost that race on a loaded machine, so the run went
    on and the frame changed. This polls the real condition instead."""

    assert app.is_running, "the app is not running yet: the gate would open before the screenshot"

    def watch() -> None:
        try:
            block_until(lambda: not app.is_running, timeout=timeout, what="the app to stop")
        finally:
            gate.set()  # even after a timeout: a run still held would keep the loop from closing

    threading.Thread(target=watch, name="release-held-model", daemon=True).start()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_replay_synthetic(snap_compare, synthetic_run: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Step 3 selected: an omitted exchange with its receipt, dropped context, budget, compaction."""
    app = make_app(replay=synthetic_run)
    assert snap_compare(
        app, press=["right", "right", "right"], terminal_size=size, run_before=screenshots.settle
    )


def test_replay_synthetic_context_tab(snap_compare, synthetic_run: Path) -> None:  # type: ignore[no-untyped-def]
    """At 80x24 the panes are tabs: 2 shows Context."""
    app = make_app(replay=synthetic_run)
    assert snap_compare(app, press=["end", "2"], terminal_size=(80, 24), run_before=screenshots.settle)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_replay_upstream(snap_compare, built_upstream_dirs: list[Path], size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """An upstream-format trace (no request views) shows steps, actions, results and tokens; built
    by the suite, so the snapshot never depends on ../shared (whose tests have no snapshot)."""
    app = make_app(replay=built_upstream_dirs[0])
    assert snap_compare(app, press=["right"], terminal_size=size, run_before=screenshots.settle)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_live_demo_running(snap_compare, demo_live, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The demo live, held inside its third model call so the frame is deterministic."""
    live = demo_live(gate_at=3)
    model = live.agent.llm

    async def held(pilot) -> None:  # type: ignore[no-untyped-def]
        # Held, and every event the run emitted before that folded and shown (a flush folds and
        # shows in one go): what is left is drawing, which snap_compare waits for itself.
        await screenshots.wait_held(pilot, model)
        await pilot.wait_for_scheduled_animations()
        release_once_stopped(pilot.app, model.gate)

    app = make_app(live=live)
    try:
        assert snap_compare(app, terminal_size=size, run_before=held)
    finally:
        model.gate.set()
        live.cancel()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_live_demo_paused_by_its_policy(snap_compare, demo_live, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Paused before writing a file: why (the agent's policy id) and the pending action."""
    app = make_app(live=demo_live())
    assert snap_compare(app, terminal_size=size, run_before=screenshots.settle)

"""Snapshot tests of the real app at 80x24 and 160x48: replay (synthetic and upstream), live, paused."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tui import screenshots
from tui.app import make_app

SIZES = [(80, 24), (160, 48)]


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
        await screenshots.wait_held(pilot, model)
        await pilot.pause(0.2)  # let the refresh tick fold what the tap delivered
        await pilot.wait_for_scheduled_animations()
        # The screenshot is taken right after this returns; then the run may go on and the app exit.
        threading.Timer(1.5, model.gate.set).start()

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

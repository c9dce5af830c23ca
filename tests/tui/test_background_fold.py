"""The background fold of a big trace: keys are answered while it runs, and it still finishes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.app import make_app
from tui.screens.feeding import FIRST_PAINT_EVENTS
from tui.screens.run import RunScreen
from tui.synthetic import synthetic_events, write_trace
from tui.widgets.run_header import RunHeader


@pytest.fixture
def big_run(tmp_path: Path) -> Path:
    """~1,000 steps: far more events than the first paint folds, so the rest folds in the background."""
    run_dir = tmp_path / "big_run"
    write_trace(run_dir, synthetic_events(1000, run_id="big_run", pause_at=None))
    return run_dir


@pytest.fixture
def bigger_run(tmp_path: Path) -> Path:
    """~15,000 steps: a fold that takes long enough (even read as records) for keys to come in it."""
    run_dir = tmp_path / "bigger_run"
    write_trace(run_dir, synthetic_events(15000, run_id="bigger_run", pause_at=None))
    return run_dir


async def test_keys_during_the_fold_move_the_selection_and_the_fold_completes(big_run: Path) -> None:
    app = make_app(replay=big_run)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        await pilot.pause()
        assert screen.store.event_count <= FIRST_PAINT_EVENTS or screen.reader is not None
        for _ in range(25):  # while the fold runs, keys still move the selection one by one
            await pilot.press("right")
        assert screen.selected == 25
        await app.workers.wait_for_complete()
        for _ in range(200):
            if screen.store.event_count == len(screen.reader) and not screen.query_one(RunHeader).progress:
                break
            await pilot.pause(0.02)
        assert screen.store.event_count == len(screen.reader)
        assert len(screen.store.steps) == 1000
        assert screen.feed.pending == 0
        assert screen.selected == 25  # the fold never moved the selection of a finished run
        header = screen.query_one(RunHeader).render().plain
        assert "step 25 (0–999)" in header and "folding" not in header


async def test_the_fold_rests_while_keys_keep_coming_and_goes_on_when_they_pause(
    bigger_run: Path,
) -> None:
    app = make_app(replay=bigger_run)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.pacer.fold_quiet = 1.0  # a wide margin for a busy machine
        for _ in range(200):  # wait until the background fold is under way
            if screen.reader is not None and 0 < screen.store.event_count < len(screen.reader):
                break
            await pilot.pause(0.01)
        await pilot.press("right")
        folded = screen.store.event_count
        for _ in range(3):
            await pilot.pause(0.15)
            await pilot.press("right")  # keys keep coming: nothing more is folded meanwhile
        assert screen.store.event_count == folded < len(screen.reader)
        for _ in range(300):  # keys paused: the fold goes on and finishes
            if screen.store.event_count == len(screen.reader):
                break
            await pilot.pause(0.02)
        assert screen.store.event_count == len(screen.reader) and screen.selected == 4

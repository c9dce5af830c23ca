"""The collector's thresholds: raised while a run screen is up, put back when it closes."""

from __future__ import annotations

import gc
from pathlib import Path

from waits import wait_until

from tui.app import make_app
from tui.gc_tuning import FRAME_THRESHOLDS, FrameFriendlyGC


def test_frame_friendly_gc_raises_and_restores_the_thresholds() -> None:
    before = gc.get_threshold()
    tuning = FrameFriendlyGC()
    with tuning:
        assert gc.get_threshold() == FRAME_THRESHOLDS
        tuning.start()  # a second start keeps what the first one saved
    assert gc.get_threshold() == before
    tuning.stop()  # stopping again changes nothing
    assert gc.get_threshold() == before


async def test_the_run_screen_tunes_the_collector_only_while_it_is_up(synthetic_run: Path) -> None:
    before = gc.get_threshold()
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert gc.get_threshold() == FRAME_THRESHOLDS
    assert gc.get_threshold() == before


def test_only_the_ui_thread_spares_objects_and_stopping_gives_them_back() -> None:
    import threading

    gc.unfreeze()
    tuning = FrameFriendlyGC()
    with tuning:
        worker = threading.Thread(target=tuning.spare_long_lived)
        worker.start()
        worker.join()
        assert gc.get_freeze_count() == 0  # a worker thread's call freezes nothing
        tuning.spare_long_lived()
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0  # the screen went: its objects are the collector's again


async def test_the_app_owns_the_tuning_and_a_closed_run_screen_gives_its_objects_back(
    tmp_path: Path,
) -> None:
    from tui.screens.run import RunScreen
    from tui.synthetic import synthetic_events, write_trace

    synthetic_run = tmp_path / "runs" / "long"
    write_trace(synthetic_run, synthetic_events(100, run_id="long"))  # more than the first paint folds
    gc.unfreeze()
    before = gc.get_threshold()
    app = make_app(replay=synthetic_run.parent)  # the run list first
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.gc_tuning is not None and gc.get_threshold() == FRAME_THRESHOLDS
        app.open_run(synthetic_run, from_list=True)
        await wait_until(
            lambda: isinstance(app.screen, RunScreen) and app.screen.reader is not None,
            what="the run screen to open its trace",
        )
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert gc.get_freeze_count() > 0  # the fold's summaries were spared by the app's tuning
        await pilot.press("escape")  # back to the run list: the run screen goes
        await wait_until(lambda: not isinstance(app.screen, RunScreen), what="the run screen to go")
        assert gc.get_freeze_count() == 0
        assert gc.get_threshold() == FRAME_THRESHOLDS  # still tuned: the app runs on
    assert gc.get_threshold() == before


async def test_a_collector_paused_for_the_launch_is_on_again_after_the_first_frame(
    synthetic_run: Path,
) -> None:
    """The CLI pauses the collector for the launch; the app's first frame turns it back on."""
    from tui.gc_tuning import pause_for_launch, resume_after_launch

    assert gc.isenabled()
    pause_for_launch()
    try:
        assert not gc.isenabled()
        app = make_app(replay=synthetic_run)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert gc.isenabled()
    finally:
        resume_after_launch()  # a failed assertion must not leave the test process without it
    assert gc.isenabled()


def test_resuming_leaves_a_collector_someone_else_turned_off_alone() -> None:
    from tui.gc_tuning import pause_for_launch, resume_after_launch

    gc.disable()
    try:
        pause_for_launch()  # already off: not the launch's to turn on
        resume_after_launch()
        assert not gc.isenabled()
    finally:
        gc.enable()

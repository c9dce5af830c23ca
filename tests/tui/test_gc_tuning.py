"""The collector's thresholds: raised while a run screen is up, put back when it closes."""

from __future__ import annotations

import gc
from pathlib import Path

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

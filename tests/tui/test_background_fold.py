"""The background fold of a big trace: keys are answered while it runs, and it still finishes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual import events
from waits import wait_until

from tui.app import make_app
from tui.messages import EventsAvailable, FoldFinished
from tui.pacing import FoldPacer
from tui.screens.feeding import FIRST_PAINT_EVENTS, FOLD_SLICE, HEAD_FOLD_SLICE
from tui.screens.run import RunScreen
from tui.synthetic import synthetic_events, write_trace
from tui.widgets.run_header import RunHeader
from tui.widgets.step_list import StepList


@pytest.fixture
def big_run(tmp_path: Path) -> Path:
    """~1,000 steps: far more events than the first paint folds, so the rest folds in the background."""
    run_dir = tmp_path / "big_run"
    write_trace(run_dir, synthetic_events(1000, run_id="big_run", pause_at=None))
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
        await wait_until(
            lambda: (
                screen.store.event_count == len(screen.reader) and not screen.query_one(RunHeader).progress
            ),
            what="the fold to finish and its progress to clear",
        )
        assert len(screen.store.steps) == 1000
        assert screen.feed.pending == 0
        assert screen.selected == 25  # the fold never moved the selection of a finished run
        header = screen.query_one(RunHeader).render().plain
        assert "step 25 (0–999)" in header and "folding" not in header


async def test_the_fold_shows_all_it_folded_when_it_says_it_is_done(
    big_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header drops "folding" only with every step in the list, not a paced flush later."""
    monkeypatch.setattr("tui.pacing.FLUSH_SECONDS", 30.0)  # no paced flush within the test
    monkeypatch.setattr("tui.pacing.FLUSH_MAX_SECONDS", 30.0)
    app = make_app(replay=big_run)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        header = screen.query_one(RunHeader)
        await wait_until(lambda: screen.reader is not None, what="the reader to open")
        await app.workers.wait_for_complete()  # the fold worker is through: FoldFinished is posted
        await wait_until(
            lambda: screen.store.event_count == len(screen.reader) and not header.progress,
            what="the fold to say it is done",
        )
        await pilot.pause()
        assert screen.store.event_count == len(screen.reader)
        assert screen.feed.pending == 0
        assert "(0–999)" in header.render().plain
        steps = screen.query_one(StepList)
        assert steps.virtual_size.height == 1000  # every row can be scrolled to, now


class HeldClock:
    """The pacer's wall clock, moved only by the test; a sleep on it waits until the test has
    moved it far enough (or is released), so "keys keep coming" lasts exactly as long as the test says."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.resting = 0  # threads sleeping on this clock now
        self._moved = threading.Condition()
        self._released = False

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock on and wake the sleepers whose time has come."""
        with self._moved:
            self.now += seconds
            self._moved.notify_all()

    def sleep(self, seconds: float) -> None:
        """Return once the clock has moved ``seconds`` on (never on its own: the test moves it)."""
        until = self.now + seconds
        with self._moved:
            self.resting += 1
            try:
                # The timeout only bounds a failed test's shutdown; a passing test always moves it.
                self._moved.wait_for(lambda: self._released or self.now >= until, timeout=60)
            finally:
                self.resting -= 1

    def release(self) -> None:
        """Let every sleeper go (the test is over)."""
        with self._moved:
            self._released = True
            self._moved.notify_all()


async def test_the_fold_rests_while_keys_keep_coming_and_goes_on_when_they_pause(big_run: Path) -> None:
    """Driven by a clock of the test's own, so that a busy machine cannot make keys look paused."""
    clock = HeldClock()
    app = make_app(replay=big_run)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.feeder.pacer = pacer = FoldPacer(clock=clock, sleep=clock.sleep)
        try:
            await pilot.press("right")  # a key before the fold is under way: it must wait for keys to pause
            await wait_until(
                lambda: screen.reader is not None and clock.resting == 1,
                what="the background fold to start and rest for the key",
            )
            folded = screen.store.event_count
            assert folded <= FIRST_PAINT_EVENTS < len(screen.reader)
            # Keys keep coming, each sooner than the quiet the fold waits for: the fold's worker
            # wakes once the first key's quiet is over and hands the fold a block...
            for _ in range(3):
                clock.advance(pacer.fold_quiet * 0.6)
                await pilot.press("right")
            handed_over = lambda: screen.feed.pending > 0 or screen.store.event_count > folded  # noqa: E731
            await wait_until(
                lambda: handed_over() and clock.resting == 1,
                what="the worker to hand over a block and rest again",
            )
            await pilot.pause()  # ...which the UI, idle now, has had every chance to fold
            assert screen.store.event_count == folded, "the fold went on while keys kept coming"
            clock.advance(max(pacer.fold_quiet, pacer.key_quiet))  # keys paused: the fold goes on
            await wait_until(
                lambda: screen.store.event_count == len(screen.reader), what="the fold to finish"
            )
            assert screen.selected == 4
        finally:
            clock.release()


async def test_a_key_pressed_while_the_fold_works_through_a_backlog_is_answered_within_a_few_slices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screen folds a backlog one slice per message, each asking for the next: a key that
    comes meanwhile must not wait behind the whole backlog (it has a few hops to make, from the
    app to the focused widget and back up to the screen's binding, each on its own task)."""
    run_dir = tmp_path / "long_run"
    write_trace(run_dir, synthetic_events(3000, run_id="long_run", pause_at=None))  # ~40 slices to fold
    monkeypatch.setattr("tui.screens.feeding.FOLD_BACKLOG", 10**9)  # the whole trace may wait
    clock = HeldClock()
    app = make_app(replay=run_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        feeder = screen.feeder
        feeder.pacer = pacer = FoldPacer(clock=clock, sleep=clock.sleep)
        pacer.wait_for_keys = lambda: None  # type: ignore[method-assign]  # the worker reads on
        slices = 0
        slices_at_key: list[int] = []
        drain, key_pressed = feeder.drain, feeder.key_pressed

        def counted_drain(limit: int | None = None) -> bool:
            nonlocal slices
            drained = drain(limit)
            slices += drained
            return drained

        def noted_key() -> None:
            slices_at_key.append(slices)
            key_pressed()

        feeder.drain = counted_drain  # type: ignore[method-assign]
        feeder.key_pressed = noted_key  # type: ignore[method-assign]
        # The worker's "all read" would fold the whole backlog at once: it waits for the test.
        finished: list[FoldFinished] = []
        fold_done, feeder.fold_done = feeder.fold_done, finished.append  # type: ignore[method-assign]
        try:
            await pilot.press("right")  # keys are coming: the UI folds nothing, the worker reads all
            await wait_until(lambda: finished, what="the worker to read the whole trace")
            assert screen.reader is not None
            backlog = screen.feed.pending
            assert backlog == len(screen.reader) - screen.store.event_count > 30 * FOLD_SLICE
            clock.advance(max(pacer.fold_quiet, pacer.key_quiet))
            await wait_until(lambda: not pacer.keys_coming(), what="the first key's frame")
            start = slices
            # The fold goes on through its backlog, and a key comes at once after.
            screen.post_message(EventsAvailable())
            app.post_message(events.Key("right", None))
            await wait_until(lambda: len(slices_at_key) == 2, what="the second key's action")
            # Five or six slices here (one hop of the key's way each; a paced flush may add one);
            # without giving way between slices, all forty.
            assert slices_at_key[1] - start <= 10, "the key waited behind the fold's backlog"
            clock.advance(max(pacer.fold_quiet, pacer.key_quiet))
            fold_done(finished[0])
            await wait_until(
                lambda: screen.store.event_count == len(screen.reader), what="the fold to finish"
            )
            assert screen.selected == 2
        finally:
            clock.release()


@pytest.mark.parametrize("rows", [24, 60])
async def test_the_first_frame_folds_the_steps_the_screen_has_rows_for_and_the_rest_follows(
    big_run: Path, rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the reader opens, the head is folded until the step list is full, at most the events
    read for the first frame; once it opens, the background fold takes over from there."""
    opened = threading.Event()
    monkeypatch.setattr(RunScreen, "open_reader", lambda screen: opened.set())  # held back
    app = make_app(replay=big_run)
    async with app.run_test(size=(100, rows)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        await pilot.pause()
        assert opened.is_set() and screen.reader is None
        folded, steps = screen.store.event_count, len(screen.store.steps)
        if rows == 24:  # the screen is full before the head is folded ...
            assert rows < steps and folded < FIRST_PAINT_EVENTS
            # ... and the fold stopped with the slice that filled it.
            assert screen.store.steps[rows].first >= folded - HEAD_FOLD_SLICE
        else:  # the screen has more rows than the head has steps: all of the head is folded
            assert folded == FIRST_PAINT_EVENTS and steps < rows
        assert screen.store.steps[-1].last == folded - 1
        monkeypatch.undo()
        screen.open_reader()  # the reader opens now: the rest of the trace folds after the head
        await app.workers.wait_for_complete()
        await wait_until(
            lambda: screen.reader is not None and screen.store.event_count == len(screen.reader),
            what="the fold to finish",
        )
        assert [s.step for s in screen.store.steps] == list(range(1000))

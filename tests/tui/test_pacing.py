"""FoldPacer without Textual: keys before fold work, flushes spaced by what they cost."""

from __future__ import annotations

import threading

import pytest

from tui.pacing import FLUSH_COST_FACTOR, FLUSH_MAX_SECONDS, FLUSH_SECONDS, FoldPacer


class Clocks:
    """A wall clock and a CPU clock that move only when told; sleeping moves the wall clock."""

    def __init__(self) -> None:
        self.now = 100.0
        self.cpu = 0.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def _pacer(clocks: Clocks) -> FoldPacer:
    return FoldPacer(clock=lambda: clocks.now, cpu_clock=lambda: clocks.cpu, sleep=clocks.sleep)


def test_a_key_holds_the_fold_until_its_frame_is_drawn_and_keys_pause() -> None:
    clocks = Clocks()
    pacer = _pacer(clocks)
    assert not pacer.keys_coming() and not pacer.navigating()
    pacer.key_pressed()
    assert pacer.keys_coming() and pacer.navigating()
    pacer.key_answered()
    assert pacer.keys_coming()  # drawn, but keys have not paused yet
    clocks.now += pacer.fold_quiet
    assert not pacer.keys_coming()
    assert pacer.navigating()  # new events are still held back from the screen a little longer
    clocks.now += pacer.key_quiet
    assert not pacer.navigating()


def test_the_worker_waits_for_the_frame_then_sleeps_until_keys_pause() -> None:
    clocks = Clocks()
    pacer = _pacer(clocks)
    pacer.key_pressed()
    clocks.now += 0.03
    # The frame is drawn on the UI thread while the fold's worker thread waits for it: whichever
    # comes first, the worker goes on once it is drawn and sleeps out the rest of the quiet.
    worker = threading.Thread(target=pacer.wait_for_keys)
    worker.start()
    pacer.key_answered()
    worker.join(60)
    assert not worker.is_alive(), "the worker still waits although the frame is drawn"
    assert clocks.slept == [pytest.approx(pacer.fold_quiet - 0.03)]
    assert not pacer.keys_coming()
    pacer.wait_for_keys()  # keys have paused: no sleep
    assert len(clocks.slept) == 1


def test_a_frame_that_never_comes_holds_the_worker_only_so_long() -> None:
    """The wait for a key's frame is bounded (a key held down slows the fold, never stops it)."""
    clocks = Clocks()
    pacer = _pacer(clocks)
    pacer.key_pressed()
    worker = threading.Thread(target=pacer.wait_for_keys, daemon=True)  # the frame is never answered
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the worker waits for a frame that never comes"
    assert clocks.slept == [pytest.approx(pacer.fold_quiet)]  # then it sleeps out the quiet


def test_flushes_are_spaced_by_their_cost_within_bounds() -> None:
    clocks = Clocks()
    pacer = _pacer(clocks)
    assert pacer.flush_due()
    clocks.cpu += 0.01  # a cheap flush: 10 ms of UI CPU
    pacer.flushed(showed=True)
    assert pacer.flush_delay == 0.01 * FLUSH_COST_FACTOR
    assert not pacer.flush_due()
    clocks.now += pacer.flush_delay
    assert pacer.flush_due()
    clocks.cpu += 5.0  # an expensive one: capped
    pacer.flushed(showed=True)
    assert pacer.flush_delay == FLUSH_MAX_SECONDS
    pacer.flushed(showed=False)  # nothing new to show: look again soon
    assert pacer.flush_delay == FLUSH_SECONDS
    clocks.cpu += 0.0001
    pacer.flushed(showed=True)
    assert pacer.flush_delay == FLUSH_SECONDS  # never sooner than the floor

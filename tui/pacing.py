"""FoldPacer: when the fold may work and when the screen shows what it folded — keys first.

A run screen folds events in batches and shows the new state at flushes. The pacer holds every
timing decision in one plain object with its clocks injected, so that it is tested without
Textual and without sleeping: navigation keys come before fold work (the fold waits until a key's
frame is drawn, and rests until keys pause), and the time between two flushes grows with what a
flush costs the UI thread, so the UI takes a small share of a process where an Engine runs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

FOLD_QUIET_SECONDS = 0.1  # the background fold rests until keys have paused this long
KEY_QUIET_SECONDS = 0.25  # after a navigation key, new events are shown no sooner than this
KEY_WAIT_SECONDS = 0.25  # the longest the background fold waits for a key's frame to be drawn
FLUSH_SECONDS = 0.05  # the shortest time between two flushes of folded events to the screen
FLUSH_MAX_SECONDS = 1.0
FLUSH_COST_FACTOR = 20  # UI CPU per flush x this = the wait before the next one (UI share <= 5 %)


class FoldPacer:
    """Paces one screen's fold: keys first, flushes spaced by their cost (thread-safe where noted)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        cpu_clock: Callable[[], float] = time.thread_time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._clock = clock
        self._cpu_clock = cpu_clock
        self._sleep = sleep
        self.fold_quiet = FOLD_QUIET_SECONDS
        self.key_quiet = KEY_QUIET_SECONDS
        self.flush_delay = FLUSH_SECONDS
        self._last_key = float("-inf")
        self._last_flush = float("-inf")
        self._cpu_mark = 0.0
        # Cleared by a navigation key until its frame is on screen; the background fold waits on it.
        self._answered = threading.Event()
        self._answered.set()

    # ---- keys -----------------------------------------------------------------------------------
    def key_pressed(self) -> None:
        """A navigation key came: its frame goes before any fold work (UI thread)."""
        self._last_key = self._clock()
        self._answered.clear()

    def key_answered(self) -> None:
        """The key's frame is on screen (UI thread)."""
        self._answered.set()

    def quiet_in(self) -> float:
        """Seconds until keys will have paused long enough for the fold to go on (<= 0: now)."""
        return self._last_key + self.fold_quiet - self._clock()

    def keys_coming(self) -> bool:
        """A key's frame is not drawn yet, or keys have not paused yet: fold work waits (any thread)."""
        return not self._answered.is_set() or self.quiet_in() > 0

    def wait_for_keys(self) -> None:
        """On the fold's worker thread: wait until the key's frame is drawn (bounded: a key held
        down slows the fold, never stops it), then until keys pause."""
        self._answered.wait(KEY_WAIT_SECONDS)
        left = self.quiet_in()
        if left > 0:
            self._sleep(left)

    # ---- flushes --------------------------------------------------------------------------------
    def navigating(self) -> bool:
        """Someone is navigating: new events wait a moment rather than slow their keys."""
        return self._clock() - self._last_key < self.key_quiet

    def flush_due(self) -> bool:
        """Whether the wait after the last flush is over."""
        return self._clock() - self._last_flush >= self.flush_delay

    def flushed(self, showed: bool) -> None:
        """A flush ran (``showed``: it pushed new state to the screen): space the next one by its cost.

        The UI thread's CPU time since the last flush covers the previous frame's rendering too;
        the next flush waits long enough that this costs at most 1/FLUSH_COST_FACTOR of the time."""
        if showed:
            spent = self._cpu_clock() - self._cpu_mark
            self.flush_delay = min(FLUSH_MAX_SECONDS, max(FLUSH_SECONDS, spent * FLUSH_COST_FACTOR))
        else:
            self.flush_delay = FLUSH_SECONDS
        self._cpu_mark = self._cpu_clock()
        self._last_flush = self._clock()

"""The cyclic garbage collector, tuned for a screen that allocates heavily on every frame.

Every frame makes thousands of short-lived objects (each Textual strip carries its own caches).
With Python's default thresholds the collector then runs several times per key, and now and then
walks everything the screen keeps alive, which alone can take longer than a key may. Collecting
young objects less often, and taking what is known to live long (the fold's summaries, the
widgets) out of the collector's walks, keeps that off the keys.

The App owns one :class:`FrameFriendlyGC` (``QitosApp.gc_tuning``): it raises the thresholds while
it runs and puts them back when it ends; screens only say what is long-lived now, and give it back
when they go (:func:`app_tuning` finds it from a screen).

Before that, the launch: importing Textual and the app and building the first screen allocate
hundreds of thousands of objects that all live on (modules, classes, widgets), and the young
collections walking them cost ~15 ms of the first frame, whatever the thresholds. The CLI pauses
the collector for the launch (:func:`pause_for_launch`) and the app resumes it once its first
frame is out (:func:`resume_after_launch`).
"""

from __future__ import annotations

import gc
import threading
from typing import Any

FRAME_THRESHOLDS = (20_000, 50, 100)  # youngest generation: 20k allocations, not 700


class _Launch:
    """Whether the collector is off for the launch (once a process: only the CLI pauses it)."""

    paused = False


def pause_for_launch() -> None:
    """Turn the collector off until :func:`resume_after_launch` (if it is on now)."""
    if gc.isenabled():
        gc.disable()
        _Launch.paused = True


def resume_after_launch() -> None:
    """Turn the collector back on if the launch turned it off; otherwise leave it as it is."""
    if _Launch.paused:
        _Launch.paused = False
        gc.enable()


class FrameFriendlyGC:
    """Raises the collector's thresholds while a screen is up, and puts them back afterwards."""

    def __init__(self) -> None:
        self._saved: tuple[int, int, int] | None = None
        self._thread: int | None = None  # the UI thread, which started it

    def __enter__(self) -> FrameFriendlyGC:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Use the frame-friendly thresholds (nested starts keep the first saved ones)."""
        if self._saved is None:
            self._saved = gc.get_threshold()
            self._thread = threading.get_ident()
            gc.set_threshold(*FRAME_THRESHOLDS)

    def stop(self) -> None:
        """Put the thresholds back as they were before start, and give what was spared back to the
        collector (a closed screen's objects are garbage now, and may hold cycles)."""
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
            gc.unfreeze()

    def release(self) -> None:
        """A screen went: what was spared while it was up is the collector's again (its objects
        are garbage now, and may hold cycles); the thresholds stay while the app runs. UI thread
        only, as freezing is."""
        if self._saved is not None and threading.get_ident() == self._thread:
            gc.unfreeze()

    def spare_long_lived(self) -> None:
        """:func:`spare_long_lived`, on the UI thread only: a worker thread's call would freeze
        whatever the UI thread holds at that moment, half-built frames and all."""
        if self._saved is not None and threading.get_ident() == self._thread:
            spare_long_lived()


def app_tuning(app: Any) -> FrameFriendlyGC:
    """The app's collector tuning; an app that has none (a test's host app) gets an idle one."""
    tuning = getattr(app, "gc_tuning", None)
    return tuning if isinstance(tuning, FrameFriendlyGC) else FrameFriendlyGC()


def spare_long_lived() -> None:
    """Move every object alive now out of the collector's walks (they stay freed by refcounting)."""
    gc.freeze()

"""FeedingScreen: a run screen's fold, fed from a trace or a live run, shown in paced batches.

Events are folded and shown in batches: a flush drains the feed, folds what it holds and pushes the
new state down (``selected``, ``revision``). When to fold and when to flush is the
:class:`~tui.pacing.FoldPacer`'s to decide. Two words kept apart: *tail* is keeping the newest
step selected (as toolong says), *follow* is reading a trace that another process still writes.
A replay paints from the head of its trace, then indexes and folds the rest in the background, and
follows the trace while another process writes it. Navigation keys come first throughout.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import get_current_worker

from tui.feed import EventFeed
from tui.follow import follow_run
from tui.gc_tuning import app_tuning
from tui.messages import EventsAvailable, FoldFinished, FoldProgress, FollowUpdate, ReaderOpened
from tui.pacing import FoldPacer
from tui.store import RunStore

if TYPE_CHECKING:
    from qitos.trace.reader import TraceReader
    from tui.live import LiveRun

FIRST_PAINT_EVENTS = 400  # folded before the first frame; the rest folds in the background
FOLD_SLICE = 500  # events folded per turn of the UI thread (a few ms), so keys get in between
PROGRESS_SECONDS = 0.1  # the shortest time between two fold progress updates
FOLD_BACKLOG = 2000  # parsed events allowed to wait for the UI thread (bounds the peak RSS)


class FeedingScreen(Screen[None]):
    """Folds one run's events into its RunStore and pushes the new state down in paced batches."""

    selected: reactive[int] = reactive(0, repaint=False)
    """Position of the selected step; pushed down to the step list, the header and every pane."""
    revision: reactive[int] = reactive(0, repaint=False)
    """Bumped after the store folded new events (at most once per flush)."""
    fold_progress: reactive[str] = reactive("", repaint=False)
    """How far the background fold of a replay has come ("" when it is not running)."""
    following: reactive[bool] = reactive(False, repaint=False)
    """A replay following its trace while another process writes it."""
    note: reactive[str] = reactive("", repaint=False)
    """A transient line for the status bar (pause requested, export written, search results)."""

    def __init__(self, store: RunStore, *, replay: Path | None = None, live: LiveRun | None = None) -> None:
        super().__init__()
        self.store = store
        self.replay = replay
        self.live = live
        self.feed = EventFeed(self._wake)
        self.reader: TraceReader | None = None  # once opened (replay)
        self.notices: list[str] = []
        self._notice_sizes = (0, 0)  # how many reader and fold notices _sync_notices has seen
        self._dirty = False
        self.pacer = FoldPacer()  # every timing decision: keys first, flushes spaced by their cost
        self._quiet_timer: Timer | None = None
        self._tail = True  # tail: the selection keeps to the newest step (live, or following a trace)
        # Replay: follow the trace as another process writes it even if it is not running now
        # (`replay --follow`; set by the app). A running run is followed anyway.
        self.follow_writes = False
        self.follow_result: str | None = None  # the status following ended with
        self._follow_stop = asyncio.Event()

    def _wake(self) -> None:
        """Tell the UI thread that events wait in the feed (from any thread)."""
        self.post_message(EventsAvailable())

    def _status_changed(self, status: str) -> None:
        """The followed run's status changed (from the follow worker)."""
        self.post_message(FollowUpdate(status))

    def start_feeding(self) -> None:
        """Begin folding: a replay paints its head now and folds the rest in the background."""
        self._schedule_flush()
        if self.replay is not None:
            # First paint from the head of the trace (see tui.replay); the reader is opened and
            # the rest folded in the background once the first frame is out.
            self.store.apply(self.store.source.events(), 0)
            self._flush_now()
            self.call_after_refresh(self.open_reader)

    def key_pressed(self) -> None:
        """A navigation key changed the selection: its frame goes before any fold work."""
        self.pacer.key_pressed()
        self.call_after_refresh(self._key_answered)
        if self._quiet_timer is None:
            self._quiet_timer = self.set_timer(self.pacer.fold_quiet, self._quiet_over)

    def _quiet_over(self) -> None:
        """No key for a moment, or keys still coming: fold on, or look again a little later."""
        left = self.pacer.quiet_in()
        self._quiet_timer = self.set_timer(left, self._quiet_over) if left > 0 else None
        if left <= 0 and self.feed.pending:
            self.post_message(EventsAvailable())

    def _key_answered(self) -> None:
        """The key's frame is on screen (the fold goes on once keys pause: _quiet_over)."""
        self.pacer.key_answered()
        if self._quiet_timer is None and self.feed.pending:
            self.post_message(EventsAvailable())  # keys paused before this frame was out

    @on(EventsAvailable)
    def _events_available(self) -> None:
        if self.replay is not None:
            # Replay folds as the reader delivers (bounds what waits in the feed), a slice at a
            # time so that keys get in between, and not at all while keys are coming; only
            # showing the new state is paced like a live run's.
            if self.pacer.keys_coming():
                return  # _quiet_over picks it up again
            if self._drain(FOLD_SLICE):
                self._dirty = True
            if self.feed.pending:
                self.post_message(EventsAvailable())
        if self.pacer.flush_due():
            self._flush()

    def _schedule_flush(self) -> None:
        self.set_timer(self.pacer.flush_delay, self._flush_tick)

    def _flush_tick(self) -> None:
        self._flush()
        self._schedule_flush()

    def _drain(self, limit: int | None = None) -> bool:
        drained = False
        for start, chunk in self.feed.drain(limit):
            self.store.apply(chunk, start)
            drained = True
        if drained:
            # The summaries live as long as the screen: out of the collector's young generation
            # with them, or every collection walks them all again (ms each).
            app_tuning(self.app).spare_long_lived()
        return drained

    def _flush(self) -> None:
        if self.pacer.navigating():
            return  # someone is navigating: new events wait a moment rather than slow their keys
        # A replay's backlog can be thousands of events: the flush shows one slice more, the
        # rest is folded by _events_available between keys.
        showed = self._drain(FOLD_SLICE if self.replay is not None else None) or self._dirty
        if showed:
            self._flush_now()
        self.pacer.flushed(showed)

    def _flush_now(self) -> None:
        self._dirty = False
        self._sync_notices()
        last = max(0, len(self.store.steps) - 1)
        if (self.live is not None or self.following) and self._tail:
            self.selected = last
        self.revision += 1

    def _sync_notices(self) -> None:
        """Add what the reader found while parsing (damaged lines) and the fold kept raw (unknown kinds)."""
        from_reader = self.reader.notices if self.reader is not None else []
        sizes = (len(from_reader), len(self.store.notices))
        if sizes == self._notice_sizes:
            return  # the usual case: nothing new (both lists only grow)
        self._notice_sizes = sizes
        shown = set(self.notices)
        self.notices.extend(n for n in [*from_reader, *self.store.notices] if n not in shown)

    @work(thread=True, exclusive=True, group="reader", exit_on_error=False, description="indexing the trace")
    def open_reader(self) -> None:
        """Open (index) the trace with the TraceReader off the UI thread."""
        from qitos.trace.reader import TraceError, TraceReader

        assert self.replay is not None
        try:
            reader = TraceReader(self.replay)
        except (TraceError, OSError) as exc:
            self.post_message(ReaderOpened(None, f"cannot read {self.replay}: {exc}"))
            return
        self.post_message(ReaderOpened(reader, None))

    @on(ReaderOpened)
    def _reader_opened(self, message: ReaderOpened) -> None:
        if message.reader is None:
            self.notices.append(str(message.problem))
            self.revision += 1
            return
        reader = self.reader = message.reader
        head = len(self.store.source)
        self.store.source = reader  # same indices: HeadSource counts lines as the reader does
        self.store.declared_status = reader.status
        self.notices.extend(reader.notices)
        self.revision += 1
        if len(reader) > head:
            self.fold_trace(head)
        else:
            self._start_follow(head)

    @work(thread=True, exclusive=True, group="fold", exit_on_error=False, description="folding the trace")
    def fold_trace(self, start: int) -> None:
        """Read every event after the first paint and hand it to the fold in blocks, with progress.

        The reader gives each block's lines as parsed objects (records), which the store folds as
        it would their RunEvents: a RunEvent per line would cost as much as parsing it."""
        assert self.reader is not None  # the fold starts once the reader is open
        worker = get_current_worker()
        total = len(self.reader)
        index = start
        reported = 0.0
        for index, records in self.reader.records(start):
            if self.pacer.keys_coming():
                # Keys first: the fold would hold the GIL half the time and halve the screen's
                # speed, so it waits until the key's frame is drawn, and while keys keep coming
                # (a key held down), until they pause: it goes on between bursts of keys.
                self.pacer.wait_for_keys()
            if worker.is_cancelled:
                return
            self.feed.push(records, index)
            index += len(records)
            if time.monotonic() - reported >= PROGRESS_SECONDS:
                reported = time.monotonic()
                self.post_message(FoldProgress(index, total))
            # Back-pressure: parsed events are big; never let many wait for the UI thread.
            while self.feed.pending > FOLD_BACKLOG and not worker.is_cancelled:
                time.sleep(0.005)
        self.post_message(FoldFinished(max(index, start)))

    @on(FoldProgress)
    def _progress(self, message: FoldProgress) -> None:
        pct = 100 * message.done // max(1, message.total)
        self.fold_progress = f"folding {pct}% ({message.done}/{message.total} events)"

    @on(FoldFinished)
    def _fold_done(self, message: FoldFinished) -> None:
        self.fold_progress = ""
        # The fold's summaries live as long as the screen: keep the cyclic GC from walking them
        # again and again (a full collection over a big trace's summaries stalls keys).
        app_tuning(self.app).spare_long_lived()
        self._start_follow(message.total)

    # ---- following a trace that is still being written ----------------------------------------
    def _start_follow(self, start: int) -> None:
        # Only once everything indexed so far is folded: the follow hands over from event `start`.
        from qitos.trace.events import STATUS_RUNNING

        if self.reader is None or not (self.follow_writes or self.reader.status == STATUS_RUNNING):
            return
        self.following = True
        self._flush_now()  # like a live run, the selection keeps to the newest step
        self.follow_trace(start)

    @work(exclusive=True, group="follow", exit_on_error=False, description="following the trace")
    async def follow_trace(self, start: int) -> None:
        """Fold events another process appends to the trace, until the run is finished."""
        assert self.reader is not None  # following starts once the reader is open
        end = await follow_run(
            self.reader,
            start,
            deliver=self.feed.push,  # the same feed and fold as the background fold's
            on_status=self._status_changed,
            stop_event=self._follow_stop,
        )
        self.post_message(FollowUpdate(end.status, done=True, problem=end.problem))

    @on(FollowUpdate)
    def _follow_update(self, message: FollowUpdate) -> None:
        changed = message.status != self.store.declared_status
        self.store.declared_status = message.status
        if message.problem:
            self.notices.append(message.problem)
        if message.done:
            self.follow_result = message.status
            self.following = False
        if changed or message.done:
            # Posted after the events that led to it, which wait in the feed: show them with it
            # (new events alone are shown at the feed's own pace).
            self._drain()
            self._flush_now()

    def stop_feeding(self) -> None:
        """Stop reading the trace: the background fold, the indexing and the follow end now."""
        self.workers.cancel_group(self, "fold")
        self.workers.cancel_group(self, "reader")
        self._follow_stop.set()

    def on_unmount(self) -> None:
        # The watcher waits on a thread that only the stop event ends promptly.
        self._follow_stop.set()
        app_tuning(self.app).release()  # what this screen kept is garbage now

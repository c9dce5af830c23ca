"""Feeder: a run screen's fold, fed from a trace or a live run, shown in paced batches.

Events are folded and shown in batches: a flush drains the feed, folds what it holds and asks the
screen to push the new state down (``selected``, ``revision``). When to fold and when to flush is
the :class:`~tui.pacing.FoldPacer`'s to decide. Two words kept apart: *tail* is keeping the newest
step selected (as toolong says), *follow* is reading a trace that another process still writes;
both are the Feeder's state and nobody else's.
A replay paints from the head of its trace, then indexes and folds the rest in the background, and
follows the trace while another process writes it. Navigation keys come first throughout.
The workers that read the trace are declared on the screen (Textual's ``@work`` needs a DOM node);
their bodies are here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tui.feed import EventFeed, FoldedElsewhere
from tui.gc_tuning import app_tuning
from tui.messages import EventsAvailable, FoldFinished, FoldProgress, FollowUpdate, ReaderOpened
from tui.pacing import FoldPacer
from tui.replay import HeadSource
from tui.store import RunStore

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message
    from textual.timer import Timer

    from qitos.trace.reader import TraceReader
    from tui.fold_parts import PartJoin
    from tui.live import LiveRun

FIRST_PAINT_EVENTS = 400  # read before the first frame; the rest folds in the background
HEAD_FOLD_SLICE = 32  # the first frame's fold stops within this many events of filling the screen
FOLD_SLICE = 500  # events parsed and folded per turn of the UI thread (~3 ms), so keys get in between
PROGRESS_SECONDS = 0.1  # the shortest time between two fold progress updates
FOLD_BACKLOG = 2000  # events read ahead of the UI thread's fold (bounds the peak RSS)
# Fewer events than this fold in about a second on one core: not worth starting worker processes.
PARALLEL_MIN_EVENTS = 200_000


class FeedHost(Protocol):
    """What a Feeder asks of the screen it feeds: messages, timers, its workers, and the view."""

    @property
    def app(self) -> App[object]: ...  # whose GC tuning the fold's summaries are spared by

    def post_message(self, message: Message) -> bool: ...

    def set_timer(self, delay: float, callback: Callable[[], object]) -> Timer: ...

    def call_after_refresh(self, callback: Callable[[], object]) -> bool: ...

    def show_folded(self, newest: int | None) -> None:
        """New state is folded: select position ``newest`` (when not None) and push it down."""

    def show_progress(self, text: str) -> None:
        """How far the background fold has come ("" once it is done)."""

    def show_following(self, following: bool) -> None:
        """Whether the trace is being followed now."""

    def open_reader(self) -> object:
        """Start the worker that opens the trace (it calls :meth:`Feeder.open_reader`)."""

    def fold_trace(self, start: int) -> object:
        """Start the worker that folds the trace from ``start`` (:meth:`Feeder.fold_trace`)."""

    def follow_trace(self, start: int) -> object:
        """Start the worker that follows the trace from ``start`` (:meth:`Feeder.follow_trace`)."""

    def stop_workers(self, *groups: str) -> None:
        """Cancel the screen's workers in ``groups``."""


class Feeder:
    """Folds one run's events into its RunStore and has its screen show them in paced batches."""

    def __init__(
        self, host: FeedHost, store: RunStore, *, replay: Path | None = None, live: LiveRun | None = None
    ) -> None:
        self.host = host
        self.store = store
        self.replay = replay
        self.live = live
        self.feed = EventFeed(self._wake)
        # A replay with this many events after its first frame is folded in parts by worker
        # processes (tui.fold_parts), when there are two cores or more.
        self.parallel_min_events = PARALLEL_MIN_EVENTS
        self.reader: TraceReader | None = None  # once opened (replay)
        self.notices: list[str] = []
        self._shown_notices: set[str] = set()  # the texts in self.notices: a trace can have 100k
        self._notice_sizes = (0, 0)  # how many reader and fold notices _sync_notices has seen
        self._dirty = False
        self.pacer = FoldPacer()  # every timing decision: keys first, flushes spaced by their cost
        self._quiet_timer: Timer | None = None
        self.tail = True  # tail: the selection keeps to the newest step (live, or following a trace)
        self.following = False  # a replay reading its trace while another process writes it
        # Replay: follow the trace as another process writes it even if it is not running now
        # (`replay --follow`; set by the app). A running run is followed anyway.
        self.follow_writes = False
        self.follow_result: str | None = None  # the status following ended with
        self._follow_stop = asyncio.Event()

    def _wake(self) -> None:
        """Tell the UI thread that events wait in the feed (from any thread)."""
        self.host.post_message(EventsAvailable())

    def _status_changed(self, status: str) -> None:
        """The followed run's status changed (from the follow worker)."""
        self.host.post_message(FollowUpdate(status))

    def start(self) -> None:
        """Begin folding: a replay paints its head now and folds the rest in the background."""
        self._schedule_flush()
        if self.replay is not None:
            # First paint from the head of the trace (see tui.replay), folded only as far as the
            # screen has rows for steps (a few hundred events would fold twice as many at 80x24);
            # the reader is opened and the rest folded in the background once the frame is out.
            head = self.store.source
            records = head.records() if isinstance(head, HeadSource) else head.events()
            rows = self.host.app.size.height
            while len(self.store.steps) <= rows and self.store.apply(islice(records, HEAD_FOLD_SLICE)):
                pass
            self.flush_now()
            self.host.call_after_refresh(self.host.open_reader)

    # ---- tail: keeping the newest step selected -------------------------------------------------
    def selected(self, pos: int) -> None:
        """The selection moved to ``pos`` by a key: the tail holds while it is on the newest step."""
        self.tail = pos == len(self.store.steps) - 1

    def keep_newest(self) -> None:
        """Select the newest step from now on (a resumed run)."""
        self.tail = True

    # ---- pacing: keys first ---------------------------------------------------------------------
    def key_pressed(self) -> None:
        """A navigation key changed the selection: its frame goes before any fold work."""
        self.pacer.key_pressed()
        self.host.call_after_refresh(self._key_answered)
        if self._quiet_timer is None:
            self._quiet_timer = self.host.set_timer(self.pacer.fold_quiet, self._quiet_over)

    def _quiet_over(self) -> None:
        """No key for a moment, or keys still coming: fold on, or look again a little later."""
        left = self.pacer.quiet_in()
        self._quiet_timer = self.host.set_timer(left, self._quiet_over) if left > 0 else None
        if left <= 0 and self.feed.pending:
            self.host.post_message(EventsAvailable())

    def _key_answered(self) -> None:
        """The key's frame is on screen (the fold goes on once keys pause: _quiet_over)."""
        self.pacer.key_answered()
        if self._quiet_timer is None and self.feed.pending:
            self.host.post_message(EventsAvailable())  # keys paused before this frame was out

    def events_available(self) -> None:
        """Events wait in the feed: fold a slice of them (replay), and flush when one is due."""
        if self.replay is not None:
            # Replay folds as the reader delivers (bounds what waits in the feed), a slice at a
            # time so that keys get in between, and not at all while keys are coming; only
            # showing the new state is paced like a live run's.
            if self.pacer.keys_coming():
                return  # _quiet_over picks it up again
            if self.drain(FOLD_SLICE):
                self._dirty = True
            if self.feed.pending:
                self.host.post_message(EventsAvailable())
        if self.pacer.flush_due():
            self._flush()

    def _schedule_flush(self) -> None:
        self.host.set_timer(self.pacer.flush_delay, self._flush_tick)

    def _flush_tick(self) -> None:
        self._flush()
        self._schedule_flush()

    def drain(self, limit: int | None = None) -> bool:
        """Fold what waits in the feed (all of it, or about ``limit`` events); whether there was any."""
        drained = False
        for start, chunk in self.feed.drain(limit):
            if isinstance(chunk, FoldedElsewhere):
                assert self.reader is not None  # parts are folded from the reader's trace
                chunk.join(self.store, self.reader)
            else:
                self.store.apply(chunk, start)
            drained = True
        if drained:
            # The summaries live as long as the screen: out of the collector's young generation
            # with them, or every collection walks them all again (ms each).
            app_tuning(self.host.app).spare_long_lived()
        return drained

    def _flush(self) -> None:
        if self.pacer.navigating():
            return  # someone is navigating: new events wait a moment rather than slow their keys
        # A replay's backlog can be thousands of events: the flush shows one slice more, the
        # rest is folded by events_available between keys.
        showed = self.drain(FOLD_SLICE if self.replay is not None else None) or self._dirty
        if showed:
            self.flush_now()
        self.pacer.flushed(showed)

    def flush_now(self) -> None:
        """Show what is folded now, the newest step selected while the tail holds."""
        self._dirty = False
        self._sync_notices()
        keep_newest = (self.live is not None or self.following) and self.tail
        self.host.show_folded(max(0, len(self.store.steps) - 1) if keep_newest else None)

    def drain_and_show(self) -> None:
        """Fold everything that waits and show it now (the run answered, or its status changed)."""
        self.drain()
        self.flush_now()

    def _sync_notices(self) -> None:
        """Add what the reader found while parsing (damaged lines) and the fold kept raw (unknown kinds)."""
        from_reader = self.reader.notices if self.reader is not None else []
        sizes = (len(from_reader), len(self.store.notices))
        if sizes == self._notice_sizes:
            return  # the usual case: nothing new
        (seen_reader, seen_fold), self._notice_sizes = self._notice_sizes, sizes
        # Only what came since the last look: a trace of 100k damaged lines has as many notices
        # in each list, and going through them all again took ~55 ms a flush. The fold's only
        # grow; the reader's too, but for its one cut-off-tail notice, taken out when the tail
        # changes (so the new ones may start one place before where the last look ended).
        since = max(0, seen_reader - 1) if len(from_reader) >= seen_reader else 0
        self._add_unshown([*from_reader[since:], *self.store.notices[seen_fold:]])

    def _add_unshown(self, notices: list[str]) -> None:
        """Add the ``notices`` not yet shown, each once: the reader and the fold word a damaged line
        alike, and both notice it (the first frame's fold, and the reader when it reads it)."""
        for notice in notices:
            self._show(notice)

    def _show(self, notice: str, *, first: bool = False) -> None:
        """Add ``notice`` to the status bar's, at its end (or first), unless it is there already."""
        if notice not in self._shown_notices:
            self._shown_notices.add(notice)
            if first:
                self.notices.insert(0, notice)
            else:
                self.notices.append(notice)

    def add_notice(self, notice: str) -> None:
        """Put a notice of the screen's own in the status bar."""
        self._show(notice)
        self.host.show_folded(None)

    def put_notice_first(self, notice: str, *, replacing: str | None) -> None:
        """Put ``notice`` first in the status bar, in place of the one it updates (``replacing``)."""
        for old in (replacing, notice):  # the notice too: shown already, it moves to the front
            if old is not None and old in self._shown_notices:
                self._shown_notices.discard(old)
                self.notices.remove(old)
        self._show(notice, first=True)
        self.host.show_folded(None)

    # ---- the replay's reader and background fold ------------------------------------------------
    def open_reader(self) -> None:
        """Open (index) the trace with the TraceReader (on a worker thread)."""
        from qitos.trace.reader import TraceError, TraceReader

        assert self.replay is not None
        try:
            reader = TraceReader(self.replay)
        except (TraceError, OSError) as exc:
            self.host.post_message(ReaderOpened(None, f"cannot read {self.replay}: {exc}"))
            return
        self.host.post_message(ReaderOpened(reader, None))

    def reader_opened(self, message: ReaderOpened) -> None:
        """The reader is open: fold the rest of the trace, or follow it from here."""
        if message.reader is None:
            self.add_notice(str(message.problem))
            return
        reader = self.reader = message.reader
        head = self.store.event_count  # what the first frame folded of the head
        self.store.source = reader  # same indices: HeadSource counts lines as the reader does
        self.store.declared_status = reader.status
        self._add_unshown(reader.notices)
        self.host.show_folded(None)
        if len(reader) > head:
            self.host.fold_trace(head)
        else:
            self._start_follow(head)

    def fold_trace(self, start: int, cancelled: Callable[[], bool]) -> None:
        """Fold every event after the first paint, with progress (on a worker thread, until
        ``cancelled()``): a big trace in parts at once in worker processes (tui.fold_parts), each
        joined in its turn, the rest here."""
        from tui.fold_parts import PartFolder, PartJoin, worker_count  # not needed for the first frame

        assert self.reader is not None  # the fold starts once the reader is open
        total = len(self.reader)
        workers = worker_count()
        if total - start < self.parallel_min_events or workers < 2:
            self._fold_range(start, total, cancelled)
        else:
            folder = PartFolder(self.reader, start, workers)
            try:
                # Reading a part back holds the GIL: keys go first (no wait when none are coming).
                for first, stop, part in folder.results(before_reading=self.pacer.wait_for_keys):
                    if part is None or not self._join(PartJoin(part), first, cancelled):
                        self._fold_range(first, stop, cancelled)
                    if cancelled():
                        return
                    self.host.post_message(FoldProgress(stop, total))
            finally:
                folder.close()
        if not cancelled():
            self.host.post_message(FoldFinished(total))

    def _join(self, join: PartJoin, start: int, cancelled: Callable[[], bool]) -> bool:
        """Hand a folded part to the UI thread's fold, after what waits there, and wait for whether
        it was joined (on the fold's worker thread)."""
        self.pacer.wait_for_keys()
        self.feed.push(join, start)
        while not join.wait(0.05):
            if cancelled():
                return True  # nothing more is folded: no need to fold it here either
        return join.joined

    def _fold_range(self, start: int, stop: int, cancelled: Callable[[], bool]) -> None:
        """Read the events ``start`` up to ``stop`` and hand them to the UI thread's fold in blocks,
        with progress (on the fold's worker thread, until ``cancelled()``).

        The reader gives each block's lines as records (the line objects, which the store folds as
        it would their RunEvents: a RunEvent per line would cost as much as parsing it), parsed
        as they are folded, on the UI thread: blocks parsed here and folded there made the whole
        fold ~15 % slower, the two threads taking turns at the GIL and the records going cold
        while they waited."""
        assert self.reader is not None  # the fold starts once the reader is open
        total = len(self.reader)
        index = start
        reported = 0.0
        for index, records in self.reader.records(start, stop):
            if self.pacer.keys_coming():
                # Keys first: reading ahead takes the GIL too, so it waits until the key's frame
                # is drawn, and while keys keep coming (a key held down), until they pause: it
                # goes on between bursts of keys (the UI thread's fold waits for them as well).
                self.pacer.wait_for_keys()
            if cancelled():
                return
            self.feed.push(records, index)
            index += len(records)
            if time.monotonic() - reported >= PROGRESS_SECONDS:
                reported = time.monotonic()
                self.host.post_message(FoldProgress(index, total))
            # Back-pressure: never read far ahead of the UI thread's fold.
            while self.feed.pending > FOLD_BACKLOG and not cancelled():
                time.sleep(0.005)

    def progress(self, message: FoldProgress) -> None:
        """Say how far the background fold has come."""
        pct = 100 * message.done // max(1, message.total)
        self.host.show_progress(f"folding {pct}% ({message.done}/{message.total} events)")

    def fold_done(self, message: FoldFinished) -> None:
        """The background fold is through: show all of it now (the paced flush could be up to a
        second away, with "folding" already gone from the header), then follow the trace from
        here if it is still written."""
        self.drain_and_show()
        self.host.show_progress("")
        # The fold's summaries live as long as the screen: keep the cyclic GC from walking them
        # again and again (a full collection over a big trace's summaries stalls keys).
        app_tuning(self.host.app).spare_long_lived()
        self._start_follow(message.total)

    # ---- following a trace that is still being written ----------------------------------------
    def _start_follow(self, start: int) -> None:
        # Only once everything indexed so far is folded: the follow hands over from event `start`.
        from qitos.trace.events import STATUS_RUNNING

        if self.reader is None or not (self.follow_writes or self.reader.status == STATUS_RUNNING):
            return
        self._set_following(True)
        self.flush_now()  # like a live run, the selection keeps to the newest step
        self.host.follow_trace(start)

    def _set_following(self, following: bool) -> None:
        self.following = following
        self.host.show_following(following)

    async def follow_trace(self, start: int) -> None:
        """Fold events another process appends to the trace, until the run is finished (async worker)."""
        from tui.follow import follow_run  # only a trace still written needs it: not at launch

        assert self.reader is not None  # following starts once the reader is open
        end = await follow_run(
            self.reader,
            start,
            deliver=self.feed.push,  # the same feed and fold as the background fold's
            on_status=self._status_changed,
            stop_event=self._follow_stop,
        )
        self.host.post_message(FollowUpdate(end.status, done=True, problem=end.problem))

    def follow_update(self, message: FollowUpdate) -> None:
        """The followed run's status changed, or following ended."""
        changed = message.status != self.store.declared_status
        self.store.declared_status = message.status
        if message.problem:
            self._show(message.problem)
        if message.done:
            self.follow_result = message.status
            self._set_following(False)
        if changed or message.done:
            # Posted after the events that led to it, which wait in the feed: show them with it
            # (new events alone are shown at the feed's own pace).
            self.drain_and_show()

    def stop(self) -> None:
        """Stop reading the trace: the background fold, the indexing and the follow end now."""
        self.host.stop_workers("fold", "reader")
        self._follow_stop.set()

    def unmounted(self) -> None:
        """The screen is gone: end the watch, and let go of what the GC was told to spare."""
        # The watcher waits on a thread that only the stop event ends promptly.
        self._follow_stop.set()
        app_tuning(self.host.app).release()  # what this screen kept is garbage now

"""RunScreen: header, step list and the six panes over one RunStore, fed live or from a trace."""

from __future__ import annotations

import asyncio
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal, Vertical
from textual.lazy import Lazy
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Tab, Tabs
from textual.worker import get_current_worker

from tui.feed import EventFeed
from tui.follow import follow_run
from tui.gc_tuning import FrameFriendlyGC, spare_long_lived
from tui.messages import (
    EventsAvailable,
    FoldFinished,
    FoldProgress,
    FollowUpdate,
    ReaderOpened,
    RunCrashed,
    RunReturned,
    SearchResults,
)
from tui.panes.base import Pane
from tui.panes.budget import BudgetPane
from tui.panes.compaction import CompactionPane
from tui.panes.context import ContextPane
from tui.panes.exchanges import ExchangesPane
from tui.panes.memory import MemoryPane
from tui.panes.skills import SkillsPane
from tui.screens.dialogs import ConfirmDialog, ErrorScreen, HelpScreen, PromptDialog
from tui.search import export_request, search
from tui.store import ListSource, RunStore
from tui.widgets.run_header import RunHeader, StatusBar
from tui.widgets.step_list import StepList

if TYPE_CHECKING:
    from tui.live import LiveRun

PANES: tuple[type[Pane], ...] = (
    ExchangesPane,
    ContextPane,
    BudgetPane,
    CompactionPane,
    MemoryPane,
    SkillsPane,
)
FIRST_PAINT_EVENTS = 400  # folded before the first frame; the rest folds in the background
FOLD_CHUNK = 500  # events the background fold hands over at once
FOLD_SLICE = 500  # events folded per turn of the UI thread (a few ms), so keys get in between
PROGRESS_SECONDS = 0.1  # the shortest time between two fold progress updates
FOLD_BACKLOG = 6000  # parsed events allowed to wait for the UI thread (memory bound)
FOLD_YIELD_EVERY = 64  # events read between two looks at whether a key waits (< 1 ms)
KEY_WAIT_SECONDS = 0.25  # the longest the background fold waits for a key's frame to be drawn
KEY_QUIET_SECONDS = 0.25  # after a navigation key, new events are shown no sooner than this
FLUSH_SECONDS = 0.05  # the shortest time between two flushes of folded events to the screen
FLUSH_MAX_SECONDS = 1.0
FLUSH_COST_FACTOR = 20  # UI CPU per flush x this = the wait before the next one (UI share <= 5 %)
DIGITS = frozenset("0123456789")
WIDE = (160, 45)  # from this size on, every pane is on screen at once


class RunScreen(Screen[None]):
    """One run: navigate its steps, read each pane at the selected step, pause and resume it live."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "step(-1)", "Prev"),
        Binding("right,l", "step(1)", "Next"),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("g", "goto", "Go to"),
        Binding("slash", "search", "Search"),
        Binding("n", "match(1)", "Next match", show=False),
        Binding("N", "match(-1)", "Prev match", show=False),
        Binding("e", "export", "Export"),
        Binding("p", "pause", "Pause"),
        Binding("r", "resume", "Resume"),
        Binding("s", "single_step", "Step"),
        Binding("x", "expand", "Expand", show=False),
        Binding("v", "raw", "Raw JSON", show=False),
        *(Binding(str(k + 1), f"pane({k})", pane.TITLE, show=False) for k, pane in enumerate(PANES)),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "back", "Runs", show=False),
    ]

    selected: reactive[int] = reactive(0, repaint=False)
    """Position of the selected step; pushed down to the step list, the header and every pane."""
    revision: reactive[int] = reactive(0, repaint=False)
    """Bumped after the store folded new events (at most once per refresh tick)."""
    expanded: reactive[bool] = reactive(False, repaint=False)
    """Exchanges pane: show long payloads whole."""
    raw: reactive[bool] = reactive(False, repaint=False)
    """Exchanges pane: show raw event JSON."""
    search_text: reactive[str] = reactive("", repaint=False)
    active_pane: reactive[int] = reactive(0, repaint=False)
    """Which pane the tabs show on a small terminal."""
    """The current search text."""

    def __init__(
        self,
        store: RunStore,
        *,
        replay: Path | None = None,
        live: LiveRun | None = None,
        export_dir: Path | None = None,
        from_list: bool = False,
        panes: tuple[type[Pane], ...] | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        # The six panes; the app swaps in the disk-backed Memory / Skills browsers when it knows
        # where the stores are (titles and order never change, so the key bindings hold).
        self.panes = panes if panes is not None else PANES
        self.replay = replay
        self.live = live
        self.export_dir = export_dir or Path.cwd()
        self.from_list = from_list
        self.feed = EventFeed(lambda: self.post_message(EventsAvailable()))
        self.matches: list[tuple[int, int]] = []
        self.reader: Any = None  # the TraceReader, once opened (replay)
        self.notices: list[str] = []
        self._dirty = False
        self._flush_delay = FLUSH_SECONDS
        self._last_flush = 0.0
        self._cpu_mark = 0.0
        # Cleared by a navigation key until its frame is on screen; the background fold waits on it.
        self._keys_answered = threading.Event()
        self._keys_answered.set()
        self._last_key = 0.0
        self._goto: str | None = None  # the step id typed so far after `g`
        self._follow = True
        self._engine_running = False
        # Replay: follow the trace as another process writes it even if it is not running now
        # (`replay --follow`; set by the app). A running run is followed anyway.
        self.follow_writes = False
        self.following = False
        self.follow_result: str | None = None  # the status following ended with
        self._follow_stop = asyncio.Event()
        self._gc = FrameFriendlyGC()

    # ---- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield RunHeader(self.store, id="header").data_bind(RunScreen.selected, RunScreen.revision)
        yield StatusBar(self.store, self.notices, id="status").data_bind(RunScreen.revision)
        with Horizontal(id="body"):
            yield StepList(self.store, id="steps").data_bind(
                cursor=RunScreen.selected, revision=RunScreen.revision
            )
            with Vertical(id="pane-area"):
                yield Tabs(
                    *(Tab(f"{k + 1} {p.TITLE}", id=f"tab-{k}") for k, p in enumerate(self.panes)),
                    id="pane-tabs",
                )
                with Container(id="panes"):
                    for k, pane_cls in enumerate(self.panes):
                        pane = pane_cls(self.store, index=k, id=f"pane-{pane_cls.TITLE.lower()}")
                        pane.data_bind(RunScreen.selected, RunScreen.revision, RunScreen.active_pane)
                        if isinstance(pane, ExchangesPane):
                            pane.data_bind(RunScreen.expanded, RunScreen.raw, RunScreen.search_text)
                        # Only the first pane is needed for the first frame at 80x24; the others
                        # mount right after it (and are all shown at once on a large terminal).
                        yield pane if k == 0 else Lazy(pane)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self._gc.start()
        self.query_one("#pane-tabs", Tabs).can_focus = False
        self.query_one(StepList).focus()
        self._apply_size()
        self._schedule_flush()
        if self.replay is not None:
            # First paint from the head of the trace (see tui.replay); the reader is opened and
            # the rest folded in the background once the first frame is out.
            self.store.apply(self.store.source.events(), 0)
            self._flush_now()
            self.call_after_refresh(self.open_reader)
        if self.live is not None:
            self._engine_running = True
            # Start once the screen is up: the first frame would otherwise compete with the run.
            self.call_after_refresh(self._start_engine)

    def on_resize(self) -> None:
        self._apply_size()

    def _apply_size(self) -> None:
        wide = self.size.width >= WIDE[0] and self.size.height >= WIDE[1]
        if wide != self.has_class("-wide"):
            self.set_class(wide, "-wide")
            # Panes hidden in tabs skipped rendering; now they may all be on screen.
            self.call_after_refresh(lambda: [pane.show() for pane in self.query(Pane)])

    # ---- feeding the fold ----------------------------------------------------------------------
    # Events are folded and shown in batches: a flush drains the feed, folds what it holds and
    # pushes the new state down. The time between flushes grows with what a flush costs, so the
    # UI takes a small share of the process while an Engine in the same process streams events;
    # an event after a quiet spell (a slow model call) is shown at once. Keys never wait for this.
    @on(EventsAvailable)
    def _events_available(self) -> None:
        if self.replay is not None:
            # Replay folds as the reader delivers (bounds what waits in the feed), a slice at a
            # time so that keys get in between, and not at all while a key waits for its frame;
            # only showing the new state is paced like a live run's.
            if not self._keys_answered.is_set():
                return  # _key_answered picks it up again
            if self._drain(FOLD_SLICE):
                self._dirty = True
            if self.feed.pending:
                self.post_message(EventsAvailable())
        if time.perf_counter() - self._last_flush >= self._flush_delay:
            self._flush()

    def _schedule_flush(self) -> None:
        self.set_timer(self._flush_delay, self._flush_tick)

    def _flush_tick(self) -> None:
        self._flush()
        self._schedule_flush()

    def _drain(self, limit: int | None = None) -> bool:
        drained = False
        for start, chunk in self.feed.drain(limit):
            self.store.apply(chunk, start)
            drained = True
        return drained

    def _flush(self) -> None:
        if time.monotonic() - self._last_key < KEY_QUIET_SECONDS:
            return  # someone is navigating: new events wait a moment rather than slow their keys
        # A replay's backlog can be thousands of events: the flush shows one slice more, the
        # rest is folded by _events_available between keys.
        if self._drain(FOLD_SLICE if self.replay is not None else None) or self._dirty:
            self._flush_now()
            # The UI thread's CPU time since the last flush covers the previous frame's rendering
            # too; wait long enough that this costs at most 1/FLUSH_COST_FACTOR of the time.
            spent = time.thread_time() - self._cpu_mark
            self._flush_delay = min(FLUSH_MAX_SECONDS, max(FLUSH_SECONDS, spent * FLUSH_COST_FACTOR))
        else:
            self._flush_delay = FLUSH_SECONDS
        self._cpu_mark = time.thread_time()
        self._last_flush = time.perf_counter()

    def _flush_now(self) -> None:
        self._dirty = False
        last = max(0, len(self.store.steps) - 1)
        if (self.live is not None or self.following) and self._follow:
            self.selected = last
        self.revision += 1

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
        """Read every event after the first paint and hand it to the fold in chunks, with progress."""
        worker = get_current_worker()
        total = len(self.reader)
        chunk: list[Any] = []
        index = start
        reported = 0.0
        for count, event in enumerate(self.reader.events(start), 1):
            chunk.append(event)
            if count % FOLD_YIELD_EVERY == 0 and not self._keys_answered.is_set():
                # Keys first: the fold would hold the GIL half the time and halve the screen's
                # speed, so it waits until the key's frame is drawn (bounded: a key held down
                # slows the fold, never stops it).
                self._keys_answered.wait(KEY_WAIT_SECONDS)
            if len(chunk) >= FOLD_CHUNK:
                if worker.is_cancelled:
                    return
                self.feed.push(chunk, index)
                # Parsed events live until folded and summaries for good: out of the collector's
                # young generation with them, or every collection walks them all again (ms each).
                spare_long_lived()
                index += len(chunk)
                chunk = []
                if time.monotonic() - reported >= PROGRESS_SECONDS:
                    reported = time.monotonic()
                    self.post_message(FoldProgress(index, total))
                # Back-pressure: parsed events are big; never let many wait for the UI thread.
                while self.feed.pending > FOLD_BACKLOG and not worker.is_cancelled:
                    time.sleep(0.005)
        self.feed.push(chunk, index)
        self.post_message(FoldFinished(index + len(chunk)))

    @on(FoldProgress)
    def _progress(self, message: FoldProgress) -> None:
        pct = 100 * message.done // max(1, message.total)
        self.query_one(RunHeader).progress = f"folding {pct}% ({message.done}/{message.total} events)"

    @on(FoldFinished)
    def _fold_done(self, message: FoldFinished) -> None:
        self.query_one(RunHeader).progress = ""
        # The fold's summaries live as long as the screen: keep the cyclic GC from walking them
        # again and again (a full collection over a big trace's summaries stalls keys).
        spare_long_lived()
        self._start_follow(message.total)

    # ---- following a trace that is still being written ----------------------------------------
    def _start_follow(self, start: int) -> None:
        # Only once everything indexed so far is folded: the follow hands over from event `start`.
        from qitos.trace.events import STATUS_RUNNING

        if self.reader is None or not (self.follow_writes or self.reader.status == STATUS_RUNNING):
            return
        self.following = True
        self.query_one(RunHeader).following = True
        self._flush_now()  # like a live run, the selection keeps to the newest step
        self.follow_trace(start)

    @work(exclusive=True, group="follow", exit_on_error=False, description="following the trace")
    async def follow_trace(self, start: int) -> None:
        """Fold events another process appends to the trace, until the run is finished."""
        end = await follow_run(
            self.reader,
            start,
            deliver=self.feed.push,  # the same feed and fold as the background fold's
            on_status=lambda status: self.post_message(FollowUpdate(status)),
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
            self.query_one(RunHeader).following = False
        if changed or message.done:
            # Posted after the events that led to it, which wait in the feed: show them with it
            # (new events alone are shown at the feed's own pace).
            self._drain()
            self._flush_now()

    def on_unmount(self) -> None:
        # The watcher waits on a thread that only the stop event ends promptly.
        self._follow_stop.set()
        self._gc.stop()

    # ---- live engine --------------------------------------------------------------------------
    def _sink(self, event: Any) -> None:
        assert isinstance(self.store.source, ListSource)
        self.store.source.append(event)
        self.feed.push([event])

    def _start_engine(self) -> None:
        # The app's widgets live as long as the run: freeze them out of the cyclic GC, which the
        # Engine's allocations would otherwise make walk the whole UI again and again.
        spare_long_lived()
        self.run_engine(resume=False)

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False, description="running the agent")
    def run_engine(self, resume: bool) -> None:
        """Run (or resume) the Engine on this worker thread; report how it returned."""
        live = self.live
        assert live is not None
        try:
            if not resume:
                live.build(self._sink)
            result = live.resume() if resume else live.start()
        except Exception as exc:  # the agent raised out of the Engine: show it, do not crash the UI
            detail = "".join(traceback.format_exception(exc))
            self.post_message(RunCrashed(f"The agent raised {type(exc).__name__}: {exc}", detail))
            return
        status = str(getattr(result, "status", "") or "")
        stop = getattr(result, "stop_reason", None)
        self.post_message(RunReturned(status, live.snapshot, str(stop) if stop is not None else None))

    @on(RunReturned)
    def _returned(self, message: RunReturned) -> None:
        self._engine_running = False
        self._drain()
        self._flush_now()
        self.refresh_bindings()
        # The run answered the last request (resume, step or pause): its state now speaks for itself.
        self.query_one(StatusBar).note = ""
        if message.snapshot is None and self.store.display_status == "failed":
            self.app.push_screen(ErrorScreen("The run failed", self._failure_text()))

    def _failure_text(self) -> str:
        for step in reversed(self.store.steps):
            for i in reversed(step.errors):
                p = self.store.load(i).payload
                return f"{p.get('category', 'error')} at step {step.step}: {p.get('message')}\n\n{p.get('details', '')}"
            if step.error:
                return f"step {step.step}: {step.error}"
        return f"stop reason: {self.store.stop_reason}"

    @on(RunCrashed)
    def _crashed(self, message: RunCrashed) -> None:
        self._engine_running = False
        self._drain()
        self._flush_now()
        if self.store.status == "running":
            self.store.status = "failed"
        self.refresh_bindings()
        self.app.push_screen(ErrorScreen(message.title, message.detail))

    @property
    def engine_running(self) -> bool:
        """Whether the Engine is running (asked to start, or resumed) and has not returned yet."""
        return self._engine_running

    @property
    def is_live(self) -> bool:
        """Whether a live run is still going or paused (not yet finished)."""
        return self.live is not None and (self._engine_running or self.live.snapshot is not None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide live-only keys in replay; grey out those that do not apply right now."""
        if action in ("pause", "resume", "single_step"):
            if self.live is None:
                return False
            paused = self.live.snapshot is not None
            if action == "resume":
                return True if paused else None
            if action == "pause":
                return True if self._engine_running else None
            return True if (paused or self._engine_running) else None
        if action == "back":
            return self.from_list
        return True

    def action_pause(self) -> None:
        """Ask the TUI's lifecycle policy to pause at the next step boundary."""
        if self.live is None or not self._engine_running:
            return
        self.live.policy.request_pause()
        self.query_one(StatusBar).note = "pause requested: the run stops at the next step boundary"

    def action_resume(self) -> None:
        """Resume the paused run from its snapshot."""
        if self.live is None or self.live.snapshot is None:
            self.notify("nothing to resume: the run is not paused", severity="warning")
            return
        self._start_resume("resumed")

    def action_single_step(self) -> None:
        """Run one step and pause again."""
        if self.live is None:
            return
        pause = self.store.pause
        current = pause.step if pause is not None else (self.store.steps[-1].step if self.store.steps else 0)
        self.live.policy.request_step(current)
        if self.live.snapshot is not None:
            self._start_resume(f"running step {current}, then pausing")
        else:
            self.query_one(StatusBar).note = f"pausing after step {current}"

    def _start_resume(self, note: str) -> None:
        self._engine_running = True
        self._follow = True
        self.query_one(StatusBar).note = note
        self.refresh_bindings()
        self.run_engine(resume=True)

    # ---- navigation --------------------------------------------------------------------------
    def _select(self, pos: int) -> None:
        self._last_key = time.monotonic()
        self._keys_answered.clear()
        self.call_after_refresh(self._key_answered)
        n = len(self.store.steps)
        if n == 0:
            return
        self.selected = max(0, min(n - 1, pos))
        self._follow = self.selected == n - 1

    def _key_answered(self) -> None:
        """The key's frame is on screen: the fold may go on (on both threads)."""
        self._keys_answered.set()
        if self.feed.pending:
            self.post_message(EventsAvailable())

    @on(StepList.Selected)
    def _picked(self, message: StepList.Selected) -> None:
        self._select(message.pos)

    def action_step(self, delta: int) -> None:
        """Select the previous or next step."""
        self._select(self.selected + delta)

    def action_edge(self, last: int) -> None:
        """Select the first or the last step."""
        self._select(len(self.store.steps) - 1 if last else 0)

    def action_goto(self) -> None:
        """Read a step id typed right into the header line; Enter goes there, Esc cancels."""
        # Typed in place rather than in a dialog: closing a dialog redraws and lays out the whole
        # screen, which made the jump itself slow on a wide terminal.
        self._goto = ""
        self.query_one(RunHeader).prompt = ""

    def on_key(self, event: events.Key) -> None:
        """While a step id is being typed after `g`, every key goes to it (no other binding)."""
        if self._goto is None:
            if event.key == "g":
                # Started here, not by the binding (which the App runs only after the keys that
                # follow have bubbled past this screen: "g12" typed fast would lose the digits).
                event.stop()
                event.prevent_default()
                self.action_goto()
            return
        event.stop()
        event.prevent_default()
        if event.key == "escape":
            self._goto = None
        elif event.key == "enter":
            typed, self._goto = self._goto, None
            self._go_to_step(typed)
        elif event.key == "backspace":
            self._goto = self._goto[:-1]
        elif event.character is not None and event.character in DIGITS:
            self._goto += event.character
        self.query_one(RunHeader).prompt = self._goto

    def _go_to_step(self, typed: str) -> None:
        if not typed:
            return
        pos = self.store.step_pos.get(int(typed))
        if pos is None:
            self.notify(f"no step {typed} in this run", severity="error")
            return
        self._select(pos)

    def action_search(self) -> None:
        """Ask for text to find in exchanges and tool results."""

        def done(answer: str | None) -> None:
            if answer:
                self.search_text = answer
                self.query_one(StatusBar).note = f"searching for {answer!r}…"
                self.run_search(answer)

        self.app.push_screen(PromptDialog("Search exchanges and tool results", value=self.search_text), done)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="searching")
    def run_search(self, query: str) -> None:
        """Scan the exchanges for ``query`` off the UI thread."""
        worker = get_current_worker()
        self.post_message(
            SearchResults(query, search(self.store, query, cancelled=lambda: worker.is_cancelled))
        )

    @on(SearchResults)
    def _found(self, message: SearchResults) -> None:
        self.matches = message.matches
        steps = self.query_one(StepList)
        steps.matches = {pos for pos, _ in message.matches}
        steps.refresh()
        if not message.matches:
            self.query_one(StatusBar).note = f"no match for {message.query!r}"
            return
        self.action_match(1, from_current=True)

    def action_match(self, delta: int, from_current: bool = False) -> None:
        """Jump to the next (1) or previous (-1) step matching the search."""
        if not self.matches:
            self.notify("no search results: press / to search", severity="warning")
            return
        positions = [pos for pos, _ in self.matches]
        cur = self.selected
        if delta > 0:
            ahead = [p for p in positions if (p >= cur if from_current else p > cur)]
            target = ahead[0] if ahead else positions[0]
        else:
            behind = [p for p in positions if p < cur]
            target = behind[-1] if behind else positions[-1]
        self._select(target)
        k = positions.index(target) + 1
        self.query_one(StatusBar).note = f"match {k} of {len(positions)} for {self.search_text!r} (n / N)"

    def action_export(self) -> None:
        """Write the selected step's request as JSON and say where."""
        if not self.store.steps:
            return
        try:
            path = export_request(self.store, self.selected, self.export_dir)
        except (ValueError, OSError) as exc:
            self.notify(f"export failed: {exc}", severity="error")
            return
        self.query_one(StatusBar).note = f"exported request to {path}"
        self.notify(f"exported to {path}")

    def action_expand(self) -> None:
        """Fold or unfold long payloads in the Exchanges pane."""
        self.expanded = not self.expanded

    def action_raw(self) -> None:
        """Toggle raw JSON in the Exchanges pane."""
        self.raw = not self.raw

    def action_pane(self, index: int) -> None:
        """Show pane ``index`` (when the panes are in tabs)."""
        self.query_one("#pane-tabs", Tabs).active = f"tab-{index}"

    @on(Tabs.TabActivated)
    def _tab(self, event: Tabs.TabActivated) -> None:
        self.active_pane = int(str(event.tab.id).removeprefix("tab-"))

    def action_help(self) -> None:
        """Show every key, from the bindings."""
        keys: dict[str, list[str]] = {}
        described: dict[str, str] = {}
        for active in self.active_bindings.values():
            binding = active.binding
            keys.setdefault(binding.action, []).append(self.app.get_key_display(binding))
            described.setdefault(binding.action, binding.description or binding.action)
        rows = [(" / ".join(k), described[action]) for action, k in keys.items()]
        self.app.push_screen(HelpScreen(rows))

    def action_back(self) -> None:
        """Back to the run list."""
        if self.from_list:
            self.workers.cancel_group(self, "fold")
            self.workers.cancel_group(self, "reader")
            self._follow_stop.set()
            self.dismiss(None)

    async def request_quit(self) -> None:
        """Quit, asking first while a run is live; cancel the run so its trace is finalised."""
        if not self.is_live:
            self.app.exit()
            return

        def answer(yes: bool | None) -> None:
            if yes:
                if self.live is not None:
                    self.live.cancel()
                self.app.exit()

        self.app.push_screen(ConfirmDialog("A run is live. Quit anyway?"), answer)

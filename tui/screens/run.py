"""RunScreen: header, step list and the six panes over one RunStore, fed live or from a trace.

The screen composes the view and owns the reactive state it pushes down; the work is its helpers':
the Feeder folds the events (and holds the tail and follow state), the LiveController runs the
Engine (p / r / s), PauseActions decides a pause before acting (a / d / c / i) and ForkAction forks
the run (f). The workers are declared here (``@work`` needs a DOM node) and run the helpers' code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer
from textual.worker import get_current_worker

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
from tui.panes.base import Pane, PaneFactory
from tui.panes.deferred import DeferredPane
from tui.panes.exchanges import ExchangesPane
from tui.prefetch import Prefetcher
from tui.screens import fork_action, live_control, pause_actions
from tui.screens.feeding import Feeder
from tui.screens.fork_action import ForkAction
from tui.screens.live_control import LiveController
from tui.screens.pause_actions import PauseActions
from tui.store import RunStore
from tui.text import inert_str
from tui.widgets.keys_footer import KeysFooter
from tui.widgets.pane_tabs import PaneTabs
from tui.widgets.run_header import RunHeader, StatusBar
from tui.widgets.step_list import StepList

if TYPE_CHECKING:
    from qitos.trace.reader import TraceReader
    from tui.feed import EventFeed
    from tui.live import LiveRun
    from tui.pacing import FoldPacer
    from tui.panes.events import EventsPane

# The first pane is the one a narrow terminal shows first; the others' modules load when they are
# built, right after the first frame (tui.panes.deferred).
PANES: tuple[PaneFactory, ...] = (
    ExchangesPane,
    DeferredPane("tui.panes.context", "ContextPane", "Context"),
    DeferredPane("tui.panes.budget", "BudgetPane", "Budget"),
    DeferredPane("tui.panes.compaction", "CompactionPane", "Compaction"),
    DeferredPane("tui.panes.memory", "MemoryPane", "Memory"),
    DeferredPane("tui.panes.skills", "SkillsPane", "Skills"),
    DeferredPane("tui.panes.events", "EventsPane", "Events"),
)
# Tab labels on a narrow terminal, where the full titles do not all fit beside the step list.
SHORT_TITLES = {
    "Exchanges": "Exch",
    "Context": "Ctx",
    "Budget": "Budg",
    "Compaction": "Comp",
    "Memory": "Mem",
    "Skills": "Skill",
    "Events": "Evts",
}
DIGITS = frozenset("0123456789")
WIDE = (160, 45)  # from this size on, every pane is on screen at once
# Rendering ahead starts this long after a key: its frame is drawn first (within a frame interval,
# 1/120 s; call_after_refresh may run before it, when the screen is idle but not yet dirty).
PREFETCH_AFTER_SECONDS = 0.02


class RunScreen(Screen[None]):
    """One run: navigate its steps, read each pane at the selected step, pause and resume it live."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *pause_actions.BINDINGS,
        *fork_action.BINDINGS,
        Binding("left,h", "step(-1)", "Prev"),
        Binding("right,l", "step(1)", "Next"),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("g", "goto", "Go to"),
        Binding("slash", "search", "Search"),
        Binding("n", "match(1)", "Next match", show=False),
        Binding("N", "match(-1)", "Prev match", show=False),
        Binding("e", "export", "Export"),
        Binding("y", "copy_text", "Copy the pane's text", show=False),
        Binding("o", "open_text", "Open the pane's text in $EDITOR", show=False),
        Binding("p", "pause", "Pause"),
        Binding("r", "resume", "Resume"),
        Binding("s", "single_step", "Step"),
        Binding("x", "expand", "Expand", show=False),
        Binding("v", "raw", "Raw JSON", show=False),
        Binding("w", "whole", "Whole request", show=False),
        *(
            Binding(str(k + 1), f"pane({k})", f"Focus {pane.TITLE}", show=False)
            for k, pane in enumerate(PANES)
        ),
        Binding("z", "zoom", "Zoom pane", show=False),
        Binding("tab", "app.focus_next", "Next pane", show=False),
        Binding("shift+tab", "app.focus_previous", "Previous pane", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "back", "Runs", show=False),
    ]

    selected: reactive[int] = reactive(0, repaint=False)
    """Position of the selected step; pushed down to the step list, the header and every pane."""
    revision: reactive[int] = reactive(0, repaint=False)
    """Bumped after the store folded new events (at most once per flush)."""
    fold_progress: reactive[str] = reactive("", repaint=False)
    """How far the background fold of a replay has come ("" when it is not running)."""
    following: reactive[bool] = reactive(False, repaint=False)
    """Shown in the header: the Feeder follows the trace while another process writes it."""
    note: reactive[str] = reactive("", repaint=False)
    """A transient line for the status bar (pause requested, export written, search results)."""
    expanded: reactive[bool] = reactive(False, repaint=False)
    """Exchanges pane: show long payloads whole."""
    raw: reactive[bool] = reactive(False, repaint=False)
    """Exchanges pane: show raw event JSON."""
    search_text: reactive[str] = reactive("", repaint=False)
    """The current search text."""
    whole: reactive[bool] = reactive(False, repaint=False)
    """Exchanges pane: whole requests instead of what changed since the previous one."""
    active_pane: reactive[int] = reactive(0, repaint=False)
    """Which pane the tabs show on a small terminal."""
    zoomed: reactive[int | None] = reactive(None, repaint=False)
    """The pane zoomed to the whole screen (`z`), if any."""

    def __init__(
        self,
        store: RunStore,
        *,
        replay: Path | None = None,
        live: LiveRun | None = None,
        export_dir: Path | None = None,
        from_list: bool = False,
        panes: tuple[PaneFactory, ...] | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.replay = replay
        self.live = live
        self.feeder = Feeder(self, store, replay=replay, live=live)
        self.notices = self.feeder.notices  # the status bar's: the Feeder and its peers add to it
        self.live_control = LiveController(self, live, self.feeder)
        self.pause_actions = PauseActions(self, self.live_control)
        # The six panes; the app swaps in the disk-backed Memory / Skills browsers when it knows
        # where the stores are (titles and order never change, so the key bindings hold).
        self.panes = panes if panes is not None else PANES
        self.export_dir = export_dir or Path.cwd()
        self.fork_action = ForkAction(self, self.live_control, replay=replay, export_dir=self.export_dir)
        self.from_list = from_list
        self.matches: list[tuple[int, int]] = []
        self._search_scope = ""  # " (in the n of m events folded so far)" for a partial search
        self._goto: str | None = None  # the step id typed so far after `g`
        self._prefetch = Prefetcher()
        self._prefetch_timer: Timer | None = None
        self._later_panes_started = False
        self._later_panes_mounted = asyncio.Event()  # set once the panes after the first are mounted

    # ---- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield RunHeader(self.store, id="header").data_bind(
            RunScreen.selected,
            RunScreen.revision,
            RunScreen.following,
            progress=RunScreen.fold_progress,
        )
        yield StatusBar(self.store, self.notices, resumable=self.live is not None, id="status").data_bind(
            RunScreen.revision, RunScreen.note
        )
        with Horizontal(id="body"):
            yield StepList(self.store, id="steps").data_bind(
                cursor=RunScreen.selected, revision=RunScreen.revision
            )
            with Vertical(id="pane-area"):
                yield PaneTabs(
                    [f"{k + 1} {p.TITLE}" for k, p in enumerate(self.panes)],
                    [f"{k + 1} {SHORT_TITLES.get(p.TITLE, p.TITLE)}" for k, p in enumerate(self.panes)],
                    id="pane-tabs",
                ).data_bind(active=RunScreen.active_pane)
                with Container(id="panes"):
                    # Only the first pane is needed for the first frame at 80x24; the others are
                    # built (their modules imported) and mounted right after it (_mount_later_panes).
                    yield self._build_pane(0)
        yield KeysFooter(show_command_palette=False)

    def _build_pane(self, index: int) -> Pane:
        """Pane ``index``, bound to the screen's state."""
        factory = self.panes[index]
        pane = factory(self.store, index=index, id=f"pane-{factory.TITLE.lower()}")
        pane.data_bind(RunScreen.selected, RunScreen.revision, RunScreen.active_pane)
        if isinstance(pane, ExchangesPane):
            pane.data_bind(RunScreen.expanded, RunScreen.raw, RunScreen.search_text, RunScreen.whole)
        return pane

    async def _mount_later_panes(self) -> None:
        """Build and mount the panes after the first: once, after the first frame (or sooner, for a
        key that asks for one of them). Run by the screen itself: their data_bind is to it."""
        if not self._later_panes_started and self.is_attached:
            self._later_panes_started = True
            await self.query_one("#panes").mount_all([self._build_pane(k) for k in range(1, len(self.panes))])
        self._later_panes_mounted.set()

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_later_panes)
        self.query_one(StepList).focus()
        self._apply_size()
        self.feeder.start()
        if self.live is not None:
            self.start_engine()

    def on_resize(self) -> None:
        self._apply_size()

    def on_unmount(self) -> None:
        self._prefetch.stop()
        # Leaving by any other way than `q` (ctrl+q, a signal): a paused run still ends truthfully.
        if self.live is not None and self.live.snapshot is not None and not self.engine_running:
            self.live.stop_paused()
        self.feeder.unmounted()

    def _apply_size(self) -> None:
        # A narrow footer drops the keys' padding, so that every shown key (q Quit last) fits.
        self.query_one(Footer).compact = self.size.width < 120
        wide = self.size.width >= WIDE[0] and self.size.height >= WIDE[1]
        if wide != self.has_class("-wide"):
            self.set_class(wide, "-wide")
            # Panes hidden in tabs skipped rendering; now they may all be on screen.
            self.call_after_refresh(self._show_panes)

    def _show_panes(self) -> None:
        """Render every pane, as now laid out (after a resize or a zoom)."""
        for pane in self.query(Pane):
            pane.show()

    # ---- the live run: p / r / s (LiveController) ------------------------------------------------
    def action_pause(self) -> None:
        """Ask the TUI's lifecycle policy to pause at the next step boundary."""
        self.live_control.pause()

    def action_resume(self) -> None:
        """Resume the paused run from its snapshot."""
        self.live_control.resume()

    def action_single_step(self) -> None:
        """Run one step and pause again."""
        self.live_control.single_step()

    def start_engine(self) -> None:
        """Start the live run once the screen is up (the first frame would compete with it)."""
        self.live_control.start()

    @property
    def engine_running(self) -> bool:
        """Whether the Engine is running (asked to start, or resumed) and has not returned yet."""
        return self.live_control.running

    @property
    def engine_answered(self) -> bool:
        """Whether the live run has answered since it was started, and is not running again
        (always True for a replay)."""
        return self.live_control.answered

    @property
    def is_live(self) -> bool:
        """Whether a live run is still going or paused (not yet finished)."""
        return self.live_control.is_live

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False, description="running the agent")
    def run_engine(self, resume: bool) -> None:
        """Run (or resume) the Engine on this worker thread; report how it returned."""
        self.post_message(self.live_control.run(resume))

    @on(RunReturned)
    def _returned(self, message: RunReturned) -> None:
        self.live_control.returned(message)

    @on(RunCrashed)
    def _crashed(self, message: RunCrashed) -> None:
        self.live_control.crashed(message)

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False, description="stopping the run")
    def stop_paused_run(self) -> None:
        """Stop the paused run (its trace is finalised as stopped), then quit the app."""
        try:
            self.live_control.stop_paused()
        finally:
            self.app.call_from_thread(self.app.exit)

    def show_note(self, note: str) -> None:
        """Put a transient line in the status bar ("" clears it)."""
        self.note = note

    def show_error(self, title: str, detail: str) -> None:
        """Show what went wrong in the error panel."""
        from tui.screens.dialogs import ErrorScreen  # the dialogs are not needed for the first frame

        self.app.push_screen(ErrorScreen(title, detail))

    # ---- a pause before acting: a / d / c / i (PauseActions) -------------------------------------
    def action_approve(self) -> None:
        """Run the pending actions as they are."""
        self.pause_actions.approve()

    def action_deny(self) -> None:
        """Ask for a reason, then resume without running the pending actions."""
        self.pause_actions.deny()

    def action_change(self) -> None:
        """Edit the pending arguments as JSON in $EDITOR (the app suspends), else in a dialog."""
        self.pause_actions.change()

    def action_inspect_pending(self) -> None:
        """Show the pending actions in full; a / d / c there act as they do here."""
        self.pause_actions.inspect_pending()

    # ---- f (ForkAction) --------------------------------------------------------------------------
    def action_fork(self) -> None:
        """Fork at the selected step: replay up to it, pause there, go on live when resumed."""
        self.fork_action.fork(self.selected)

    # ---- the fold (Feeder): its workers and messages ---------------------------------------------
    @property
    def follow_writes(self) -> bool:
        """Replay: follow the trace as another process writes it even if it is not running now."""
        return self.feeder.follow_writes

    @follow_writes.setter
    def follow_writes(self, value: bool) -> None:
        self.feeder.follow_writes = value

    @property
    def follow_result(self) -> str | None:
        """The status following the trace ended with (None while following, or never followed)."""
        return self.feeder.follow_result

    @property
    def feed(self) -> EventFeed:
        """Where producers hand events to the fold."""
        return self.feeder.feed

    @property
    def pacer(self) -> FoldPacer:
        """When the fold may work and when the screen shows what it folded."""
        return self.feeder.pacer

    @property
    def reader(self) -> TraceReader | None:
        """The replayed trace's reader, once it is open."""
        return self.feeder.reader

    def _flush_now(self) -> None:
        """Show what is folded now."""
        self.feeder.flush_now()

    def show_folded(self, newest: int | None) -> None:
        """New state is folded: select position ``newest`` (when not None) and push it down."""
        if newest is not None:
            self.selected = newest
        self.revision += 1

    def show_progress(self, text: str) -> None:
        """How far the background fold has come ("" once it is done)."""
        self.fold_progress = text

    def show_following(self, following: bool) -> None:
        """Whether the trace is being followed now (the header says so)."""
        self.following = following

    def stop_workers(self, *groups: str) -> None:
        """Cancel this screen's workers in ``groups``."""
        for group in groups:
            self.workers.cancel_group(self, group)

    @on(EventsAvailable)
    async def _events_available(self) -> None:
        self.feeder.events_available()
        if self.feed.pending:
            # A slice folded and the next one asked for: let the loop's other tasks run first.
            # This screen's queue is never empty while the fold has a backlog, and Textual takes
            # the next message without giving way, so a key waiting in a widget's queue (the
            # first hop of its way to the binding) would wait until the whole backlog was folded.
            await asyncio.sleep(0)

    @work(thread=True, exclusive=True, group="reader", exit_on_error=False, description="indexing the trace")
    def open_reader(self) -> None:
        """Open (index) the trace with the TraceReader off the UI thread."""
        self.feeder.open_reader()

    @on(ReaderOpened)
    def _reader_opened(self, message: ReaderOpened) -> None:
        self.feeder.reader_opened(message)

    @work(thread=True, exclusive=True, group="fold", exit_on_error=False, description="folding the trace")
    def fold_trace(self, start: int) -> None:
        """Read every event after the first paint and hand it to the fold in blocks, with progress."""
        worker = get_current_worker()
        self.feeder.fold_trace(start, cancelled=lambda: worker.is_cancelled)

    @on(FoldProgress)
    def _progress(self, message: FoldProgress) -> None:
        self.feeder.progress(message)

    @on(FoldFinished)
    def _fold_done(self, message: FoldFinished) -> None:
        self.feeder.fold_done(message)

    @work(exclusive=True, group="follow", exit_on_error=False, description="following the trace")
    async def follow_trace(self, start: int) -> None:
        """Fold events another process appends to the trace, until the run is finished."""
        await self.feeder.follow_trace(start)

    @on(FollowUpdate)
    def _follow_update(self, message: FollowUpdate) -> None:
        self.feeder.follow_update(message)

    # ---- navigation --------------------------------------------------------------------------
    def _select(self, pos: int) -> None:
        self.feeder.key_pressed()
        n = len(self.store.steps)
        if n == 0:
            return
        self.selected = max(0, min(n - 1, pos))
        self.feeder.selected(self.selected)
        self._prefetch_soon()

    def _prefetch_soon(self) -> None:
        """Render ahead, once this key's frame is out, what the next key is likely to ask for."""
        self._prefetch.stop()
        if self._prefetch_timer is not None:
            self._prefetch_timer.stop()
        self._prefetch_timer = self.set_timer(PREFETCH_AFTER_SECONDS, self._prefetch_now)

    def _prefetch_now(self) -> None:
        self._prefetch_timer = None
        if self._goto is None:
            n, at = len(self.store.steps), self.selected
            self._prefetch.start(self._prepare([at + 1, at - 1, n - 1, 0]))
            return
        # A step id is being typed after `g`: its step, before Enter asks for it.
        pos = self.store.step_pos.get(int(self._goto)) if self._goto else None
        if pos is not None:
            self._prefetch.start(self._prepare([pos]))

    def _prepare(self, positions: list[int]) -> Iterator[None]:
        n, seen = len(self.store.steps), {self.selected}
        for pos in positions:
            if 0 <= pos < n and pos not in seen:
                seen.add(pos)
                for pane in self.query(Pane):
                    yield from pane.prepare(pos)

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
        if self._goto is not None:
            self._prefetch_soon()

    def _go_to_step(self, typed: str) -> None:
        if not typed:
            return
        pos = self.store.step_pos.get(int(typed))
        if pos is None:
            self.notify(f"no step {typed} in this run", severity="error", markup=False)
            return
        self._select(pos)

    def action_search(self) -> None:
        """Ask for text to find in every event of the run."""
        from tui.screens.dialogs import PromptDialog

        def done(answer: str | None) -> None:
            if answer:
                self.search_text = answer
                self.note = f"searching for {answer!r}…"
                self.run_search(answer)

        self.app.push_screen(PromptDialog("Search every event", value=self.search_text), done)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="searching")
    def run_search(self, query: str) -> None:
        """Scan every event for ``query`` off the UI thread."""
        from tui.search import search_run

        worker = get_current_worker()
        found = search_run(self.store, query, cancelled=lambda: worker.is_cancelled)
        self.post_message(SearchResults(query, found.matches, found.searched, found.total))

    @on(SearchResults)
    def _found(self, message: SearchResults) -> None:
        self.matches = message.matches
        steps = self.query_one(StepList)
        steps.matches = {pos for pos, _ in message.matches}
        steps.refresh()
        # Searched while the fold goes on: the part folded so far, and the note says so.
        self._search_scope = (
            f" (in the {message.searched} of {message.total} events folded so far)"
            if message.searched < message.total
            else ""
        )
        if not message.matches:
            self.note = f"no match for {message.query!r}{self._search_scope}"
            return
        self.action_match(1, from_current=True)

    def action_match(self, delta: int, from_current: bool = False) -> None:
        """Jump to the next (1) or previous (-1) step matching the search."""
        if not self.matches:
            self.notify("no search results: press / to search", severity="warning", markup=False)
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
        # Steps, said as steps: the places highlighted are counted on the Exchanges pane itself.
        n = len(positions)
        self.note = (
            f"{self.search_text!r} is in {n} {'step' if n == 1 else 'steps'}; this is {k} of {n} (n / N)"
            f"{self._search_scope}"
        )

    def action_export(self) -> None:
        """Write the selected step's request as JSON and say where."""
        if not self.store.steps:
            return
        from tui.search import export_request

        try:
            path = export_request(self.store, self.selected, self.export_dir)
        except (ValueError, OSError) as exc:
            self.notify(inert_str(f"export failed: {exc}"), severity="error", markup=False)
            return
        self.note = f"exported request to {path}"
        # A notification parses markup by default, and a folder name may hold brackets.
        self.notify(inert_str(f"exported to {path}"), markup=False)

    def action_copy_text(self) -> None:
        """Copy the focused pane's text to the clipboard (OSC 52)."""
        from tui.take_text import copy_pane, focused_pane

        pane = focused_pane(self)
        if pane is not None:
            copy_pane(self.app, pane)

    def action_open_text(self) -> None:
        """Open the focused pane's text in $EDITOR (the app suspends meanwhile)."""
        from tui.take_text import focused_pane, open_pane

        pane = focused_pane(self)
        if pane is not None:
            open_pane(self.app, pane)

    def action_expand(self) -> None:
        """Fold or unfold long payloads in the Exchanges pane."""
        self.expanded = not self.expanded

    def action_raw(self) -> None:
        """Toggle raw JSON in the Exchanges pane."""
        self.raw = not self.raw

    def action_whole(self) -> None:
        """Exchanges pane: toggle between what changed since the previous request and whole requests."""
        self.whole = not self.whole

    async def action_pane(self, index: int) -> None:
        """Focus pane ``index`` (its keys then scroll it), showing it when the panes are tabs."""
        self.active_pane = index
        pane = self._pane(index)
        if pane is None and not self._later_panes_mounted.is_set():
            # Pressed as the first frame came out: the key (and those after it) waits for its pane.
            self.call_next(self._mount_later_panes)
            await self._later_panes_mounted.wait()
            pane = self._pane(index)
        if pane is None:
            return
        if self.zoomed is not None:
            self._zoom(pane)  # the zoom follows the pane picked
        # Focused once its tab is on screen (a hidden widget cannot take the focus).
        self.call_after_refresh(pane.focus)

    def _pane(self, index: int) -> Pane | None:
        return next((p for p in self.query(Pane) if p.index == index), None)

    def action_zoom(self) -> None:
        """Zoom the focused pane (or the shown one) to the whole screen, or back."""
        if self.zoomed is not None:
            self._zoom(None)
            return
        focused = self.focused
        pane = focused if isinstance(focused, Pane) else self._pane(self.active_pane)
        if pane is not None:
            self.active_pane = pane.index
            self._zoom(pane)
            self.call_after_refresh(pane.focus)

    def _zoom(self, pane: Pane | None) -> None:
        for other in self.query(Pane):
            other.set_class(other is pane, "-zoomed")
        self.zoomed = pane.index if pane is not None else None
        self.set_class(pane is not None, "-zoom")
        # Panes hidden until now render once they are laid out at their new size.
        self.call_after_refresh(self._show_panes)

    def on_events_pane_jump(self, message: EventsPane.Jump) -> None:
        """The Events pane picked a step (handled by name: @on would import the pane at launch)."""
        self._select(message.pos)

    @on(PaneTabs.Picked)
    def _tab(self, message: PaneTabs.Picked) -> None:
        self.active_pane = message.index

    def action_help(self) -> None:
        """Show every key, from the bindings."""
        from tui.screens.dialogs import HelpScreen, binding_rows

        rows = binding_rows(self)
        binding: BindingType  # the panes' BINDINGS below may hold tuples too
        # The keys of the step list and of a pane work once they have the focus (Tab, 1-6):
        # listed too, whichever of them has it now.
        for where, widget_cls in (("step list", StepList), ("focused pane", Pane)):
            if not isinstance(self.focused, widget_cls):
                for binding in widget_cls.BINDINGS:
                    if isinstance(binding, Binding):
                        shown = " / ".join(
                            self.app.get_key_display(Binding(key, binding.action))
                            for key in binding.key.split(",")
                        )
                        rows.append((shown, f"{binding.description} ({where})"))
        self.app.push_screen(HelpScreen(rows))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape goes back only to a run list this run was opened from; the helpers' keys are
        theirs to hide (False) or grey out (None)."""
        if action == "back":
            return self.from_list
        if action == "fork":
            return self.fork_action.check()
        if action in pause_actions.ACTIONS:
            return self.pause_actions.check()
        if action in live_control.ACTIONS:
            return self.live_control.check(action)
        return True

    def action_back(self) -> None:
        """Back to the run list."""
        if self.from_list:
            self.feeder.stop()
            self.dismiss(None)

    async def request_quit(self) -> None:
        """Quit, asking first while a run is live; a running run is cancelled and a paused one
        stopped where it stands, so its trace is finalised with a status that says so."""
        if not self.is_live:
            self.app.exit()
            return
        paused = self.live is not None and self.live.snapshot is not None

        def answer(yes: bool | None) -> None:
            if yes:
                if paused:
                    self.stop_paused_run()
                else:
                    if self.live is not None:
                        self.live.cancel()
                    self.app.exit()

        from tui.screens.dialogs import ConfirmDialog

        question = "The run is paused. Quit and stop it here?" if paused else "A run is live. Quit anyway?"
        self.app.push_screen(ConfirmDialog(question), answer)

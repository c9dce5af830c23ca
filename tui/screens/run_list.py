"""RunListScreen: the runs of a folder, streamed in newest first, to filter, sort, open or compare."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label
from textual.worker import get_current_worker

from qitos.trace.errors import TraceError
from tui.run_folder import RunBatch, iter_run_batches
from tui.run_view import COLUMNS, RunView
from tui.screens.dialogs import HelpScreen, binding_rows
from tui.text import inert
from tui.widgets.keys_footer import KeysFooter
from tui.widgets.run_table import RunTable


class FilterInput(Input):
    """The filter line. Enter (keep the filter) and Esc (drop it) give the focus back to the list
    as the line reads them, before the keys typed after them: a key that reaches the line after
    the focus has left it goes where the focus is now, not into the filter."""

    def __init__(self, on_leave: Callable[[bool], None], **options: Any) -> None:
        super().__init__(**options)
        self.on_leave = on_leave  # told whether the filter is kept (Enter) or dropped (Esc)

    async def _on_key(self, event: events.Key) -> None:
        if self.screen.focused is not self and self.screen.focused is not None:
            event.stop()
            event.prevent_default()
            self.app.post_message(events.Key(event.key, event.character))
            return
        if event.key in ("enter", "escape"):
            event.stop()
            event.prevent_default()
            self.on_leave(event.key == "enter")
            return
        await super()._on_key(event)


DRAW_WAIT_SECONDS = 1.0  # the listing waits at most this long for a batch to be drawn


class RunListScreen(Screen[None]):
    """A table of runs (status, task, steps, tokens, errors, duration, ...); enter opens one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open"),
        Binding("slash", "filter", "Filter"),
        Binding("s", "sort", "Sort"),
        Binding("S", "reverse", "Reverse", show=False),
        Binding("m,space", "mark", "Mark"),
        Binding("c", "compare", "Compare"),
        # Columns cut at the right edge of a narrow terminal come into view a column at a time.
        Binding("right", "columns(1)", "More columns", priority=True),
        Binding("left", "columns(-1)", "Back", show=False, priority=True),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]
    DEFAULT_CSS = """
    RunListScreen #run-filter { height: 0; border: none; padding: 0 1; }
    RunListScreen #run-filter.-shown { height: 1; }
    """

    @dataclass
    class Batch(Message):
        """Runs read by the listing worker (``error``: the folder could not be listed)."""

        batch: RunBatch | None
        error: str | None = None

    def __init__(
        self,
        folder: Path,
        runs: list[Any] | None,
        open_run: Callable[[Path], None],
        *,
        on_empty: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        self.folder = folder
        self.view = RunView()
        self._given = runs  # None: read the folder here, streaming rows in as manifests are read
        self.open_run = open_run
        #: Told why, when the folder holds no runs or cannot be listed (the app shows an error).
        self.on_empty = on_empty
        # Not `loading`: that is Widget's reactive that covers the widget with a loading indicator.
        #: (folders looked at, folders to look at) while the listing runs; None when complete.
        self.load_progress: tuple[int, int] | None = None
        self._drawn = threading.Event()  # set once a batch's rows are on screen

    @property
    def runs(self) -> list[Any]:
        """The runs shown, in table order."""
        return [row.run for row, _ in self.view.shown]

    def compose(self) -> ComposeResult:
        yield Label(inert(self._title()), id="run-list-title")  # the folder's name is data
        yield FilterInput(
            self._leave_filter,
            placeholder="filter: any text of the run's row (Enter keeps it, Esc clears)",
            id="run-filter",
        )
        yield RunTable(self.view, id="run-table")
        yield KeysFooter(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(RunTable).focus()
        if self._given is not None:
            self._add(self._given)
        else:
            self.load_progress = (0, 0)
            # Started once the empty list is on screen: while the screen is being laid out and
            # drawn, the listing would wait for the interpreter lock at every folder it stats.
            self.call_after_refresh(self._list_runs)

    def on_resize(self) -> None:
        self.query_one(Footer).compact = self.size.width < 120

    def _title(self) -> str:
        """'N runs in FOLDER' (or 'n of N' under a filter), the order, and progress while reading."""
        shown, total = self.view.count()
        text = f"{shown:,} of {total:,} runs" if self.view.filter else f"{total:,} runs"
        text += f" in {self.folder}"
        if self.load_progress is not None:
            done, all_ = self.load_progress
            text += f" (reading {done:,}/{all_:,} folders…)" if all_ else " (listing…)"
        if self.view.filter:
            text += f" matching {self.view.filter!r}"
        column = COLUMNS[self.view.sort_column].title
        text += f" · by {column} {'▼' if self.view.descending else '▲'}"
        marked = len(self.query_one(RunTable).marked) if self.is_mounted else 0
        if marked:
            text += f" · {marked} marked" + (": c compares them" if marked == 2 else "")
        return text + " — enter opens one"

    def _retitle(self) -> None:
        self.query_one("#run-list-title", Label).update(inert(self._title()))

    @work(thread=True, exclusive=True, group="run-list", exit_on_error=False, description="list runs")
    def _list_runs(self) -> None:
        worker = get_current_worker()
        try:
            for batch in iter_run_batches(self.folder, cancelled=worker):
                self._drawn.clear()
                self.post_message(self.Batch(batch))
                # Read on once the rows are drawn: reading holds the interpreter lock, and the
                # screen, which lets go of it at every write to the terminal, would wait for it
                # each time (the first rows took three times as long to show).
                self._drawn.wait(DRAW_WAIT_SECONDS)
        except TraceError as exc:
            self.post_message(self.Batch(None, str(exc)))

    @on(Batch)
    def _batch(self, message: Batch) -> None:
        message.stop()
        batch = message.batch
        if batch is None:
            self.load_progress = None
            if self.on_empty is not None:
                self.on_empty(message.error or "cannot list runs")
            return
        self.load_progress = None if batch.final else (batch.done, batch.total)
        self._add(batch.runs)
        self.call_after_refresh(self._drawn.set)
        if batch.final and not self.view.rows and self.on_empty is not None:
            self.on_empty(f"{self.folder} holds no run directories (manifest.json / events.jsonl)")

    def _add(self, runs: list[Any]) -> None:
        """Take in newly read runs, keeping the cursor on its run (at the top while untouched)."""
        if runs:
            self.view.add(runs)
            self._rearrange()
        else:
            self._retitle()

    def _rearrange(self) -> None:
        """Lay the rows out again (filter, sort), the cursor staying on its run when it is shown."""
        table = self.query_one(RunTable)
        # Untouched, the cursor stays at the top as newer runs come in; moved, on its run.
        current = self._current_path() if table.moved else None
        self.view.arrange()
        table.rows_changed()
        at = self.view.position_of(lambda run: run.path == current) if current is not None else None
        table.cursor = at if at is not None else 0
        self._retitle()

    def _current_path(self) -> Path | None:
        table = self.query_one(RunTable)
        shown = self.view.shown
        return shown[table.cursor][0].run.path if 0 <= table.cursor < len(shown) else None

    # ---- filter and sort ---------------------------------------------------------------------
    def action_filter(self) -> None:
        """Show the filter line and type into it; the rows follow each keystroke.

        The line is always there, only no row high until shown: a hidden widget cannot take the
        focus, and the keys typed right after `/` must not go to the list (`s` would sort)."""
        box = self.query_one("#run-filter", Input)
        box.add_class("-shown")
        self.set_focus(box)  # now, not after this key (as focus() does): the next keys are typed

    def on_key(self, event: events.Key) -> None:
        """`/` opens the filter line at once; characters typed right after it reached the list
        before the line had the focus (the App hands each key to the focused widget as it comes):
        they belong to the filter."""
        box = self.query_one("#run-filter", Input)
        if event.key == "slash" and self.focused is not box:
            # Opened here, not by the binding, which runs only once the keys after it have
            # bubbled up here too ("/run" typed fast would lose "run").
            event.stop()
            event.prevent_default()
            self.action_filter()
        elif self.focused is box and event.is_printable and event.character:
            # Not from the filter line itself: it takes its own characters and stops them.
            event.stop()
            event.prevent_default()
            box.insert_text_at_cursor(event.character)

    @on(Input.Changed, "#run-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.view.filter = event.value
        self._rearrange()

    def _leave_filter(self, keep: bool) -> None:
        """Back to the rows: with the filter (Enter; its line stays while it filters) or without (Esc)."""
        box = self.query_one("#run-filter", Input)
        self.set_focus(self.query_one(RunTable))
        if not keep:
            box.value = ""  # Input.Changed lays the rows out again
        if not box.value:
            box.remove_class("-shown")

    def action_clear_filter(self) -> None:
        """Esc on the list: drop the filter and hide its line."""
        self._leave_filter(keep=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While the filter line has the focus, letters are typed there, not taken as keys."""
        typing = isinstance(self.focused, Input)
        if typing and action in ("sort", "reverse", "mark", "compare", "open", "columns", "help", "filter"):
            return False
        return super().check_action(action, parameters)

    def action_sort(self) -> None:
        """Sort by the next column (run, status, task, ... updated, then round again)."""
        self.view.set_sort(self.view.sort_column + 1)
        self._rearrange()
        self.query_one(RunTable).show_column(self.view.sort_column)

    def action_reverse(self) -> None:
        """Flip the order of the sort column."""
        self.view.set_sort(self.view.sort_column, descending=not self.view.descending)
        self._rearrange()

    # ---- mark and compare --------------------------------------------------------------------
    def action_mark(self) -> None:
        """Mark the run under the cursor for comparing (or unmark it); two marked runs compare."""
        path = self._current_path()
        if path is None:
            return
        table = self.query_one(RunTable)
        if path in table.marked:
            table.marked.remove(path)
        else:
            table.marked.append(path)
        table.refresh()
        self._retitle()

    def action_compare(self) -> None:
        """Open the two marked runs side by side (the first marked is A)."""
        marked = self.query_one(RunTable).marked
        if len(marked) != 2:
            have = (
                "no run is" if not marked else f"{len(marked)} {'run is' if len(marked) == 1 else 'runs are'}"
            )
            self.notify(
                f"mark exactly two runs to compare (m or space marks the run under the cursor); {have} marked",
                severity="warning",
                markup=False,
            )
            return
        from tui.screens.diff import DiffScreen

        self.app.push_screen(DiffScreen(marked[0], marked[1], from_list=True))

    # ---- columns, opening, help --------------------------------------------------------------
    def action_columns(self, delta: int) -> None:
        """Scroll the columns right of the run's by one."""
        self.query_one(RunTable).shift_columns(delta)

    @on(RunTable.Chosen)
    def _chosen(self, event: RunTable.Chosen) -> None:
        self.action_open()

    def action_open(self) -> None:
        """Open the run under the cursor."""
        path = self._current_path()
        if path is not None:
            self.open_run(path)

    def action_help(self) -> None:
        """Show every key, from the bindings."""
        rows = binding_rows(self)
        rows += [("↑ / ↓ / PgUp / PgDn / Home / End", "move the cursor")]
        self.app.push_screen(HelpScreen(rows))

"""RunListScreen: the runs of a folder, to pick one to replay, streamed in newest first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label
from textual.worker import get_current_worker

from qitos.trace.errors import TraceError
from tui.run_folder import RunBatch, iter_run_batches, run_order
from tui.run_tree import run_label, with_forks
from tui.text import inert


class RunListScreen(Screen[None]):
    """A table of runs (status, steps, tokens, stop reason, model); enter opens one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open run"),
        # Columns cut at the right edge of a narrow terminal come into view a column at a time.
        Binding("right", "columns(1)", "More columns", priority=True),
        Binding("left", "columns(-1)", "Back", priority=True),
    ]

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
        #: The runs listed so far, in table order (most recently updated first).
        self.runs: list[Any] = []
        self._given = runs  # None: read the folder here, streaming rows in as manifests are read
        self.open_run = open_run
        #: Told why, when the folder holds no runs or cannot be listed (the app shows an error).
        self.on_empty = on_empty
        # Not `loading`: that is Widget's reactive that covers the widget with a loading indicator.
        #: (folders looked at, folders to look at) while the listing runs; None when complete.
        self.load_progress: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        yield Label(inert(self._title()), id="run-list-title")  # the folder's name is data
        yield DataTable(cursor_type="row", zebra_stripes=True, id="run-table")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("run", "status", "steps", "tokens", "stop reason", "model", "updated")
        table.focus()
        if self._given is not None:
            self._add(sorted(self._given, key=run_order, reverse=True))
        else:
            self.load_progress = (0, 0)
            self._list_runs()

    def _title(self) -> str:
        """'N runs in FOLDER', with progress while the listing runs."""
        text = f"{len(self.runs):,} runs in {self.folder}"
        if self.load_progress is not None:
            done, total = self.load_progress
            text += f" (reading {done:,}/{total:,} folders…)" if total else " (listing…)"
        return text + " — enter opens one"

    @work(thread=True, exclusive=True, group="run-list", exit_on_error=False, description="list runs")
    def _list_runs(self) -> None:
        worker = get_current_worker()
        try:
            for batch in iter_run_batches(self.folder, cancelled=worker):
                self.post_message(self.Batch(batch))
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
        self.query_one("#run-list-title", Label).update(inert(self._title()))
        if batch.final and not self.runs and self.on_empty is not None:
            self.on_empty(f"{self.folder} holds no run directories (manifest.json / events.jsonl)")

    def _add(self, runs: list[Any]) -> None:
        """Append rows; if they break the newest-first order (rare: folder time and manifest time
        disagree), lay the whole table out again in order, keeping the cursor on its run."""
        if not runs:
            return
        table = self.query_one(DataTable)
        keys = [run_order(r) for r in runs]
        in_order = all(a >= b for a, b in zip(keys, keys[1:], strict=False)) and (
            not self.runs or run_order(self.runs[-1]) >= keys[0]
        )
        # A fork goes right under its parent, wherever the parent is: the whole table is laid out.
        forks = any(getattr(r, "parent_run_id", None) for r in [*runs, *self.runs])
        if in_order and not forks:
            self.runs.extend(runs)
            table.add_rows(_cells(r) for r in runs)
            self._redraw_after_widths(table)
            return
        # The cursor stays on the run it is on; at the top (untouched) it stays at the top.
        at = table.cursor_row if table.row_count else 0
        current = self.runs[at].path if self.runs and at > 0 else None
        placed = with_forks(sorted(self.runs + runs, key=run_order, reverse=True))
        self.runs = [run for run, _ in placed]
        table.clear()
        table.add_rows(_cells(r, depth) for r, depth in placed)
        self._redraw_after_widths(table)
        if current is not None:
            table.move_cursor(row=next(i for i, r in enumerate(self.runs) if r.path == current))

    def _redraw_after_widths(self, table: DataTable[Any]) -> None:
        """Draw the rows again once the new rows have widened the columns.

        DataTable caches a drawn row until its data changes, not when a column widens: a row
        drawn before a later batch widened a column kept its clipped cells (seen in tmux: the
        first row cut to "run  comple" after the second batch).
        """
        self.call_after_refresh(table.notify_style_update)

    def _selected_path(self, row: int) -> Path | None:
        """The run directory of a table row (``runs`` is kept in table order)."""
        return self.runs[row].path if 0 <= row < len(self.runs) else None

    def action_columns(self, delta: int) -> None:
        """Scroll the table left or right by one column."""
        table = self.query_one(DataTable)
        starts, x = [], 0
        for column in table.ordered_columns:
            starts.append(x)
            x += column.get_render_width(table)
        now = round(table.scroll_x)
        if delta > 0:
            target = next((s for s in starts if s > now), now)
        else:
            target = max((s for s in starts if s < now), default=0)
        table.scroll_to(x=min(target, table.max_scroll_x), animate=False)

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        path = self._selected_path(event.cursor_row)
        if path is not None:
            self.open_run(path)

    def action_open(self) -> None:
        """Open the run under the cursor."""
        table = self.query_one(DataTable)
        path = self._selected_path(table.cursor_row) if table.row_count else None
        if path is not None:
            self.open_run(path)


def _cells(run: Any, depth: int = 0) -> tuple[Text, ...]:
    """One table row: run (a fork indented under its parent), status, steps, tokens, stop reason,
    model, updated.

    Inert Text cells, never str: a manifest is untrusted; a str cell is parsed as markup, and a
    control character would reach the terminal.
    """
    values = (
        run_label(run, depth),
        run.status,
        run.steps if run.steps is not None else "?",
        run.tokens if run.tokens is not None else "?",
        run.stop_reason or "",
        run.model_id or "",
        str(run.updated_at or "")[:16].replace("T", " "),
    )
    return tuple(inert(value) for value in values)

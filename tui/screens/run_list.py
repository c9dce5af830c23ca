"""RunListScreen: the runs of a folder, to pick one to replay."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label

from tui.run_tree import run_label, with_forks
from tui.text import inert


class RunListScreen(Screen[None]):
    """A table of runs (status, steps, tokens, stop reason, model); enter opens one."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "open", "Open run")]

    def __init__(self, folder: Path, runs: list[Any], open_run: Callable[[Path], None]) -> None:
        super().__init__()
        self.folder = folder
        self.runs = runs
        self.open_run = open_run

    def compose(self) -> ComposeResult:
        yield Label(inert(f"{len(self.runs)} runs in {self.folder} — enter opens one"), id="run-list-title")
        yield DataTable(cursor_type="row", zebra_stripes=True, id="run-table")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("run", "status", "steps", "tokens", "stop reason", "model", "updated")
        for run, depth in with_forks(self.runs):  # forks right under their parent
            # Every cell comes from a manifest someone else may have written: a str cell would be
            # parsed as markup (an action link in a model name), so each is an inert Text.
            table.add_row(
                inert(run_label(run, depth)),
                inert(run.status),
                inert(run.steps if run.steps is not None else "?"),
                inert(run.tokens if run.tokens is not None else "?"),
                inert(run.stop_reason or ""),
                inert(run.model_id or ""),
                inert(str(run.updated_at or "")[:16].replace("T", " ")),
                key=str(run.path),
            )
        table.focus()

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        self.open_run(Path(str(event.row_key.value)))

    def action_open(self) -> None:
        """Open the run under the cursor."""
        table = self.query_one(DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
            self.open_run(Path(str(key.value)))

"""Modal screens of the browsers: confirm a record deletion, pick a skill namespace."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, OptionList, Static

from tui.browsers.memory_model import MemoryRow
from tui.text import inert
from tui.widgets.tones import BOLD, DIM, ITALIC

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 72; max-width: 95%; height: auto; max-height: 90%;
    border: thick $error; background: $surface; padding: 1 2;
}}
{name} .dialog-title {{ text-style: bold; margin-bottom: 1; }}
{name} Horizontal {{ height: auto; margin-top: 1; }}
{name} Button {{ margin-right: 2; }}
"""


class DeleteRecordDialog(ModalScreen[bool]):
    """Asks before deleting one memory record, naming it; y deletes, n or escape keeps it."""

    DEFAULT_CSS = DIALOG_CSS.format(name="DeleteRecordDialog")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Delete", id="memory.delete-confirm"),
        Binding("n,escape", "answer(False)", "Keep", id="memory.delete-keep"),
    ]

    def __init__(self, row: MemoryRow) -> None:
        super().__init__()
        self.row = row

    def compose(self) -> ComposeResult:
        row = self.row
        facts = Text()
        facts.append("record ", style=DIM)
        # Ids, roles, paths and text come from files on disk someone may have crafted: inert.
        facts.append_text(inert(row.record_id, BOLD))
        facts.append_text(inert(f"\nrole {row.role} · step {row.step_id} · {row.size} bytes\n", DIM))
        facts.append_text(inert(f"file {row.path}\n", DIM))
        facts.append_text(inert(row.summary or "(empty)"))
        with Vertical():
            yield Label(inert(f"Delete memory record {row.record_id}?"), classes="dialog-title")
            yield Static(facts, id="delete-facts")
            yield Label(
                Text("Removes the record file and its index line (not secure erasure).", style=ITALIC)
            )
            with Horizontal():
                yield Button("Delete (y)", id="yes", variant="error")
                yield Button("Keep (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        # Focus "Keep": an accidental enter must not delete anything.
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        """Answer the question."""
        self.dismiss(yes)


class NamespaceDialog(ModalScreen[str | None]):
    """Lists the namespaces of a skill database and returns the one picked (None on escape)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="NamespaceDialog").replace("$error", "$primary")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, namespaces: list[str]) -> None:
        super().__init__()
        self.namespaces = namespaces

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("This database holds several namespaces: pick one", classes="dialog-title")
            # Namespaces are read from the database: a str option would be parsed as markup.
            yield OptionList(*(inert(ns) for ns in self.namespaces), id="namespaces")

    @on(OptionList.OptionSelected)
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.namespaces[event.option_index])

    def action_cancel(self) -> None:
        """Close without picking."""
        self.dismiss(None)

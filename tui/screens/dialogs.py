"""Small modal screens: search, confirm quit, help from bindings, error panel."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, Static

from tui.text import inert


class PromptDialog(ModalScreen[str | None]):
    """Ask for one line of text; dismisses with it, or None on escape."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, placeholder: str = "", *, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(inert(self.title_text), classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")

    @on(Input.Submitted)
    def submit(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        """Close without an answer."""
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question; y or enter says yes, n or escape says no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(inert(self.question), classes="dialog-title")
            yield Button("Yes (y)", id="yes", variant="error")
            yield Button("No (n)", id="no", variant="primary")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        """Answer the question."""
        self.dismiss(yes)


class HelpScreen(ModalScreen[None]):
    """Every key of the screen below, generated from its bindings."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "close", "Close")]

    def __init__(self, rows: list[tuple[str, str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=True, header_style="bold")
        table.add_column("key")
        table.add_column("does")
        for key, description in self.rows:
            table.add_row(inert(key, "bold"), inert(description))  # a str cell would be markup
        with VerticalScroll(classes="dialog help"):
            yield Label("Keys (escape closes)", classes="dialog-title")
            yield Static(table)

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)


class ErrorScreen(ModalScreen[None]):
    """The error panel: what failed and why, in the UI instead of a traceback on the terminal."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter", "close", "Close")]

    def __init__(self, title: str, detail: str) -> None:
        super().__init__()
        self.title_text = title
        self.detail = detail

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog error-panel"):
            # Error titles and details quote what failed (paths, trace text, exception messages).
            yield Label(inert(self.title_text, "bold"), classes="dialog-title")
            yield Static(inert(self.detail), id="error-detail")
            yield Label(Text("escape closes · q quits", style="dim"))

    def action_close(self) -> None:
        """Close the panel."""
        self.dismiss(None)


def binding_rows(screen: Screen[Any]) -> list[tuple[str, str]]:
    """(keys, what they do) for every binding active on ``screen``, keys of one action together."""
    keys: dict[str, list[str]] = {}
    described: dict[str, str] = {}
    for active in screen.active_bindings.values():
        binding = active.binding
        keys.setdefault(binding.action, []).append(screen.app.get_key_display(binding))
        described.setdefault(binding.action, binding.description or binding.action)
    return [(" / ".join(k), described[action]) for action, k in keys.items()]

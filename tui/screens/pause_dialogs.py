"""Dialogs for acting on a pause: deny with a reason, change the arguments inline (no $EDITOR)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static, TextArea

from tui.text import inert
from tui.widgets.toned_static import Draw, TonedStatic


class PendingDialog(ModalScreen[str | None]):
    """The pending actions in full; a / d / c answer with that action, escape closes."""

    DEFAULT_CSS = """
    PendingDialog .pending-full { height: auto; max-height: 30; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "choose('approve')", "Approve"),
        Binding("d", "choose('deny')", "Deny"),
        Binding("c", "choose('change')", "Change"),
        Binding("escape,i", "choose('')", "Close"),
    ]

    def __init__(self, pending: Draw) -> None:
        super().__init__()
        self.pending = pending  # drawn with the dialog's tones, again when the theme changes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog pause-dialog"):
            yield Label("Pending action(s) · a approves · d denies · c changes · escape closes")
            with VerticalScroll(classes="pending-full"):
                yield TonedStatic(self.pending, id="pending-full")

    def action_choose(self, what: str) -> None:
        """Close, answering with the chosen action (empty: none)."""
        self.dismiss(what or None)


class DenyDialog(ModalScreen[str | None]):
    """The pending actions in full and a line for the reason; enter denies, escape cancels."""

    DEFAULT_CSS = """
    DenyDialog .pending-full { height: auto; max-height: 20; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, pending: Draw) -> None:
        super().__init__()
        self.pending = pending

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog pause-dialog"):
            yield Label("Deny the pending action(s): they will not run; the agent sees your reason")
            with VerticalScroll(classes="pending-full"):
                yield TonedStatic(self.pending, id="pending-full")
            yield Input(placeholder="why (the agent reads this)", id="deny-reason")

    def on_mount(self) -> None:
        self.query_one(Input).focus()  # the pending text scrolls, but typing the reason comes first

    @on(Input.Submitted)
    def submit(self, event: Input.Submitted) -> None:
        """Deny with the reason typed (an empty reason is allowed: the denial still says who)."""
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        """Close without denying."""
        self.dismiss(None)


class ChangeDialog(ModalScreen[str | None]):
    """Edit the pending action's arguments as JSON; ctrl+s applies once they are valid."""

    DEFAULT_CSS = """
    ChangeDialog .pending-full { height: auto; max-height: 10; }
    ChangeDialog TextArea { height: 12; }
    ChangeDialog #change-problem { color: $error; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "apply", "Apply change", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, pending: Draw, document: str, check: Callable[[str], str | None]) -> None:
        super().__init__()
        self.pending = pending
        self.document = document
        self.check = check  # the problem with an edited document, or None when it can be applied

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog pause-dialog"):
            yield Label("Change the arguments (JSON) · ctrl+s applies · escape cancels")
            with VerticalScroll(classes="pending-full"):
                yield TonedStatic(self.pending, id="pending-full")
            yield TextArea(self.document, id="change-editor", soft_wrap=True, show_line_numbers=True)
            yield Static("", id="change-problem")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_apply(self) -> None:
        """Apply the change when it is valid; otherwise say why and keep the dialog open."""
        text = self.query_one(TextArea).text
        problem = self.check(text)
        if problem is not None:
            self.query_one("#change-problem", Static).update(inert(problem))  # quotes model data
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        """Close without changing anything."""
        self.dismiss(None)

"""PauseActions: acting on a pause before acting: approve (a), deny with a reason (d), change the
arguments (c), or read what is pending in full (i).

The decision reaches the Engine only through the resume path (``engine.resume(snapshot,
decision=...)``); a change is checked against the tool's schema first, so an invalid one is refused
with the validation message and nothing about the run changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text
from textual.binding import Binding, BindingType

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

    from qitos.engine.approval import PauseDecision
    from qitos.engine.runtime import RuntimeSnapshot
    from tui.screens.live_control import LiveController
    from tui.structured import Tone

DECIDED_BY = "person (qitos-tui)"
ACTIONS = frozenset({"approve", "deny", "change", "inspect_pending"})  # the keys PauseActions answers
# Not in the footer (at 80 columns it must keep q Quit): the status bar names them while they apply.
BINDINGS: list[BindingType] = [
    Binding("a", "approve", "Approve", show=False),
    Binding("d", "deny", "Deny", show=False),
    Binding("c", "change", "Change", show=False),
    Binding("i", "inspect_pending", "Pending", show=False),
]


class DialogHost(Protocol):
    """What PauseActions asks of its screen: the app (dialogs, suspending for $EDITOR) and notices."""

    @property
    def app(self) -> App[object]: ...

    def notify(
        self,
        message: str,
        *,
        title: str = ...,
        severity: SeverityLevel = ...,
        timeout: float | None = ...,
        markup: bool = ...,
    ) -> None: ...


class PauseActions:
    """Approves, denies or changes what a live run paused before acting would do, and resumes it."""

    def __init__(self, host: DialogHost, control: LiveController) -> None:
        self.host = host
        self.control = control  # resumes the run carrying the decision

    # ---- what is pending ------------------------------------------------------------------------
    def _pending_snapshot(self) -> RuntimeSnapshot | None:
        """The snapshot of a run paused before acting with actions pending, else None."""
        live = self.control.live
        snapshot = live.snapshot if live is not None and not self.control.running else None
        if snapshot is None or snapshot.boundary != "before_act" or not snapshot.pending_actions:
            return None
        return snapshot

    def _pending_dicts(self, snapshot: RuntimeSnapshot) -> list[dict[str, Any]]:
        return [
            {"name": getattr(a, "name", str(a)), "args": getattr(a, "args", {})}
            for a in snapshot.pending_actions
        ]

    def pending_in_full(self, tone: Tone | None = None) -> Text:
        """The pending actions in full (a file write as a diff against the workspace file),
        coloured with ``tone`` (the dialog's tones; None: no colour)."""
        snapshot = self._pending_snapshot()
        if snapshot is None or self.control.live is None:
            return Text("nothing pending")
        from tui.pending import pending_text, workspace_roots  # difflib and the rest: not at launch

        roots = workspace_roots(self.control.live.agent, self.control.live.engine)
        return pending_text(self._pending_dicts(snapshot), roots, tone)

    def check(self) -> bool | None:
        """a / d / c / i: only in a live run; active only while it is paused before acting."""
        if self.control.live is None:
            return False
        return True if self._pending_snapshot() is not None else None

    def inspect_pending(self) -> None:
        """Show the pending actions in full; a / d / c there act as they do here."""
        if self._pending_snapshot() is None:
            return

        def chosen(what: str | None) -> None:
            actions: dict[str | None, Callable[[], None]] = {
                "approve": self.approve,
                "deny": self.deny,
                "change": self.change,
            }
            if what in actions:
                actions[what]()

        from tui.screens.pause_dialogs import PendingDialog  # the first frame needs no dialog

        self.host.app.push_screen(PendingDialog(self.pending_in_full), chosen)

    # ---- the three decisions --------------------------------------------------------------------
    def approve(self) -> None:
        """Run the pending actions as they are."""
        from qitos.engine.approval import PauseDecision  # the Engine's, loaded when it is needed

        if self._pending_snapshot() is not None:
            self.decide(PauseDecision.approve(by=DECIDED_BY), "approved: running the pending action(s)")

    def deny(self) -> None:
        """Ask for a reason, then resume without running the pending actions."""
        if self._pending_snapshot() is None:
            return

        from qitos.engine.approval import PauseDecision
        from tui.screens.pause_dialogs import DenyDialog

        def denied(reason: str | None) -> None:
            if reason is not None:
                self.decide(PauseDecision.deny(reason, by=DECIDED_BY), "denied: the agent is told why")

        self.host.app.push_screen(DenyDialog(self.pending_in_full), denied)

    def change(self) -> None:
        """Edit the pending arguments as JSON in $EDITOR (the app suspends), else in a dialog."""
        snapshot = self._pending_snapshot()
        if snapshot is None:
            return
        from tui.pending import args_document
        from tui.take_text import editor_command

        document = args_document(self._pending_dicts(snapshot))
        editor = editor_command()
        if editor:
            edited = self._edit_outside(editor, document)
            if edited is None:
                return
            problem = self.change_problem(edited)
            if problem is not None:
                self.host.notify(problem, title="change refused", severity="error", markup=False, timeout=10)
                return
            self._apply_change(edited)
            return

        def changed(text: str | None) -> None:
            if text is not None:
                self._apply_change(text)

        from tui.screens.pause_dialogs import ChangeDialog

        self.host.app.push_screen(ChangeDialog(self.pending_in_full, document, self.change_problem), changed)

    def _edit_outside(self, editor: str, document: str) -> str | None:
        """Run the editor on a temporary JSON file while the app is suspended; the edited text."""
        from tui.take_text import edit_text

        return edit_text(
            self.host.app,
            editor,
            document,
            prefix="qitos-change-",
            suffix=".json",
            on_failure=": nothing changed",
        )

    def change_problem(self, text: str) -> str | None:
        """Why an edited document cannot be applied (bad JSON or the tool's schema), or None."""
        snapshot = self._pending_snapshot()
        if snapshot is None or self.control.live is None:
            return "the run is no longer paused before acting"
        from qitos.engine.approval import PauseDecision, decision_problem
        from tui.pending import parse_document

        changes, problem = parse_document(text, len(snapshot.pending_actions))
        if problem is not None or changes is None:
            return problem
        decision = PauseDecision(verdict="changed", changes=changes, by=DECIDED_BY)
        return decision_problem(snapshot, decision, getattr(self.control.live.agent, "tool_registry", None))

    def _apply_change(self, text: str) -> None:
        snapshot = self._pending_snapshot()
        if snapshot is None:
            return
        from qitos.engine.approval import PauseDecision
        from tui.pending import parse_document

        changes, _ = parse_document(text, len(snapshot.pending_actions))
        unchanged = {i: a for i, a in enumerate(self._pending_dicts(snapshot))}
        changes = {i: args for i, args in (changes or {}).items() if args != unchanged[i]["args"]}
        if not changes:
            self.decide(PauseDecision.approve(by=DECIDED_BY), "unchanged: running the pending action(s)")
            return
        self.decide(
            PauseDecision(verdict="changed", changes=changes, by=DECIDED_BY),
            "changed: running the new action",
        )

    def decide(self, decision: PauseDecision, note: str) -> None:
        """Resume the paused run carrying ``decision`` (the Engine records it in the trace)."""
        if self.control.live is None:
            return
        self.control.live.decision = decision
        self.control.resume_with(note)

"""Context pane: the contributions selected and dropped for the selected request, and why."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from qitos.trace.payloads import Contribution, ModelRequest, RequestView
from tui.panes.base import LinePane, Pane
from tui.panes.parts import kv
from tui.request_diff import ContributionMark, contribution_marks, previous_view, signed
from tui.store import StepSummary
from tui.text import inert, short_id
from tui.widgets.tones import BOLD


def request_view(pane: Pane, step: StepSummary) -> tuple[ModelRequest | None, RequestView | None]:
    """The step's last model request and its view (None when it carries none, or no request)."""
    if not step.requests:
        return None, None
    request = ModelRequest.read(pane.store.load(step.requests[-1]).payload)
    return request, request.view


def no_request_note(pane: Pane, step: StepSummary) -> str:
    """Why a step shows no request: pending (paused before deciding, or still running) is not
    the same as a step that sent none."""
    store = pane.store
    if store.steps and store.steps[-1] is step:
        pause = store.pause
        if pause is not None and pause.step == step.step and store.display_status == "paused":
            return f"step {step.step} is paused before deciding: its model request is not sent yet"
        if store.display_status == "live":
            return f"step {step.step} is running: its model request is not sent yet"
    return f"step {step.step} sent no model request"


class ContextPane(LinePane):
    """Contributions with units, priority, required flag, selected or dropped, and the reason."""

    TITLE = "Context"

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        return (*super().view_key(step), self.store.display_status)  # pending, or not sent at all

    def render_step(self, step: StepSummary) -> RenderableType:
        request, view = request_view(self, step)
        if request is None:
            return Text(no_request_note(self, step), style="dim")
        # The short id (the request's run is the one shown): the raw event and the export have it whole.
        head = kv(
            "request",
            short_id(request.request_id, self.store.run_id) if request.request_id else f"step {step.step}",
        )
        if view is None:
            messages = request.messages
            chars = sum(
                len(m.content) if isinstance(m.content, str) else len(str(m.content)) for m in messages
            )
            lines = [head, Text("no request view recorded (upstream trace)", style="dim")]
            lines.append(kv("messages", f"{len(messages)} ({chars} chars)"))
            if request.history_message_count is not None:
                lines.append(kv("history messages", request.history_message_count))
            return Group(*lines)
        contributions = view.contributions
        chosen = sum(c.units or 0 for c in contributions if c.selected)
        dropped = sum(c.units or 0 for c in contributions if not c.selected)
        prev_step, prev = previous_view(self.store, step)
        marks = contribution_marks(prev, view)
        rows = [self._row(c, marks.get(c.contribution_id)) for c in contributions]
        # Contributions the previous request had and this one lacks: named, so nothing vanishes.
        for cid, mark in marks.items():
            if mark.mark == "gone":
                gone = Text("− ", style=self.tone("bad"))
                gone.append_text(inert(cid, "dim strike"))
                gone.append(
                    f"  gone · {'?' if mark.units is None else mark.units} units before",
                    style=self.tone("bad"),
                )
                rows.append(gone)
        summary = kv("selected", f"{chosen} units · dropped {dropped} units", style="bold")
        sel = len(view.selected_exchange_ids)
        omitted = len(view.omitted_exchange_ids)
        versus = (
            kv("compared with", f"the request of step {prev_step}")
            if prev is not None
            else Text("first request with a view: nothing to compare with", style="dim")
        )
        return Group(head, summary, kv("exchanges", f"{sel} selected, {omitted} omitted"), versus, *rows)

    def _row(self, c: Contribution, mark: ContributionMark | None = None) -> Text:
        """One contribution: mark, id, units, priority, required, source, then the reason."""
        row = Text("✓ " if c.selected else "✗ ", style=self.tone("good") if c.selected else self.tone("bad"))
        row.append_text(inert(c.contribution_id, "bold" if c.selected else "dim"))
        units = "?" if c.units is None else c.units
        priority = "?" if c.priority is None else c.priority
        row.append(f"  {units} units · prio {priority}")
        if mark is not None:
            # What changed since the previous request: new, or changed by so many units.
            label = mark.mark if mark.delta is None else f"{mark.mark} {signed(mark.delta)}"
            row.append(f" · {label}", style=self.tone("info" if mark.mark == "new" else "warn", BOLD))
        if c.required:
            row.append(" · required", style=self.tone("warn", BOLD))
        row.append_text(inert(f" · {c.source}", "dim"))
        row.append_text(inert(f"\n    {'selected' if c.selected else 'dropped'}: {c.reason}", "italic dim"))
        return row

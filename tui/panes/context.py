"""Context pane: the contributions selected and dropped for the selected request, and why."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from tui.panes.base import Pane, kv
from tui.store import StepSummary


def request_view(pane: Pane, step: StepSummary) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The payload of the step's last model request and its view (None when it carries none)."""
    if not step.requests:
        return {}, None
    payload = pane.store.load(step.requests[-1]).payload
    view = payload.get("view")
    return payload, view if isinstance(view, dict) else None


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


class ContextPane(Pane):
    """Contributions with units, priority, required flag, selected or dropped, and the reason."""

    TITLE = "Context"

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        return (*super().view_key(step), self.store.display_status)  # pending, or not sent at all

    def render_step(self, step: StepSummary) -> RenderableType:
        payload, view = request_view(self, step)
        if not payload:
            return Text(no_request_note(self, step), style="dim")
        head = kv("request", payload.get("request_id", f"step {step.step}"))
        if view is None:
            messages = payload.get("messages") or []
            chars = sum(len(str(m.get("content", ""))) for m in messages if isinstance(m, dict))
            lines = [head, Text("no request view recorded (upstream trace)", style="dim")]
            lines.append(kv("messages", f"{len(messages)} ({chars} chars)"))
            if "history_message_count" in payload:
                lines.append(kv("history messages", payload["history_message_count"]))
            return Group(*lines)
        contributions = [c for c in view.get("contributions") or [] if isinstance(c, dict)]
        chosen = sum(int(c.get("units") or 0) for c in contributions if c.get("selected"))
        dropped = sum(int(c.get("units") or 0) for c in contributions if not c.get("selected"))
        rows: list[Text] = []
        for c in contributions:
            rows.append(self._row(c))
        summary = kv("selected", f"{chosen} units · dropped {dropped} units", style="bold")
        sel = len(view.get("selected_exchange_ids") or [])
        omitted = len(view.get("omitted_exchange_ids") or [])
        return Group(head, summary, kv("exchanges", f"{sel} selected, {omitted} omitted"), *rows)

    @staticmethod
    def _row(c: dict[str, Any]) -> Text:
        """One contribution: mark, id, units, priority, required, source, then the reason."""
        selected = bool(c.get("selected"))
        row = Text("✓ " if selected else "✗ ", style="green" if selected else "red")
        row.append(str(c.get("contribution_id", "?")), style="bold" if selected else "dim")
        row.append(f"  {c.get('units', '?')} units · prio {c.get('priority', '?')}")
        if c.get("required"):
            row.append(" · required", style="bold yellow")
        row.append(f" · {c.get('source', '')}", style="dim")
        row.append(
            f"\n    {'selected' if selected else 'dropped'}: {c.get('reason', '')}", style="italic dim"
        )
        return row

"""Compaction pane: the receipts of the selected request — what was compacted and what was lost."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from tui.panes.base import Pane, kv
from tui.panes.context import no_request_note, request_view
from tui.store import StepSummary


class CompactionPane(Pane):
    """Receipts: id, policy, input exchange ids, output digest, declared losses."""

    TITLE = "Compaction"

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        return (*super().view_key(step), self.store.display_status)  # pending, or not sent at all

    def render_step(self, step: StepSummary) -> RenderableType:
        payload, view = request_view(self, step)
        if view is None:
            if not payload:
                return Text(no_request_note(self, step), style="dim")
            return Text(f"step {step.step}: no request view recorded", style="dim")
        receipts = [r for r in view.get("receipts") or [] if isinstance(r, dict)]
        if not receipts:
            return Text(f"step {step.step}: nothing compacted for this request", style="dim")
        parts: list[RenderableType] = []
        for r in receipts:
            parts.append(Text(f"receipt {r.get('receipt_id', '?')}", style="bold"))
            parts.append(kv("  policy", r.get("policy_id", "")))
            parts.append(kv("  inputs", ", ".join(str(x) for x in r.get("input_exchange_ids") or []) or "-"))
            parts.append(kv("  digest", r.get("output_digest", "")))
            losses = r.get("declared_losses") or []
            parts.append(kv("  losses", "; ".join(str(x) for x in losses) or "none declared", style="yellow"))
            if r.get("model_reference"):
                parts.append(kv("  model", r["model_reference"]))
        return Group(*parts)

"""Compaction pane: the receipts of the selected request — what was compacted and what was lost."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from tui.panes.base import LinePane
from tui.panes.context import no_request_note, request_view
from tui.panes.parts import kv
from tui.store import StepSummary
from tui.text import inert, short_id

# "exchange ex-000001 omitted whole, without a summary": a kind, an id (it has a digit), what was lost.
_ITEM_LOSS = re.compile(r"^(\w+) (\S*\d\S*) (.+)$")


def grouped_losses(losses: Sequence[str]) -> list[str]:
    """Declared losses with the ones that differ only by the item they name grouped, in order:
    ``9 exchanges omitted whole, without a summary: ex-000001 … ex-000009``."""
    groups: dict[tuple[str, str], list[str]] = {}
    order: list[tuple[str, str] | str] = []
    for loss in losses:
        match = _ITEM_LOSS.match(loss)
        if match is None:
            order.append(loss)
            continue
        key = (match[1], match[3])
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(match[2])
    out: list[str] = []
    for entry in order:
        if isinstance(entry, str):
            out.append(entry)
            continue
        (kind, what), items = entry, groups[entry]
        if len(items) == 1:
            out.append(f"{kind} {items[0]} {what}")
        else:
            named = ", ".join(items) if len(items) == 2 else f"{items[0]} … {items[-1]}"
            out.append(f"{len(items)} {kind}s {what}: {named}")
    return out


class CompactionPane(LinePane):
    """Receipts: id, policy, input exchange ids, output digest, declared losses."""

    TITLE = "Compaction"

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        return (*super().view_key(step), self.store.display_status)  # pending, or not sent at all

    def render_step(self, step: StepSummary) -> RenderableType:
        request, view = request_view(self, step)
        if view is None:
            if request is None:
                return Text(no_request_note(self, step), style="dim")
            return Text(f"step {step.step}: no request view recorded", style="dim")
        if not view.receipts:
            return Text(f"step {step.step}: nothing compacted for this request", style="dim")
        parts: list[RenderableType] = []
        run_id = self.store.run_id
        for r in view.receipts:
            # Receipt ids and digests in their short form, so none wraps mid-value: the raw event
            # (Events pane) and the export have them whole.
            parts.append(inert(f"receipt {short_id(r.receipt_id, run_id)}", style="bold"))
            parts.append(kv("  policy", r.policy_id))
            parts.append(kv("  inputs", ", ".join(short_id(x, run_id) for x in r.input_exchange_ids) or "-"))
            parts.append(kv("  digest", short_id(r.output_digest, run_id)))
            losses = grouped_losses(r.declared_losses) or ["none declared"]
            parts.append(kv("  losses", losses[0], style=self.tone("warn")))
            parts.extend(inert(f"    {loss}", self.tone("warn")) for loss in losses[1:])
            if r.model_reference:
                parts.append(kv("  model", r.model_reference))
        return Group(*parts)

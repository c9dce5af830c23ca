"""Memory pane: the memory operations the run's events carry at the selected step."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from tui.panes.base import Pane, kv
from tui.store import StepSummary, short
from tui.text import inert


class MemoryPane(Pane):
    """Recalls (query, records), appends and deletes recorded at the selected step."""

    TITLE = "Memory"

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        return (*super().view_key(step), self.store.memory_ops)

    def render_step(self, step: StepSummary) -> RenderableType:
        parts: list[RenderableType] = [kv("run", f"{self.store.memory_ops} memory operations", style="bold")]
        if not step.memory:
            parts.append(Text(f"step {step.step}: no memory operation", style="dim"))
        for i in step.memory:
            ev = self.store.load(i)
            p = ev.payload
            if ev.phase == "memory_recall":
                parts.append(
                    inert(
                        f"recall [{p.get('namespace', '')}] {short(p.get('query') or 'everything', 50)}",
                        style="cyan",
                    )
                )
                for rec in p.get("records") or []:
                    if isinstance(rec, dict):
                        line = f"  {rec.get('record_id')} ({rec.get('role', '')}): {short(rec.get('content', ''), 60)}"
                        parts.append(inert(line))
                if not p.get("records"):
                    parts.append(
                        kv("  ids", ", ".join(map(str, p.get("record_ids") or [])) or "nothing recalled")
                    )
            elif ev.phase == "memory_append":
                line = f"append {p.get('record_id')} role={p.get('role', '')} {p.get('chars', '?')} chars"
                parts.append(inert(line, style="green"))
            else:
                removed = "removed" if p.get("removed") else "absent"
                parts.append(
                    inert(f"delete {p.get('record_id')} [{p.get('namespace', '')}] {removed}", style="red")
                )
        return Group(*parts)

"""Memory pane: the memory operations the run's events carry at the selected step."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from qitos.trace.events import EventKind
from qitos.trace.store_payloads import MemoryAppend, MemoryDelete, MemoryRecall
from tui.panes.base import LinePane
from tui.panes.parts import kv
from tui.store import StepSummary, short
from tui.text import inert


class MemoryPane(LinePane):
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
            if ev.phase == EventKind.MEMORY_RECALL:
                recall = MemoryRecall.read(ev.payload)
                parts.append(
                    inert(
                        f"recall [{recall.namespace}] {short(recall.query or 'everything', 50)}",
                        style=self.tone("info"),
                    )
                )
                for rec in recall.records:
                    parts.append(inert(f"  {rec.record_id} ({rec.role}): {short(rec.content, 60)}"))
                if not recall.records:
                    parts.append(kv("  ids", ", ".join(recall.record_ids) or "nothing recalled"))
            elif ev.phase == EventKind.MEMORY_APPEND:
                append = MemoryAppend.read(ev.payload)
                chars = "?" if append.chars is None else append.chars
                parts.append(
                    inert(
                        f"append {append.record_id} role={append.role} {chars} chars", style=self.tone("good")
                    )
                )
            else:
                delete = MemoryDelete.read(ev.payload)
                removed = "removed" if delete.removed else "absent"
                parts.append(
                    inert(f"delete {delete.record_id} [{delete.namespace}] {removed}", style=self.tone("bad"))
                )
        return Group(*parts)

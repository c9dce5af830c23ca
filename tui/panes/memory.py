"""Memory pane: the memory operations the run's events carry at the selected step."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from qitos.trace.events import EventKind
from qitos.trace.store_payloads import MemoryAppend, MemoryDelete, MemoryRecall
from tui.panes.base import LinePane
from tui.panes.parts import kv
from tui.store import StepSummary, short
from tui.text import inert, short_id
from tui.widgets.tones import DIM


class MemoryPane(LinePane):
    """Recalls (query, records), appends and deletes recorded at the selected step."""

    TITLE = "Memory"

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        return (*super().view_key(step), self.store.memory_ops)

    def render_step(self, step: StepSummary) -> RenderableType:
        # Record ids are digests: shown short here (3a8504…3869), whole in the memory browser and
        # the raw event; a 32-digit id wrapped over two lines reads as two values.
        run_id = self.store.run_id
        parts: list[RenderableType] = [kv("run", f"{self.store.memory_ops} memory operations")]
        if not step.memory:
            parts.append(Text(f"step {step.step}: no memory operation", style=DIM))
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
                    record = f"{short_id(rec.record_id, run_id)} ({rec.role}): {short(rec.content, 60)}"
                    parts.append(indented(inert(record)))
                if not recall.records:
                    ids = ", ".join(short_id(r, run_id) for r in recall.record_ids) or "nothing recalled"
                    parts.append(indented(kv("ids", ids)))
            elif ev.phase == EventKind.MEMORY_APPEND:
                append = MemoryAppend.read(ev.payload)
                chars = "?" if append.chars is None else append.chars
                record = short_id(append.record_id, run_id)
                parts.append(
                    inert(f"append {record} role={append.role} {chars} chars", style=self.tone("good"))
                )
            else:
                delete = MemoryDelete.read(ev.payload)
                removed = "removed" if delete.removed else "absent"
                record = short_id(delete.record_id, run_id)
                parts.append(inert(f"delete {record} [{delete.namespace}] {removed}", style=self.tone("bad")))
        return Group(*parts)


def indented(line: Text) -> Padding:
    """``line`` indented two cells by padding, not leading spaces (SVG renderers drop those)."""
    return Padding(line, (0, 0, 0, 2))

"""How the memory browser draws: the record list's rows, the column heading, the detail view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text

from tui.browsers.memory_model import MemoryRow, RecallMark, RecallStatus, RowKind
from tui.browsers.virtual_list import VirtualList
from tui.structured import Tone
from tui.text import inert, one_line
from tui.widgets.tones import BOLD, DIM

if TYPE_CHECKING:
    from tui.browsers.memory_browser import MemoryBrowser

DETAIL_CHARS = 100_000  # the detail view shows this much of a record's text, and says so when cut
COMPACT_WIDTH = 72  # below this many cells the list leaves out the created column
MARKS = {
    RecallStatus.UNCHANGED: ("●", "good"),
    RecallStatus.CHANGED: ("◆", "warn"),
    RecallStatus.GONE: ("✗", "bad"),
}
"""The glyph and tone (tui.widgets.tones) of each recall mark."""


class RecordList(VirtualList):
    """The record rows of a MemoryBrowser: mark, role, step, created, size, first line."""

    MARK_CELLS = 3  # the recall mark, G and the space after them: the cursor starts at the role

    def __init__(self, browser: MemoryBrowser, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.browser = browser

    def row_text(self, index: int, width: int) -> Text:
        row = self.browser.rows[index]
        mark = self.browser.marks.get(row.record_id) if row.kind is not RowKind.REJECTED else None
        text = Text()
        if mark is not None:
            glyph, tone = MARKS[mark.status]
            text.append(glyph, style=self.tone(tone))
        else:
            text.append(" ")
        # The space after the marks ends their run: SVG renderers drop a run's leading space
        # (see tui.browsers.summary), which shifted every row against its heading.
        text.append("G " if row.scope == "global" else "  ", style=DIM)
        if row.kind is RowKind.REJECTED:
            text.append_text(inert(f"{'rejected':<9} {row.path}: {row.reason}"))
            return text
        step = "" if row.step_id is None else str(row.step_id)
        size = "gone" if row.kind is RowKind.GONE else short_size(row.size)
        if width < COMPACT_WIDTH:  # narrow panes: the first line matters more than the date
            text.append_text(inert(f"{row.role[:9]:<9} {step:>5} {size:>6} "))
        else:
            created = row.created[:19].replace("T", " ")
            text.append_text(inert(f"{row.role[:9]:<9} {step:>5} {created:<19} {size:>6} "))
        text.append_text(inert(row.summary))  # record files are untrusted: shown inert
        return text

    def row_classes(self, index: int) -> tuple[str, ...]:
        row = self.browser.rows[index]
        if row.kind is RowKind.REJECTED:
            return ("error",)
        if row.key in self.browser.flashing():
            return ("flash",)
        if row.kind is RowKind.GONE or row.scope == "global":
            return ("dim",)  # the virtual-list--dim component class
        return ()


def body(text: str) -> Text:
    """A record's text for the detail view; a very long one is cut with a note saying how much is left."""
    if len(text) <= DETAIL_CHARS:
        return inert(text)
    out = inert(text[:DETAIL_CHARS])
    out.append(
        f"\n… {len(text) - DETAIL_CHARS:,} more characters not shown (open the file to read them)", DIM
    )
    return out


def columns_heading(wide: bool) -> Text:
    """The column heading over the record list (matching RecordList.row_text after its three
    mark cells, which the heading's padding stands for)."""
    if wide:
        return Text("role       step created               size text")
    return Text("role       step   size text")


def short_size(size: int) -> str:
    """A byte count in at most six cells."""
    if size < 10_000:
        return f"{size}B"
    if size < 10_000_000:
        return f"{size // 1024}K"
    return f"{size // (1024 * 1024)}M"


def detail(row: MemoryRow, mark: RecallMark | None, step: int | None, tone: Tone) -> RenderableType:
    """The full text of a row with its facts; a recalled record beside its recalled content.

    Ids and paths are shown whole, each on a line of its own that never wraps: a digest folded
    over two lines reads as two values."""
    if row.kind is RowKind.REJECTED:
        return Group(
            inert(f"rejected file {row.path} ({row.scope})", style=tone("bad")),
            inert(f"reason: {row.reason}"),
            Text("Never recalled and never deleted by the browser: fix or remove it by hand.", DIM),
        )
    facts: list[RenderableType] = [whole(row.record_id, BOLD)]
    if row.kind is RowKind.GONE:
        facts.append(inert(f"{row.role} · gone from disk", tone("bad")))
    else:
        facts.append(inert(f"{row.role} · step {row.step_id} · {row.created} · {row.size} bytes", DIM))
        path = whole(row.path, DIM)
        if row.scope == "global":
            path.append("  ", DIM)
            path.append("global memory: read-only here", tone("warn"))
        facts.append(path)
    if row.metadata:
        facts.append(inert(f"metadata {row.metadata}", DIM))
    if mark is None:
        return Group(*facts, Text(""), body(row.content))
    if mark.status is RecallStatus.UNCHANGED:
        note = Text(f"recalled at step {step}; unchanged on disk since", style=tone("good"))
        return Group(*facts, note, Text(""), body(row.content))
    if mark.status is RecallStatus.GONE:
        note = Text(f"recalled at step {step}; deleted from disk since. Recalled content:", style=tone("bad"))
        return Group(*facts, note, Text(""), body(mark.recalled))
    table = Table(expand=True, box=None, padding=(0, 1), show_edge=False)
    table.add_column(f"recalled at step {step}", ratio=1, style=tone("warn"))
    table.add_column("on disk now", ratio=1)
    table.add_row(body(mark.recalled), body(mark.current or ""))
    note = Text(f"recalled at step {step}; changed on disk since", style=tone("warn"))
    return Group(*facts, note, Text(""), table)


def whole(value: str, style: Style) -> Text:
    """An id or a path shown whole on one line: never wrapped (a narrower view cuts its end)."""
    text = one_line(inert(value, style))
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def recall_counts(marks: Mapping[str, RecallMark]) -> str:
    """'3 recalled: 1 changed, 1 gone' for the summary line."""
    if not marks:
        return "nothing recalled"
    changed = sum(1 for m in marks.values() if m.status is RecallStatus.CHANGED)
    gone = sum(1 for m in marks.values() if m.status is RecallStatus.GONE)
    return f"{len(marks)} recalled ({changed} changed, {gone} gone since)"


def describe_change(changed: set[str], removed: list[MemoryRow]) -> str:
    """'1 new/changed, 1 removed (id)' for the summary line."""
    parts = []
    if changed:
        parts.append(f"{len(changed)} new/changed")
    if removed:
        names = ", ".join(row.record_id for row in removed[:2])
        parts.append(f"{len(removed)} removed ({names}{'…' if len(removed) > 2 else ''})")
    return ", ".join(parts)

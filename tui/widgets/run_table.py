"""RunTable: the run list's rows, drawn a screenful at a time from a RunView.

A DataTable measured and stored every cell of every row as it was added: 10,000 runs took it
longer to take in than reading their manifests did, and a filter or a sort meant adding them all
again. This view draws only the rows on screen (the line API), from text worked out once per run;
the header stays on its first line, the run column stays on the left while the others scroll a
column at a time, and marked runs carry a ``●``.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from tui.run_view import COLUMNS, RunView
from tui.widgets.scroll_gutter import GUTTER_CSS, GutterScrolling
from tui.widgets.scrolling import set_virtual_size

MARK = "● "  # a marked run (two marked runs are compared with `c`)
GAP = 2  # columns apart
TROUBLE = frozenset({"failed", "interrupted", "error", "unknown"})  # statuses drawn in the error colour


class RunTable(GutterScrolling, can_focus=True, inherit_bindings=False):
    """The rows of a RunView under a header line; ↑/↓ move the cursor."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "run-table--header",
        "run-table--cursor",
        "run-table--marked",
        "run-table--trouble",
        "run-table--odd",
    }
    DEFAULT_CSS = (
        "RunTable { background: $surface; overflow-x: hidden; height: 1fr; "
        + GUTTER_CSS
        + " }"
        + """
    RunTable > .run-table--header { text-style: bold; background: $panel; }
    RunTable > .run-table--cursor { background: $accent 40%; }
    RunTable:focus > .run-table--cursor { background: $accent; color: $text; text-style: bold; }
    RunTable > .run-table--marked { color: $warning; text-style: bold; }
    RunTable > .run-table--trouble { color: $error; }
    RunTable > .run-table--odd { background: $surface-lighten-1; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Prev run", show=False),
        Binding("down,j", "move(1)", "Next run", show=False),
        Binding("pageup", "move(-20)", "Page up", show=False),
        Binding("pagedown", "move(20)", "Page down", show=False),
        Binding("home", "edge(0)", "First run", show=False),
        Binding("end", "edge(1)", "Last run", show=False),
    ]

    cursor: reactive[int] = reactive(0, repaint=False)
    """The shown row under the cursor."""

    class Chosen(Message):
        """A row was clicked while it was already under the cursor (open it)."""

        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    def __init__(self, view: RunView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.marked: list[Path] = []  # in the order they were marked: the first is run A
        self.first_column = 1  # the leftmost column drawn after the pinned run column
        self.moved = False  # the user moved the cursor: it then stays on its run as rows come in

    # ---- what changed ------------------------------------------------------------------------
    def rows_changed(self) -> None:
        """The view's shown rows changed: size the scroll area to them and redraw."""
        n = len(self.view.shown)
        set_virtual_size(self, Size(self.size.width, n + 1))
        if self.cursor >= n:
            self.cursor = max(0, n - 1)
        self.refresh()

    def watch_cursor(self) -> None:
        self.scroll_to_cursor()
        self.refresh()

    def scroll_to_cursor(self) -> None:
        """Scroll so the cursor's row is on screen (below the header)."""
        top = int(self.scroll_y)
        rows = max(1, self.scrollable_content_region.height - 1)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + rows:
            self.scroll_to(y=self.cursor - rows + 1, animate=False, immediate=True)

    def action_move(self, delta: int) -> None:
        """Move the cursor by ``delta`` rows."""
        if self.view.shown:
            self.moved = True
            self.cursor = max(0, min(len(self.view.shown) - 1, self.cursor + delta))

    def action_edge(self, last: int) -> None:
        """The first or the last row."""
        if self.view.shown:
            self.moved = True
            self.cursor = len(self.view.shown) - 1 if last else 0

    def shift_columns(self, delta: int) -> bool:
        """Scroll the columns right of the run's by one; False when there is nothing that way."""
        if delta > 0 and not self.hidden_right():
            return False
        target = max(1, min(len(COLUMNS) - 1, self.first_column + delta))
        if target == self.first_column:
            return False
        self.first_column = target
        self.refresh()
        return True

    def show_column(self, column: int) -> None:
        """Scroll the columns so that ``column`` is drawn (the sort column, when it changes)."""
        if column == 0:
            return
        if column < self.first_column:
            self.first_column = column
        while column not in [c for c, _ in self._layout()[0]] and self.first_column < column:
            self.first_column += 1
        self.refresh()

    def hidden_right(self) -> bool:
        """Whether columns are cut off at the right edge."""
        return self._layout()[1]

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.in_gutter(event) or offset.y == 0:
            return
        row = offset.y - 1 + int(self.scroll_y)
        if 0 <= row < len(self.view.shown):
            if row == self.cursor:
                self.post_message(self.Chosen(row))
            self.moved = True
            self.cursor = row

    # ---- drawing -----------------------------------------------------------------------------
    def _layout(self) -> tuple[list[tuple[int, int]], bool]:
        """The columns drawn, as (column, width) from the left, and whether any were cut off."""
        # Less the gutter, the mark's column and the " →" that says more columns are cut off.
        room = self.scrollable_content_region.width - 1 - len(MARK) - 2
        columns = [0, *range(self.first_column, len(COLUMNS))]
        # Every cell whole when that fits (a wide terminal); else each column at most its cap.
        whole = [(c, self._width(c, capped=False)) for c in columns]
        if sum(w for _, w in whole) + GAP * (len(whole) - 1) <= room:
            return whole, False
        drawn = [(0, self._width(0))]
        used = drawn[0][1]
        cut = False
        for column in columns[1:]:
            width = self._width(column)
            if used + GAP + width > room:
                cut = True
                break
            drawn.append((column, width))
            used += GAP + width
        # The room left goes to the columns that were cut short, by how much each was.
        short = {c: w for (c, w), (_, full) in zip(drawn, whole, strict=False) if full > w}
        lacking = {c: dict(whole)[c] - w for c, w in short.items()}
        total, spare = sum(lacking.values()), room - used
        if total and spare > 0:
            drawn = [(c, w + spare * lacking.get(c, 0) // total) for c, w in drawn]
        return drawn, cut

    def _width(self, column: int, *, capped: bool = True) -> int:
        # The sort arrow beside a title takes two more cells.
        title = cell_len(COLUMNS[column].title) + (2 if column == self.view.sort_column else 0)
        return max(self.view.width(column) if capped else self.view.widths[column], title)

    def header_text(self) -> str:
        """The titles as drawn, the sort column's with ▼ (descending) or ▲."""
        drawn, cut = self._layout()
        cells = []
        for column, width in drawn:
            title = COLUMNS[column].title
            if column == self.view.sort_column:
                title += " ▼" if self.view.descending else " ▲"
            cells.append(_fit(title, width, COLUMNS[column].numeric))
        return " " * len(MARK) + (" " * GAP).join(cells) + (" →" if cut else "")

    def row_cells(self, position: int) -> list[tuple[str, bool]]:
        """Shown row ``position`` as drawn: (cell text, in trouble) per drawn column."""
        row, _ = self.view.shown[position]
        out = []
        for column, width in self._layout()[0]:
            text = self.view.label(position) if column == 0 else row.cells[column - 1]
            out.append((_fit(text, width, COLUMNS[column].numeric), column == 1 and text in TROUBLE))
        return out

    def row_text(self, position: int) -> str:
        """Shown row ``position`` as one line of plain text (for tests and `y`)."""
        row, _ = self.view.shown[position]
        mark = MARK if row.run.path in self.marked else " " * len(MARK)
        return mark + (" " * GAP).join(text for text, _ in self.row_cells(position))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width - 1
        base = self.rich_style
        gutter = self.gutter_cell(y)
        if y == 0:
            style = base + self.get_component_rich_style("run-table--header")
            text = _fit(self.header_text(), width)
            # The mark's column apart: an exported screenshot (SVG) would drop leading spaces.
            prefix = len(MARK)
            return Strip([Segment(text[:prefix], style), Segment(text[prefix:], style), gutter], width + 1)
        position = int(self.scroll_y) + y - 1
        if position >= len(self.view.shown):
            return Strip([Segment(" " * width, base), gutter], width + 1)
        style = base
        if position % 2:
            style += self.get_component_rich_style("run-table--odd")
        row, _ = self.view.shown[position]
        marked = row.run.path in self.marked
        if marked:
            style += self.get_component_rich_style("run-table--marked")
        if position == self.cursor:
            style += self.get_component_rich_style("run-table--cursor")
        trouble = style + Style.from_color(self.get_component_rich_style("run-table--trouble").color)
        segments = [Segment(MARK if marked else " " * len(MARK), style)]
        used = len(MARK)
        for k, (text, bad) in enumerate(self.row_cells(position)):
            if k:
                segments.append(Segment(" " * GAP, style))
                used += GAP
            segments.append(Segment(text, trouble if bad else style))
            used += cell_len(text)
        if used < width:
            segments.append(Segment(" " * (width - used), style))
        line = Strip(segments).crop(0, width) if used > width else Strip(segments)
        return Strip([*line, gutter], width + 1)


def _fit(text: str, width: int, right: bool = False) -> str:
    """``text`` in exactly ``width`` cells: cut with … when longer, padded (right-aligned figures)."""
    n = cell_len(text)
    if n > width:
        return set_cell_size(text, max(0, width - 1)) + "…" if width > 0 else ""
    pad = " " * (width - n)
    return pad + text if right else text + pad

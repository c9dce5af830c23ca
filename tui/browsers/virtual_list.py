"""VirtualList: a LineList whose rows are Text, styled by component classes, for the browsers."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from tui.text import one_line
from tui.widgets.line_list import LineList
from tui.widgets.tones import Toned


class VirtualList(LineList, Toned, inherit_bindings=False):
    """Rows come from ``row_text``; only visible ones are rendered, so 10k or 1M rows cost the same."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-list--cursor",
        "virtual-list--flash",
        "virtual-list--dim",
        "virtual-list--error",
        "virtual-list--mark",
    }
    DEFAULT_CSS = """
    VirtualList { background: $surface; height: 1fr; overflow-x: hidden; }
    VirtualList > .virtual-list--cursor { background: $accent 35%; }
    VirtualList:focus > .virtual-list--cursor { background: $accent; color: $text; text-style: bold; }
    VirtualList > .virtual-list--flash { background: $success 40%; }
    VirtualList > .virtual-list--dim { color: $text-muted; }
    VirtualList > .virtual-list--error { color: $error; }
    VirtualList > .virtual-list--mark { color: $success; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(1)", "Last", show=False),
    ]

    MARK_CELLS: ClassVar[int] = 0
    """Leading cells of a row that hold status marks: the cursor highlight starts after them."""

    class Moved(Message):
        """The cursor moved to another row (keys, mouse, or a new list under it)."""

        def __init__(self, list_: VirtualList, index: int) -> None:
            super().__init__()
            self.list = list_
            self.index = index

        @property
        def control(self) -> VirtualList:
            """The list that moved (for ``@on(VirtualList.Moved, "#id")``)."""
            return self.list

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.count = 0

    # ---- what subclasses provide --------------------------------------------------------------
    def row_text(self, index: int, width: int) -> Text:
        """The text of row ``index`` (subclasses override)."""
        return Text(str(index))

    def row_classes(self, index: int) -> tuple[str, ...]:
        """Component classes (without the prefix) that style row ``index``, e.g. ("flash",)."""
        return ()

    # ---- state --------------------------------------------------------------------------------
    def set_count(self, count: int, cursor: int | None = None) -> None:
        """Tell the list how many rows there are now (and where the cursor should be)."""
        self.count = count
        self.virtual_size = Size(self.size.width, count)
        target = self.cursor if cursor is None else cursor
        self.cursor = max(0, min(target, count - 1)) if count else 0
        self.refresh()

    def row_count(self) -> int:
        """The rows set by set_count."""
        return self.count

    def cursor_moved(self, cursor: int) -> None:
        self.post_message(self.Moved(self, cursor))

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, self.count)

    # ---- rendering ----------------------------------------------------------------------------
    def blank_row(self, width: int) -> Strip:
        return Strip.blank(width, self.rich_style)

    def render_row(self, row: int, width: int) -> Strip:
        style: Style = self.rich_style
        for name in self.row_classes(row):
            style += self.get_component_rich_style(f"virtual-list--{name}")
        text = one_line(self.row_text(row, width))  # a newline in a row would break the screen
        text.truncate(width, overflow="ellipsis", pad=True)
        strip = Strip(list(text.render(self.app.console))).adjust_cell_length(width)
        if row != self.cursor:
            return strip.apply_style(style)
        cursor = style + self.get_component_rich_style("virtual-list--cursor")
        if not 0 < self.MARK_CELLS < width:
            return under_cursor(strip, cursor)
        # The marker cells keep the row's own background, so coloured marks stay readable.
        marks, rest = strip.divide([self.MARK_CELLS, width])
        return Strip.join([marks.apply_style(style), under_cursor(rest, cursor)])


def under_cursor(strip: Strip, cursor: Style) -> Strip:
    """``strip`` under the cursor: its text in the cursor's colour (a tone such as "active" in
    green was unreadable on the cursor's accent), weights and placeholders kept."""
    return Strip(Segment.remove_color(strip)).apply_style(cursor)

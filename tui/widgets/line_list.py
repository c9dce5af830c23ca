"""LineList: a cursor over rows drawn one line each through the line API, whatever their number.

The common ground of the run screen's step list and the browsers' record, skill and version
lists: a row count, a cursor kept in view without animation, a click that picks a row, and
``render_line`` asking the subclass for one row at a time (only the rows on screen are drawn).
"""

from __future__ import annotations

from rich.segment import Segment
from textual import events
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip

from tui.widgets.render_pass import PassValue
from tui.widgets.scroll_gutter import GutterScrolling
from tui.widgets.scrolling import set_virtual_size


class LineList(GutterScrolling, can_focus=True, inherit_bindings=False):
    """Rows ``0 .. row_count() - 1``, one line each, with a cursor; subclasses draw a row."""

    SHOWS_GUTTER = False  # a list with GUTTER_CSS in its DEFAULT_CSS sets True

    # Not repainted wholesale: a moved cursor redraws its old and new rows only (watch_cursor).
    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)
    """The highlighted row."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._shown_cursor = 0  # the row drawn as the cursor, to redraw when the cursor moves
        # The first row shown, the row width and the row count, worked out once per render_lines.
        self._pass_rows = PassValue(lambda: (int(self.scroll_offset.y), self.row_width, self.row_count()))

    # ---- what subclasses provide --------------------------------------------------------------
    def row_count(self) -> int:
        """How many rows there are now."""
        raise NotImplementedError(f"{type(self).__name__} must implement row_count")

    def render_row(self, row: int, width: int) -> Strip:
        """Row ``row`` (below ``row_count()``) as a strip of exactly ``width`` cells."""
        raise NotImplementedError(f"{type(self).__name__} must implement render_row")

    def blank_row(self, width: int) -> Strip:
        """What is drawn below the last row."""
        return Strip([Segment(" " * width, self.rich_style)], width)

    def pick(self, row: int) -> None:
        """The user asked for ``row`` (a key or a click): the cursor goes there (a list whose
        cursor is owned by its screen posts a message instead)."""
        self.cursor = row

    def cursor_moved(self, cursor: int) -> None:
        """Called after the cursor moved and the rows it touched were redrawn."""

    # ---- cursor -------------------------------------------------------------------------------
    def sync_size(self) -> None:
        """Bring the scrollable height to the row count (without a new layout when it can)."""
        set_virtual_size(self, Size(self.size.width, self.row_count()))

    def scroll_to_cursor(self, cursor: int) -> bool:
        """Scroll the least that shows row ``cursor``, at once (navigation must answer at once);
        returns whether it scrolled."""
        top = int(self.scroll_offset.y)
        height = max(1, self.scrollable_content_region.height)
        if cursor < top:
            self.scroll_to(y=cursor, animate=False, immediate=True)
        elif cursor >= top + height:
            self.scroll_to(y=cursor - height + 1, animate=False, immediate=True)
        else:
            return False
        return True

    def watch_cursor(self, cursor: int) -> None:
        self.sync_size()
        previous, self._shown_cursor = self._shown_cursor, cursor
        if self.scroll_to_cursor(cursor):
            self.refresh()
        else:
            # Every row but two stays as it was: redraw only those (a whole-list redraw is most
            # of what a key costs on a wide screen).
            self.refresh_line(previous)
            self.refresh_line(cursor)
        self.cursor_moved(cursor)

    def on_resize(self) -> None:
        self.sync_size()

    def action_move(self, delta: int) -> None:
        """Move the cursor by ``delta`` rows."""
        count = self.row_count()
        if count:
            self.pick(max(0, min(count - 1, self.cursor + delta)))

    def action_page(self, direction: int) -> None:
        """Move the cursor by one screenful."""
        self.action_move(direction * max(1, self.scrollable_content_region.height - 1))

    def action_jump(self, end: int) -> None:
        """Go to the first (0) or last (1) row."""
        count = self.row_count()
        if count:
            self.pick(count - 1 if end else 0)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)  # the event's own x, y count the border too
        if offset is None or self.in_gutter(event):
            return  # the border, or the gutter (which scrolls: GutterScrolling)
        row = offset.y + int(self.scroll_offset.y)
        if 0 <= row < self.row_count():
            self.pick(row)

    # ---- drawing ------------------------------------------------------------------------------
    @property
    def row_width(self) -> int:
        """The cells a row has: the content width, less the gutter's column when there is one."""
        return self.scrollable_content_region.width - (1 if self.SHOWS_GUTTER else 0)

    def render_lines(self, crop: Region) -> list[Strip]:
        # What every row of one pass shares, looked up once (a far jump draws every row).
        with self._pass_rows.during():
            return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        top, width, count = self._pass_rows.get()
        row = y + top
        strip = self.render_row(row, width) if row < count else self.blank_row(width)
        if not self.SHOWS_GUTTER:
            return strip
        return Strip([*strip, self.gutter_cell(y)], width + 1)

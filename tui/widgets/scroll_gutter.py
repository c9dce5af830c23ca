"""A scroll indicator that a line-API view draws in its own last column, instead of a ScrollBar.

Textual's ScrollBar is a widget of its own: each of its lines costs the compositor about as much
as a line of content, and a far jump on a wide screen redraws the step list's bar and the panes'
(a third of that frame). Drawn by the view itself, in lines it redraws anyway, the same
information costs one cell per line. The view keeps Textual's scrolling (keys, the mouse wheel:
``overflow-y: scroll`` with ``scrollbar-size-vertical: 0``); clicking or dragging in the gutter
scrolls to that point, as on a scrollbar.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.widgets.render_pass import PassValue

GUTTER_CSS = "scrollbar-size-vertical: 0; overflow-y: scroll;"  # scrolls, without Textual's bar


def thumb_rows(window: int, total: int, offset: float) -> range:
    """The rows of a ``window``-row view, showing ``total`` rows from ``offset`` on, that the thumb
    covers; empty when everything fits."""
    if window <= 0 or total <= window:
        return range(0)
    size = max(1, round(window * window / total))
    fraction = min(1.0, max(0.0, offset / (total - window)))
    top = round((window - size) * fraction)
    return range(top, top + size)


def offset_for(row: int, window: int, total: int) -> int:
    """The scroll offset that a click on gutter ``row`` asks for (top row: start, bottom row: end)."""
    if window <= 1 or total <= window:
        return 0
    fraction = min(1.0, max(0.0, row / (window - 1)))
    return round((total - window) * fraction)


class GutterScrolling(ScrollView):
    """A ScrollView drawing its scroll position in its last column (see ``gutter_cell``)."""

    SHOWS_GUTTER: ClassVar[bool] = True
    """Whether the view draws the gutter (a subclass that keeps Textual's scrollbar says False:
    then its last column is content, and a click there is a click on it)."""
    TRACK_WHEN_IT_FITS: ClassVar[bool] = True
    """Draw the track while everything fits (as ``overflow-y: scroll`` does), or leave it blank
    (as ``auto`` does)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # the base class's arguments, passed on
        super().__init__(*args, **kwargs)
        self._gutter_styles: dict[str, tuple[Style, Style]] = {}  # by theme
        self._dragging = False
        self._pass_thumb = PassValue(self.gutter_thumb)  # worked out once per render_lines
        self._pass_styles = PassValue(self._track_and_bar)  # and the gutter's styles

    def render_lines(self, crop: Region) -> list[Strip]:
        # Every line drawn in one pass has the same thumb: work it out once, not per line.
        with self._pass_thumb.during(), self._pass_styles.during():
            return super().render_lines(crop)

    def drawn_thumb(self) -> range:
        """The thumb of the lines being drawn (see render_lines), or as it is now."""
        return self._pass_thumb.get()

    def notify_style_update(self) -> None:
        self._gutter_styles.clear()  # the CSS or the theme changed
        super().notify_style_update()

    def gutter_thumb(self) -> range:
        """The rows the thumb covers now."""
        return thumb_rows(self.scrollable_content_region.height, self.virtual_size.height, self.scroll_y)

    def gutter_cell(self, y: int) -> Segment:
        """The gutter's cell on row ``y``: the thumb's colour on the thumb's rows, else the track's."""
        thumb = self.drawn_thumb()
        track, bar = self._pass_styles.get()
        return Segment(" ", bar if y in thumb else track)

    def _track_and_bar(self) -> tuple[Style, Style]:
        """The track's and the thumb's styles (the track's is the view's own background while
        everything fits, unless TRACK_WHEN_IT_FITS)."""
        if not self.TRACK_WHEN_IT_FITS and not self.drawn_thumb():
            return self.rich_style, self.rich_style
        styles = self._gutter_styles.get(self.app.theme)
        if styles is None:
            # The colours Textual's own scrollbar takes from the view's styles.
            base, _ = self.background_colors
            background = base + self.styles.scrollbar_background
            bar = background + self.styles.scrollbar_color
            styles = self._gutter_styles[self.app.theme] = (
                Style(bgcolor=background.rich_color),
                Style(bgcolor=bar.rich_color),
            )
        return styles

    def refresh_gutter(self, before: range) -> None:
        """Redraw the rows whose gutter cell changed since the thumb covered ``before``."""
        if not self.SHOWS_GUTTER:
            return
        after = self.gutter_thumb()
        if not self.TRACK_WHEN_IT_FITS and bool(before) != bool(after):
            self.refresh()  # the track comes or goes on every row
        elif before != after:
            for y in set(before).symmetric_difference(after):
                self.refresh_row(y)

    def refresh_row(self, y: int) -> None:
        """Redraw row ``y`` of the view as it is on screen (``refresh_line`` takes a content line)."""
        self.refresh(Region(0, y, self.size.width, 1))

    def _gutter_row(self, event: events.MouseEvent) -> int | None:
        """The content row of a mouse event on the gutter column, else None."""
        offset = event.get_content_offset(self)
        if not self.SHOWS_GUTTER or offset is None or offset.x != self.scrollable_content_region.width - 1:
            return None
        return offset.y

    def scroll_to_row(self, row: int) -> None:
        """Scroll to where gutter row ``row`` points (a click or a drag there)."""
        window = self.scrollable_content_region.height
        self.scroll_to(y=offset_for(row, window, self.virtual_size.height), animate=False, immediate=True)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        row = self._gutter_row(event)
        if row is not None and self.virtual_size.height > self.scrollable_content_region.height:
            event.stop()
            self._dragging = True
            self.capture_mouse()
            self.scroll_to_row(row)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging:
            event.stop()
            offset = event.get_content_offset_capture(self)
            self.scroll_to_row(offset.y)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging:
            event.stop()
            self._dragging = False
            self.release_mouse()

    def in_gutter(self, event: events.MouseEvent) -> bool:
        """Whether ``event`` happened on the gutter column (a click there is not a click on a row)."""
        return self._gutter_row(event) is not None

"""set_virtual_size: a new layout only when a scrollbar comes or goes."""

from __future__ import annotations

from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.widgets.scrolling import set_virtual_size


class Lines(ScrollView):
    """Numbered lines through the line API."""

    DEFAULT_CSS = "Lines { height: 10; overflow-x: hidden; }"

    def render_line(self, y: int) -> Strip:
        row = y + int(self.scroll_offset.y)
        width = self.scrollable_content_region.width
        return Strip([Segment(f"line {row}".ljust(width))], width)


class LinesApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Lines()


async def test_growing_past_the_height_lays_out_growing_further_does_not() -> None:
    app = LinesApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(Lines)
        width = view.size.width
        assert set_virtual_size(view, Size(width, 5)) is True  # the first size (a new width): layout
        await pilot.pause()
        assert not view.show_vertical_scrollbar
        assert set_virtual_size(view, Size(width, 8)) is False  # still fits: no scrollbar, no layout
        assert view.virtual_size.height == 8
        assert set_virtual_size(view, Size(width, 50)) is True  # the scrollbar comes: layout
        await pilot.pause()
        assert view.show_vertical_scrollbar
        assert set_virtual_size(view, Size(width, 80)) is False  # it stays: told directly
        assert view.vertical_scrollbar.window_virtual_size == 80
        assert view.max_scroll_y == 80 - view.scrollable_content_region.height
        view.scroll_to(y=70, animate=False, immediate=True)
        assert set_virtual_size(view, Size(width, 30)) is False  # shrank: the end moved up
        assert view.scroll_y == view.max_scroll_y == 30 - view.scrollable_content_region.height
        assert set_virtual_size(view, Size(width, 30)) is False  # unchanged
        assert set_virtual_size(view, Size(width, 4)) is True  # the scrollbar goes: layout
        await pilot.pause()
        assert not view.show_vertical_scrollbar and view.scroll_y == 0

"""set_virtual_size: a new layout only when a scrollbar comes, goes or is drawn; never for a gutter."""

from __future__ import annotations

from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.widgets.scroll_gutter import GUTTER_CSS
from tui.widgets.scrolling import set_virtual_size


class Lines(ScrollView):
    """Numbered lines through the line API."""

    DEFAULT_CSS = "Lines { height: 10; overflow-x: hidden; }"

    def render_line(self, y: int) -> Strip:
        row = y + int(self.scroll_offset.y)
        width = self.scrollable_content_region.width
        return Strip([Segment(f"line {row}".ljust(width))], width)


class ViewApp(App[None]):
    """An app showing one given view."""

    def __init__(self, view: ScrollView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def test_growing_past_the_height_lays_out_growing_further_does_not() -> None:
    view = Lines()
    async with ViewApp(view).run_test(size=(40, 12)) as pilot:
        width = view.size.width
        assert set_virtual_size(view, Size(width, 5)) is True  # the first size (a new width): layout
        await pilot.pause()
        assert not view.show_vertical_scrollbar
        assert set_virtual_size(view, Size(width, 8)) is False  # still fits: no scrollbar, no layout
        assert view.virtual_size.height == 8
        assert set_virtual_size(view, Size(width, 50)) is True  # the scrollbar comes: layout
        await pilot.pause()
        assert view.show_vertical_scrollbar
        # A visible bar is drawn anew by a layout (the app's views draw a gutter instead: below).
        assert set_virtual_size(view, Size(width, 80)) is True
        await pilot.pause()
        assert view.vertical_scrollbar.window_virtual_size == 80
        assert view.max_scroll_y == 80 - view.scrollable_content_region.height
        view.scroll_to(y=70, animate=False, immediate=True)
        assert set_virtual_size(view, Size(width, 30)) is True  # shrank: the end moved up
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y == 30 - view.scrollable_content_region.height
        await pilot.pause()
        assert set_virtual_size(view, Size(width, 30)) is False  # unchanged
        assert set_virtual_size(view, Size(width, 4)) is True  # the scrollbar goes: layout
        await pilot.pause()
        assert not view.show_vertical_scrollbar and view.scroll_y == 0


class Gutter(Lines):
    """Lines that scroll with a gutter of their own in place of Textual's bar (as the run screen's
    panes and step list do)."""

    DEFAULT_CSS = "Gutter { height: 10; overflow-x: hidden; " + GUTTER_CSS + " }"


async def test_a_view_with_a_gutter_never_lays_out_and_scrolls_within_its_size() -> None:
    view = Gutter()
    async with ViewApp(view).run_test(size=(40, 12)) as pilot:
        width = view.size.width
        set_virtual_size(view, Size(width, 3))
        await pilot.pause()
        for height in (5, 2, 9, 10, 11, 40, 12, 7, 3):
            assert set_virtual_size(view, Size(width, height)) is False  # never a layout
            await pilot.pause()
            assert view.virtual_size.height == height
            assert view.max_scroll_y == max(0, height - view.scrollable_content_region.height)
        view.scroll_to(y=view.max_scroll_y, animate=False, immediate=True)
        set_virtual_size(view, Size(width, 40))
        view.scroll_to(y=30, animate=False, immediate=True)
        assert set_virtual_size(view, Size(width, 15)) is False  # shrank: the end moved up
        assert view.scroll_y == view.max_scroll_y == 15 - view.scrollable_content_region.height

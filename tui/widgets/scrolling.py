"""Resizing a line-API widget's scrollable area without a new layout of the whole screen."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.widget import Widget


def set_virtual_size(view: ScrollView, size: Size) -> bool:
    """Give ``view`` a new virtual size; returns whether that took a new layout of the screen.

    Assigning ``virtual_size`` makes Textual lay out the whole screen again, which on a wide screen
    costs more than everything else a navigation key does. The layout is only needed when a
    scrollbar appears or disappears (never with ``overflow-y: scroll``); otherwise the scrollbar
    is told the new size directly.
    """
    current = view.virtual_size
    if size == current:
        return False
    width, height = view.container_size
    styles = view.styles
    # What Textual decides: overflow-y: scroll always shows the scrollbar, auto when it overflows
    vertical = styles.overflow_y == "scroll" or (styles.overflow_y == "auto" and size.height > height)
    # ... and for overflow-x: auto, beside a vertical scrollbar that takes its column
    horizontal = styles.overflow_x == "scroll" or (
        styles.overflow_x == "auto"
        and size.width > width - (styles.scrollbar_size_vertical if vertical else 0)
    )
    if (
        not view.is_mounted
        or size.width != current.width
        or vertical != view.show_vertical_scrollbar
        or horizontal != view.show_horizontal_scrollbar
    ):
        view.virtual_size = size
        return True
    view.set_reactive(Widget.virtual_size, size)
    if vertical:
        scrollbar = view.vertical_scrollbar
        if max(current.height, size.height) < height:
            # Everything fitted and still fits (with room to spare: a bar exactly as long as the
            # content is drawn differently): the bar looks the same, so it is not drawn again;
            # six panes' bars redrawn at every step cost more than the step's own lines.
            scrollbar.set_reactive(ScrollBar.window_virtual_size, size.height)
        else:
            scrollbar.window_virtual_size = size.height
            scrollbar.refresh()
    view.scroll_y = view.scroll_y  # validated again: content that shrank may move the end up
    return False

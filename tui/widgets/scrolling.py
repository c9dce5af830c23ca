"""Resizing a line-API widget's scrollable area without a new layout of the whole screen."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


def set_virtual_size(view: ScrollView, size: Size) -> bool:
    """Give ``view`` a new virtual size; returns whether that took a new layout of the screen.

    Assigning ``virtual_size`` makes Textual lay out the whole screen again, which on a wide screen
    costs more than everything else a navigation key does. The layout is only needed when a
    scrollbar appears or disappears (never with ``overflow-y: scroll``) or a visible bar must be
    drawn anew; a view with a scroll gutter (``GUTTER_CSS``) needs neither.
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
        # Every caller draws a scroll gutter of its own in place of Textual's bar (GUTTER_CSS);
        # a view with a visible bar takes the full path, which also draws the bar anew.
        or (vertical and styles.scrollbar_size_vertical)
        or horizontal != view.show_horizontal_scrollbar
    ):
        view.virtual_size = size
        return True
    view.set_reactive(Widget.virtual_size, size)
    view.scroll_y = view.scroll_y  # validated again: content that shrank may move the end up
    return False

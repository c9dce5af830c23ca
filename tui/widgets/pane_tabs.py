"""PaneTabs: on a small terminal, the pane titles as a row of tabs; a number key or a click picks one.

One widget drawing one line of labels and one of underline, instead of Textual's Tabs (a widget
per tab, an animated underline): the run screen's first frame is ~15 ms sooner without them.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

GAP = 2  # cells between two labels


class PaneTabs(Widget):
    """Numbered pane titles; the shown one is highlighted and underlined."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "pane-tabs--active",
        "pane-tabs--inactive",
        "pane-tabs--underline",
        "pane-tabs--track",
    }
    DEFAULT_CSS = """
    PaneTabs { height: 2; padding: 0 1; }
    PaneTabs > .pane-tabs--active { color: $text; text-style: bold; }
    PaneTabs > .pane-tabs--inactive { color: $text-muted; }
    PaneTabs > .pane-tabs--underline { color: $accent; }
    PaneTabs > .pane-tabs--track { color: $panel; }
    """

    active: reactive[int] = reactive(0)
    """Index of the pane shown (pushed down by the run screen)."""

    class Picked(Message):
        """A tab was clicked."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(
        self, titles: list[str], short_titles: list[str] | None = None, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.titles = titles
        # Shorter labels for a narrow terminal, so that every tab stays on screen (at 80x24 the
        # full titles hid tabs 5 and 6 until one was picked).
        self.short_titles = short_titles or titles

    def labels(self) -> tuple[list[str], int]:
        """The labels that fit the width (full titles, else the short ones) and the gap between."""
        if _row_width(self.titles, GAP) <= self.content_region.width:
            return self.titles, GAP
        return self.short_titles, 1

    def spans(self) -> list[tuple[int, int]]:
        """Where each label starts and ends on the line (content coordinates)."""
        labels, gap = self.labels()
        out: list[tuple[int, int]] = []
        x = 0
        for title in labels:
            out.append((x, x + len(title)))
            x += len(title) + gap
        return out

    def shift(self) -> int:
        """How far the row is scrolled left so that the active label is on screen."""
        if not self.titles:
            return 0
        _, end = self.spans()[self.active]
        return max(0, end - self.content_region.width)

    def render(self) -> Group:
        active = self.get_component_rich_style("pane-tabs--active")
        inactive = self.get_component_rich_style("pane-tabs--inactive")
        labels = Text(end="")
        shown, gap = self.labels()
        for k, title in enumerate(shown):
            if k:
                labels.append(" " * gap)
            labels.append(title, style=active if k == self.active else inactive)
        start, end = self.spans()[self.active] if self.titles else (0, 0)
        underline = Text(end="")
        track = self.get_component_rich_style("pane-tabs--track")
        underline.append("━" * start, style=track)
        underline.append("━" * (end - start), style=self.get_component_rich_style("pane-tabs--underline"))
        underline.append("━" * max(0, len(labels) - end), style=track)
        shift = self.shift()
        return Group(*(_one_line(text[shift:]) for text in (labels, underline)))

    def on_click(self, event: events.Click) -> None:
        x = event.x - self.styles.padding.left + self.shift()
        for k, (start, end) in enumerate(self.spans()):
            if start <= x < end:
                self.post_message(self.Picked(k))
                return


def _row_width(labels: list[str], gap: int) -> int:
    return sum(map(len, labels)) + gap * max(0, len(labels) - 1)


def _one_line(text: Text) -> Text:
    """``text`` cut at the widget's edge rather than wrapped (a slice forgets that setting)."""
    text.no_wrap = True
    text.overflow = "crop"
    return text

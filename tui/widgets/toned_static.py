"""TonedStatic: a Static drawn from a function of its tones, and drawn again when the theme changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Static

from tui.structured import Tone
from tui.widgets.tones import PLAIN, Toned

Draw = Callable[[Tone], RenderableType]
"""What a TonedStatic shows, given the tones to colour it with."""


def plain_tone(name: str, *more: Style) -> Style:
    """A tone with no colour (text drawn outside a widget, e.g. for a test or a script)."""
    return PLAIN


class TonedStatic(Static, Toned):
    """Static text coloured with tones: it keeps the function that drew it, so a theme switch (or
    the first styles, which arrive after the content may already be set) redraws it in the new
    theme's colours instead of leaving the old ones on screen."""

    def __init__(
        self, draw: Draw | None = None, *, id: str | None = None, classes: str | None = None
    ) -> None:
        # markup=False: what is drawn is often data (a skill's name, a record's text).
        super().__init__("", id=id, classes=classes, markup=False)
        self._draw = draw
        self._drawn_with: str | None = None  # the theme the content was drawn in

    def on_mount(self) -> None:
        if self._draw is not None:
            self.draw(self._draw)

    def draw(self, draw: Draw, *, layout: bool = True) -> RenderableType:
        """Show what ``draw`` makes with this widget's tones (and keep ``draw`` for a theme change)."""
        self._draw = draw
        self._drawn_with = self.app.theme
        content = draw(self.tone)
        self.update(content, layout=layout)
        return content

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # Redrawn once the style update is over, with the rest of the screen restyled.
        if self._draw is not None and self.is_mounted:
            self.call_later(self._retone)

    def _retone(self) -> None:
        # Styles are applied again on every focus move too: redraw only for a new theme, since
        # drawing may mean highlighting a whole skill's source. The theme's name is the key, not
        # the tones themselves: looking up all ten cost 0.65 ms a draw (bench_toned_static).
        # Colours never change a size, so no layout pass.
        if self._draw is not None and self.app.theme != self._drawn_with:
            self.draw(self._draw, layout=False)


def shown_in(parent: Widget, selector: str) -> RenderableType:
    """What the TonedStatic ``selector`` under ``parent`` shows now (empty before it is composed)."""
    try:
        return cast("RenderableType", parent.query_one(selector, TonedStatic).content)
    except NoMatches:
        return Text("")

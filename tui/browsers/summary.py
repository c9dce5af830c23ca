"""The one-line summary over a browser: facts joined by " · ", each in its own style."""

from __future__ import annotations

from collections.abc import Iterable

from rich.style import Style
from rich.text import Text

from tui.text import inert

SEPARATOR = "· "


def summary_line(parts: Iterable[tuple[str, Style]]) -> Text:
    """``parts`` (text from data included: each is made inert) as one line, "a · b · c".

    The space before a separator ends the part it follows, in that part's style, so no styled run
    starts with a space: SVG renderers (rsvg, which turns the screenshots into PNGs) drop a run's
    leading space and draw a bold run wider than its cells, and either made ``namespace demo`` run
    into ``1 skill`` in the skills browser's screenshots."""
    line = Text(no_wrap=True, overflow="ellipsis")
    previous: Style | None = None
    for text, style in parts:
        if previous is not None:
            line.append(" ", style=previous)
            line.append(SEPARATOR)
        line.append_text(inert(text, style))
        previous = style
    return line

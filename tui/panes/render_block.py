"""render_block: a renderable as lines of one width, with a fast path for the one-line Text."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text


def render_block(
    console: Console, renderable: RenderableType, options: ConsoleOptions, style: Style
) -> list[list[Segment]]:
    """``renderable`` as lines of exactly ``options.max_width`` cells over ``style``.

    A one-line Text that fits (a title, a figure), alone or in a Group, skips Rich's wrapping,
    which costs ten times more than the line itself; the result is the same as
    ``console.render_lines``."""
    width = options.max_width
    if isinstance(renderable, Group) and all(
        isinstance(part, Group) or (isinstance(part, Text) and part.end == "\n")
        for part in renderable.renderables
    ):
        # Lines of a group of lines: each part on lines of its own, rendered as above.
        return [
            line for part in renderable.renderables for line in render_block(console, part, options, style)
        ]
    if (
        isinstance(renderable, Text)
        and renderable.justify in (None, "default")  # "left" pads inside the Text's own style
        and options.justify in (None, "default")
        and renderable.plain.isprintable()  # no newline, tab or control character to lay out
        and renderable.cell_len <= width
    ):
        # Joined as Rich does before rendering: the Text's own style becomes a span under the rest.
        line = Text("").join((renderable,))
        segments = list(Segment.apply_style(line.render(console, end=""), style))
        return [Segment.adjust_line_length(segments, width, style=style)]
    return console.render_lines(renderable, options, style=style, pad=True)

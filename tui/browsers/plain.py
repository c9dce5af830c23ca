"""Plain text of what a browser view shows (tests, scripts and the panes' ``plain()`` read it)."""

from __future__ import annotations

import io

from rich.console import Console, RenderableType


def plain_text(renderable: RenderableType, width: int = 100) -> str:
    """A renderable as plain text (what tests and scripts read from a view)."""
    console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
    console.print(renderable)
    return console.export_text()

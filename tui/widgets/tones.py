"""Tones: the few colours that carry meaning on screen (a message's role, ok, failed, ...).

Each tone is a component class (``tone--bad``) whose colour DEFAULT_CSS takes from the theme, so
every built-in theme, a theme picked from the command palette and an app's own CSS all apply;
widgets ask for a tone's Rich style with :meth:`Toned.tone` and never name a colour themselves.
The ``$text-*`` variables are the theme's colours made legible on its background (lighter on a
dark theme, darker on a light one).
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from textual.widget import Widget

TONES: dict[str, str] = {
    # Who wrote a message of an exchange.
    "system": "$text-secondary",
    "user": "$text-primary",
    "assistant": "$text-success",
    "tool": "$text-warning",
    "event": "$text-primary",  # a raw event, shown as JSON (instead of the messages)
    # What state something is in.
    "good": "$text-success",  # done, selected, unchanged, active
    "warn": "$text-warning",  # paused, changed, required, a notice
    "bad": "$text-error",  # failed, dropped, removed, gone
    "info": "$text-primary",  # finished, recalled, new
    "stop": "$text-accent",  # interrupted or stopped by someone
}
"""Each tone and the theme variable its colour comes from."""

TONE_CSS = "\n".join(f"Toned > .tone--{name} {{ color: {colour}; }}" for name, colour in TONES.items())

BOLD = Style(bold=True)
DIM = Style(dim=True)
ITALIC = Style(italic=True)


class Toned(Widget):
    """A widget that colours what it draws with tones (see :data:`TONES`)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"tone--{name}" for name in TONES}
    DEFAULT_CSS = TONE_CSS

    def tone(self, name: str, *more: Style) -> Style:
        """The Rich style of tone ``name`` in the current theme (cached by Textual until the
        styles change), with ``more`` (e.g. BOLD) laid under it."""
        style = self.get_component_rich_style(f"tone--{name}", partial=True)
        for extra in more:
            style = extra + style
        return style

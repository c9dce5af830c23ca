"""Tones: the few colours that carry meaning on screen (a message's role, ok, failed, ...).

Each tone is a component class (``tone--bad``) whose colour DEFAULT_CSS takes from the theme, so
every built-in theme, a theme picked from the command palette and an app's own CSS all apply;
widgets ask for a tone's Rich style with :meth:`Toned.tone` and never name a colour themselves.
The ``$text-*`` variables are the theme's colours made legible on its background (lighter on a
dark theme, darker on a light one).
"""

from __future__ import annotations

from typing import cast

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

TONE_CLASSES: frozenset[str] = frozenset(f"tone--{name}" for name in TONES)
"""The component classes of the tones: a Toned widget adds them to its COMPONENT_CLASSES."""

BOLD = Style(bold=True)
DIM = Style(dim=True)
ITALIC = Style(italic=True)
PLAIN = Style()


def tone_css(widget: str) -> str:
    """The DEFAULT_CSS rules giving ``widget``'s tones their theme colours."""
    return "\n".join(f"{widget} > .tone--{name} {{ color: {colour}; }}" for name, colour in TONES.items())


class Toned:
    """Mixed into a widget that colours what it draws with tones (see :data:`TONES`).

    Not a widget itself: Textual inherits CSS and component classes along the first base only, so
    the widget lists ``TONE_CLASSES`` in its COMPONENT_CLASSES and ``tone_css(its name)`` in its
    DEFAULT_CSS (subclasses inherit both), and names this mixin after its widget base."""

    def tone(self, name: str, *more: Style) -> Style:
        """The Rich style of tone ``name`` in the current theme (cached by Textual until the
        styles change), with ``more`` (e.g. BOLD) laid under it."""
        widget = cast(Widget, self)
        # Before the widget has styles (built but never mounted, as tests render content) a tone
        # is plain: there is no theme to take it from yet.
        style = widget.get_component_rich_style(f"tone--{name}", partial=True, default=PLAIN)
        for extra in more:
            style = extra + style
        return style

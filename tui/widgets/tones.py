"""Tones: the few colours that carry meaning on screen (a message's role, ok, failed, ...).

Each tone is a theme variable (``$text-error`` for ``bad``), read from the app's CSS variables, so
every built-in theme and a theme picked from the command palette apply; widgets ask for a tone's
Rich style with :meth:`Toned.tone` and never name a colour themselves. The ``$text-*`` variables
are the theme's colours made legible on its background (lighter on a dark theme, darker on a light
one).

The tones are worked out once per set of CSS variables, for the whole app: as component classes
of every widget that uses them, Textual would style ten virtual nodes per such widget each time it
styles the widget (at mount, on every focus move): ~4 ms of the replay's first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast
from weakref import WeakKeyDictionary

from rich.style import Style
from textual.color import Color, ColorParseError
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.app import App

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

BOLD = Style(bold=True)
DIM = Style(dim=True)
ITALIC = Style(italic=True)
PLAIN = Style()


# Per app: the CSS variables the tones were worked out from, and the tones.
_THEME_TONES: WeakKeyDictionary[App[object], tuple[dict[str, str], dict[str, Style]]] = WeakKeyDictionary()


def theme_tones(app: App[object]) -> dict[str, Style]:
    """Each tone's Rich style in ``app``'s CSS variables as they are now (empty before it has
    any): looked up again only when Textual has worked the variables out anew (a theme switch)."""
    variables = app.theme_variables  # a new dict each time Textual works them out
    kept = _THEME_TONES.get(app)
    if kept is not None and kept[0] is variables:
        return kept[1]
    tones: dict[str, Style] = {}
    for name, variable in TONES.items():
        value = variables.get(variable.lstrip("$"))
        if value is None:
            continue
        color = _colour(value)
        if color is None:
            continue
        # As a `color: $variable` rule gives it (Textual's partial style of a component class).
        tones[name] = Style(color=color.rich_color) if color.a > 0 else PLAIN
    _THEME_TONES[app] = (variables, tones)
    return tones


def _colour(value: str) -> Color | None:
    """A CSS variable's colour: ``#57A5E2``, a name, or a colour and an opacity (``#fff 50%``)."""
    try:
        return Color.parse(value)
    except ColorParseError:
        pass
    colour, _, opacity = value.rpartition(" ")
    if not opacity.endswith("%"):
        return None
    try:
        return Color.parse(colour).with_alpha(float(opacity[:-1]) / 100)
    except (ColorParseError, ValueError):
        return None


class Toned:
    """Mixed into a widget that colours what it draws with tones (see :data:`TONES`)."""

    def tone(self, name: str, *more: Style) -> Style:
        """The Rich style of tone ``name`` in the current theme, with ``more`` (e.g. BOLD) laid
        under it."""
        widget = cast(Widget, self)
        # A widget not in an app's DOM (built but never mounted, as tests render content) has no
        # theme to take a tone from: plain.
        style = theme_tones(widget.app).get(name, PLAIN) if widget.is_attached else PLAIN
        for extra in more:
            style = extra + style
        return style

"""KeysFooter: Textual's Footer, composed again only when the keys it shows change.

Textual's Footer rebuilds all its keys whenever the screen's bindings are updated, and they are
updated at every focus move and every ``refresh_bindings``, mostly with the same keys on show:
each rebuild mounts, styles and draws every key again (three style passes a key at 120 columns):
a Tab on the run screen cost the UI thread ~50 ms with it, ~17 ms with this footer, which
remembers the keys it composed and skips a rebuild that would compose the same ones, and composes
each key as compact as the footer is (tests/benchmarks/bench_focus.py).
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # Textual's own key widget (pinned: textual<9)


class KeysFooter(Footer):
    """A Footer that is recomposed only when what it would show differs from what it shows."""

    def __init__(self, *, show_command_palette: bool = True, compact: bool = False) -> None:
        super().__init__(show_command_palette=show_command_palette, compact=compact)
        self._composed: Hashable = None  # what the last compose showed (None: nothing yet)

    def shown_keys(self, screen: Screen[object]) -> Hashable:
        """Everything of ``screen``'s bindings that Footer.compose reads: each key on show with
        whether it is enabled and its tooltip, and the command palette's key when shown (which
        widget provides a binding is not shown, and changes with every focus move)."""
        app = screen.app
        active = screen.active_bindings
        shown = tuple((b.binding, b.enabled, b.tooltip) for b in active.values() if b.binding.show)
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        if palette is None or not (self.show_command_palette and app.ENABLE_COMMAND_PALETTE):
            return shown, None
        return shown, (palette.binding, palette.enabled, palette.tooltip)

    def compose(self) -> ComposeResult:
        """Footer's keys, remembering which they are (Footer composes none until the screen's
        bindings are first updated: nothing is remembered then)."""
        keys = self.shown_keys(self.screen)
        composed = False
        for widget in super().compose():
            composed = True
            # The command palette's key is not bound to the footer's compactness: it stays compact.
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # Born as compact as the footer: a key mounts compact (FooterKey's default) and its
                # binding to the footer then makes it wide, a restyle of the mounted key each time:
                # two of the three style passes every key took at 120 columns and more.
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget
        self._composed = keys if composed else None

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Recompose as Footer does, unless the keys on show are the ones already composed."""
        if self._composed is not None and screen is self.screen and self.shown_keys(screen) == self._composed:
            return
        super().bindings_changed(screen)

"""A pane factory that names its pane's module instead of importing it, for panes not shown first.

The run screen's first frame shows one pane (Exchanges); the others are built right after it. Named
here by module and class, their modules (and what they import: the cost chart, the request diff,
the memory and skill payloads) are loaded when the pane is built, not while the app launches.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.panes.base import Pane
    from tui.store import RunStore


class DeferredPane:
    """Builds the Pane class ``module.name`` (a PaneFactory), importing it at the first build."""

    def __init__(self, module: str, name: str, title: str) -> None:
        self.module = module
        self.name = name
        self._title = title  # the class's TITLE, known without importing it (a test holds them equal)

    @property
    def TITLE(self) -> str:  # noqa: N802 - the Pane classes' own name for it
        """The pane's title (its tab, its border and its `1`-`7` key's description)."""
        return self._title

    def pane_class(self) -> type[Pane]:
        """The Pane class itself (its module imported now if it was not yet)."""
        cls: type[Pane] = getattr(import_module(self.module), self.name)
        return cls

    def __call__(self, store: RunStore, *, index: int = 0, id: str | None = None) -> Pane:
        """A new pane over ``store``."""
        return self.pane_class()(store, index=index, id=id)

    def __repr__(self) -> str:
        return f"DeferredPane({self.module}.{self.name})"

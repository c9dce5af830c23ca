"""Run-screen panes that embed the live browsers, ready to take the place of the event-only panes.

``memory_pane(memory_dir)`` and ``skills_pane(db_path)`` return Pane classes with the paths bound, so
the run screen keeps building every pane as ``pane_cls(store, **options)``. On every step change (and
fold) the pane feeds its browser the selected step's ``memory_recall`` payloads, or the run's
``skill_publish`` payloads; the browser itself shows the stores as they are on disk now.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.strip import Strip

from tui.browsers.memory_browser import MemoryBrowser
from tui.browsers.memory_render import RecordList
from tui.browsers.run_events import publishes, recalls_at
from tui.browsers.skills_browser import SkillList, SkillsBrowser
from tui.panes.base import Pane
from tui.store import RunStore, StepSummary
from tui.text import inert

__all__ = ["MemoryBrowserPane", "SkillsBrowserPane", "memory_pane", "run_panes", "skills_pane"]

EMBED_CSS = """
{name} {{ overflow: hidden hidden; padding: 0; layout: vertical; }}
{name} > {child} {{ height: 1fr; }}
"""


class _EmbeddingPane(Pane):
    """A Pane that holds a widget instead of rendering lines (the run screen's CSS and queries still apply)."""

    @property
    def is_container(self) -> bool:
        """Children are laid out by the compositor (a line-API pane has none)."""
        return True

    def _ensure_rendered(self) -> None:
        """Nothing to render before a frame: the embedded browser draws itself."""

    def render_line(self, y: int) -> Strip:
        """Blank: the embedded browser covers the pane (no lines of its own to render)."""
        width = self.scrollable_content_region.width
        return Strip.blank(width, self.rich_style)


class MemoryBrowserPane(_EmbeddingPane):
    """Memory: the records on disk now, the selected step's recalls marked (changed or gone since)."""

    TITLE = "Memory"
    DEFAULT_CSS = EMBED_CSS.format(name="MemoryBrowserPane", child="MemoryBrowser")
    MEMORY_DIR: ClassVar[Path | None] = None
    GLOBAL_DIR: ClassVar[Path | None] = None

    def __init__(self, store: RunStore, **options: Any) -> None:
        # Options (id, index, ...) are the Pane base's: passed through untouched.
        super().__init__(store, **options)
        if self.MEMORY_DIR is None:
            raise TypeError(
                "use memory_pane(memory_dir) to get a MemoryBrowserPane class with its root bound"
            )
        self.browser = MemoryBrowser(self.MEMORY_DIR, global_dir=self.GLOBAL_DIR, autofocus=False)
        self._fed: tuple[int | None, list[dict[str, Any]]] | None = None

    def compose(self) -> ComposeResult:
        yield self.browser

    def on_focus(self) -> None:
        # Keys (d, f, arrows) belong to the browser's list, not to the scrolling pane around it.
        self.browser.query_one(RecordList).focus()

    def show(self) -> None:
        """Feed the browser the selected step's recalls (only when they changed)."""
        if not self.is_mounted:
            return
        fed = recalls_at(self.store, self.selected)
        if fed != self._fed:
            self._fed = fed
            self.browser.show_recall(*fed)
        self.shown = self._summary()

    def _summary(self) -> RenderableType:
        step, payloads = self._fed or (None, [])
        if step is None:
            return Text("no events yet", style="dim")
        ids = [i for p in payloads for i in p.get("record_ids") or []]
        return inert(f"step {step}: {len(ids)} recalled" + (f" ({', '.join(map(str, ids))})" if ids else ""))

    def render_step(self, step: StepSummary) -> RenderableType:
        """Not used: the browser renders itself; kept for the Pane contract."""
        return self._summary()


class SkillsBrowserPane(_EmbeddingPane):
    """Skills: the library on disk now, with the versions the run published starred."""

    TITLE = "Skills"
    DEFAULT_CSS = EMBED_CSS.format(name="SkillsBrowserPane", child="SkillsBrowser")
    DB_PATH: ClassVar[Path | None] = None
    NAMESPACE: ClassVar[str | None] = None

    def __init__(self, store: RunStore, **options: Any) -> None:
        super().__init__(store, **options)
        if self.DB_PATH is None:
            raise TypeError(
                "use skills_pane(db_path) to get a SkillsBrowserPane class with its database bound"
            )
        self.browser = SkillsBrowser(self.DB_PATH, namespace=self.NAMESPACE, autofocus=False)
        self._fed: list[dict[str, Any]] | None = None

    def compose(self) -> ComposeResult:
        yield self.browser

    def on_focus(self) -> None:
        self.browser.query_one(SkillList).focus()

    def show(self) -> None:
        """Star the versions published by the run so far (only when that changed)."""
        if not self.is_mounted:
            return
        fed = publishes(self.store)
        if fed != self._fed:
            self._fed = fed
            self.browser.mark_published(fed)
        self.shown = self.render_step(None)

    def render_step(self, step: StepSummary | None) -> RenderableType:
        """A one-line summary of what the run published (the browser renders the rest)."""
        names = [f"{p.get('name')} v{p.get('version')}" for p in self._fed or []]
        return inert("published in the run: " + (", ".join(names) if names else "nothing"))


def memory_pane(memory_dir: str | Path, *, global_dir: str | Path | None = None) -> type[MemoryBrowserPane]:
    """A MemoryBrowserPane class bound to a memory root (and optionally a global one)."""
    attrs = {"MEMORY_DIR": Path(memory_dir), "GLOBAL_DIR": Path(global_dir) if global_dir else None}
    return type("MemoryBrowserPane", (MemoryBrowserPane,), attrs)


def skills_pane(db_path: str | Path, *, namespace: str | None = None) -> type[SkillsBrowserPane]:
    """A SkillsBrowserPane class bound to a skill database (and optionally a namespace)."""
    return type("SkillsBrowserPane", (SkillsBrowserPane,), {"DB_PATH": Path(db_path), "NAMESPACE": namespace})


def run_panes(
    *,
    memory_dir: str | Path | None = None,
    global_dir: str | Path | None = None,
    skills_db: str | Path | None = None,
    namespace: str | None = None,
) -> tuple[type[Pane], ...]:
    """The run screen's six panes, with Memory / Skills showing the stores on disk where they are known."""
    from tui.screens.run import PANES

    chosen: list[type[Pane]] = []
    for pane in PANES:
        if pane.TITLE == "Memory" and memory_dir is not None:
            chosen.append(memory_pane(memory_dir, global_dir=global_dir))
        elif pane.TITLE == "Skills" and skills_db is not None:
            chosen.append(skills_pane(skills_db, namespace=namespace))
        else:
            chosen.append(pane)
    return tuple(chosen)

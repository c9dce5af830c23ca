"""Run-screen panes that embed the live browsers, ready to take the place of the event-only panes.

``memory_pane(memory_dir)`` and ``skills_pane(db_path)`` return the pane classes with the paths bound
(:class:`~tui.panes.base.BoundPane`), so the run screen keeps building every pane as
``pane_cls(store, **options)``. On every step change (and fold) the pane feeds its browser the
selected step's ``memory_recall`` payloads, or the run's ``skill_publish`` payloads; the browser
itself shows the stores as they are on disk now. They are plain Panes: the browser draws itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult

from tui.browsers.memory_browser import MemoryBrowser
from tui.browsers.memory_render import RecordList
from tui.browsers.run_events import publishes, recalls_at
from tui.browsers.skills_browser import SkillList, SkillsBrowser
from tui.panes.base import BoundPane, Pane, PaneFactory
from tui.store import RunStore, StepSummary
from tui.text import inert, short_id
from tui.widgets.tones import DIM

__all__ = ["MemoryBrowserPane", "SkillsBrowserPane", "memory_pane", "run_panes", "skills_pane"]

EMBED_CSS = """
{name} {{ padding: 0; layout: vertical; }}
{name} > {child} {{ height: 1fr; }}
"""


class MemoryBrowserPane(Pane):
    """Memory: the records on disk now, the selected step's recalls marked (changed or gone since)."""

    TITLE = "Memory"
    DEFAULT_CSS = EMBED_CSS.format(name="MemoryBrowserPane", child="MemoryBrowser")

    def __init__(
        self, store: RunStore, *, memory_dir: Path, global_dir: Path | None = None, **options: Any
    ) -> None:
        # Options (id, index) are the Pane base's: passed through untouched.
        super().__init__(store, **options)
        self.browser = MemoryBrowser(memory_dir, global_dir=global_dir, autofocus=False)
        self._fed: tuple[int | None, list[dict[str, Any]]] | None = None

    def compose(self) -> ComposeResult:
        yield self.browser

    def on_focus(self) -> None:
        # Keys (d, f, arrows) belong to the browser's list, not to the pane around it.
        self.browser.query_one(RecordList).focus()

    def show(self) -> None:
        """Feed the browser the selected step's recalls (only when they changed)."""
        if not self.is_mounted:
            return
        fed = recalls_at(self.store, self.selected)
        if fed != self._fed:
            self._fed = fed
            self.browser.show_recall(*fed)
        self.shown = self._summary(*fed)

    def _summary(self, step: int | None, payloads: list[dict[str, Any]]) -> RenderableType:
        if step is None:
            return Text("no events yet", style=DIM)
        ids = [i for p in payloads for i in p.get("record_ids") or []]
        # Short ids in this one line (3a8504…3869): the browser below shows each record whole.
        shown = ", ".join(short_id(str(i), self.store.run_id) for i in ids)
        return inert(f"step {step}: {len(ids)} recalled" + (f" ({shown})" if ids else ""))

    def content(self, step: StepSummary) -> RenderableType:
        """A one-line summary of what ``step`` recalled (the browser renders the records)."""
        pos = self.store.step_pos.get(step.step)
        return self._summary(*recalls_at(self.store, pos)) if pos is not None else Text("")


class SkillsBrowserPane(Pane):
    """Skills: the library on disk now, with the versions the run published starred."""

    TITLE = "Skills"
    DEFAULT_CSS = EMBED_CSS.format(name="SkillsBrowserPane", child="SkillsBrowser")

    def __init__(
        self, store: RunStore, *, db_path: Path, namespace: str | None = None, **options: Any
    ) -> None:
        super().__init__(store, **options)
        self.browser = SkillsBrowser(db_path, namespace=namespace, autofocus=False)
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
        self.shown = self._summary(fed)

    def _summary(self, published: list[dict[str, Any]]) -> RenderableType:
        names = [f"{p.get('name')} v{p.get('version')}" for p in published]
        return inert("published in the run: " + (", ".join(names) if names else "nothing"))

    def content(self, step: StepSummary) -> RenderableType:
        """A one-line summary of what the run published (the browser renders the rest)."""
        return self._summary(publishes(self.store))


def memory_pane(memory_dir: str | Path, *, global_dir: str | Path | None = None) -> BoundPane:
    """The MemoryBrowserPane bound to a memory root (and optionally a global one)."""
    return BoundPane(
        MemoryBrowserPane, memory_dir=Path(memory_dir), global_dir=Path(global_dir) if global_dir else None
    )


def skills_pane(db_path: str | Path, *, namespace: str | None = None) -> BoundPane:
    """The SkillsBrowserPane bound to a skill database (and optionally a namespace)."""
    return BoundPane(SkillsBrowserPane, db_path=Path(db_path), namespace=namespace)


def run_panes(
    *,
    memory_dir: str | Path | None = None,
    global_dir: str | Path | None = None,
    skills_db: str | Path | None = None,
    namespace: str | None = None,
) -> tuple[PaneFactory, ...]:
    """The run screen's six panes, with Memory / Skills showing the stores on disk where they are known."""
    from tui.screens.run import PANES

    chosen: list[PaneFactory] = []
    for pane in PANES:
        if pane.TITLE == "Memory" and memory_dir is not None:
            chosen.append(memory_pane(memory_dir, global_dir=global_dir))
        elif pane.TITLE == "Skills" and skills_db is not None:
            chosen.append(skills_pane(skills_db, namespace=namespace))
        else:
            chosen.append(pane)
    return tuple(chosen)

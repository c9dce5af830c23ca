"""Standalone browser apps: `qitos-tui memory DIR` and `qitos-tui skills DB` build them here."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Header

from tui.browsers.memory_browser import MemoryBrowser
from tui.browsers.skills_browser import SkillsBrowser
from tui.crash import LastResort
from tui.text import inert_str
from tui.widgets.keys_footer import KeysFooter


class MemoryBrowserApp(LastResort, App[int]):
    """A Memdir root (and optionally a global one) browsed on its own."""

    CSS_PATH = "browsers.tcss"
    TITLE = "qitos-tui memory"
    # The flag shadows App.watch(), which nothing calls on an App (Textual calls a widget's own
    # watch() for data_bind); renaming it is the browsers' owner's call.
    watch: bool  # type: ignore[assignment]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit_browser", "Quit"),
        Binding("slash", "focus_filter", "Filter", show=False, id="memory.filter-slash"),
    ]

    def __init__(self, memory_dir: Path, *, global_dir: Path | None = None, watch: bool = True) -> None:
        super().__init__()
        self.memory_dir = memory_dir
        self.global_dir = global_dir
        self.watch = watch
        self.sub_title = inert_str(memory_dir.name)

    def compose(self) -> ComposeResult:
        yield Header(icon="≡")
        yield MemoryBrowser(self.memory_dir, global_dir=self.global_dir, watch_files=self.watch, id="memory")
        yield KeysFooter()

    @property
    def browser(self) -> MemoryBrowser:
        """The one browser of this app."""
        return self.query_one(MemoryBrowser)

    def action_quit_browser(self) -> None:
        """Quit; the exit status is 1 if the browser is showing an error (e.g. a missing root)."""
        self.exit(return_code=1 if self.browser.error else 0)

    def action_focus_filter(self) -> None:
        """Focus the filter box."""
        self.browser.action_filter()


class SkillsBrowserApp(LastResort, App[int]):
    """A SQLite skill library browsed on its own (read-only)."""

    CSS_PATH = "browsers.tcss"
    TITLE = "qitos-tui skills"
    # The flag shadows App.watch(), which nothing calls on an App (Textual calls a widget's own
    # watch() for data_bind); renaming it is the browsers' owner's call.
    watch: bool  # type: ignore[assignment]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit_browser", "Quit"),
        Binding("slash", "focus_search", "Search", show=False, id="skills.search-slash"),
    ]

    def __init__(self, db_path: Path, *, namespace: str | None = None, watch: bool = True) -> None:
        super().__init__()
        self.db_path = db_path
        self.namespace = namespace
        self.watch = watch
        self.sub_title = inert_str(db_path.name)

    def compose(self) -> ComposeResult:
        yield Header(icon="≡")
        yield SkillsBrowser(self.db_path, namespace=self.namespace, watch_files=self.watch, id="skills")
        yield KeysFooter()

    @property
    def browser(self) -> SkillsBrowser:
        """The one browser of this app."""
        return self.query_one(SkillsBrowser)

    def action_quit_browser(self) -> None:
        """Quit; the exit status is 1 if the browser is showing an error (e.g. a missing database)."""
        self.exit(return_code=1 if self.browser.error else 0)

    def action_focus_search(self) -> None:
        """Focus the catalog search box."""
        self.browser.action_search()


def make_memory_app(
    memory_dir: str | Path, *, global_dir: str | Path | None = None, watch: bool = True
) -> MemoryBrowserApp:
    """The memory browser app for the CLI and the tests (``watch=False``: no file watching)."""
    return MemoryBrowserApp(
        Path(memory_dir), global_dir=Path(global_dir) if global_dir is not None else None, watch=watch
    )


def make_skills_app(
    db_path: str | Path, *, namespace: str | None = None, watch: bool = True
) -> SkillsBrowserApp:
    """The skills browser app for the CLI and the tests (namespace: the only one, else asked);
    a postgresql:// URL opens a PostgreSQL library instead of a SQLite file."""
    if isinstance(db_path, str) and db_path.startswith(("postgresql://", "postgres://")):
        from tui.browsers.skills_postgres import PostgresSkillsBrowserApp

        return PostgresSkillsBrowserApp(db_path, namespace=namespace, watch=watch)
    return SkillsBrowserApp(Path(db_path), namespace=namespace, watch=watch)

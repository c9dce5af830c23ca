"""SkillsBrowser: the skills of a SQLite library, their versions, sources and diffs, live and read-only."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Mount
from textual.reactive import reactive
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.errors import ToolLibraryError
from tui.browsers.dialogs import NamespaceDialog
from tui.browsers.messages import SearchFinished, SkillsLoaded, SkillVersionsLoaded, WatchStopped
from tui.browsers.plain import plain_text
from tui.browsers.skills_model import (
    SkillLibrary,
    SkillsOpenError,
    diff_text,
    guess_language,
    open_library,
    published_marks,
    read_versions,
    resolve_namespace,
)
from tui.browsers.skills_render import SkillList, VersionList, count, source_shape, source_view
from tui.browsers.summary import summary_line
from tui.browsers.virtual_list import VirtualList
from tui.browsers.watch import follow_changes, sqlite_filter, watch
from tui.structured import Tone
from tui.text import inert, inert_str
from tui.widgets.toned_static import Draw, TonedStatic, shown_in
from tui.widgets.tones import DIM, ITALIC, PLAIN

NARROW_WIDTH = 70  # below this many cells the lists and the source are stacked


class SkillsBrowser(Vertical):
    """Browse one namespace of a skill database: skills, versions, source, diffs, catalog search."""

    DEFAULT_CSS = """
    SkillsBrowser { height: 1fr; }
    SkillsBrowser #skills-summary { height: 1; padding: 0 1; background: $panel; }
    SkillsBrowser #skills-body { height: 1fr; }
    SkillsBrowser #skills-left { width: 2fr; min-width: 30; max-width: 60; }
    /* The indent is padding, not spaces in the text: SVG renderers drop a run's leading spaces. */
    SkillsBrowser .skills-heading { height: 1; color: $text-muted; text-style: bold; padding: 0 1 0 2; }
    SkillsBrowser #skills-versions-heading { padding-left: 3; }
    SkillsBrowser #skills-code-title { padding-left: 1; }
    SkillsBrowser #skills-search { margin: 0 1; }
    SkillsBrowser #skills-list { height: 1fr; }
    SkillsBrowser #skills-versions { height: 1fr; }
    SkillsBrowser #skills-right { width: 3fr; border-left: solid $border-blurred; }
    SkillsBrowser #skills-code { height: 1fr; padding: 0 1; }
    SkillsBrowser #skills-code:focus { background: $boost; }
    SkillsBrowser.-narrow #skills-body { layout: vertical; }
    SkillsBrowser.-narrow #skills-left { width: 1fr; max-width: 100%; min-width: 0; height: 1fr; }
    SkillsBrowser.-narrow #skills-right {
        width: 1fr; height: 1fr; border-left: none; border-top: solid $border-blurred;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "toggle_diff", "Diff", id="skills.diff"),
        Binding("m", "mark_base", "Diff base", id="skills.diff-base"),
        Binding("f", "search", "Search", id="skills.search"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="skills.reload"),
    ]

    mode: reactive[str] = reactive("source")
    """What the right side shows: the selected version's "source" or a "diff" from the base."""

    def __init__(
        self,
        db_path: str | Path,
        *,
        namespace: str | None = None,
        watch_files: bool = True,
        autofocus: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        #: Take the focus when mounted (standalone apps); an embedding screen keeps its own focus.
        self.autofocus = autofocus
        self.db_path = Path(db_path)
        self.namespace = namespace
        self.watch_files = watch_files
        self.library: SkillLibrary | None = None
        self.skills: list[dict[str, Any]] = []
        #: Skill rows shown now: all of them, or the catalog search results in rank order.
        self.shown: list[dict[str, Any]] = []
        #: Versions of the selected skill, newest first.
        self.versions: list[ToolArtifact] = []
        self.search_query = ""
        self.search_names: list[str] | None = None
        self.base_version: int | None = None
        self._code_shown: object = None  # what the code view was last drawn from (see _show_code)
        self._code_source: ToolArtifact | None = None  # the source the body shows (see _set_code)
        self._ahead: dict[str, list[ToolArtifact]] = {}  # versions of the selection's neighbours
        self.published: set[tuple[str, int]] = set()
        self.error: str | None = None
        self.empty_note: str | None = None  # nothing to browse yet (no database, or no skill in it)
        self.last_message = ""
        #: Applied loads so far (tests and benchmarks wait on it).
        self.revision = 0
        self.live = False
        self._selected_name: str | None = None
        self._stop = asyncio.Event()
        self._inode = 0  # of the database file the library was opened on
        self._open_lock = threading.Lock()

    # ---- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TonedStatic(id="skills-summary")
        with Horizontal(id="skills-body"):
            with Vertical(id="skills-left"):
                yield Input(placeholder="catalog search (f)", id="skills-search", compact=True)
                yield Static("skill", classes="skills-heading")
                yield SkillList(self, id="skills-list")
                yield Static("versions", classes="skills-heading", id="skills-versions-heading")
                yield VersionList(self, id="skills-versions")
            with Vertical(id="skills-right"):
                yield Static("", classes="skills-heading", id="skills-code-title")
                with VerticalScroll(id="skills-code"):
                    yield TonedStatic(id="skills-code-body")

    def on_mount(self, event: Mount) -> None:  # the event: so PostgresSkillsBrowser can override it
        if self.autofocus:
            self.query_one(SkillList).focus()
        try:
            resolved = resolve_namespace(self.db_path, self.namespace)
        except SkillsOpenError as exc:
            waiting = self.watch_files and self.db_path.parent.is_dir()
            if waiting and not self.autofocus:
                # Embedded in a run whose agent has not published yet: an empty state inside the
                # pane, not a toast over the other panes.
                self._empty(f"no skills yet ({exc}): they show here as soon as one is published")
            else:
                self._fail(str(exc))
            if waiting:
                # The library opens once its first skill lands.
                self._wait_for_skills()
            return
        self._resolved(resolved)

    @work(exclusive=True, group="skills-wait", exit_on_error=False, description="waiting for skills")
    async def _wait_for_skills(self) -> None:
        """Watch the database until the namespace can be resolved, then open it as on mount."""
        async for _changes in watch([self.db_path.parent], sqlite_filter(self.db_path), self._stop):
            try:
                resolved = resolve_namespace(self.db_path, self.namespace)
            except SkillsOpenError:
                continue
            self.error = None
            self._resolved(resolved)
            return

    def _resolved(self, resolved: str | list[str]) -> None:
        """Open the resolved namespace, or ask which one when the database holds several."""
        if isinstance(resolved, list):

            def picked(namespace: str | None) -> None:
                if namespace is None:
                    self._fail(f"no namespace chosen (namespaces: {', '.join(resolved)})")
                else:
                    self._open(namespace)

            self.app.push_screen(NamespaceDialog(resolved), picked)
            return
        self._open(resolved)

    def on_resize(self) -> None:
        # Side by side needs room for both the lists and the source; narrow panes stack them.
        self.set_class(self.size.width < NARROW_WIDTH, "-narrow")

    def on_unmount(self) -> None:
        self._stop.set()
        if self.library is not None:
            self.library.close()

    def _open(self, namespace: str) -> None:
        try:
            self._inode = self.db_path.stat().st_ino
            self.library = open_library(self.db_path, namespace)
        except (SkillsOpenError, OSError) as exc:
            self._fail(str(exc))
            return
        self.namespace = namespace
        if self.watch_files:
            self._watch()  # takes the first reading once its watches exist
        else:
            self.reload()

    # ---- public API ---------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the skills (and the selected skill's versions) again in a background thread."""
        if self.library is not None:
            self._load(self._selected_name, time.perf_counter())

    def mark_published(self, events: Iterable[Mapping[str, Any]]) -> None:
        """Mark the versions named by ``skill_publish`` payloads (e.g. those of the selected run)."""
        self.published = published_marks(events, self.namespace)
        self.query_one(SkillList).refresh()
        self.query_one(VersionList).refresh()
        self._update_summary()

    @property
    def selected_skill(self) -> dict[str, Any] | None:
        """The skill row under the cursor."""
        cursor = self.query_one(SkillList).cursor
        return self.shown[cursor] if 0 <= cursor < len(self.shown) else None

    @property
    def selected_version(self) -> ToolArtifact | None:
        """The version under the cursor of the version list."""
        cursor = self.query_one(VersionList).cursor
        return self.versions[cursor] if 0 <= cursor < len(self.versions) else None

    def select_skill(self, name: str) -> bool:
        """Move the skill cursor to ``name``; False if it is not shown."""
        for index, skill in enumerate(self.shown):
            if skill["name"] == name:
                self.query_one(SkillList).cursor = index
                return True
        return False

    def select_version(self, version: int) -> bool:
        """Move the version cursor to ``version`` of the selected skill; False if absent."""
        for index, artifact in enumerate(self.versions):
            if artifact.version == version:
                self.query_one(VersionList).cursor = index
                return True
        return False

    # ---- background work ----------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="skills-load", exit_on_error=False, description="read skills")
    def _load(self, name: str | None, requested_at: float) -> None:
        try:
            library = self._current_library()
            if library is None:
                return
            skills = library.skills(include_inactive=True)
            if name is None or all(s["name"] != name for s in skills):
                name = skills[0]["name"] if skills else None
            versions = {name: read_versions(library, name)} if name is not None else {}
        except (ToolLibraryError, SkillsOpenError) as exc:
            self.post_message(SkillsLoaded([], {}, f"cannot read {self.db_path.name}: {exc}", requested_at))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(SkillsLoaded(skills, versions, None, requested_at))

    @work(
        thread=True, exclusive=True, group="skills-versions", exit_on_error=False, description="read versions"
    )
    def _load_versions(self, name: str, ahead: list[str], revision: int) -> None:
        # Moving through the list reads the selected skill's versions only (re-reading the whole
        # catalogue here cost 154 ms a key at 10,000 skills), and those of its neighbours, so the
        # next key finds them read and draws in one frame instead of waiting for this thread.
        try:
            library = self._current_library()
            if library is None:
                return
            versions = read_versions(library, name)
            nearby = {other: read_versions(library, other) for other in ahead}
        except (ToolLibraryError, SkillsOpenError) as exc:
            self.post_message(SkillVersionsLoaded(name, [], f"cannot read {self.db_path.name}: {exc}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(SkillVersionsLoaded(name, versions, ahead=nearby, revision=revision))

    def _read_around(self, name: str) -> None:
        """Read the selected skill's versions and its neighbours' in the background."""
        cursor = self.query_one(SkillList).cursor
        near = [
            self.shown[i]["name"] for i in (cursor + 1, cursor - 1, cursor + 2) if 0 <= i < len(self.shown)
        ]
        self._load_versions(name, [n for n in near if n != name], self.revision)

    def _current_library(self) -> SkillLibrary | None:
        """The open library, reopened if the file was replaced; SkillsOpenError if it was removed.

        An open SQLite connection keeps reading a deleted or replaced file's old inode, so the
        path is checked before every read a file change triggers.
        """
        with self._open_lock:
            if self.library is None or self.namespace is None:
                return None
            try:
                inode = self.db_path.stat().st_ino
            except FileNotFoundError:
                raise SkillsOpenError("the database file was removed") from None
            if inode != self._inode:
                fresh = open_library(self.db_path, self.namespace)
                self.library.close()
                self.library, self._inode = fresh, inode
            return self.library

    @work(thread=True, exclusive=True, group="skills-search", exit_on_error=False, description="search")
    def _search(self, query: str) -> None:
        library = self.library
        if library is None:
            return
        try:
            names = [entry["name"] for entry in library.catalog(query, limit=200)]
        except ToolLibraryError as exc:
            self.post_message(SearchFinished(query, [], str(exc)))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(SearchFinished(query, names))

    @work(exclusive=True, group="skills-watch", exit_on_error=False, description="watch the skill database")
    async def _watch(self) -> None:
        await follow_changes(
            [self.db_path.parent],
            sqlite_filter(self.db_path),
            self._stop,
            self._armed,
            lambda _changes: self._load(self._selected_name, time.perf_counter()),
            lambda reason: self.post_message(WatchStopped(reason)),
        )

    def _armed(self) -> None:
        """The watches exist: read the database now (nothing written after this can be missed)."""
        self.live = True
        self.reload()

    # ---- results ------------------------------------------------------------------------------
    @on(SkillsLoaded)
    def _loaded(self, message: SkillsLoaded) -> None:
        message.stop()
        self.error = message.error
        self.skills = message.skills
        self.revision += 1
        self._ahead = {}  # the database changed: versions read ahead may be stale
        self._show_skills()
        selected = self.selected_skill
        if selected is not None and selected["name"] in message.versions:
            self._selected_name = selected["name"]
            self._set_versions(message.versions[selected["name"]])
        if selected is not None:
            self._read_around(selected["name"])
        else:
            self._set_versions([])
        if self.search_names is not None and self.search_query:
            self._search(self.search_query)  # a new version may change the ranking

    @on(SkillVersionsLoaded)
    def _versions_loaded(self, message: SkillVersionsLoaded) -> None:
        message.stop()
        if message.error is None and message.revision != self.revision:
            return  # read before the database last changed: the read after it follows
        if message.ahead is not None:
            self._ahead = dict(message.ahead)
            self._ahead[message.name] = message.versions
        if message.name != self._selected_name:
            return  # the selection moved on before this read finished
        if message.error:
            # The database itself failed (removed, replaced by something unreadable): the listed
            # catalogue is no longer what is on disk, so it goes with the error, not a frame later.
            self.error = message.error
            self.skills = []
            self._show_skills()
        self._set_versions(message.versions)

    @on(SearchFinished)
    def _searched(self, message: SearchFinished) -> None:
        message.stop()
        if message.query != self.search_query:
            return  # an older query's answer
        if message.error:
            self.last_message = f"search failed: {message.error}"
            self.notify(inert_str(self.last_message), severity="error", markup=False)
        self.search_names = message.names if self.search_query.strip() else None
        self._show_skills()

    @on(WatchStopped)
    def _watch_stopped(self, message: WatchStopped) -> None:
        message.stop()
        self.live = False
        self.last_message = message.reason
        self.notify(inert_str(message.reason), severity="warning", markup=False)
        self._update_summary()

    # ---- state to screen ----------------------------------------------------------------------
    def _show_skills(self) -> None:
        if self.search_names is None:
            shown = list(self.skills)
        else:
            by_name = {s["name"]: s for s in self.skills}
            shown = [by_name[n] for n in self.search_names if n in by_name]
        listing = self.query_one(SkillList)
        keep = listing.cursor
        for index, skill in enumerate(shown):
            if skill["name"] == self._selected_name:
                keep = index
                break
        self.shown = shown
        listing.set_count(len(shown), keep)
        self._update_summary()

    def _set_versions(self, versions: list[ToolArtifact]) -> None:
        listing = self.query_one(VersionList)
        current = self.selected_version
        same_skill = bool(versions) and current is not None and current.name == versions[0].name
        keep = 0
        if same_skill and current is not None:  # (same_skill says current is not None: mypy needs it here)
            keep = next((i for i, a in enumerate(versions) if a.version == current.version), 0)
        else:
            self.base_version = None
        self.versions = versions
        listing.set_count(len(versions), keep)
        self._show_code()

    @on(VirtualList.Moved, "#skills-list")
    def _skill_moved(self, message: VirtualList.Moved) -> None:
        message.stop()
        skill = self.selected_skill
        name = skill["name"] if skill is not None else None
        if name != self._selected_name:
            self._selected_name = name
            if not (self.versions and self.versions[0].name == name):  # not already loaded with the list
                if name is None:
                    self.versions = []
                    self.query_one(VersionList).set_count(0, 0)
                else:
                    if name in self._ahead:
                        self._set_versions(self._ahead[name])
                    # Otherwise the previous skill's versions stay (titled with their name) for the
                    # few ms until this one's arrive: clearing first drew the code view twice.
                    # Read anyway: it confirms these versions and reads the new neighbours ahead.
                    self._read_around(name)
        self._show_code()

    @on(VirtualList.Moved, "#skills-versions")
    def _version_moved(self, message: VirtualList.Moved) -> None:
        message.stop()
        self._show_code()

    @on(Input.Changed, "#skills-search")
    def _search_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.search_query = event.value
        if event.value.strip():
            self._search(event.value)
        else:
            self.search_names = None
            self._show_skills()

    @on(Input.Submitted, "#skills-search")
    def _search_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(SkillList).focus()

    def watch_mode(self) -> None:
        self._show_code()

    def _update_summary(self) -> None:
        if not self.is_mounted:
            return
        # One line of a fixed height: a new one never needs a layout pass.
        self.query_one("#skills-summary", TonedStatic).draw(self._summary, layout=False)

    def _summary(self, tone: Tone) -> Text:
        """The line over the browser: the namespace, how many skills, search hits, published, live."""
        if self.error:
            return summary_line([(self.error, tone("bad"))])
        if self.library is None and self.empty_note:
            return summary_line([(self.empty_note, DIM + ITALIC)])
        active = sum(1 for s in self.skills if s["active"])
        parts = [
            (f"namespace {self.namespace}", PLAIN),
            (f"{count(len(self.skills), 'skill')}, {active} active", PLAIN),
        ]
        if self.search_names is not None:
            found = len(self.shown)
            query = self.search_query.strip()
            parts.append((f"{found} {'match' if found == 1 else 'matches'} for {query!r}", PLAIN))
        if self.published:
            parts.append((f"★ {len(self.published)} published in the run", tone("good")))
        if self.live:
            parts.append(("live", tone("good")))
        return summary_line(parts)

    def _version_state(self, artifact: ToolArtifact) -> str:
        """Whether this version is the one in use: the library's active flag is the skill's, so
        only its newest version is "active"; older ones are superseded by it."""
        latest = max((a.version for a in self.versions), default=artifact.version)
        if not artifact.active:
            return "deprecated" if artifact.version == latest else f"superseded by v{latest} (deprecated)"
        return "active" if artifact.version == latest else f"superseded by v{latest}"

    def _nothing_selected(self) -> str:
        """Why no version is shown: nothing yet, no search hit, or no skill picked."""
        if self.library is None and self.empty_note:
            return self.empty_note
        if not self.skills:
            return "no skills in this namespace yet"
        if self.search_names is not None and not self.shown:
            return f"no skill matches {self.search_query.strip()!r}"
        return "pick a skill to see its versions"

    def _show_code(self) -> None:
        if not self.is_mounted:
            return
        # A move draws the code view from several handlers (the list moved, the versions came);
        # highlighting and laying out the same version again is most of a key's cost.
        artifact = self.selected_version
        shown = (
            (artifact.name, artifact.version, artifact.source, artifact.active, self.mode, self.base_version)
            + (tuple(v.version for v in self.versions), self.app.theme)
            if artifact is not None
            else (self.error, self._nothing_selected())  # the note names the search: redraw when it changes
        )
        if shown == self._code_shown:
            return
        self._code_shown = shown
        title = self.query_one("#skills-code-title", Static)
        body = self._set_code
        artifact = self.selected_version
        if artifact is None:
            title.update("")
            note = self.error or self._nothing_selected()
            body(lambda tone: inert(note, style=DIM))
            return
        if self.mode == "diff":
            base = self._diff_base(artifact)
            if base is None:
                title.update(inert(f"diff: {artifact.name} v{artifact.version} has no earlier version"))
                body(lambda tone: Text("mark another version as the base with m", style=DIM))
                return
            title.update(inert(f"diff {artifact.name} v{base.version} → v{artifact.version}"))
            body(lambda tone: diff_text(base, artifact, tone))
            return
        language = guess_language(artifact)
        # Skill names are data: a str given to update() would be parsed as markup. The title is
        # one line of a fixed height, so a new one never needs a layout pass (most of a key's cost).
        title.update(
            inert(f"{artifact.name} v{artifact.version} · {language} · {self._version_state(artifact)}"),
            layout=False,
        )
        body(lambda tone: source_view(artifact, language, tone), artifact)

    def _set_code(self, draw: Draw, source: ToolArtifact | None = None) -> None:
        # Lay the body out again only if its size may change: a source of the same shape (as many
        # lines, none wrapped) fills the same box, and Down between such versions was paying a
        # whole-screen layout pass for nothing. Both shapes are taken at the width the body has
        # now: the box holds the last source at that width (any resize lays out again), even when
        # that source was first drawn before the first layout pass, at width 0.
        code_body = self.query_one("#skills-code-body", TonedStatic)
        width = code_body.content_region.width
        shape = source_shape(source, width) if source is not None else None
        before = self._code_source
        same_size = shape is not None and before is not None and source_shape(before, width) == shape
        self._code_source = source
        code_body.draw(draw, layout=not same_size)

    @property
    def code(self) -> RenderableType:
        """What the right side shows now (source, diff or a message, in the current theme's tones)."""
        return shown_in(self, "#skills-code-body")

    def code_text(self, width: int = 100) -> str:
        """What the right side shows now, as plain text (for tests and scripts)."""
        return plain_text(self.code, width)

    def _diff_base(self, artifact: ToolArtifact) -> ToolArtifact | None:
        """The marked base version, else the version just before ``artifact``."""
        wanted = self.base_version if self.base_version not in (None, artifact.version) else None
        for other in self.versions:
            if wanted is not None and other.version == wanted:
                return other
            if wanted is None and other.version < artifact.version:
                return other  # versions are newest first: the first older one is the previous
        return None

    # ---- actions ------------------------------------------------------------------------------
    def action_toggle_diff(self) -> None:
        """Switch the right side between the selected version's source and its diff from the base."""
        self.mode = "source" if self.mode == "diff" else "diff"

    def action_mark_base(self) -> None:
        """Mark the selected version as the base of diffs (again: unmark)."""
        artifact = self.selected_version
        if artifact is None:
            return
        self.base_version = None if self.base_version == artifact.version else artifact.version
        self.query_one(VersionList).refresh()
        self._show_code()

    def action_search(self) -> None:
        """Focus the catalog search box."""
        self.query_one("#skills-search", Input).focus()

    def action_reload(self) -> None:
        """Read the database again now."""
        self.reload()

    def _fail(self, message: str) -> None:
        self.error = message
        self.last_message = message
        self._update_summary()
        self._set_code(lambda tone: inert(message, style=tone("bad")))
        self.notify(inert_str(message), severity="error", timeout=10, markup=False)

    def _empty(self, message: str) -> None:
        """Nothing to show yet: said inside the browser itself, not in a notification."""
        self.empty_note = message
        self.last_message = message
        self._update_summary()
        self._set_code(lambda tone: inert(message, style=DIM + ITALIC))

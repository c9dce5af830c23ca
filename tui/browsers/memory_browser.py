"""MemoryBrowser: the records of a Memdir root as they are on disk now, live, with recall marks and delete."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from qitos.core.memory import MemoryResourceError
from qitos.kit.memory.memdir_memory import MemdirMemory
from tui.browsers.dialogs import DeleteRecordDialog
from tui.browsers.memory_model import (
    MemoryRow,
    MemoryView,
    RecallMark,
    RowKind,
    build_view,
    changed_keys,
    filter_rows,
    gone_rows,
    patch_view,
    read_local_changes,
    recall_marks,
)
from tui.browsers.memory_render import (
    COMPACT_WIDTH,
    RecordList,
    columns_heading,
    describe_change,
    detail,
    recall_counts,
)
from tui.browsers.messages import MemoryDeleted, MemoryPatched, MemoryScanned, WatchStopped
from tui.browsers.plain import plain_text
from tui.browsers.virtual_list import VirtualList
from tui.browsers.watch import follow_changes, memory_filter
from tui.text import inert, inert_str

FLASH_SECONDS = 1.5  # how long a changed row stays highlighted


class MemoryBrowser(Vertical):
    """Browse a memory root (and a read-only global one): filter, detail, recall marks, live updates."""

    DEFAULT_CSS = """
    MemoryBrowser { height: 1fr; }
    MemoryBrowser #memory-filter { margin: 0 1; }
    MemoryBrowser #memory-summary { height: 1; padding: 0 1; background: $panel; }
    MemoryBrowser #memory-columns { height: 1; padding: 0 0; color: $text-muted; text-style: bold; }
    MemoryBrowser #memory-records { height: 1fr; min-height: 3; }
    MemoryBrowser #memory-detail {
        height: 40%; min-height: 4; border-top: solid $border-blurred; padding: 0 1;
    }
    MemoryBrowser #memory-detail:focus { border-top: solid $border; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "delete", "Delete", id="memory.delete"),
        Binding("f", "filter", "Filter", id="memory.filter"),
        Binding("ctrl+r", "rescan", "Rescan", show=False, id="memory.rescan"),
    ]

    filter_text: reactive[str] = reactive("")
    """Words every listed row must contain (id, role, step, scope, text)."""
    recall_step: reactive[int | None] = reactive(None)
    """The step whose memory_recall events are compared with the disk (None: no run step)."""

    def __init__(
        self,
        memory_dir: str | Path,
        *,
        global_dir: str | Path | None = None,
        watch_files: bool = True,
        autofocus: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        #: Take the focus when mounted (standalone apps); an embedding screen keeps its own focus.
        self.autofocus = autofocus
        self.memory_dir = Path(memory_dir)
        self.global_dir = Path(global_dir) if global_dir is not None else None
        self.watch_files = watch_files
        self.memory: MemdirMemory | None = None
        self.view: MemoryView | None = None
        #: Rows shown now: the view's rows plus recalled-but-gone ones, filtered.
        self.rows: list[MemoryRow] = []
        #: Recall status by record id for the selected step.
        self.marks: dict[str, RecallMark] = {}
        self.error: str | None = None
        #: What the detail view shows for the selected row.
        self.detail: RenderableType = Text("")
        self.last_message = ""
        self.last_change = ""
        #: Applied scans so far (tests and benchmarks wait on it).
        self.revision = 0
        self.live = False
        self._recalls: list[Mapping[str, Any]] = []
        self._selected_key: str | None = None
        self._flash: dict[str, float] = {}
        self._patched_at = 0.0  # when the change behind the last applied fast-path patch was seen
        self._io_lock = threading.Lock()  # MemdirMemory is not meant for concurrent use by threads
        self._stop = asyncio.Event()

    # ---- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter: words in id, role, step, text (f)", id="memory-filter", compact=True)
        yield Static("", id="memory-summary")
        yield Static(columns_heading(wide=True), id="memory-columns", markup=False)
        yield RecordList(self, id="memory-records")
        with VerticalScroll(id="memory-detail"):
            yield Static("", id="memory-detail-body", markup=False)

    def on_mount(self) -> None:
        if self.autofocus:
            self.query_one(RecordList).focus()
        try:
            self.memory = MemdirMemory(
                str(self.memory_dir),
                global_memory_dir=str(self.global_dir) if self.global_dir is not None else None,
            )
        except (MemoryResourceError, ValueError, OSError) as exc:
            # Never created: the browser only reads what exists (MemdirMemory's create=False default).
            self._fail(f"cannot open memory: {exc}")
            return
        if self.watch_files:
            self._watch()  # takes the first reading once its watches exist
        else:
            self.rescan()

    def on_resize(self) -> None:
        listing = self.query_one(RecordList)
        self.query_one("#memory-columns", Static).update(columns_heading(listing.size.width >= COMPACT_WIDTH))

    def on_unmount(self) -> None:
        self._stop.set()  # lets the Rust watcher return within one step

    # ---- public API ---------------------------------------------------------------------------
    def rescan(self) -> None:
        """Read the root(s) again in a background thread."""
        if self.memory is not None:
            self._scan(time.perf_counter())

    def show_recall(self, step: int | None, recalls: Sequence[Mapping[str, Any]]) -> None:
        """Mark the records recalled at ``step`` (memory_recall payloads) and compare them with the disk."""
        self._recalls = [r for r in recalls if isinstance(r, Mapping)]
        self.recall_step = step
        self._rebuild()

    @property
    def selected_row(self) -> MemoryRow | None:
        """The row under the cursor, if any."""
        if not self.rows:
            return None
        cursor = self.query_one(RecordList).cursor
        return self.rows[cursor] if 0 <= cursor < len(self.rows) else None

    def select_record(self, record_id: str) -> bool:
        """Move the cursor to the row of ``record_id``; False if it is not listed."""
        for index, row in enumerate(self.rows):
            if row.record_id == record_id and row.kind is not RowKind.REJECTED:
                self.query_one(RecordList).cursor = index
                return True
        return False

    def flashing(self) -> set[str]:
        """Keys of rows highlighted because they changed a moment ago."""
        now = time.monotonic()
        return {key for key, until in self._flash.items() if until > now}

    # ---- background work ----------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="memory-scan", exit_on_error=False, description="scan memory")
    def _scan(self, requested_at: float) -> None:
        memory = self.memory
        if memory is None:
            return
        try:
            with self._io_lock:
                view = build_view(memory.scan(include_global=True), memory)
        except (MemoryResourceError, OSError) as exc:
            self.post_message(MemoryScanned(None, f"cannot read memory: {exc}", requested_at))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(MemoryScanned(view, None, requested_at))

    @work(exclusive=True, group="memory-watch", exit_on_error=False, description="watch memory files")
    async def _watch(self) -> None:
        roots = [p for p in (self.memory_dir, self.global_dir) if p is not None]
        await follow_changes(
            roots,
            memory_filter,
            self._stop,
            self._armed,
            # The fast path first, alone; its handler then asks for the confirming full scan.
            lambda changes: self._patch(sorted({path for _, path in changes}), time.perf_counter()),
            lambda reason: self.post_message(WatchStopped(reason)),
        )

    def _armed(self) -> None:
        """The watches exist: read the disk now (nothing changed after this can be missed)."""
        self.live = True
        self.rescan()

    @work(thread=True, group="memory-patch", exit_on_error=False, description="re-read changed records")
    def _patch(self, paths: list[str], requested_at: float) -> None:
        # No I/O lock: this only reads the changed files, never MemdirMemory's cache.
        memory = self.memory
        if memory is None:
            return
        patch = read_local_changes(memory, paths)
        if patch is None:
            self.post_message(MemoryPatched(None, set(), requested_at))
        else:
            self.post_message(MemoryPatched(patch[0], patch[1], requested_at))

    @work(thread=True, group="memory-delete", exit_on_error=False, description="delete a memory record")
    def _delete(self, record_id: str) -> None:
        memory = self.memory
        if memory is None:
            return
        try:
            with self._io_lock:
                removed = memory.delete(record_id)
        except (MemoryResourceError, ValueError, OSError) as exc:
            self.post_message(MemoryDeleted(record_id, False, str(exc)))
            return
        self.post_message(MemoryDeleted(record_id, removed))

    # ---- results ------------------------------------------------------------------------------
    @on(MemoryScanned)
    def _scanned(self, message: MemoryScanned) -> None:
        message.stop()
        if message.view is None:
            self.error = message.error
            self.view = MemoryView()
            self._rebuild()
            return
        if message.requested_at < self._patched_at:
            return  # started before a patch it may not include; the scan requested with it follows
        self.error = None
        self._apply(message.view)

    @on(MemoryPatched)
    def _patched(self, message: MemoryPatched) -> None:
        message.stop()
        if message.upserts is not None and self.view is not None and not self.error:
            self._patched_at = max(self._patched_at, message.requested_at)
            self._apply(patch_view(self.view, message.upserts, message.gone))
        self._scan(message.requested_at)

    def _apply(self, view: MemoryView) -> None:
        """Show a new view: flash what changed since the last one, keep the selection."""
        changed, removed = changed_keys(self.view, view)
        until = time.monotonic() + FLASH_SECONDS
        for key in changed:
            self._flash[key] = until
        if changed or removed:
            self.last_change = describe_change(changed, removed)
            self.set_timer(FLASH_SECONDS + 0.05, self._expire_flash)
        self.view = view
        self.revision += 1
        self._rebuild()

    @on(MemoryDeleted)
    def _deleted(self, message: MemoryDeleted) -> None:
        message.stop()
        if message.error:
            self._say(f"not deleted: {message.error}", severity="error")
        elif message.removed:
            self._say(f"deleted record {message.record_id}")
        else:
            self._say(f"record {message.record_id} was already gone from disk; nothing deleted", "warning")
        self.rescan()

    @on(WatchStopped)
    def _watch_stopped(self, message: WatchStopped) -> None:
        message.stop()
        self.live = False
        self._say(message.reason, severity="warning")

    def _expire_flash(self) -> None:
        now = time.monotonic()
        self._flash = {k: t for k, t in self._flash.items() if t > now}
        self.query_one(RecordList).refresh()

    # ---- state to screen ----------------------------------------------------------------------
    def watch_filter_text(self) -> None:
        self._rebuild()

    def _rebuild(self) -> None:
        """Recompute the shown rows from the view, the recall marks and the filter; keep the selection."""
        try:
            listing = self.query_one(RecordList)
        except NoMatches:
            return  # not composed yet: on_mount's first scan will build the rows
        view = self.view or MemoryView()
        marks = recall_marks(self._recalls, view)
        self.marks = {m.record_id: m for m in marks}
        rows = filter_rows(list(view.rows) + gone_rows(marks), self.filter_text)
        keep = listing.cursor
        if self._selected_key is not None:
            for index, row in enumerate(rows):
                if row.key == self._selected_key:
                    keep = index
                    break
        self.rows = rows
        listing.set_count(len(rows), keep)
        self._update_summary()
        self._show_detail()

    @on(VirtualList.Moved, "#memory-records")
    def _moved(self, message: VirtualList.Moved) -> None:
        message.stop()
        row = self.selected_row
        self._selected_key = row.key if row is not None else None
        self._show_detail()

    @on(Input.Changed, "#memory-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.filter_text = event.value

    @on(Input.Submitted, "#memory-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(RecordList).focus()

    def _update_summary(self) -> None:
        view = self.view or MemoryView()
        text = Text()
        if self.error:
            text.append_text(inert(self.error, "bold red"))
        else:
            text.append(f"{view.local} record{'' if view.local == 1 else 's'}", style="bold")
            if self.recall_step is not None:  # first: in a run it is what the pane is about
                text.append(f" · step {self.recall_step}: {recall_counts(self.marks)}")
            if self.global_dir is not None:
                text.append(f" · {view.global_} global (read-only)")
            if view.rejected:
                text.append(f" · {view.rejected} rejected", style="red")
            if self.filter_text.strip():
                text.append(f" · {len(self.rows)} shown")
            text.append(" · live" if self.live else "", style="green")
            if self.last_change:
                text.append_text(inert(f" · {self.last_change}", "yellow"))
        self.query_one("#memory-summary", Static).update(text)

    def _show_detail(self) -> None:
        row = self.selected_row
        self.detail = (
            inert(self.error or "no records", style="dim")
            if row is None
            else detail(row, self.marks.get(row.record_id), self.recall_step)
        )
        self.query_one("#memory-detail-body", Static).update(self.detail)

    def detail_text(self, width: int = 100) -> str:
        """What the detail view shows now, as plain text (for tests and scripts)."""
        return plain_text(self.detail, width)

    # ---- actions ------------------------------------------------------------------------------
    def action_filter(self) -> None:
        """Focus the filter box."""
        self.query_one("#memory-filter", Input).focus()

    def action_rescan(self) -> None:
        """Read the disk again now."""
        self.rescan()

    def action_delete(self) -> None:
        """Ask to delete the selected record (local records only)."""
        row = self.selected_row
        if row is None or self.memory is None:
            self._say("no record selected", "warning")
            return
        if row.kind is RowKind.REJECTED:
            self._say(
                f"{row.path} is a rejected file ({row.reason}); the browser does not delete it", "warning"
            )
            return
        if row.kind is RowKind.GONE:
            self._say(f"record {row.record_id} is already gone from disk", "warning")
            return
        if row.scope != "local":
            self._say(f"record {row.record_id} is in global memory, which is read-only here", "warning")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._delete(row.record_id)
            else:
                self._say(f"kept record {row.record_id}")

        self.app.push_screen(DeleteRecordDialog(row), confirmed)

    def _say(self, message: str, severity: str = "information") -> None:
        """Show an outcome in the summary line and as a notification."""
        self.last_message = message
        self.notify(inert_str(message), severity=severity, markup=False)  # type: ignore[arg-type]

    def _fail(self, message: str) -> None:
        self.error = message
        self.view = MemoryView()
        self._rebuild()
        self.notify(inert_str(message), severity="error", timeout=10, markup=False)

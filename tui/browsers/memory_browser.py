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
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from qitos.core.memory import MemoryResourceError
from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_memory import MemdirMemory
from tui.browsers.dialogs import DeleteRecordDialog
from tui.browsers.memory_files import iter_batches, read_file, reread
from tui.browsers.memory_model import MemoryRow, RecallMark, RowKind, filter_rows, gone_rows, recall_marks
from tui.browsers.memory_render import (
    COMPACT_WIDTH,
    RecordList,
    columns_heading,
    describe_change,
    detail,
    recall_counts,
)
from tui.browsers.memory_table import MemoryTable, Shown
from tui.browsers.messages import MemoryDeleted, MemoryLoaded, MemoryPatched, WatchStopped
from tui.browsers.plain import plain_text
from tui.browsers.summary import summary_line
from tui.browsers.virtual_list import VirtualList
from tui.browsers.watch import follow_changes, memory_filter
from tui.gc_tuning import spare_long_lived
from tui.structured import Tone
from tui.text import inert, inert_str
from tui.widgets.toned_static import TonedStatic, shown_in
from tui.widgets.tones import DIM, PLAIN

FLASH_SECONDS = 1.5  # how long a changed row stays highlighted
PACE_SECONDS = 0.004  # the load's pause after each batch (~100 ms of reading): the UI's turn


class MemoryBrowser(Vertical):
    """Browse a memory root (and a read-only global one): filter, detail, recall marks, live updates."""

    DEFAULT_CSS = """
    MemoryBrowser { height: 1fr; }
    MemoryBrowser #memory-filter { margin: 0 1; }
    MemoryBrowser #memory-summary { height: 1; padding: 0 1; background: $panel; }
    /* The indent is padding, not spaces in the text: SVG renderers drop a run's leading spaces. */
    MemoryBrowser #memory-columns { height: 1; padding: 0 0 0 3; color: $text-muted; text-style: bold; }
    MemoryBrowser #memory-records { height: 1fr; min-height: 3; }
    MemoryBrowser #memory-detail {
        height: 40%; min-height: 4; border-top: solid $border-blurred; padding: 0 1;
    }
    MemoryBrowser #memory-detail:focus { border-top: solid $border; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "delete", "Delete", id="memory.delete"),
        # Priority: handled as the app takes the key from its queue, so the keys typed right after
        # it (already queued behind it) are routed to the box, never to the list. Each action
        # skips itself where it does not apply (an `f` typed into the box is text).
        Binding("f", "filter", "Filter", id="memory.filter", priority=True),
        Binding("enter", "filter_done", "Done", show=False, id="memory.filter-done", priority=True),
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
        #: Every row on disk, kept current file by file (None until the first batch of a load).
        self.view: MemoryTable | None = None
        #: Rows shown now: the table's filtered rows plus recalled-but-gone ones.
        self.rows: Shown = Shown(MemoryTable())
        # Not `loading`: that is Widget's reactive that covers the widget with a loading indicator.
        #: (files read, files listed or None) while a load runs; None when the rows are complete.
        self.load_progress: tuple[int, int | None] | None = None
        #: Recall status by record id for the selected step.
        self.marks: dict[str, RecallMark] = {}
        self.error: str | None = None
        self.last_message = ""
        self.last_change = ""
        #: Applied batches and patches so far (tests and benchmarks wait on it).
        self.revision = 0
        #: Completed loads so far (a load shows its rows batch by batch before it completes).
        self.loads = 0
        self.live = False
        self._recalls: list[Mapping[str, Any]] = []
        self._selected: MemoryRow | None = None
        self._flash: dict[str, float] = {}
        self._generation = 0  # the load whose batches are taken; older loads' batches are dropped
        self._filling: MemoryTable | None = None  # a reload's table, swapped in when it completes
        self._patched: set[tuple[str, str]] = set()  # files re-read since the load began: newer than it
        self._io_lock = threading.Lock()  # MemdirMemory is not meant for concurrent use by threads
        self._stop = asyncio.Event()

    # ---- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter: words in id, role, step, text (f)", id="memory-filter", compact=True)
        yield TonedStatic(id="memory-summary")
        yield Static(columns_heading(wide=True), id="memory-columns", markup=False)
        yield RecordList(self, id="memory-records")
        with VerticalScroll(id="memory-detail"):
            yield TonedStatic(id="memory-detail-body")

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
        """Read the root(s) again in a background thread, in batches (see ``load_progress``)."""
        if self.memory is None:
            return
        self._generation += 1
        self._patched = set()
        self._filling = MemoryTable()
        self.load_progress = (0, None)
        self._update_summary()
        self._load(self._generation)

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
        row = self.view.record(record_id) if self.view is not None else None
        index = self.rows.index_of(row) if row is not None else None
        if index is None:
            index = next((i for i, r in enumerate(self.rows.extra) if r.record_id == record_id), None)
            if index is None:
                return False
            index += len(self.rows.table.shown)
        self.query_one(RecordList).cursor = index
        return True

    def flashing(self) -> set[str]:
        """Keys of rows highlighted because they changed a moment ago."""
        now = time.monotonic()
        return {key for key, until in self._flash.items() if until > now}

    # ---- background work ----------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="memory-scan", exit_on_error=False, description="load memory")
    def _load(self, generation: int) -> None:
        memory = self.memory
        if memory is None:
            return
        worker = get_current_worker()
        painted = threading.Event()
        try:
            for number, batch in enumerate(iter_batches(memory.root, memory.global_root, cancelled=worker)):
                if worker.is_cancelled:
                    return
                self.post_message(MemoryLoaded(batch, generation, painted=painted if number == 0 else None))
                if number == 0:
                    # Read on only once the first rows are on screen: measured at 10,000 records,
                    # the reads otherwise held the interpreter until the load was done, and the
                    # first frame with rows came with the last batch.
                    painted.wait(2.0)
                # Hand the interpreter to the UI between batches: keys and paints come first.
                time.sleep(PACE_SECONDS)
        except (MemoryResourceError, OSError) as exc:
            self.post_message(MemoryLoaded(None, generation, f"cannot read memory: {exc}"))

    @work(exclusive=True, group="memory-watch", exit_on_error=False, description="watch memory files")
    async def _watch(self) -> None:
        roots = [p for p in (self.memory_dir, self.global_dir) if p is not None]
        # Each root and its records/ folder, not the tree: a recursive watch first walks every
        # file (160 ms at 100,000 records) before anything can be read. A records/ folder that is
        # replaced is seen in its root, and the watch is started again on the new one.
        await follow_changes(
            [folder for root in roots for folder in (root, root / "records")],
            memory_filter,
            self._stop,
            self._armed,
            lambda changes: self._patch(sorted({path for _, path in changes}), time.perf_counter()),
            lambda reason: self.post_message(WatchStopped(reason)),
            recursive=False,
        )

    def _armed(self) -> None:
        """The watches exist: read the disk now (nothing changed after this can be missed)."""
        self.live = True
        self.rescan()

    @work(thread=True, group="memory-patch", exit_on_error=False, description="re-read changed records")
    def _patch(self, paths: list[str], requested_at: float) -> None:
        # Only the changed files are read (an editor's temp, backup and swap files are ignored by
        # read_file), so an edit costs the same in a root of 100 or 100,000 records.
        memory = self.memory
        if memory is None:
            return
        changes, rescan = reread(paths, memory.root, memory.global_root)
        self.post_message(MemoryPatched(changes, rescan, requested_at))

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
        name = record_filename(record_id)
        row = read_file(memory.records_dir, name, "local")
        self.post_message(MemoryPatched([(("local", name), row)], False, time.perf_counter()))

    # ---- results ------------------------------------------------------------------------------
    @on(MemoryLoaded)
    def _loaded(self, message: MemoryLoaded) -> None:
        message.stop()
        if message.generation != self._generation or self._filling is None:
            return  # a batch of a load that a newer one replaced
        if message.batch is None:
            self.error = message.error
            self.view = MemoryTable()
            self._filling = None
            self.load_progress = None
            self._rebuild()
            return
        self.error = None
        if message.painted is not None:
            self.call_after_refresh(message.painted.set)
        batch = message.batch
        table = self._filling
        table.extend(row for row in batch.rows if row.file_key not in self._patched)
        # The rows live as long as the view: out of the collector's walks, which otherwise went
        # over all of them (100 ms and more at 100,000) every few frames and keys.
        spare_long_lived()
        first_load = self.view is None or self.view is table
        if first_load:
            self.view = table  # the first load is shown batch by batch
        self.load_progress = None if batch.final else (batch.done, batch.total)
        if batch.final:
            if not first_load:
                self._flash_differences(self.view, table)
                self.view = table
            self._filling = None
            self.loads += 1
        self.revision += 1
        if first_load or batch.final:
            table.set_filter(self.filter_text)
            self._rebuild()
        else:
            self._update_summary()

    @on(MemoryPatched)
    def _patched_files(self, message: MemoryPatched) -> None:
        message.stop()
        if message.rescan:
            if self.watch_files:
                self._watch()  # on the records/ folder there is now; it loads again once armed
            else:
                self.rescan()
        if self.error:
            return
        shown = self.view
        changed: set[str] = set()
        removed: list[MemoryRow] = []
        for file_key, row in message.changes:
            old = None
            if self._filling is not None:
                # Newer than anything the running load read of this file: its batch must not undo it.
                self._patched.add(file_key)
                old = self._put(self._filling, file_key, row)
            if shown is None:
                continue
            if shown is not self._filling:
                old = self._put(shown, file_key, row)
            if row is not None and (old is None or old.signature != row.signature or old.key != row.key):
                changed.add(row.key)
            elif row is None and old is not None:
                removed.append(old)
        if changed or removed:
            self._flash_keys(changed, removed)
            self.revision += 1
            self._rebuild()

    @staticmethod
    def _put(table: MemoryTable, file_key: tuple[str, str], row: MemoryRow | None) -> MemoryRow | None:
        """Apply one re-read file to a table; returns the row it held before."""
        return table.remove(file_key) if row is None else table.put(row)

    def _flash_differences(self, before: MemoryTable | None, after: MemoryTable) -> None:
        """Highlight what a reload found changed since the rows shown until now."""
        if before is None:
            return
        old = {row.key: row.signature for row in before.rows()}
        changed = {row.key for row in after.rows() if old.get(row.key) != row.signature}
        now = {row.key for row in after.rows()}
        removed = [row for row in before.rows() if row.key not in now]
        self._flash_keys(changed, removed)

    def _flash_keys(self, changed: set[str], removed: list[MemoryRow]) -> None:
        """Highlight changed rows for a moment and say what changed."""
        until = time.monotonic() + FLASH_SECONDS
        for key in changed:
            self._flash[key] = until
        if changed or removed:
            self.last_change = describe_change(changed, removed)
            self.set_timer(FLASH_SECONDS + 0.05, self._expire_flash)

    @on(MemoryDeleted)
    def _deleted(self, message: MemoryDeleted) -> None:
        message.stop()
        if message.error:
            self._say(f"not deleted: {message.error}", severity="error")
        elif message.removed:
            self._say(f"deleted record {message.record_id}")
        else:
            self._say(f"record {message.record_id} was already gone from disk; nothing deleted", "warning")

    @on(WatchStopped)
    def _watch_stopped(self, message: WatchStopped) -> None:
        message.stop()
        self.live = False
        self._say(message.reason, severity="warning")
        self.rescan()  # show what is there now (e.g. that the records folder is gone)

    def _expire_flash(self) -> None:
        now = time.monotonic()
        self._flash = {k: t for k, t in self._flash.items() if t > now}
        self.query_one(RecordList).refresh()

    # ---- state to screen ----------------------------------------------------------------------
    def watch_filter_text(self) -> None:
        if self.view is not None:
            self.view.set_filter(self.filter_text)
        self._rebuild()

    def _rebuild(self) -> None:
        """Recompute the shown rows from the table, the recall marks and the filter; keep the selection."""
        try:
            listing = self.query_one(RecordList)
        except NoMatches:
            return  # not composed yet: on_mount's first load will build the rows
        table = self.view or MemoryTable()
        marks = recall_marks(self._recalls, table)
        self.marks = {m.record_id: m for m in marks}
        self.rows = Shown(table, filter_rows(gone_rows(marks), self.filter_text))
        keep = listing.cursor
        if self._selected is not None:
            found = self.rows.index_of(self._selected)
            if found is not None:
                keep = found
        listing.set_count(len(self.rows), keep)
        self._update_summary()
        self._show_detail()

    @on(VirtualList.Moved, "#memory-records")
    def _moved(self, message: VirtualList.Moved) -> None:
        message.stop()
        self._selected = self.selected_row
        self._show_detail()

    @on(Input.Changed, "#memory-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.filter_text = event.value

    def _update_summary(self) -> None:
        self.query_one("#memory-summary", TonedStatic).draw(self._summary)

    def _summary(self, tone: Tone) -> Text:
        """The line over the records: how many, loading, recalls, global, rejected, shown, live."""
        if self.error:
            return summary_line([(self.error, tone("bad"))])
        view = self.view or MemoryTable()
        parts = [(f"{view.local:,} record{'' if view.local == 1 else 's'}", PLAIN)]
        if self.load_progress is not None:
            done, total = self.load_progress
            loading = f"loading {done:,}/{total:,} files" if total else f"loading ({done:,} files read)"
            parts.append((loading, tone("warn")))
        if self.recall_step is not None:  # first: in a run it is what the pane is about
            parts.append((f"step {self.recall_step}: {recall_counts(self.marks)}", PLAIN))
        if self.global_dir is not None:
            parts.append((f"{view.global_} global (read-only)", PLAIN))
        if view.rejected:
            parts.append((f"{view.rejected} rejected", tone("bad")))
        if self.filter_text.strip():
            parts.append((f"{len(self.rows):,} shown", PLAIN))
        if self.live:
            parts.append(("live", tone("good")))
        if self.last_change:
            parts.append((self.last_change, tone("warn")))
        return summary_line(parts)

    def _show_detail(self) -> None:
        row = self.selected_row
        mark = self.marks.get(row.record_id) if row is not None else None
        note = self.error or "no records"
        step = self.recall_step
        self.query_one("#memory-detail-body", TonedStatic).draw(
            (lambda tone: inert(note, style=DIM))
            if row is None
            else (lambda tone: detail(row, mark, step, tone))
        )

    @property
    def detail(self) -> RenderableType:
        """What the detail view shows for the selected row now (in the current theme's tones)."""
        return shown_in(self, "#memory-detail-body")

    def detail_text(self, width: int = 100) -> str:
        """What the detail view shows now, as plain text (for tests and scripts)."""
        return plain_text(self.detail, width)

    # ---- actions ------------------------------------------------------------------------------
    def action_filter(self) -> None:
        """Focus the filter box (an `f` typed in it is text)."""
        box = self.query_one("#memory-filter", Input)
        if self.app.focused is box:
            raise SkipAction()
        # At once, not with focus()'s call_later: keys typed right after `f` are already queued
        # and must reach the box, not the list (while a load runs they arrive together).
        self.screen.set_focus(box)

    def action_filter_done(self) -> None:
        """Back from the filter box to the list (enter elsewhere is the focused widget's)."""
        if self.app.focused is not self.query_one("#memory-filter", Input):
            raise SkipAction()
        self.screen.set_focus(self.query_one(RecordList))

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

    def _say(self, message: str, severity: SeverityLevel = "information") -> None:
        """Show an outcome in the summary line and as a notification."""
        self.last_message = message
        self.notify(inert_str(message), severity=severity, markup=False)

    def _fail(self, message: str) -> None:
        self.error = message
        self.view = MemoryTable()
        self._rebuild()
        self.notify(inert_str(message), severity="error", timeout=10, markup=False)

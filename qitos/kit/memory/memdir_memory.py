"""MemdirMemory: one human-editable file per record under a memory root, read fresh on every recall.

Layout of a memory root::

    <memory_dir>/MEMORY.md            derived index (newest first), rewritten atomically on each write
                                      from what this instance knows (rebuild_index rescans the disk)
    <memory_dir>/records/<hash>.md    one record: front matter + text (see memdir_format)

Every write is atomic (temp file, rename), so a writer killed at any instant leaves either the old
or the new file, never a torn one; record writes are also durable (the data reaches the disk before
the rename, the directory is fsynced after it; see ``flush``). Recall scans ``records/`` on every
call so edits, additions and deletions made by another process or an editor show at once; parsed
files are cached only under a stat signature that cannot go stale (see ``RACY_MARGIN_NS``).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from operator import attrgetter
from pathlib import Path
from typing import Any

from qitos.core.memory import Memory, MemoryRecord, MemoryResourceError
from qitos.kit.memory.atomic import OpenDir, atomic_write, atomic_write_at, read_no_follow, sweep_stale_temps
from qitos.kit.memory.events import emit_append, emit_delete, emit_recall
from qitos.kit.memory.memdir_format import (
    RECORD_FILE_RE,
    ParsedRecord,
    RecordFormatError,
    parse_record,
    record_filename,
    render_record,
    validate_record_id,
)
from qitos.kit.memory.memdir_index import RECORDS_DIR, IndexBook, index_line, render_index_text
from qitos.kit.memory.query import filter_records, validate_query

__all__ = ["MemdirEntry", "MemdirMemory", "MemdirScan", "RejectedFile"]

INDEX_NAME = "MEMORY.md"
# A cached parse is trusted only when the file's ctime is older than the parse by this margin:
# a same-size rewrite inside one timestamp tick (coarse kernel clocks, 2 s on some filesystems)
# could otherwise keep the signature unchanged. ctime cannot be set by user space.
RACY_MARGIN_NS = 2_500_000_000


@dataclass(frozen=True)
class MemdirEntry:
    """One recallable record as the browser lists it: the record plus where and when it lives."""

    record: MemoryRecord
    path: Path
    scope: str  # "local" or "global"
    created: str
    size: int
    modified_ns: int
    seq: int | None = None


@dataclass(frozen=True)
class RejectedFile:
    """A file under records/ that is never recalled, with the human-readable reason why."""

    path: Path
    reason: str
    scope: str


@dataclass(frozen=True)
class MemdirScan:
    """A fresh read of the memory root(s): valid entries oldest first, and rejected files."""

    entries: list[MemdirEntry] = field(default_factory=list)
    rejected: list[RejectedFile] = field(default_factory=list)

    @property
    def records(self) -> list[MemoryRecord]:
        """The records of the valid entries, oldest first."""
        return [entry.record for entry in self.entries]


class _Cached:
    """One valid parse remembered under the stat signature it was read at (hot path: slots)."""

    __slots__ = ("ino", "size", "mtime_ns", "ctime_ns", "trusted", "parsed", "path", "order")

    def __init__(
        self, signature: tuple[int, int, int, int], parsed_at_ns: int, parsed: ParsedRecord, path: str
    ):
        self.ino, self.size, self.mtime_ns, self.ctime_ns = signature
        # Trusted only if the file's ctime was older than the read by the racy margin: a later
        # same-size rewrite inside one timestamp tick could otherwise keep the signature unchanged.
        self.trusted = self.ctime_ns + RACY_MARGIN_NS < parsed_at_ns
        self.parsed = parsed
        self.path = path
        # Append order: the header's seq (hand-made files: their mtime), then the path.
        self.order = (parsed.seq if parsed.seq is not None else self.mtime_ns, path)


_ORDER = attrgetter("order")


class MemdirMemory(Memory):
    """Persist text records with stable identity and fresh disk retrieval.

    Restore is the default and fails if a bound root is missing. Pass
    ``create=True`` only to explicitly initialize a namespace. ``reset`` and
    ``evict`` affect the append-time cache only; ``delete`` removes a local fact.
    Arbitrary Python/JSON content and metadata are not a durable round-trip API.
    """

    #: Recall events come from this memory itself (the adapter need not emit them).
    emits_recall_events = True

    def __init__(
        self,
        memory_dir: str = ".qitos/memory",
        *,
        global_memory_dir: str | None = None,
        create: bool = False,
        max_index_entries: int = 200,
        max_index_chars: int = 25000,
    ) -> None:
        for name, value in (("max_index_entries", max_index_entries), ("max_index_chars", max_index_chars)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative int")
        self.max_index_entries = max_index_entries
        self.max_index_chars = max_index_chars
        root = Path(memory_dir).expanduser()
        if create:
            _initialise_root(root)
        self.root = _bound_root(root, what="memory_dir")
        self.records_dir = self.root / RECORDS_DIR
        self.index_path = self.root / INDEX_NAME
        # Writes go through directories held open (one lstat a write checks they are still the
        # ones at these paths) instead of opening each twice a write.
        self._records_open = OpenDir(self.records_dir)
        self._root_open = OpenDir(self.root)
        self._records_prefix = str(self.records_dir) + os.sep  # parse-cache keys are scandir paths
        self.global_root: Path | None = None
        if global_memory_dir is not None:
            self.global_root = _bound_root(Path(global_memory_dir).expanduser(), what="global_memory_dir")
            if self.global_root == self.root:
                raise ValueError("global_memory_dir must differ from memory_dir")
        #: The label memory events carry; a label, never a directory selector.
        self.namespace: str = self.root.name
        #: ISO-8601 timestamp source for the ``created`` header (inject a fixed clock in tests).
        self.clock: Callable[[], str] = lambda: datetime.now(UTC).isoformat()
        self._appended: list[MemoryRecord] = []
        self._cache: dict[str, _Cached] = {}
        self._lock = threading.RLock()
        self._last_seq = 0
        self._swept = False
        # What MEMORY.md lists, kept per write so a write never rescans records/; None until the
        # first write of this instance fills it from one scan.
        self._book: IndexBook | None = None

    # ----- the Memory contract -------------------------------------------------------------------

    def append(self, record: MemoryRecord) -> None:
        """Write one record atomically as its own file, then rewrite the index; emit memory_append."""
        if not isinstance(record, MemoryRecord):
            raise TypeError(f"append expects a MemoryRecord, got {type(record).__name__}")
        with self._lock:
            records_fd = self._records_open.fd(self._check_records_dir(self.records_dir))
            book = self._index_book()
            seq = self._next_seq()
            data, text = render_record(record, created=self.clock(), seq=seq)
            name = record_filename(record.record_id)
            atomic_write_at(records_fd, name, data)
            self._appended.append(record)
            self._cache.pop(self._records_prefix + name, None)
            book.put((seq, name), index_line(record, name))
            self._write_index()
        emit_append(record, namespace=self.namespace, chars=len(text))

    def retrieve(
        self,
        query: dict[str, Any] | None = None,
        state: Any = None,
        observation: Any = None,
    ) -> list[MemoryRecord]:
        """Return matching records read fresh from disk (global first, then local), oldest first."""
        normalised = validate_query(query)
        records = filter_records(
            [_copy_record(c.parsed.record) for c, _ in self._collect(True)[0]], normalised
        )
        emit_recall(records, namespace=self.namespace, query=query)
        return records

    def summarize(self, max_items: int = 30) -> str:
        """Render current records, never stale index snippets after external edits."""
        if isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 0:
            raise ValueError("max_items must be a non-negative int")
        found = self._collect(True)[0]
        shown = [c.parsed.record for c, _ in found[-max_items:]] if max_items else []
        if not shown:
            return ""
        return "\n".join(f"- [{r.role} @ step {r.step_id}] {r.content}" for r in shown)

    def evict(self) -> int:
        """Drop the append-time cache of this instance; return how many records it held."""
        with self._lock:
            count = len(self._appended)
            self._appended.clear()
            return count

    def reset(self, run_id: str | None = None) -> None:
        """Clear the append-time cache for a new run; the records on disk stay."""
        with self._lock:
            self._appended.clear()

    # ----- forgetting ----------------------------------------------------------------------------

    def delete(self, record_id: str) -> bool:
        """Forget one logical record in this namespace, never global memory.

        Idempotent for an absent identity. This is local-file deletion, not
        secure erasure or a concurrent multi-file transaction. Callers serialize
        writes to one Memdir namespace; use a transactional backend otherwise.
        """
        validate_record_id(record_id)
        with self._lock:
            records_fd = self._records_open.fd(self._check_records_dir(self.records_dir))
            book = self._index_book()
            path = self.records_dir / record_filename(record_id)
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                removed = False
            else:
                if stat.S_ISLNK(st.st_mode):
                    raise MemoryResourceError(f"refusing to delete {path.name}: it is a symlink")
                if not stat.S_ISREG(st.st_mode):
                    raise MemoryResourceError(f"refusing to delete {path.name}: not a regular file")
                try:
                    parsed = parse_record(read_no_follow(path), expected_name=path.name)
                except RecordFormatError as exc:
                    raise MemoryResourceError(
                        f"refusing to delete malformed record {path.name}: {exc}"
                    ) from exc
                if parsed.record.record_id != record_id:
                    raise MemoryResourceError(f"refusing to delete {path.name}: header names another record")
                os.unlink(path.name, dir_fd=records_fd)
                os.fsync(records_fd)
                removed = True
            self._cache.pop(str(path), None)
            self._appended = [r for r in self._appended if r.record_id != record_id]
            if removed:
                book.remove(path.name)
                self._write_index()
        emit_delete(record_id, namespace=self.namespace, removed=removed)
        return removed

    # ----- browsing (what a TUI lists) -----------------------------------------------------------

    def scan(self, *, include_global: bool = True) -> MemdirScan:
        """Read the root(s) fresh: valid entries oldest first, plus rejected files with reasons."""
        found, rejected = self._collect(include_global)
        entries = [
            MemdirEntry(
                record=_copy_record(c.parsed.record),
                path=Path(c.path),
                scope=scope,
                created=c.parsed.created,
                size=c.size,
                modified_ns=c.mtime_ns,
                seq=c.parsed.seq,
            )
            for c, scope in found
        ]
        return MemdirScan(entries=entries, rejected=rejected)

    def get(self, record_id: str) -> MemoryRecord | None:
        """The current local record with this id, read fresh, or None (also when it is malformed)."""
        path = os.path.join(self.records_dir, record_filename(record_id))
        self._check_records_dir(self.records_dir)
        with self._lock:
            result = self._read_one(path)
        return None if result is None else _copy_record(result.parsed.record)

    @property
    def recent_appends(self) -> list[MemoryRecord]:
        """Records appended through this instance since the last reset/evict (the append-time cache)."""
        return list(self._appended)

    # ----- the index -----------------------------------------------------------------------------

    def render_index(self) -> str:
        """The MEMORY.md text for the current local records, within max_index_entries/max_index_chars."""
        entries = self._scan_dir(self.records_dir, "local")[0]
        newest_first = (index_line(c.parsed.record, os.path.basename(c.path)) for c in reversed(entries))
        return render_index_text(
            newest_first, len(entries), max_entries=self.max_index_entries, max_chars=self.max_index_chars
        )

    def index_is_current(self) -> bool:
        """Whether MEMORY.md matches the records on disk now (False after a crash between writes)."""
        try:
            current = read_no_follow(self.index_path).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        return current == self.render_index()

    def rebuild_index(self) -> None:
        """Rewrite MEMORY.md atomically from the records on disk (and sweep abandoned temp files)."""
        with self._lock:
            self._book = None  # forget what this instance knew: the disk is the truth
            self._index_book()
            self._write_index(sweep=True)

    # ----- internals -----------------------------------------------------------------------------

    def _index_book(self) -> IndexBook:
        """The index book, filled from one scan of records/ on this instance's first write."""
        if self._book is None:
            book = IndexBook(self._load_index_line)
            entries = self._scan_dir(self.records_dir, "local")[0]
            shown = len(entries) - self.max_index_entries
            book.reset(
                (
                    (c.order[0], os.path.basename(c.path)),
                    index_line(c.parsed.record, os.path.basename(c.path)) if at >= shown else None,
                )
                for at, c in enumerate(entries)
            )
            self._book = book
        return self._book

    def _load_index_line(self, name: str) -> str | None:
        """The index line of one local record read back from its file, or None if gone or malformed."""
        result = self._read_one(os.path.join(self.records_dir, name))
        return None if result is None else index_line(result.parsed.record, name)

    def _write_index(self, *, sweep: bool = False) -> None:
        """Rewrite the index from the book; sweep abandoned temp files on the first write."""
        # Temp files only come from writers killed mid-write, so one sweep per instance (and one
        # per explicit rebuild) suffices; sweeping on every append would list records/ twice.
        if sweep or not self._swept:
            sweep_stale_temps(self.records_dir)
            # The index's own temp files live beside it (a kill between its swap and unlink).
            sweep_stale_temps(self.root)
            self._swept = True
        text = self._index_book().render(max_entries=self.max_index_entries, max_chars=self.max_index_chars)
        # The index is derived: atomic against any reader or a kill, but not fsynced (a power cut
        # can at worst leave it stale, which index_is_current() shows and rebuild_index() repairs).
        atomic_write_at(self._root_fd(), INDEX_NAME, text.encode("utf-8"), durable=False)

    def _next_seq(self) -> int:
        """A per-process strictly increasing ordering key (wall-clock ns), stored in the header."""
        self._last_seq = max(self._last_seq + 1, time.time_ns())
        return self._last_seq

    def _root_fd(self) -> int:
        """The held memory root, checked to still be the real directory at its path."""
        try:
            st = os.lstat(self.root)
        except FileNotFoundError as exc:
            raise MemoryResourceError(f"memory root is missing: {self.root}") from exc
        if not stat.S_ISDIR(st.st_mode):  # an lstat: a symlink is not a directory
            raise MemoryResourceError(f"memory root is not a real directory: {self.root}")
        return self._root_open.fd(st)

    def _check_records_dir(self, records_dir: Path) -> os.stat_result:
        """Refuse to work through a records/ that is gone, replaced by a file, or a symlink."""
        try:
            st = os.lstat(records_dir)
        except (FileNotFoundError, NotADirectoryError) as exc:  # NotADirectory: the root became a file
            raise MemoryResourceError(f"memory records directory is missing: {records_dir}") from exc
        if not stat.S_ISDIR(st.st_mode):  # an lstat: a symlink is not a directory
            raise MemoryResourceError(f"memory records path is not a real directory: {records_dir}")
        return st

    def _collect(self, include_global: bool) -> tuple[list[tuple[_Cached, str]], list[RejectedFile]]:
        """Valid (parse, scope) pairs oldest first (global, then local) and rejected files."""
        local, rejected = self._scan_dir(self.records_dir, "local")
        if not include_global or self.global_root is None:
            return [(c, "local") for c in local], rejected
        glob, glob_rejected = self._scan_dir(self.global_root / RECORDS_DIR, "global")
        # A local record shadows a global one with the same identity.
        seen = {c.parsed.record.record_id for c in local}
        found = [(c, "global") for c in glob if c.parsed.record.record_id not in seen]
        return found + [(c, "local") for c in local], glob_rejected + rejected

    def _scan_dir(self, records_dir: Path, scope: str) -> tuple[list[_Cached], list[RejectedFile]]:
        """List one records/ directory, oldest first: one lstat per file, parsing only what changed."""
        # The parse cache is shared by every thread using this instance (engine tools, a TUI worker).
        with self._lock:
            return self._scan_dir_locked(records_dir, scope)

    def _scan_dir_locked(self, records_dir: Path, scope: str) -> tuple[list[_Cached], list[RejectedFile]]:
        """The body of :meth:`_scan_dir`, run under the instance lock."""
        self._check_records_dir(records_dir)
        found: list[_Cached] = []
        rejected: list[RejectedFile] = []
        cache = self._cache
        get = cache.get
        match = RECORD_FILE_RE.fullmatch
        is_reg = stat.S_ISREG
        # This loop runs once per record on every recall, so the cache-hit path is kept inline.
        with os.scandir(records_dir) as it:
            for dir_entry in it:
                if not match(dir_entry.name):
                    if dir_entry.name.endswith(".md"):
                        rejected.append(
                            RejectedFile(Path(dir_entry.path), "file name is not a record hash", scope)
                        )
                    continue
                try:
                    st = dir_entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                path = dir_entry.path
                if not is_reg(st.st_mode):
                    reason = "symlink (never followed)" if stat.S_ISLNK(st.st_mode) else "not a regular file"
                    rejected.append(RejectedFile(Path(path), reason, scope))
                    continue
                cached = get(path)
                if (
                    cached is not None
                    and cached.trusted
                    and cached.ctime_ns == st.st_ctime_ns
                    and cached.mtime_ns == st.st_mtime_ns
                    and cached.size == st.st_size
                    and cached.ino == st.st_ino
                ):
                    found.append(cached)
                    continue
                result = self._parse(path)
                if isinstance(result, _Cached):
                    found.append(result)
                elif result is not None:
                    rejected.append(RejectedFile(Path(path), result, scope))
        # Forget cached parses of files that are gone, so the cache never outgrows the directory.
        prefix = str(records_dir) + os.sep
        if sum(1 for key in cache if key.startswith(prefix)) > len(found):
            present = {c.path for c in found}
            for key in [k for k in cache if k.startswith(prefix) and k not in present]:
                del cache[key]
        found.sort(key=_ORDER)
        return found, rejected

    def _read_one(self, path: str) -> _Cached | None:
        """One record file read fresh (get): its parse, or None if absent, not a regular file or malformed."""
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        if not stat.S_ISREG(st.st_mode):  # never open a symlink, a directory or a FIFO
            return None
        result = self._parse(path)
        return result if isinstance(result, _Cached) else None

    def _parse(self, path: str) -> _Cached | str | None:
        """Parse one file and cache a valid result; returns the parse, a rejection reason, or None."""
        parsed_at = time.time_ns()
        self._cache.pop(path, None)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            return None
        except OSError as exc:  # ELOOP: swapped for a symlink between stat and open
            return f"unreadable: {exc.strerror}"
        try:
            st = os.fstat(fd)
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(fd)
        # Key the result on what was actually opened (the file may have been replaced since lstat).
        signature = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        try:
            parsed = parse_record(b"".join(chunks), expected_name=os.path.basename(path))
        except RecordFormatError as exc:
            return str(exc)
        cached = _Cached(signature, parsed_at, parsed, path)
        self._cache[path] = cached
        return cached


def _copy_record(record: MemoryRecord) -> MemoryRecord:
    """A caller-owned copy of a cached record (metadata is the only mutable part)."""
    return MemoryRecord(record.role, record.content, record.step_id, dict(record.metadata), record.record_id)


def _initialise_root(root: Path) -> None:
    """Create a memory root with its records/ directory and an empty index (create=True only)."""
    if root.is_symlink() and not root.is_dir():
        raise MemoryResourceError(f"memory root is a dangling symlink: {root}")
    root.mkdir(parents=True, exist_ok=True)
    records = root / RECORDS_DIR
    if records.is_symlink():
        raise MemoryResourceError(f"memory records path is a symlink: {records}")
    records.mkdir(exist_ok=True)
    index = root / INDEX_NAME
    if not index.exists() and not index.is_symlink():
        atomic_write(index, b"# Memory index\n\n")


def _bound_root(root: Path, *, what: str) -> Path:
    """Resolve an existing, initialised memory root; raise MemoryResourceError and create nothing."""
    if not root.exists():
        raise MemoryResourceError(f"{what} does not exist: {root} (pass create=True to initialise it)")
    if not root.is_dir():
        raise MemoryResourceError(f"{what} is not a directory: {root}")
    resolved = root.resolve()
    records = resolved / RECORDS_DIR
    if records.is_symlink() or not records.is_dir():
        raise MemoryResourceError(
            f"{what} is not an initialised memory root (no records/ directory): {root}"
            + (" (pass create=True to initialise it)" if what == "memory_dir" else "")
        )
    return resolved

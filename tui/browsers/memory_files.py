"""Reading a Memdir root for the browser, one file at a time: a load in batches and a re-read per change.

The rules are MemdirMemory's (what it recalls, what it rejects and why), applied to one file by
:func:`read_file`, so a full load and the re-read of one changed file cannot disagree. The browser
does not go through ``MemdirMemory.scan``: that keeps every parse in the memory's cache and copies
each record twice more, which at 100,000 records cost ~200 MB; rows here are all it keeps.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from qitos.core.memory import MemoryResourceError
from qitos.kit.memory.atomic import read_no_follow
from qitos.kit.memory.memdir_format import RECORD_FILE_RE, RecordFormatError, parse_record
from qitos.kit.memory.memdir_memory import INDEX_NAME, RECORDS_DIR
from tui.browsers.memory_model import MemoryRow, RowKind, content_text, make_row
from tui.browsers.memory_table import MemoryTable

__all__ = ["Batch", "FileKey", "iter_batches", "load_table", "read_file", "records_dirs", "reread"]

# (scope, file name): the identity of a row's file, whatever the file holds now.
FileKey = tuple[str, str]
# MEMORY.md names the newest records' files; reading those first puts the newest rows on screen
# before the folder has even been listed.
INDEX_LINK_RE = re.compile(r"\]\(" + RECORDS_DIR + r"/([0-9a-f]{32}\.md)\)")
BATCH_SECONDS = 0.1  # a batch goes to the screen at least this often while a load runs
FIRST_BATCH = 300  # files in the first batch: a screenful and more, read in a few ms


@dataclass(frozen=True)
class Batch:
    """Rows read so far by a load (each file at most once per load), and how far the load has got."""

    rows: list[MemoryRow]
    done: int
    total: int | None  # None until the folders have been listed
    final: bool = False


def records_dirs(root: Path, global_root: Path | None) -> list[tuple[str, Path]]:
    """The records/ folders to read: (scope, folder), local first."""
    dirs = [("local", root / RECORDS_DIR)]
    if global_root is not None:
        dirs.append(("global", global_root / RECORDS_DIR))
    return dirs


def read_file(records_dir: Path, name: str, scope: str) -> MemoryRow | None:
    """The row of one file under records/ now: a record, a rejected file, or None (gone or ignored)."""
    is_record = RECORD_FILE_RE.fullmatch(name) is not None
    if not is_record and not name.endswith(".md"):
        return None  # temp, backup and swap files (`~`, `.swp`, `4913`) are never records
    path = os.path.join(records_dir, name)
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not is_record:
        return _rejected(name, scope, "file name is not a record hash", st)
    if not stat.S_ISREG(st.st_mode):
        reason = "symlink (never followed)" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        return _rejected(name, scope, reason, st)
    try:
        data = read_no_follow(Path(path))
    except FileNotFoundError:
        return None
    except OSError as exc:  # ELOOP: swapped for a symlink between lstat and open
        return _rejected(name, scope, f"unreadable: {exc.strerror}", st)
    try:
        parsed = parse_record(data, expected_name=name)
    except RecordFormatError as exc:
        return _rejected(name, scope, str(exc), st)
    record = parsed.record
    return make_row(
        kind=RowKind.RECORD,
        record_id=record.record_id,
        role=sys.intern(record.role),
        step_id=record.step_id,
        created=parsed.created,
        size=len(data),
        content=content_text(record.content),
        scope=scope,
        name=name,
        mtime_ns=st.st_mtime_ns,
        metadata=record.metadata,
        # Append order, as MemdirMemory sorts: the header's seq, for hand-made files their mtime.
        order=parsed.seq if parsed.seq is not None else st.st_mtime_ns,
    )


def _rejected(name: str, scope: str, reason: str, st: os.stat_result) -> MemoryRow:
    """The row of a file under records/ that is never recalled."""
    return make_row(
        kind=RowKind.REJECTED,
        record_id=name,
        scope=scope,
        name=name,
        reason=reason,
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
    )


def check_folder(folder: Path) -> None:
    """Refuse to read through a records/ folder that is gone, a file, or a symlink (as MemdirMemory)."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError as exc:
        raise MemoryResourceError(f"memory records directory is missing: {folder}") from exc
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise MemoryResourceError(f"memory records path is not a real directory: {folder}")


def index_hints(root: Path) -> list[str]:
    """Record file names MEMORY.md lists (newest first); a hint only, never trusted for content."""
    try:
        head = read_no_follow(root / INDEX_NAME)[:200_000].decode("utf-8", "replace")
    except OSError:
        return []
    return INDEX_LINK_RE.findall(head)


def iter_batches(root: Path, global_root: Path | None, *, cancelled: object = None) -> Iterator[Batch]:
    """Read the root(s) in batches: the files MEMORY.md names first, then every listed file.

    Raises MemoryResourceError or OSError if a records/ folder is missing, not a real folder, or
    cannot be listed. ``cancelled`` is polled between files when it has an ``is_cancelled`` attribute.
    """
    folders = records_dirs(root, global_root)
    for _, folder in folders:
        check_folder(folder)
    seen: set[FileKey] = set()
    rows: list[MemoryRow] = []
    done = 0
    last = time.monotonic()
    local_dir = root / RECORDS_DIR

    def take(scope: str, folder: Path, name: str) -> None:
        nonlocal done
        seen.add((scope, name))
        row = read_file(folder, name, scope)
        if row is not None:
            rows.append(row)
        done += 1

    for name in index_hints(root)[:FIRST_BATCH]:
        take("local", local_dir, name)
    if rows:
        yield Batch(rows, done, None)
        rows, last = [], time.monotonic()
    # Names only (each becomes its row's name: no second copy of 100,000 strings).
    listed: list[tuple[str, Path, list[str]]] = []
    for scope, folder in folders:
        with os.scandir(folder) as entries:
            listed.append((scope, folder, [e.name for e in entries if (scope, e.name) not in seen]))
    total = done + sum(len(names) for _, _, names in listed)
    budget = FIRST_BATCH
    for scope, folder, names in listed:
        for name in names:
            if getattr(cancelled, "is_cancelled", False):
                return
            take(scope, folder, name)
            budget -= 1
            now = time.monotonic()
            if budget <= 0 or now - last >= BATCH_SECONDS:
                yield Batch(rows, done, total)
                rows, last, budget = [], now, 1 << 30
    yield Batch(rows, done, total, final=True)


def load_table(root: Path, global_root: Path | None) -> MemoryTable:
    """Every row of the root(s), read at once (tests, scripts; the browser loads in batches)."""
    table = MemoryTable()
    for batch in iter_batches(root, global_root):
        table.extend(batch.rows)
    return table


def reread(
    paths: Iterable[str], root: Path, global_root: Path | None
) -> tuple[list[tuple[FileKey, MemoryRow | None]], bool]:
    """Re-read changed files: ((scope, name), row now or None) each, and whether a full load is needed.

    Only files directly in a records/ folder are rows; a change to a records/ folder itself (it
    appeared, vanished or was replaced) needs a full load. Anything else under a root is ignored.
    """
    folders = {str(folder): (scope, folder) for scope, folder in records_dirs(root, global_root)}
    changes: list[tuple[FileKey, MemoryRow | None]] = []
    rescan = False
    for raw in paths:
        head, _, name = raw.rpartition("/")
        place = folders.get(head) or folders.get(str(Path(head).resolve()))
        if place is None:
            rescan = rescan or raw in folders or str(Path(raw).resolve()) in folders
            continue
        scope, folder = place
        changes.append(((scope, name), read_file(folder, name, scope)))
    return changes, rescan

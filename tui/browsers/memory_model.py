"""What the memory browser shows, computed without the UI: rows from a fresh scan, filters, recall status.

A :class:`MemoryView` is an immutable picture of the memory root(s) at one instant, built from
``MemdirMemory.scan``; the widget only renders it. Comparing two views gives the rows to highlight,
and comparing a ``memory_recall`` event with a view gives what changed on disk since the recall.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Any

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.atomic import read_no_follow
from qitos.kit.memory.memdir_format import RECORD_FILE_RE, RecordFormatError, parse_record
from qitos.kit.memory.memdir_memory import RECORDS_DIR, MemdirMemory, MemdirScan

__all__ = [
    "MemoryRow",
    "MemoryView",
    "RecallMark",
    "RecallStatus",
    "RowKind",
    "build_view",
    "changed_keys",
    "filter_rows",
    "first_line",
    "gone_rows",
    "patch_view",
    "read_local_changes",
    "recall_marks",
]


class RowKind(str, Enum):
    """What a row of the record list stands for."""

    RECORD = "record"  # a valid record on disk (local or global)
    REJECTED = "rejected"  # a file under records/ that is never recalled, with its reason
    GONE = "gone"  # recalled at the selected step, no longer on disk


class RecallStatus(str, Enum):
    """How a record recalled at the selected step compares with the disk now."""

    UNCHANGED = "unchanged"
    CHANGED = "changed"
    GONE = "gone"


@dataclass(frozen=True)
class MemoryRow:
    """One line of the record list, with everything the detail view needs."""

    key: str  # stable identity across rescans: "record:<id>", "rejected:<path>" or "gone:<id>"
    kind: RowKind
    record_id: str
    role: str = ""
    step_id: int | None = None
    created: str = ""
    size: int = 0
    content: str = ""
    scope: str = "local"
    path: str = ""  # relative to its memory root
    reason: str = ""  # why a rejected file is rejected
    signature: tuple[int, int] = (0, 0)  # (size, mtime ns): what "changed on disk" means for a row
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def read_only(self) -> bool:
        """Whether the browser refuses to delete this row (global records, rejected files, gone ones)."""
        return self.kind is not RowKind.RECORD or self.scope != "local"

    @property
    def summary(self) -> str:
        """The first non-blank line of the content (or the rejection reason)."""
        return self.reason if self.kind is RowKind.REJECTED else first_line(self.content)

    @cached_property
    def haystack(self) -> str:
        """The text a filter matches against, lower-cased (computed once per row)."""
        parts = (self.record_id, self.role, str(self.step_id), self.scope, self.kind.value, self.reason)
        return (" ".join(parts) + "\n" + self.content).casefold()


@dataclass(frozen=True)
class RecallMark:
    """One record recalled at the selected step, with the content recalled then and its status now."""

    record_id: str
    role: str
    recalled: str
    status: RecallStatus
    current: str | None  # the content on disk now (None when gone)


@dataclass(frozen=True)
class MemoryView:
    """The rows of one fresh scan (newest record first, then rejected files) and their counts."""

    rows: tuple[MemoryRow, ...] = ()
    local: int = 0
    global_: int = 0
    rejected: int = 0

    def by_key(self) -> dict[str, MemoryRow]:
        """Rows by their stable key."""
        return {row.key: row for row in self.rows}

    def record(self, record_id: str) -> MemoryRow | None:
        """The on-disk row of a record id, if any."""
        return self._records.get(record_id)

    @cached_property
    def _records(self) -> dict[str, MemoryRow]:
        """Record rows by id (built once per view: recall marks look ids up on every rebuild)."""
        return {row.record_id: row for row in self.rows if row.kind is RowKind.RECORD}


def first_line(text: str, limit: int = 200) -> str:
    """The first non-blank line of ``text``, stripped and cut to ``limit`` characters."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def _relative(path: Path, roots: Sequence[Path | None]) -> str:
    """``path`` relative to whichever root holds it (so screens never show machine paths)."""
    for root in roots:
        if root is not None:
            try:
                return str(path.relative_to(root))
            except ValueError:
                continue
    return path.name


def _content_text(content: Any) -> str:
    """Record content as text: Memdir content is text; anything else is shown as JSON."""
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, sort_keys=True)


def _record_row(
    record: MemoryRecord,
    *,
    path: Path,
    scope: str,
    created: str,
    size: int,
    mtime_ns: int,
    roots: Sequence[Path | None],
) -> MemoryRow:
    """The list row of one valid record file."""
    return MemoryRow(
        key=f"record:{record.record_id}",
        kind=RowKind.RECORD,
        record_id=record.record_id,
        role=record.role,
        step_id=record.step_id,
        created=created,
        size=size,
        content=_content_text(record.content),
        scope=scope,
        path=_relative(path, roots),
        signature=(size, mtime_ns),
        metadata=dict(record.metadata),
    )


def build_view(scan: MemdirScan, memory: MemdirMemory) -> MemoryView:
    """Turn a fresh scan into list rows: newest record first, then rejected files by name."""
    roots = (memory.root, memory.global_root)
    rows: list[MemoryRow] = [
        _record_row(
            e.record,
            path=e.path,
            scope=e.scope,
            created=e.created,
            size=e.size,
            mtime_ns=e.modified_ns,
            roots=roots,
        )
        for e in reversed(scan.entries)
    ]
    for rejected in sorted(scan.rejected, key=lambda r: (r.scope, r.path.name)):
        try:
            st = os.lstat(rejected.path)
            signature = (st.st_size, st.st_mtime_ns)
        except OSError:
            signature = (0, 0)
        rows.append(
            MemoryRow(
                key=f"rejected:{rejected.scope}:{rejected.path.name}",
                kind=RowKind.REJECTED,
                record_id=rejected.path.name,
                scope=rejected.scope,
                path=_relative(rejected.path, roots),
                reason=rejected.reason,
                size=signature[0],
                signature=signature,
            )
        )
    local = sum(1 for e in scan.entries if e.scope == "local")
    return MemoryView(
        rows=tuple(rows),
        local=local,
        global_=len(scan.entries) - local,
        rejected=len(scan.rejected),
    )


def read_local_changes(memory: MemdirMemory, paths: Iterable[str]) -> tuple[list[MemoryRow], set[str]] | None:
    """Re-read just the changed local record files: rows to upsert and relative paths now gone.

    The fast path for large roots, where a full scan takes a while. It only handles clean cases
    (a valid regular record file, or a file gone); anything else (a malformed file, a symlink, a
    stray name, the global root) returns None and the full scan, which always follows, decides.
    """
    records_dir = memory.records_dir
    upserts: list[MemoryRow] = []
    gone: set[str] = set()
    for raw in paths:
        path = Path(raw)
        if path.parent.resolve() != records_dir:
            return None
        if not RECORD_FILE_RE.fullmatch(path.name):
            return None
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            gone.add(f"{RECORDS_DIR}/{path.name}")
            continue
        if not stat.S_ISREG(st.st_mode):
            return None
        try:
            parsed = parse_record(read_no_follow(path), expected_name=path.name)
        except (RecordFormatError, OSError):
            return None
        upserts.append(
            _record_row(
                parsed.record,
                path=records_dir / path.name,
                scope="local",
                created=parsed.created,
                size=st.st_size,
                mtime_ns=st.st_mtime_ns,
                roots=(memory.root,),
            )
        )
    return upserts, gone


def patch_view(view: MemoryView, upserts: Sequence[MemoryRow], gone: set[str]) -> MemoryView:
    """``view`` with local rows replaced or added (new ones on top) and rows of gone files dropped."""
    if not upserts and not gone:
        return view
    fresh = {row.key: row for row in upserts}
    # A file that was rejected and is now a valid record (or the reverse) keeps its path, not its key.
    replaced = {row.path: row.key for row in upserts}
    rows = []
    for row in view.rows:
        if row.scope == "local" and (row.path in gone or replaced.get(row.path, row.key) != row.key):
            continue
        rows.append(fresh.pop(row.key, row))
    added = list(fresh.values())
    # A local record shadows a global one with the same id (as MemdirMemory does).
    shadowed = {row.record_id for row in added}
    rows = added + [r for r in rows if not (r.scope == "global" and r.record_id in shadowed)]
    records = [r for r in rows if r.kind is RowKind.RECORD]
    local = sum(1 for r in records if r.scope == "local")
    return MemoryView(
        rows=tuple(rows),
        local=local,
        global_=len(records) - local,
        rejected=sum(1 for r in rows if r.kind is RowKind.REJECTED),
    )


def changed_keys(before: MemoryView | None, after: MemoryView) -> tuple[set[str], list[MemoryRow]]:
    """Rows that are new or changed in ``after`` (to highlight) and rows that disappeared."""
    if before is None:
        return set(), []
    old = before.by_key()
    new = after.by_key()
    changed = {key for key, row in new.items() if key not in old or old[key].signature != row.signature}
    removed = [row for key, row in old.items() if key not in new]
    return changed, removed


def recall_marks(recalls: Iterable[Mapping[str, Any]], view: MemoryView) -> list[RecallMark]:
    """Compare the records of ``memory_recall`` payloads with the disk now, one mark per record id.

    A payload carries ``records`` ([{record_id, role, content}]) and ``record_ids``; an id listed
    without its content is compared by presence only.
    """
    marks: dict[str, RecallMark] = {}
    for payload in recalls:
        contents: dict[str, tuple[str, str | None]] = {}
        for rec in payload.get("records") or []:
            if isinstance(rec, Mapping) and isinstance(rec.get("record_id"), str):
                contents[rec["record_id"]] = (str(rec.get("role", "")), _content_text(rec.get("content", "")))
        ids = [i for i in payload.get("record_ids") or [] if isinstance(i, str)]
        for record_id in ids + [i for i in contents if i not in ids]:
            role, recalled = contents.get(record_id, ("", None))
            row = view.record(record_id)
            if row is None:
                status = RecallStatus.GONE
            elif recalled is None or recalled == row.content:
                status = RecallStatus.UNCHANGED
            else:
                status = RecallStatus.CHANGED
            marks[record_id] = RecallMark(
                record_id=record_id,
                role=role or (row.role if row else ""),
                recalled=recalled if recalled is not None else (row.content if row else ""),
                status=status,
                current=row.content if row else None,
            )
    return list(marks.values())


def gone_rows(marks: Iterable[RecallMark]) -> list[MemoryRow]:
    """Placeholder rows for records recalled at the step that are no longer on disk."""
    return [
        MemoryRow(
            key=f"gone:{mark.record_id}",
            kind=RowKind.GONE,
            record_id=mark.record_id,
            role=mark.role,
            content=mark.recalled,
            scope="gone",
        )
        for mark in marks
        if mark.status is RecallStatus.GONE
    ]


def filter_rows(rows: Sequence[MemoryRow], text: str) -> list[MemoryRow]:
    """Rows whose id, role, step, scope or content contain every word of ``text`` (case-insensitive)."""
    words = text.casefold().split()
    if not words:
        return list(rows)
    return [row for row in rows if all(w in row.haystack for w in words)]

"""What the memory browser shows, computed without the UI: rows, filters, recall status.

A :class:`MemoryRow` is one file under a records/ folder as read at one instant (see
``memory_files``); the :class:`~tui.browsers.memory_table.MemoryTable` keeps them in order. Comparing
a ``memory_recall`` event with the table gives what changed on disk since the recall.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from types import MappingProxyType
from typing import Any, Protocol

from qitos.kit.memory.memdir_index import RECORDS_DIR
from qitos.trace.redact import Redactor

__all__ = [
    "MemoryRow",
    "RecallMark",
    "RecallStatus",
    "RowKind",
    "content_text",
    "filter_rows",
    "first_line",
    "gone_rows",
    "make_row",
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


# Shared by every row without metadata (most): read-only, so no row can change another's.
NO_METADATA: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class MemoryRow:
    """One line of the record list, with everything the detail view needs.

    Slots, and no field derivable from another (key, path, signature are properties): a root of
    100,000 records holds 100,000 of these.

    A record file holds what the agent wrote, where the trace of the same append holds it masked
    (qitos.trace.redact). So the content and metadata are read through :attr:`content` and
    :attr:`metadata`, masked as the Engine masks events, never as written: the browser and the
    run's Memory pane show what the trace would, and a recall (masked in the trace) compares equal
    to the record it read. Masked when first read (a few microseconds a row), so a load of
    100,000 rows masks only those shown.
    """

    kind: RowKind
    record_id: str
    role: str = ""
    step_id: int | None = None
    created: str = ""
    size: int = 0
    written: str = field(default="", repr=False)  # the content as the file holds it
    scope: str = "local"
    name: str = ""  # the file's name in its records/ folder
    reason: str = ""  # why a rejected file is rejected
    mtime_ns: int = 0
    written_metadata: Mapping[str, Any] = field(default_factory=lambda: NO_METADATA, repr=False)
    order: int = 0  # append order (header seq, else mtime): newest first in the list
    # The text a filter matches against, lower-cased (see make_row): as written, never shown.
    haystack: str = field(default="", repr=False)
    _masked: tuple[str, Mapping[str, Any]] | None = field(default=None, compare=False, repr=False)

    @property
    def content(self) -> str:
        """The content, its secrets masked."""
        return self._shown()[0]

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The metadata, its secrets masked."""
        return self._shown()[1]

    def _shown(self) -> tuple[str, Mapping[str, Any]]:
        masked = self._masked
        if masked is None:
            redactor = _redactor()
            text, meta = self.written, self.written_metadata
            masked = (
                redactor.redact_text(text) if text else text,
                redactor.redact(dict(meta)) if meta else meta,
            )
            object.__setattr__(self, "_masked", masked)  # a cache: the row stays what it was read as
        return masked

    @property
    def key(self) -> str:
        """Stable identity across reads: "record:<id>", "rejected:<scope>:<name>" or "gone:<id>"."""
        if self.kind is RowKind.REJECTED:
            return f"rejected:{self.scope}:{self.record_id}"
        return f"{self.kind.value}:{self.record_id}"

    @property
    def path(self) -> str:
        """The file relative to its memory root."""
        return f"{RECORDS_DIR}/{self.name}" if self.name else ""

    @property
    def signature(self) -> tuple[int, int]:
        """(size, mtime ns): what "changed on disk" means for a row."""
        return (self.size, self.mtime_ns)

    @property
    def read_only(self) -> bool:
        """Whether the browser refuses to delete this row (global records, rejected files, gone ones)."""
        return self.kind is not RowKind.RECORD or self.scope != "local"

    @property
    def summary(self) -> str:
        """The first non-blank line of the content (or the rejection reason)."""
        return self.reason if self.kind is RowKind.REJECTED else first_line(self.content)

    @property
    def file_key(self) -> tuple[str, str]:
        """(scope, file name): the file this row was read from."""
        return (self.scope, self.name)


@cache
def _redactor() -> Redactor:
    """The masking the Engine gives every event (this process's secret environment values,
    credential shapes, secret-named fields), made once for every row."""
    return Redactor()


def make_row(
    *,
    kind: RowKind,
    record_id: str,
    scope: str = "local",
    content: str = "",
    metadata: Mapping[str, Any] | None = None,
    **facts: Any,
) -> MemoryRow:
    """A row with its filter haystack filled in (the one way rows are built); ``content`` and
    ``metadata`` as the file holds them (the row shows them masked)."""
    parts = (
        record_id,
        facts.get("role", ""),
        str(facts.get("step_id")),
        scope,
        kind.value,
        facts.get("reason", ""),
    )
    haystack = (" ".join(parts) + "\n" + content).casefold()
    return MemoryRow(
        kind=kind,
        record_id=record_id,
        scope=sys.intern(scope),
        written=content,
        written_metadata=metadata or NO_METADATA,
        haystack=haystack,
        **facts,
    )


class RecordLookup(Protocol):
    """What recall marks need from the rows on disk: the row of a record id, if listed."""

    def record(self, record_id: str) -> MemoryRow | None:
        """The on-disk row of a record id, if any."""
        ...


@dataclass(frozen=True)
class RecallMark:
    """One record recalled at the selected step, with the content recalled then and its status now."""

    record_id: str
    role: str
    recalled: str
    status: RecallStatus
    current: str | None  # the content on disk now (None when gone)


def first_line(text: str, limit: int = 200) -> str:
    """The first non-blank line of ``text``, stripped and cut to ``limit`` characters."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def content_text(content: Any) -> str:
    """Record content as text: Memdir content is text; anything else is shown as JSON."""
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, sort_keys=True)


def recall_marks(recalls: Iterable[Mapping[str, Any]], view: RecordLookup) -> list[RecallMark]:
    """Compare the records of ``memory_recall`` payloads with the disk now, one mark per record id.

    A payload carries ``records`` ([{record_id, role, content}]) and ``record_ids``; an id listed
    without its content is compared by presence only.
    """
    marks: dict[str, RecallMark] = {}
    for payload in recalls:
        contents: dict[str, tuple[str, str | None]] = {}
        for rec in payload.get("records") or []:
            if isinstance(rec, Mapping) and isinstance(rec.get("record_id"), str):
                contents[rec["record_id"]] = (str(rec.get("role", "")), content_text(rec.get("content", "")))
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
        make_row(
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

"""MemoryTable: every row of the memory root(s) in list order, patched one file at a time.

Rows are kept by their file and by a sort key (local records newest first, then global records
newest first, then rejected files by name), in one sorted key list, so a changed file costs a
binary search, a batch of a load one merge, and a keystroke of the filter one pass over an
in-memory index (only over the rows already shown, when the new filter narrows the old one).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from tui.browsers.memory_model import MemoryRow, RowKind

__all__ = ["MemoryTable", "Shown", "sort_key"]

SortKey = tuple[int, int, str, str]  # (group, -append order, scope, file name)
FileKey = tuple[str, str]


def sort_key(row: MemoryRow) -> SortKey:
    """Where a row goes in the list: local records, global records (newest first), rejected files."""
    scope, name = row.file_key
    if row.kind is RowKind.REJECTED:
        return (2, 0, scope, name)
    return (0 if scope == "local" else 1, -row.order, scope, name)


def _matcher(words: tuple[str, ...]):  # type: ignore[no-untyped-def]
    """A predicate on haystacks for the filter words (one word, the common case, without a loop)."""
    if len(words) == 1:
        word = words[0]
        return lambda hay: word in hay
    return lambda hay: all(w in hay for w in words)


def _narrows(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """Whether every row matching ``new`` also matches ``old`` (each old word inside a new one)."""
    return bool(old) and all(any(o in n for n in new) for o in old)


class MemoryTable:
    """The rows on disk now, in list order, with counts, a by-id lookup and a filtered view."""

    def __init__(self) -> None:
        self._by_sort: dict[SortKey, MemoryRow] = {}
        self._sort_of: dict[FileKey, SortKey] = {}
        self._keys: list[SortKey] = []  # sorted: every visible row
        self._local_ids: dict[str, FileKey] = {}
        self._global_ids: dict[str, FileKey] = {}
        self._words: tuple[str, ...] = ()
        self._shown: list[SortKey] | None = None  # sorted: rows passing the filter (None: no filter)
        #: Visible record counts, as the summary line shows them.
        self.local = 0
        self.global_ = 0
        self.rejected = 0

    # ---- reading ------------------------------------------------------------------------------
    @property
    def shown(self) -> list[SortKey]:
        """Sort keys of the rows passing the filter, in list order."""
        return self._keys if self._shown is None else self._shown

    def row(self, key: SortKey) -> MemoryRow:
        """The row under a sort key."""
        return self._by_sort[key]

    def file_row(self, file_key: FileKey) -> MemoryRow | None:
        """The row read from one file, if any (shadowed global records included)."""
        key = self._sort_of.get(file_key)
        return None if key is None else self._by_sort[key]

    def record(self, record_id: str) -> MemoryRow | None:
        """The listed row of a record id (a local record shadows a global one)."""
        fk = self._local_ids.get(record_id) or self._global_ids.get(record_id)
        return None if fk is None else self.file_row(fk)

    def rows(self) -> list[MemoryRow]:
        """Every visible row in list order (unfiltered)."""
        return [self._by_sort[k] for k in self._keys]

    def index_of(self, row: MemoryRow) -> int | None:
        """The position of ``row`` in the filtered list, or None."""
        key = sort_key(row)
        shown = self.shown
        at = bisect.bisect_left(shown, key)
        return at if at < len(shown) and shown[at] == key else None

    def __len__(self) -> int:
        return len(self._by_sort)

    # ---- changing -----------------------------------------------------------------------------
    def put(self, row: MemoryRow) -> MemoryRow | None:
        """Add or replace the row of one file; returns the row it replaced."""
        old = self.remove(row.file_key)
        self._add(row, bulk=None)
        return old

    def extend(self, rows: Iterable[MemoryRow]) -> None:
        """Add many rows (a batch of a load): one merge, not one insertion each."""
        added: list[SortKey] = []
        for row in rows:
            if row.file_key in self._sort_of:
                self.put(row)
            else:
                self._add(row, bulk=added)
        if added:
            added.sort()
            self._keys.extend(added)
            self._keys.sort()  # two sorted runs: timsort merges them in one linear pass
            if self._shown is not None:
                match = _matcher(self._words)
                self._shown.extend(k for k in added if match(self._by_sort[k].haystack))
                self._shown.sort()

    def remove(self, file_key: FileKey) -> MemoryRow | None:
        """Forget the row of one file (gone from disk); returns it."""
        key = self._sort_of.pop(file_key, None)
        if key is None:
            return None
        row = self._by_sort.pop(key)
        ids = self._ids(row)
        if ids is not None and ids.get(row.record_id) == file_key:
            del ids[row.record_id]
        if self._visible(row):
            self._drop(key, row)
        if row.kind is RowKind.RECORD and row.scope == "local":
            # A global record this one shadowed is listed again.
            shadowed = self.file_row(self._global_ids.get(row.record_id, ("", "")))
            if shadowed is not None:
                self._insert(sort_key(shadowed), shadowed)
        return row

    def set_filter(self, text: str) -> None:
        """Show only rows containing every word of ``text`` (case-insensitive)."""
        words = tuple(text.casefold().split())
        if words == self._words:
            return
        if not words:
            self._words, self._shown = (), None
            return
        base = self._shown if self._shown is not None and _narrows(self._words, words) else self._keys
        match = _matcher(words)
        by_sort = self._by_sort
        self._shown = [k for k in base if match(by_sort[k].haystack)]
        self._words = words

    # ---- internals ----------------------------------------------------------------------------
    def _ids(self, row: MemoryRow) -> dict[str, FileKey] | None:
        """The by-id map a record row belongs in (None for rejected files)."""
        if row.kind is not RowKind.RECORD:
            return None
        return self._local_ids if row.scope == "local" else self._global_ids

    def _visible(self, row: MemoryRow) -> bool:
        """Whether a stored row is listed (a global record is hidden by a local one with its id)."""
        if row.kind is RowKind.RECORD and row.scope == "global":
            return row.record_id not in self._local_ids
        return True

    def _add(self, row: MemoryRow, *, bulk: list[SortKey] | None) -> None:
        """Store one row (whose file has no row now) and list it if visible."""
        key = sort_key(row)
        file_key = row.file_key
        self._sort_of[file_key] = key
        self._by_sort[key] = row
        if row.kind is RowKind.RECORD and row.scope == "local":
            # It hides a global record with the same id.
            shadowed = self.file_row(self._global_ids.get(row.record_id, ("", "")))
            self._local_ids[row.record_id] = file_key
            if shadowed is not None:  # listed until now: record file names are unique per id
                self._drop(sort_key(shadowed), shadowed)
        elif (ids := self._ids(row)) is not None:
            ids[row.record_id] = file_key
        if not self._visible(row):
            return
        self._count(row, 1)
        if bulk is not None:
            bulk.append(key)
        else:
            bisect.insort(self._keys, key)
            if self._shown is not None and _matcher(self._words)(row.haystack):
                bisect.insort(self._shown, key)

    def _insert(self, key: SortKey, row: MemoryRow) -> None:
        """List a stored row again."""
        self._count(row, 1)
        bisect.insort(self._keys, key)
        if self._shown is not None and _matcher(self._words)(row.haystack):
            bisect.insort(self._shown, key)

    def _drop(self, key: SortKey, row: MemoryRow) -> None:
        """Unlist a row."""
        for keys in (self._keys, self._shown):
            if keys is None:
                continue
            at = bisect.bisect_left(keys, key)
            if at < len(keys) and keys[at] == key:
                del keys[at]
        self._count(row, -1)

    def _count(self, row: MemoryRow, delta: int) -> None:
        """Keep the summary counts in step with the listed rows."""
        if row.kind is RowKind.REJECTED:
            self.rejected += delta
        elif row.scope == "local":
            self.local += delta
        else:
            self.global_ += delta


class Shown(Sequence[MemoryRow]):
    """What the list shows: the table's filtered rows, then extra rows (recalled, gone since)."""

    def __init__(self, table: MemoryTable, extra: Sequence[MemoryRow] = ()) -> None:
        self.table = table
        self.extra = list(extra)

    def __len__(self) -> int:
        return len(self.table.shown) + len(self.extra)

    @overload
    def __getitem__(self, index: int) -> MemoryRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[MemoryRow]: ...
    def __getitem__(self, index: int | slice) -> MemoryRow | list[MemoryRow]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        shown = self.table.shown
        if index < 0:
            index += len(self)
        if 0 <= index < len(shown):
            return self.table.row(shown[index])
        return self.extra[index - len(shown)]

    def __iter__(self) -> Iterator[MemoryRow]:
        row = self.table.row
        for key in self.table.shown:
            yield row(key)
        yield from self.extra

    def index_of(self, row: MemoryRow) -> int | None:
        """Where ``row`` (or the row now under its key) is listed, or None."""
        at = self.table.index_of(row)
        if at is not None:
            return at
        for offset, extra in enumerate(self.extra):
            if extra.key == row.key:
                return len(self.table.shown) + offset
        return None

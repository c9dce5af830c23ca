"""TraceReader: opens a run directory (ours or upstream QitOS's) and reads its events lazily.

Opening indexes the byte offsets of the complete lines of ``events.jsonl`` and parses none but
the rare line that is not even ``{...}`` with spaces around it (to notice why it is damaged); an
event is parsed when asked for, with a small cache, so a 100 MB trace opens in milliseconds.
Damage is reported, never fatal: a truncated last line is skipped with a notice, a malformed line
becomes a raw ``<malformed>`` event with its reason (see :mod:`qitos.trace.parse`), an unknown
phase is kept as it is, and a trace file that is a symbolic link is refused with a notice.
"""

from __future__ import annotations

import os
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

import orjson

from qitos.trace import lock
from qitos.trace.errors import TraceError
from qitos.trace.events import MALFORMED_PHASE, RunEvent
from qitos.trace.fields import as_int, as_text
from qitos.trace.layout import EVENTS_FILE, MANIFEST_FILE, STEPS_FILE, effective_status, is_run_dir
from qitos.trace.parse import (
    FAST_DROP,
    FAST_MAP,
    LONG_DIGITS,
    MAX_DEPTH,
    TEXT_PREFIX,
    event_from_line,
    guess_step,
    load_manifest,
    malformed_notice,
    open_trace_file,
    parse_object,
    read_trace_file,
    trace_file_problem,
)
from qitos.trace.runs import RunSummary, SkippedFolder, list_runs, scan_runs

__all__ = [
    "MALFORMED_PHASE",
    "RunSummary",
    "SkippedFolder",
    "TraceError",
    "TraceReader",
    "TraceSpan",
    "is_run_dir",
    "list_runs",
    "scan_runs",
]

_OPEN, _CLOSE, _CR = ord("{"), ord("}"), ord("\r")
_BOM = b"\xef\xbb\xbf"
_PADDING = b" \t\r"  # what JSON allows around a value, within one line
# The fast path's checks (see qitos.trace.parse: FAST_MAP, FAST_DROP, LONG_DIGITS) run on a whole
# block: with its letters dropped, a few C calls a block; a block that needs it, line by line on the
# block mapped without dropping letters.
# Indexing reads the file in chunks and finds newlines in each: as fast as an mmap scan here,
# but the process never holds more than a chunk of the file (an mmap scan maps all 100 MB into RSS).
_CHUNK = 4 << 20
_TAIL_PEEK = 4096
_BLOCK = 1 << 20  # bytes of consecutive lines a sequential read takes at once
# A search lowers and scans each block: one that fits the CPU's cache goes a fifth faster.
_SCAN_BLOCK = 256 << 10


@dataclass(frozen=True, slots=True)
class TraceSpan:
    """Consecutive lines of a trace as its reader indexed them (:meth:`TraceReader.span_of`): what
    ``TraceReader(run_dir, span=...)`` reads as a trace of its own, without indexing them again."""

    first_line: int  # the 1-based line of ``events.jsonl`` the first of them is
    starts: array[int]  # each line's first byte in the file
    ends: array[int]  # each line's newline
    blank_lines: tuple[int, ...]  # the blank lines between them (skipped, but counted)
    odd_lines: tuple[int, ...]  # those of them noticed as damaged when indexed


class TraceReader:
    """Reads one run directory: manifest, lazily parsed events, step records, follow-mode refresh."""

    cache_size = 512

    def __init__(self, run_dir: str | Path, *, span: TraceSpan | None = None) -> None:
        """Open ``run_dir`` and index its events; with ``span`` (:meth:`span_of`), only the lines
        there, as events 0, 1, ..., indexed as the span says (to fold a part of a trace apart
        from the rest)."""
        self.run_dir: Path = Path(run_dir)
        if not self.run_dir.exists():
            raise TraceError(f"{self.run_dir}: no such directory")
        if not self.run_dir.is_dir():
            raise TraceError(f"{self.run_dir}: not a directory")
        if not is_run_dir(self.run_dir):
            raise TraceError(
                f"{self.run_dir} is not a run directory: it has no {MANIFEST_FILE}, {EVENTS_FILE} or {STEPS_FILE}"
            )
        self.notices: list[str] = []
        self._notice_texts: set[str] = set()  # the notices, to look one up in a trace of many
        # The TUI reads events on its thread while a follow worker refreshes: one lock for both.
        self._lock = threading.RLock()
        self.manifest: dict[str, Any] = {}
        self._manifest_stamp: tuple[int, int] | None = None
        self._load_manifest()
        run_id = self.manifest.get("run_id")
        self.run_id: str = run_id if isinstance(run_id, str) and run_id else self.run_dir.name
        self._events_path = self.run_dir / EVENTS_FILE
        self._fd: int | None = None
        self._inode: int | None = None
        self._starts = array("q")
        self._ends = array("q")
        self._blank_lines: list[int] = []  # physical line numbers of skipped blank lines
        self._odd_lines: list[int] = []  # lines noticed as damaged when indexed, in order
        self._indexed_end = 0  # byte offset just past the last complete line seen
        self._line_base = 0  # lines of the file before the first one indexed (a span's)
        self._span_end: int | None = None  # where a span's indexing stops (else at the file's end)
        self._cache: OrderedDict[int, RunEvent] = OrderedDict()
        self._noticed_lines: set[int] = set()
        if span is not None:
            self._take_span(span)
        self._tail_notice: str | None = None
        self._steps_cache: tuple[tuple[int, int], list[dict[str, Any]]] | None = None
        if self._events_usable():
            self._open_events()
            if span is None:
                self._index_all()
        elif trace_file_problem(self._events_path) is None:  # a refused link was noticed already
            self._notice(f"{EVENTS_FILE} is missing: the run recorded no events")

    # -- run state -------------------------------------------------------------------------

    @property
    def writer_alive(self) -> bool:
        """Whether a TraceWriter holds this run's lock right now."""
        return lock.writer_alive(self.run_dir)

    @property
    def status(self) -> str:
        """The manifest's status; "interrupted" when it says running but no writer is alive."""
        return effective_status(self.manifest, self.run_dir)

    # -- events ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._starts)

    def event(self, index: int) -> RunEvent:
        """The event at ``index`` (negative counts from the end), parsed on first use and cached."""
        count = len(self._starts)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError(f"event index {index} out of range (trace has {count} events)")
        with self._lock:
            cached = self._cache.get(index)
            if cached is not None:
                self._cache.move_to_end(index)
                return cached
            event = self._parse(self._read_line(index), index)
            self._cache[index] = event
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            return event

    def events(self, start: int = 0, stop: int | None = None) -> Iterator[RunEvent]:
        """Events ``start`` up to ``stop`` (exclusive), parsed as the iterator advances."""
        count = len(self._starts)
        stop = count if stop is None else max(0, min(stop, count))
        index = max(0, start)
        while index < stop:
            # Sequential reads bypass the cache (a full scan must not evict what the UI shows) and
            # read a block of lines at once: a system call per line costs as much as parsing it.
            end, block, first = self._read_block(index, stop)
            starts, ends, cache = self._starts, self._ends, self._cache
            for at in range(index, end):
                cached = cache.get(at)
                if cached is not None:
                    yield cached
                else:
                    yield self._parse(block[starts[at] - first : ends[at] - first], at)
            index = end

    def records(
        self, start: int = 0, stop: int | None = None, block_size: int = _SCAN_BLOCK
    ) -> Iterator[tuple[int, LineRecords]]:
        """The events ``start`` up to ``stop`` as records, a block at a time: (index of the first,
        the block's lines as :class:`LineRecords`, parsed as they are iterated). A record reads
        as ``RunEvent.from_dict`` of it would (the run id aside, which :meth:`event` fills in from
        the run's where a line has none); a line the fast path may not read as ``json`` would is
        parsed the total way and given as its event's ``to_dict()`` (so a damaged line is a
        ``<malformed>`` record, and noticed, as in :meth:`events`). For a full fold: no RunEvent
        and no cache look-up per line; a block of ``block_size`` bytes takes under a millisecond
        to parse, so the caller can look up between two."""
        count = len(self._starts)
        stop = count if stop is None else max(0, min(stop, count))
        index = max(0, start)
        while index < stop:
            end, block, first = self._read_block(index, stop, block_size)
            yield index, LineRecords(self, index, end, block, first)
            index = end

    def lines_containing(
        self,
        patterns: Iterable[bytes],
        start: int = 0,
        stop: int | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> Iterator[int]:
        """Indices of the events from ``start`` to ``stop`` whose line, with ASCII letters in lower
        case, holds one of ``patterns`` (lower-case bytes): a search's candidates, found in the raw
        bytes a block at a time without parsing a line (the caller parses the few it finds)."""
        wanted = [p for p in patterns if p]
        count = len(self._starts)
        stop = count if stop is None else max(0, min(stop, count))
        index = max(0, start)
        while index < stop and wanted and not cancelled():
            end, block, first = self._read_block(index, stop, _SCAN_BLOCK)
            lowered = block.lower()
            starts, ends = self._starts, self._ends
            # The next hit of each pattern at or after `pos`, found again only once passed.
            nexts = [lowered.find(p) for p in wanted]
            pos = 0
            while True:
                for k, at in enumerate(nexts):
                    if 0 <= at < pos:
                        nexts[k] = lowered.find(wanted[k], pos)
                found = [at for at in nexts if at >= 0]
                if not found:
                    break
                offset = first + min(found)
                line = bisect_right(starts, offset, index, end) - 1
                if offset < ends[line]:  # not the newline after a line
                    yield line
                pos = ends[line] - first + 1  # one hit per line: go on with the next line
            index = end

    def span_of(self, start: int, stop: int) -> TraceSpan:
        """Events ``start`` up to ``stop`` (exclusive, at least one) as indexed here: what
        ``TraceReader(run_dir, span=...)`` reads as a trace of its own."""
        first, last = self.line_number(start), self.line_number(stop - 1)
        return TraceSpan(
            first_line=first,
            starts=self._starts[start:stop],
            ends=self._ends[start:stop],
            blank_lines=tuple(_lines_within(self._blank_lines, first, last)),
            odd_lines=tuple(_lines_within(self._odd_lines, first, last)),
        )

    def add_notices(self, notices: Iterable[str], lines: Iterable[int]) -> None:
        """What a reader of a span of this trace noticed, and the lines it noticed, as if noticed here."""
        for notice in notices:
            self._notice(notice)
        self._noticed_lines.update(lines)

    def noticed_lines(self) -> frozenset[int]:
        """The lines of ``events.jsonl`` noticed as damaged so far (each is noticed once)."""
        return frozenset(self._noticed_lines)

    def line_number(self, index: int) -> int:
        """The 1-based line of ``events.jsonl`` that holds event ``index``."""
        line = index + 1 + self._line_base
        # Each blank line before this event shifts it down by one.
        for blank in self._blank_lines:
            if blank <= line:
                line += 1
            else:
                break
        return line

    def refresh(self) -> int:
        """Index complete lines appended since the last look; returns how many (follow mode)."""
        with self._lock:
            return self._refresh()

    def _refresh(self) -> int:
        self._reload_manifest_if_changed()
        if self._fd is None:
            if not self._events_usable():
                return 0
            self._open_events()
        try:
            on_disk = os.lstat(self._events_path)
        except FileNotFoundError:
            return 0
        if trace_file_problem(self._events_path) is not None:
            return 0  # replaced by a link since it was opened: what was indexed stays shown
        assert self._fd is not None
        if on_disk.st_ino != self._inode or on_disk.st_size < self._indexed_end:
            # The file was replaced or cut short: what we indexed no longer exists; start over.
            self._notice(f"{EVENTS_FILE} was replaced or truncated on disk; re-indexed from the start")
            before = 0
            self._close_fd()
            self._reset_index()
            self._open_events()
            self._index_all()
            return len(self._starts) - before
        before = len(self._starts)
        if os.fstat(self._fd).st_size > self._indexed_end:
            self._index_all()
        return len(self._starts) - before

    # -- steps -----------------------------------------------------------------------------

    def steps(self) -> list[dict[str, Any]]:
        """The ``steps.jsonl`` records, step_id coerced to int; damaged lines kept raw with a notice."""
        path = self.run_dir / STEPS_FILE
        problem = trace_file_problem(path)
        if problem is not None:
            self._notice(problem)
            return []
        try:
            st = path.stat()
        except FileNotFoundError:
            return []
        stamp = (st.st_mtime_ns, st.st_size)
        if self._steps_cache is not None and self._steps_cache[0] == stamp:
            return [dict(r) for r in self._steps_cache[1]]
        try:
            data = read_trace_file(path)
        except OSError as exc:
            self._notice(f"{STEPS_FILE} is unreadable ({exc.strerror or exc})")
            return []
        lines = data.split(b"\n")
        tail = lines.pop()  # after the last newline: empty, or a line still being written
        if tail.strip():
            self._notice(f"{STEPS_FILE}: incomplete last line ({len(tail)} bytes) skipped")
        records: list[dict[str, Any]] = []
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            record, reason = parse_object(raw)
            if record is None:
                self._notice(f"{STEPS_FILE} line {number}: {reason}; kept raw")
                text = raw.decode("utf-8", errors="replace")[:TEXT_PREFIX]
                records.append(
                    {
                        "step_id": guess_step(raw),
                        "malformed": True,
                        "line": number,
                        "text": text,
                        "reason": reason,
                    }
                )
                continue
            step_id = as_int(record.get("step_id", 0))
            if step_id is None:
                shown = as_text(record.get("step_id"))[:40]
                self._notice(f"{STEPS_FILE} line {number}: step_id {shown} is not a usable number; read as 0")
                step_id = 0
            record["step_id"] = step_id
            records.append(record)
        self._steps_cache = (stamp, records)
        return [dict(r) for r in records]

    # -- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Close the events file (the reader can no longer read events afterwards)."""
        self._close_fd()

    def __enter__(self) -> TraceReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self._close_fd()

    # -- internals -------------------------------------------------------------------------

    def _notice(self, message: str) -> None:
        # A set, not the list: a trace of 100,000 damaged lines has as many notices, and looking
        # each up in the list took a minute to open it.
        if message not in self._notice_texts:
            self._notice_texts.add(message)
            self.notices.append(message)

    def _load_manifest(self) -> None:
        try:
            st = os.lstat(self.run_dir / MANIFEST_FILE)
        except OSError:
            self._manifest_stamp = None
        else:
            self._manifest_stamp = (st.st_mtime_ns, st.st_size)
        manifest, problem = load_manifest(self.run_dir, MANIFEST_FILE)
        if problem is not None:
            self._notice(f"{problem}: status and summary unknown")
            return
        self.manifest = manifest

    def _reload_manifest_if_changed(self) -> None:
        try:
            st = os.lstat(self.run_dir / MANIFEST_FILE)
        except FileNotFoundError:
            return
        if (st.st_mtime_ns, st.st_size) != self._manifest_stamp:
            self._load_manifest()

    def _events_usable(self) -> bool:
        """Whether events.jsonl is there to read: a regular file, not a link (noticed if refused)."""
        problem = trace_file_problem(self._events_path)
        if problem is not None:
            self._notice(problem)
            return False
        return self._events_path.is_file()

    def _open_events(self) -> None:
        try:
            self._fd = open_trace_file(self._events_path)
        except OSError as exc:
            raise TraceError(f"cannot open {self._events_path}: {exc}") from exc
        self._inode = os.fstat(self._fd).st_ino

    def _close_fd(self) -> None:
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            os.close(fd)

    def _take_span(self, span: TraceSpan) -> None:
        """Read only ``span``'s lines, indexed as it says: what indexing them would find."""
        self._starts, self._ends = array("q", span.starts), array("q", span.ends)
        self._blank_lines = list(span.blank_lines)
        self._odd_lines = list(span.odd_lines)
        self._noticed_lines.update(span.odd_lines)  # the reader that indexed them noticed them
        self._line_base = span.first_line - 1
        self._indexed_end = self._span_end = span.ends[-1] + 1 if span.ends else 0

    def _reset_index(self) -> None:
        self._starts = array("q")
        self._ends = array("q")
        self._blank_lines = []
        self._odd_lines = []
        self._indexed_end = 0
        self._cache.clear()
        self._noticed_lines.clear()

    def _index_all(self) -> None:
        """Index every complete line from where indexing stopped to the current end of the file."""
        assert self._fd is not None
        size = os.fstat(self._fd).st_size
        if self._span_end is not None:
            size = min(size, self._span_end)
        want = _CHUNK
        while self._indexed_end < size:
            offset = self._indexed_end
            data = os.pread(self._fd, min(want, size - offset), offset)
            last = data.rfind(b"\n")
            if last < 0:
                if len(data) < size - offset:
                    want *= 2  # one line longer than the chunk: read more of it
                    continue
                break  # only an incomplete last line is left
            self._scan(data, last + 1, offset)
            want = _CHUNK
        tail = os.pread(self._fd, min(_TAIL_PEEK, size - self._indexed_end), self._indexed_end)
        self._update_tail_notice(tail, size - self._indexed_end)

    def _scan(self, buf: bytes, end: int, base: int) -> None:
        """Index the complete lines of ``buf[:end]`` (file bytes starting at offset ``base``)."""
        add_start, add_end, find = self._starts.append, self._ends.append, buf.find
        pos = 0
        while True:
            nl = find(b"\n", pos, end)
            if nl < 0:
                break
            # The common case, a line "{...}", costs two byte compares; the rest goes the slow way.
            if nl > pos and buf[pos] == _OPEN and buf[nl - 1] == _CLOSE:
                add_start(base + pos)
                add_end(base + nl)
            else:
                self._index_odd_line(buf, pos, nl, base)
            pos = nl + 1
        self._indexed_end = base + pos

    def _index_odd_line(self, buf: bytes, pos: int, nl: int, base: int) -> None:
        """A blank line (skipped, but counted); a CRLF line, or ``{...}`` with spaces or a byte order
        mark around it (read when parsed, as any ``{...}`` line); or a damaged one, parsed now and
        noticed in the words its fold uses (one notice a line on screen)."""
        line = len(self._starts) + len(self._blank_lines) + 1 + self._line_base
        if nl == pos:
            self._blank_lines.append(line)
            return
        last = nl - 1
        if buf[last] == _CR and last > pos:
            last -= 1
        if (buf[pos] != _OPEN or buf[last] != _CLOSE) and not _padded_object(buf[pos:nl]):
            # Not even an object with spaces or a byte order mark around it: damaged, so parsed now
            # for why (such lines are rare), and noticed in the words its fold will use.
            event, reason = event_from_line(buf[pos:nl], line, self.run_id)
            if reason is not None:
                self._notice(malformed_notice(event))
                self._noticed_lines.add(line)
                self._odd_lines.append(line)
        self._starts.append(base + pos)
        self._ends.append(base + nl)

    def _update_tail_notice(self, tail: bytes, length: int) -> None:
        if self._tail_notice is not None and self._tail_notice in self._notice_texts:
            self._notice_texts.discard(self._tail_notice)
            self.notices.remove(self._tail_notice)
        self._tail_notice = None
        if tail.strip():
            self._tail_notice = (
                f"{EVENTS_FILE}: incomplete last line ({length} bytes) skipped"
                " — the run was cut off mid-write or is still writing it"
            )
            self._notice(self._tail_notice)

    def _read_block(self, index: int, stop: int, size: int = _BLOCK) -> tuple[int, bytes, int]:
        """Lines ``index`` up to at most ``stop`` read at once (about _BLOCK bytes, at least one
        line): the line after the last one read, the bytes, and the file offset they start at."""
        if self._fd is None:
            raise TraceError(f"trace reader for {self.run_dir} is closed")
        starts, ends = self._starts, self._ends
        first = starts[index]
        # Lines end in increasing order: the last that ends within `size` bytes is found by bisection.
        end = max(index + 1, bisect_right(ends, first + size, index, stop))
        return end, os.pread(self._fd, ends[end - 1] - first, first), first

    def _read_line(self, index: int) -> bytes:
        if self._fd is None:
            raise TraceError(f"trace reader for {self.run_dir} is closed")
        start = self._starts[index]
        return os.pread(self._fd, self._ends[index] - start, start)

    def _parse(self, raw: bytes, index: int) -> RunEvent:
        data, _ = parse_object(raw)
        if data is not None:  # the usual line: its number is needed only to say what is wrong
            event = RunEvent.from_dict(data)
            if not event.run_id:
                event.run_id = self.run_id
            return event
        line = self.line_number(index)
        event, reason = event_from_line(raw, line, self.run_id)
        if reason is not None and line not in self._noticed_lines:
            self._noticed_lines.add(line)
            self._notice(malformed_notice(event))
        return event


def _padded_object(raw: bytes) -> bool:
    """Whether ``raw`` is ``{...}`` but for JSON's spaces around it and a byte order mark before it:
    read when parsed, as any ``{...}`` line is (one that is damaged is noticed then)."""
    inner = (raw[len(_BOM) :] if raw.startswith(_BOM) else raw).strip(_PADDING)
    return inner[:1] == b"{" and inner[-1:] == b"}"


def _lines_within(lines: list[int], first: int, last: int) -> list[int]:
    """The lines of the sorted ``lines`` from ``first`` to ``last``."""
    return lines[bisect_left(lines, first) : bisect_right(lines, last)]


class LineRecords:
    """A block of consecutive trace lines as read, parsed into records one line at a time as it
    is iterated (see :meth:`TraceReader.records`): the thread that folds the records parses them,
    each just before it folds it, rather than taking over a block another thread parsed."""

    __slots__ = ("_block", "_ends", "_first", "_reader", "_start", "_starts")

    def __init__(self, reader: TraceReader, start: int, end: int, block: bytes, first: int) -> None:
        self._reader = reader
        self._start = start
        # The lines' offsets as indexed now: a follow that re-indexes a replaced file later does
        # not move the lines of a block already read.
        self._starts = reader._starts[start:end]
        self._ends = reader._ends[start:end]
        self._block = block  # the file's bytes of those lines, from offset `first`
        self._first = first

    def __len__(self) -> int:
        return len(self._starts)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        kept = self._block.translate(FAST_MAP, FAST_DROP)
        pieces = kept.split(b"\n")  # a line's brackets and digits, when no blank line is between
        if (
            len(pieces) == len(self._starts)
            and LONG_DIGITS not in kept
            and max(map(bytes.count, pieces, repeat(b"{"))) <= MAX_DEPTH
        ):
            return self._orjson_first()
        return self._line_by_line()

    def _orjson_first(self) -> Iterator[dict[str, Any]]:
        """The records of a block no line of which needs the total way for its digits or depth:
        orjson's, or the total parse's where orjson refuses a line or reads no object from it."""
        reader, at, loads = self._reader, self._start, orjson.loads
        # No blank line is between: the block's lines are its indexed lines, in order.
        for raw in self._block.split(b"\n"):
            try:
                record = loads(raw)
            except orjson.JSONDecodeError:
                record = None
            yield record if type(record) is dict else reader._parse(raw, at).to_dict()
            at += 1

    def _line_by_line(self) -> Iterator[dict[str, Any]]:
        """The records of a block with a blank line, a long run of digits or a deep line: each
        line checked on its own, and read the total way where it needs to be."""
        reader, block, first, at = self._reader, self._block, self._first, self._start
        loads = orjson.loads
        # One pass over the block finds every run of 19 digits (an integer orjson may round);
        # the lines that hold one, and those with more brackets than MAX_DEPTH, go the total way.
        zeros = block.translate(FAST_MAP)
        long_at = zeros.find(LONG_DIGITS)
        openers = zeros.count
        for start, end in zip(self._starts, self._ends, strict=True):
            s, e = start - first, end - first
            record = None
            # long_at never falls between lines (a newline is no digit): once passed, it is
            # looked up again from the end of the line that held it.
            if 0 <= long_at < e:
                long_at = zeros.find(LONG_DIGITS, e)
            elif openers(b"{", s, e) <= MAX_DEPTH:  # nesting cannot be deeper than this
                try:
                    record = loads(block[s:e])
                except orjson.JSONDecodeError:
                    record = None
                if type(record) is not dict:
                    record = None
            if record is None:
                record = reader._parse(block[s:e], at).to_dict()
            yield record
            at += 1

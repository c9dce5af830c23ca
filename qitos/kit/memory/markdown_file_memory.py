"""MarkdownFileMemory: an append-only markdown log on disk, recall from this instance's records only.

The log is for people to read (and for audits); recall is instance-scoped: records appended by this
object, at most ``max_in_memory`` of them. An existing log is never parsed back into recall, so a
new instance starts empty even when the file is long.
"""

from __future__ import annotations

import errno
import os
import threading
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from qitos.core.memory import Memory, MemoryRecord, MemoryResourceError
from qitos.kit.memory.events import emit_append, emit_recall
from qitos.kit.memory.memdir_format import ROLE_RE, content_text, validate_record_id
from qitos.kit.memory.query import filter_records, validate_query

__all__ = ["MarkdownFileMemory"]


class MarkdownFileMemory(Memory):
    """Persist memory records in a local markdown log file."""

    #: Recall events come from this memory itself (the adapter need not emit them).
    emits_recall_events = True

    def __init__(self, path: str = "memory.md", max_in_memory: int = 200) -> None:
        if isinstance(max_in_memory, bool) or not isinstance(max_in_memory, int) or max_in_memory < 1:
            raise ValueError("max_in_memory must be a positive int")
        self.path = Path(path).expanduser()
        self.max_in_memory = max_in_memory
        #: The label memory events carry.
        self.namespace: str = self.path.stem
        self.clock: Callable[[], str] = lambda: datetime.now(UTC).isoformat()
        self._records: deque[MemoryRecord] = deque(maxlen=max_in_memory)
        self._lock = threading.Lock()

    def append(self, record: MemoryRecord) -> None:
        """Append one section to the log and keep the record for this instance's recall."""
        if not isinstance(record, MemoryRecord):
            raise TypeError(f"append expects a MemoryRecord, got {type(record).__name__}")
        validate_record_id(record.record_id)
        if not isinstance(record.role, str) or not ROLE_RE.fullmatch(record.role):
            raise ValueError("malformed role: use 1-64 characters from [A-Za-z0-9_.:-]")
        if isinstance(record.step_id, bool) or not isinstance(record.step_id, int):
            raise ValueError(f"step_id must be an int, got {type(record.step_id).__name__}")
        text = content_text(record.content)
        section = (
            f"## {record.role} · step {record.step_id} · `{record.record_id}`\n"
            f"<!-- created: {self.clock()} -->\n\n{text}\n\n"
        ).encode("utf-8", errors="strict")
        with self._lock:
            self._write(section)
            self._records.append(record)
        emit_append(record, namespace=self.namespace, chars=len(text))

    def retrieve(
        self,
        query: dict[str, Any] | None = None,
        state: Any = None,
        observation: Any = None,
    ) -> list[MemoryRecord]:
        """Records appended through this instance that match ``query``, oldest first."""
        normalised = validate_query(query)
        with self._lock:
            records = filter_records(list(self._records), normalised)
        emit_recall(records, namespace=self.namespace, query=query)
        return records

    def summarize(self, max_items: int = 5) -> str:
        """The newest ``max_items`` records of this instance as markdown bullets."""
        if isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 0:
            raise ValueError("max_items must be a non-negative int")
        with self._lock:
            shown = list(self._records)[-max_items:] if max_items else []
        return "\n".join(f"- [{r.role} @ step {r.step_id}] {content_text(r.content)}" for r in shown)

    def evict(self) -> int:
        """Drop this instance's in-memory records (the log file stays); return how many."""
        with self._lock:
            count = len(self._records)
            self._records.clear()
            return count

    def reset(self, run_id: str | None = None) -> None:
        """Forget this instance's records before a new run; the log file stays."""
        with self._lock:
            self._records.clear()

    def _write(self, data: bytes) -> None:
        """One O_APPEND write per section, so sections never interleave or tear mid-line."""
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
        except FileNotFoundError as exc:
            raise MemoryResourceError(
                f"markdown memory directory does not exist: {self.path.parent}"
            ) from exc
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise MemoryResourceError(f"markdown memory path is a symlink: {self.path}") from exc
            raise MemoryResourceError(f"cannot open markdown memory {self.path}: {exc.strerror}") from exc
        written = 0
        try:
            view = memoryview(data)
            while view:  # a full disk or a file-size limit can cut a write short
                done = os.write(fd, view)
                written += done
                view = view[done:]
        except OSError as exc:
            if written:
                _take_back(fd, written)
            # Like an unopenable log, a log that cannot take the section is an unavailable resource.
            raise MemoryResourceError(f"cannot write markdown memory {self.path}: {exc.strerror}") from exc
        finally:
            os.close(fd)


def _take_back(fd: int, written: int) -> None:
    """Remove the first part of a section whose write failed, so the log holds no torn section.

    Only while those bytes are still the file's last (another writer appending since then owns
    what follows; its section is never cut): then the log is as it was before the append."""
    try:
        end = os.lseek(fd, 0, os.SEEK_CUR)  # O_APPEND: just past the bytes this append wrote
        if os.fstat(fd).st_size == end:
            os.ftruncate(fd, end - written)
    except OSError:
        pass  # the append's own error is the one reported; a torn tail is what is left

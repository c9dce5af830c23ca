"""TraceWriter: writes runs/<run_id>/{manifest.json, events.jsonl, steps.jsonl} as upstream QitOS does."""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from qitos.trace import lock
from qitos.trace.errors import TraceError
from qitos.trace.events import (
    STATUS_COMPLETED,
    STATUS_FAILED,
    STATUS_RUNNING,
    STATUS_STOPPED,
    RunEvent,
    utc_now,
)
from qitos.trace.layout import EVENTS_FILE, MANIFEST_FILE, SCHEMA_VERSION, STEPS_FILE, count_lines
from qitos.trace.redact import Redactor

# "paused" is not final: a paused run keeps its writer (and lock) and goes on in the same files; a
# follower reading "paused" as an end would stop at the pause (see update_manifest for a pause).
FINAL_STATUSES = frozenset({STATUS_COMPLETED, STATUS_FAILED, STATUS_STOPPED})

# A run id names a directory: keep it to one plain path component (matched in full: `$` alone
# would let a trailing newline through, and "." or ".." cannot start with a letter or digit).
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]{0,199}")


def new_run_id(prefix: str | None = None, now: datetime | None = None) -> str:
    """A fresh run id like upstream's: ``{prefix or 'qitos'}_YYYYmmdd_HHMMSS_ffffff`` (UTC)."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d_%H%M%S_%f")
    return f"{prefix or 'qitos'}_{stamp}"


def validate_run_id(run_id: str) -> str:
    """``run_id`` if it is a safe directory name; ValueError naming the problem otherwise."""
    if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id):
        raise ValueError(
            f"invalid run id {run_id!r}: use 1-200 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (no path separators)"
        )
    return run_id


class TraceWriter:
    """Writes one run's trace: events and steps appended line by line, the manifest replaced atomically."""

    def __init__(
        self,
        output_dir: str | Path = "./runs",
        run_id: str | None = None,
        prefix: str | None = None,
        *,
        clock: Callable[[], str] | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        if prefix is not None and not _RUN_ID.fullmatch(prefix):
            raise ValueError(f"invalid run id prefix {prefix!r}: letters, digits, '.', '_' or '-' only")
        self.run_id: str = validate_run_id(run_id) if run_id is not None else new_run_id(prefix)
        self.clock: Callable[[], str] = clock or utc_now
        self.redactor: Redactor = redactor if redactor is not None else Redactor()
        self.run_dir: Path = Path(output_dir) / self.run_id
        try:
            self.run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise TraceError(f"cannot create run directory {self.run_dir}: {exc}") from exc
        self._mutex = threading.RLock()
        self._lock_fd: int | None = None
        self._events: IO[str] | None = None
        self._steps: IO[str] | None = None
        self._closed = False
        # Reopening an existing run (a resumed run in a new process) appends to it, keeping counts.
        self.event_count = count_lines(self.run_dir / EVENTS_FILE)
        self.step_count = count_lines(self.run_dir / STEPS_FILE)
        self._manifest: dict[str, Any] = self._load_existing_manifest()
        self._open()
        self._manifest.update(run_id=self.run_id, schema_version=SCHEMA_VERSION, status=STATUS_RUNNING)
        if not isinstance(self._manifest.get("summary"), dict):
            self._manifest["summary"] = {}  # absent, or not an object in a foreign manifest
        self._write_manifest()

    # -- public interface ------------------------------------------------------------------

    @property
    def manifest(self) -> dict[str, Any]:
        """A copy of the manifest as last written."""
        with self._mutex:
            manifest: dict[str, Any] = json.loads(json.dumps(self._manifest, default=str))
            return manifest

    def write_event(self, event: RunEvent) -> None:
        """Append one event as one redacted ``events.jsonl`` line and flush it."""
        if not isinstance(event, RunEvent):
            raise TypeError(f"write_event takes a RunEvent, not {type(event).__name__}")
        self._append_event(self.redactor.to_json_line(event.to_dict()))

    def write_masked(self, event: RunEvent, line: str) -> None:
        """Append an event already masked by this writer's redactor, as its line from
        :meth:`Redactor.mask_event` (the Engine's path: the event is masked once, not twice)."""
        if not isinstance(event, RunEvent):
            raise TypeError(f"write_masked takes a RunEvent, not {type(event).__name__}")
        if not isinstance(line, str) or "\n" in line:
            raise ValueError("write_masked takes the event's one-line JSON text")
        self._append_event(line)

    def _append_event(self, line: str) -> None:
        with self._mutex:
            self._reopen_if_finalized()
            assert self._events is not None
            self._events.write(line + "\n")
            self._events.flush()
            self.event_count += 1

    def write_step(self, record: dict[str, Any]) -> None:
        """Append one step record as one redacted ``steps.jsonl`` line and flush it."""
        if not isinstance(record, dict):
            raise TypeError(f"write_step takes a dict, not {type(record).__name__}")
        if "step_id" not in record:
            raise ValueError("a step record needs a 'step_id'")
        line = self.redactor.to_json_line(record) + "\n"
        with self._mutex:
            self._reopen_if_finalized()
            assert self._steps is not None
            self._steps.write(line)
            self._steps.flush()
            self.step_count += 1

    def update_manifest(self, **fields: Any) -> None:
        """Merge ``fields`` into the manifest (``summary`` merged key by key) and rewrite it atomically."""
        with self._mutex:
            if self._closed:
                raise TraceError(f"trace writer for run {self.run_id} is closed")
            summary = fields.pop("summary", None)
            if summary is not None:
                if not isinstance(summary, dict):
                    raise TypeError("manifest summary must be a dict")
                self._manifest["summary"].update(summary)
            self._manifest.update(fields)
            self._write_manifest()

    def finalize(self, *, status: str, summary: dict[str, Any]) -> None:
        """Write the final manifest with ``status`` and ``summary`` and release the writer lock.

        A finalized run may be continued by writing again: the writer then retakes the lock and
        marks the run running until the next finalize. A pause is not final: record it with
        ``update_manifest(status="paused")``, which keeps the lock.
        """
        if status not in FINAL_STATUSES:
            raise ValueError(f"final status must be one of {sorted(FINAL_STATUSES)}, not {status!r}")
        if not isinstance(summary, dict):
            raise TypeError("finalize summary must be a dict")
        with self._mutex:
            if self._closed:
                raise TraceError(f"trace writer for run {self.run_id} is closed")
            merged = dict(self._manifest["summary"])
            merged.update(summary)
            merged.setdefault("steps", self.step_count)
            self._manifest["summary"] = merged
            self._manifest["status"] = status
            if "token_usage" in merged:
                self._manifest["token_usage"] = merged["token_usage"]
            if "model_id" in merged and "model_id" not in self._manifest:
                self._manifest["model_id"] = merged["model_id"]
            self._write_manifest()
            self._release()

    def close(self) -> None:
        """Close the files and release the lock; the manifest keeps its last status (idempotent)."""
        with self._mutex:
            if self._closed:
                return
            self._release()
            self._closed = True

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------

    def _load_existing_manifest(self) -> dict[str, Any]:
        path = self.run_dir / MANIFEST_FILE
        if not path.exists():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise TraceError(f"cannot continue run {self.run_id}: unreadable {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise TraceError(f"cannot continue run {self.run_id}: {path} is not a JSON object")
        return data

    def _open(self) -> None:
        fd = lock.acquire(self.run_dir)
        if fd is None:
            raise TraceError(f"run {self.run_id} in {self.run_dir} is being written by another writer")
        self._lock_fd = fd
        try:
            # errors="backslashreplace" turns a lone surrogate into a JSON \\uXXXX escape instead of
            # failing the write (upstream traces carry such strings).
            opts: dict[str, Any] = {"encoding": "utf-8", "errors": "backslashreplace"}
            self._events = (self.run_dir / EVENTS_FILE).open("a", **opts)
            self._steps = (self.run_dir / STEPS_FILE).open("a", **opts)
        except OSError as exc:
            self._release()
            raise TraceError(f"cannot open trace files in {self.run_dir}: {exc}") from exc

    def _release(self) -> None:
        for fh in (self._events, self._steps):
            if fh is not None:
                fh.close()
        self._events = self._steps = None
        if self._lock_fd is not None:
            lock.release(self._lock_fd, self.run_dir)  # no writer.lock is left once the run ends
            self._lock_fd = None

    def _reopen_if_finalized(self) -> None:
        if self._closed:
            raise TraceError(f"trace writer for run {self.run_id} is closed")
        if self._events is None:
            self._open()
            self._manifest["status"] = STATUS_RUNNING
            self._write_manifest()

    def _write_manifest(self) -> None:
        self._manifest["updated_at"] = self.clock()
        self._manifest["event_count"] = self.event_count
        self._manifest["step_count"] = self.step_count
        data = self.redactor.redact(self._manifest)
        path = self.run_dir / MANIFEST_FILE
        tmp = self.run_dir / f".{MANIFEST_FILE}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            with tmp.open("w", encoding="utf-8", errors="backslashreplace") as fh:
                json.dump(data, fh, ensure_ascii=False, indent=2, default=str)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
            _fsync_dir(self.run_dir)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise TraceError(f"cannot write {path}: {exc}") from exc


def _fsync_dir(path: Path) -> None:
    """Make the rename itself durable (best effort: some filesystems refuse to fsync a directory)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

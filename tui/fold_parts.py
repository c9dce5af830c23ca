"""A big trace folded in parts at once, one worker process per core, joined in order by the app.

Parsing and folding a line takes a few microseconds of Python, and a gigabyte trace has a million
lines: one core takes seconds over it whatever the fold does. So the events after the first frame
are cut into parts at step boundaries; worker processes (running :func:`main`, which never imports
Textual) each fold their parts, at the offsets the app's reader indexed (TraceReader.span_of), with
the app's own reader and RunStore, begun afresh, and hand each fold back (tui.part_wire). The app
joins them in order with :meth:`RunStore.absorb`, which refuses a part whose fold could have gone
otherwise after the events before it; the app then folds that part's events itself, as it would
have anyway, so the result is the same as one fold from the start, on any trace. A worker that
fails costs its parts the same way, never the events.

What comes back comes from our own worker process, never from the trace: what a trace holds is
only ever data inside it.
"""

from __future__ import annotations

import gc
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from qitos.trace.events import RunEvent
from tui import part_wire
from tui.feed import FoldedElsewhere
from tui.store import RunStore

if TYPE_CHECKING:
    from qitos.trace.reader import TraceReader, TraceSpan

PART_EVENTS = 10_000  # read back in ~2 ms (holding the GIL: a key waits) and joined in under 1 ms
MAX_WORKERS = 8
BOUNDARY_LOOKAHEAD = 200  # lines looked at past a cut for where the next step begins
_FRAME = struct.Struct("<Q")
# The workers fill every core: at a lower priority, the app's UI still gets a core at once for a
# key (at the same priority a key's frame waited ~2x longer, the fold no faster).
WORKER_NICENESS = 10


class DetachedSource:
    """The event source of a part folded in a worker: it has no events of its own to give (the
    app reads them through its own reader once the part is joined)."""

    def __len__(self) -> int:
        return 0

    def event(self, index: int) -> RunEvent:
        """Nothing: raises IndexError."""
        raise IndexError(f"a part folded apart holds no events (asked for {index})")

    def events(self, start: int = 0, stop: int | None = None) -> Iterator[RunEvent]:
        """Nothing."""
        return iter(())


@dataclass(slots=True)
class FoldedPart:
    """One part's fold, ready to join: the events ``start`` up to ``stop``, what the part's
    reader noticed (damaged lines) and the lines it noticed."""

    start: int
    stop: int
    store: RunStore
    notices: list[str]
    noticed_lines: frozenset[int]


class PartJoin(FoldedElsewhere):
    """A folded part handed to the UI thread to join to its store (through the EventFeed, after
    the events before it), and the answer, for the thread that handed it over to wait on."""

    def __init__(self, part: FoldedPart) -> None:
        self.part: FoldedPart | None = part
        self.joined = False
        self._answered = threading.Event()

    def __len__(self) -> int:
        return self.part.stop - self.part.start if self.part is not None else 0

    def join(self, store: RunStore, reader: TraceReader) -> None:
        """Join the part to ``store`` (folded up to where the part begins), and its notices to
        ``reader``'s, if RunStore.absorb can; then answer (on the UI thread)."""
        part, self.part = self.part, None  # the part's objects are the store's now, or garbage
        assert part is not None
        self.joined = store.absorb(part.store, part.start)
        if self.joined:
            reader.add_notices(part.notices, part.noticed_lines)
        self._answered.set()

    def wait(self, timeout: float) -> bool:
        """Whether the UI thread answered within ``timeout`` seconds."""
        return self._answered.wait(timeout)


def fold_part(run_dir: Path, span: TraceSpan, start: int) -> FoldedPart:
    """Fold the events in ``span`` (TraceReader.span_of) of ``run_dir``'s trace, the first of them
    event ``start``, afresh, as the app would fold them itself (its reader, its RunStore)."""
    from qitos.trace.reader import TraceReader  # the app has it already; a worker, only here

    with TraceReader(run_dir, span=span) as reader:
        store = RunStore(DetachedSource())
        for index, records in reader.records():
            store.apply(records, start + index)
        # RunStore.absorb takes the part's own categories; the ones before it were never folded.
        store.categories = store.categories[start:]
        return FoldedPart(start, start + len(reader), store, reader.notices, reader.noticed_lines())


def plan_parts(reader: TraceReader, start: int, workers: int) -> list[tuple[int, int]]:
    """The events from ``start`` to the end cut into parts of about PART_EVENTS (at least one per
    worker), each cut moved to where a step begins when one does nearby: a part that starts in
    the middle of a step of the events before it cannot be joined (RunStore.absorb). The first
    part starts at the first step that begins at or after ``start``; the events before it are
    the app's to fold."""
    total = len(reader)
    count = max(workers, -(-(total - start) // PART_EVENTS))
    cuts = [_step_start(reader, start, total)]
    for k in range(1, count):
        cut = _step_start(reader, start + (total - start) * k // count, total)
        if cut > cuts[-1]:
            cuts.append(cut)
    cuts.append(total)
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _step_start(reader: TraceReader, cut: int, total: int) -> int:
    """The first event at or after ``cut`` whose step differs from the event before it (within
    BOUNDARY_LOOKAHEAD lines; else ``cut``)."""
    if cut <= 0 or cut >= total:
        return cut
    before = reader.event(cut - 1).step_id
    for at in range(cut, min(total, cut + BOUNDARY_LOOKAHEAD)):
        step = reader.event(at).step_id
        if step != before:
            return at
        before = step
    return cut


class PartFolder:
    """Worker processes that fold a trace's events from ``start`` in parts (plan_parts), read
    back in order."""

    def __init__(
        self, reader: TraceReader, start: int, workers: int, *, python: str = sys.executable
    ) -> None:
        self.start = start
        self.parts = parts = plan_parts(reader, start, workers)
        self._workers = workers  # part k is worker k % workers's, whether it started or not
        self._procs: list[subprocess.Popen[bytes]] = []
        self._queues: list[queue.Queue[bytes | None]] = []
        env = dict(os.environ)
        # The worker imports this package from where the app imports it, installed or not.
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        for w in range(workers):
            mine = parts[w::workers]  # worker w takes parts w, w + workers, ...
            if not mine:
                break
            try:
                proc = subprocess.Popen(
                    # Not ``-m``: the parts' classes must pickle under this module's name.
                    [python, "-c", "from tui.fold_parts import main; main()"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=env,
                )
            except OSError:
                break  # no worker can start here: the app folds the parts it would have had
            # Each part goes with its lines' offsets (made while the worker starts): indexing them
            # again took a worker a seventh of its time.
            jobs = [(reader.span_of(a, b), a) for a, b in mine]
            job = pickle.dumps((str(reader.run_dir), jobs), pickle.HIGHEST_PROTOCOL)
            inbox: queue.Queue[bytes | None] = queue.Queue()
            # A thread per worker hands it its job (megabytes of offsets, which the pipe takes as
            # the worker, just started, reads them) and takes its parts off the pipe as they come,
            # so that no worker waits on a full pipe while the app joins an earlier part. The job
            # goes in a list the thread empties: held by the thread's arguments, the bytes (8 MB a
            # worker on a 1 GB trace) would live as long as the fold.
            threading.Thread(target=_serve, args=(proc, [job], len(jobs), inbox), daemon=True).start()
            del job, jobs
            self._procs.append(proc)
            self._queues.append(inbox)

    def results(
        self, before_reading: Callable[[], None] = lambda: None
    ) -> Iterator[tuple[int, int, FoldedPart | None]]:
        """Every event from ``start`` on, in order, as (start, stop, the fold of those events), the
        fold None where the app is to fold them itself: before the first step that begins in
        them, and in the parts of a worker that failed. ``before_reading`` is called before each
        part is read back (which holds the GIL for milliseconds): the app lets keys go first."""
        if self.parts and self.parts[0][0] > self.start:
            yield self.start, self.parts[0][0], None
        failed: set[int] = set()
        for k, (start, stop) in enumerate(self.parts):
            w = k % self._workers
            data = None if w in failed or w >= len(self._queues) else self._queues[w].get()
            # Read back on the thread that asks (not the pipe's): a thread that makes objects
            # gets a malloc arena of its own, and what it freed stays in the process (~10 MB).
            if data is not None:
                before_reading()
            part = None if data is None else _load(data)
            if part is None:
                failed.add(w)
            yield start, stop, part

    def close(self) -> None:
        """Stop the workers (those still folding are killed)."""
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


def _serve(
    proc: subprocess.Popen[bytes], job: list[bytes], count: int, inbox: queue.Queue[bytes | None]
) -> None:
    """Give a worker its job (the one item of ``job``, taken out of it), then put each of its
    ``count`` parts, as written, in ``inbox`` as it arrives; None once it fails."""
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(job.pop())  # written, the bytes are let go
        proc.stdin.close()
    except OSError:
        pass  # it died at once: it writes no part, and its parts come back as failed (below)
    stream = proc.stdout
    try:
        for _ in range(count):
            head = stream.read(_FRAME.size)
            if len(head) < _FRAME.size:
                break
            (size,) = _FRAME.unpack(head)
            data = stream.read(size)
            if len(data) < size:
                break
            inbox.put(data)
        else:
            return
    except (OSError, ValueError):
        pass
    inbox.put(None)


def _load(data: bytes) -> FoldedPart | None:
    """The part our worker wrote in ``data`` (tui.part_wire), or None."""
    part = part_wire.loads(data)
    return part if isinstance(part, FoldedPart) else None


def worker_count() -> int:
    """How many worker processes to fold with: one per core this process may run on."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


def yield_to_the_app() -> None:
    """Lower this process's priority by WORKER_NICENESS, where the system allows it."""
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):  # no nice() on this system, or not allowed: fold as it is
        pass


def main() -> None:
    """A worker: fold the parts PartFolder gives on stdin, writing each fold to stdout as it is done."""
    gc.disable()  # what is folded lives until it is written, and the process ends soon after
    yield_to_the_app()
    # Pickled by the app that started this process: never anything read from a trace.
    run_dir, jobs = pickle.loads(sys.stdin.buffer.read())
    out = sys.stdout.buffer
    for span, start in jobs:
        data = part_wire.dumps(fold_part(Path(run_dir), span, start))
        out.write(_FRAME.pack(len(data)))
        out.write(data)
        out.flush()

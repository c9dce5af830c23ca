"""From events to a collector: batching, the live export's bounded queue, and the count of what was lost.

Live, ``OtelExport.on_event`` (an Engine hook) only puts the event on a bounded queue; one worker
thread builds the spans and sends them in batches. A full queue drops the event (counted), a
failed or slow send loses its batch (counted) — never the run's time. ``export_events`` does the
same work synchronously for a recorded run.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from qitos.trace.events import RunEvent
from qitos.trace.otel.spans import SpanBuilder

SCOPE = "qitos.trace.otel"
DEFAULT_QUEUE_EVENTS = 8192
DEFAULT_BATCH_SPANS = 512
DEFAULT_DELAY_SECONDS = 0.5
# A request view can carry many contributions and receipts, each a span event; the SDK's default
# of 128 events a span would silently drop the rest.
_LIMITS = SpanLimits(max_events=4096, max_span_attributes=1024, max_event_attributes=256)
_EXPORTER_LOGGER = "opentelemetry.exporter"


@dataclass
class Destination:
    """One place spans go (a collector URL or a file) and how that went."""

    label: str
    exporter: SpanExporter
    sent: int = 0
    failed: int = 0
    last_error: str | None = None
    failing: bool = False  # it has reported trouble (refused, timed out): not worth waiting for
    reason: str | None = None  # the first warning of the send under way
    closed: bool = False


@dataclass
class ExportStats:
    """What an export did: events seen and dropped, spans sent and lost per destination."""

    events: int = 0
    events_dropped: int = 0
    events_unmapped: int = 0  # events the mapping failed on (a bug, or data it cannot read)
    unmapped_reason: str | None = None
    spans: int = 0
    spans_unsent: int = 0  # built but never handed to a destination (the export was cut short)
    destinations: list[Destination] = field(default_factory=list)

    @property
    def spans_lost(self) -> int:
        """Spans that some destination did not get, plus those never sent."""
        return self.spans_unsent + sum(d.failed for d in self.destinations)

    @property
    def lossless(self) -> bool:
        """Whether every event became spans and every span reached every destination."""
        return self.events_dropped == 0 and self.events_unmapped == 0 and self.spans_lost == 0

    def summary(self) -> str:
        """One line for a person: where spans went, and what was lost and why."""
        where = ", ".join(d.label for d in self.destinations) or "nowhere"
        line = f"OTLP export to {where}: {self.spans} spans from {self.events} events"
        losses = []
        if self.events_dropped:
            losses.append(f"{self.events_dropped} events dropped (queue full)")
        if self.events_unmapped:
            losses.append(f"{self.events_unmapped} events not mapped to spans ({self.unmapped_reason})")
        for d in self.destinations:
            if d.failed:
                losses.append(
                    f"{d.failed} spans not delivered to {d.label}"
                    + (f" ({d.last_error})" if d.last_error else "")
                )
        if self.spans_unsent:
            losses.append(f"{self.spans_unsent} spans unsent at shutdown")
        return line + ("; LOST: " + "; ".join(losses) if losses else "; nothing lost")


class _Collect(SpanProcessor):
    """Keeps ended spans for the batcher (spans end on the one thread that feeds the builder)."""

    def __init__(self) -> None:
        self.ended: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.ended.append(span)


class _Router(logging.Handler):
    """Hands the exporters' warnings (why a send failed) to the batcher sending on that thread.

    Installed once on the exporters' logger; a batcher registers its thread only while it sends.
    The warnings become the loss's reason on screen instead of text printed over a UI, and a
    record no batcher claims goes on to the application's own handlers, if it has any.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.routes: dict[int, Destination] = {}

    def emit(self, record: logging.LogRecord) -> None:
        dest = self.routes.get(threading.get_ident())
        if dest is None:
            return
        dest.failing = True
        if dest.reason is None:  # the first warning says why; later ones say "retrying", "aborting"
            try:
                dest.reason = record.getMessage()[:_REASON_CHARS]
            except Exception:  # noqa: BLE001 - a bad log record must not break the export
                dest.reason = str(record.msg)[:_REASON_CHARS]


_REASON_CHARS = 240
_ROUTER = _Router()
logging.getLogger(_EXPORTER_LOGGER).addHandler(_ROUTER)


class Batcher:
    """Builds one run's spans and sends them in batches to every destination, counting the outcome."""

    def __init__(
        self,
        destinations: Sequence[Destination],
        *,
        capture_content: bool = False,
        batch_spans: int = DEFAULT_BATCH_SPANS,
        resource: Resource | None = None,
        agent_name: str | None = None,
    ) -> None:
        self.stats = ExportStats(destinations=list(destinations))
        self.batch_spans = max(1, batch_spans)
        self._collect = _Collect()
        self._provider = TracerProvider(
            resource=resource or Resource.create({"service.name": "qitos"}),
            span_limits=_LIMITS,
            shutdown_on_exit=False,
        )
        self._provider.add_span_processor(self._collect)
        tracer = self._provider.get_tracer(SCOPE, _version())
        self.builder = SpanBuilder(tracer, capture_content=capture_content, agent_name=agent_name)

    def give_up_failing(self) -> None:
        """Shut the destinations that reported trouble: a retry wait in progress ends at once."""
        for dest in self.stats.destinations:
            if dest.failing:
                _close(dest)

    def feed(self, event: RunEvent) -> None:
        """Map one event; send a batch when enough spans have ended."""
        self.stats.events += 1
        try:
            self.builder.feed(event)
        except Exception as exc:  # noqa: BLE001 - one event the mapping cannot read costs that event only
            self.stats.events_unmapped += 1
            self.stats.unmapped_reason = f"{type(exc).__name__}: {exc}"[:_REASON_CHARS]
        if len(self._collect.ended) >= self.batch_spans:
            self.flush()

    @property
    def pending(self) -> int:
        """Spans ended and not yet sent."""
        return len(self._collect.ended)

    def flush(self) -> None:
        """Send every ended span now (one batch per destination)."""
        batch, self._collect.ended = self._collect.ended, []
        if not batch:
            return
        self.stats.spans += len(batch)
        me = threading.get_ident()
        for dest in self.stats.destinations:
            if dest.closed:
                dest.failed += len(batch)  # given up on earlier: the batch is lost, and counted
                continue
            dest.reason = None
            _ROUTER.routes[me] = dest
            try:
                result = dest.exporter.export(batch)
            except Exception as exc:  # noqa: BLE001 - an exporter bug loses the batch, not the run
                result, dest.reason = SpanExportResult.FAILURE, f"{type(exc).__name__}: {exc}"
            finally:
                _ROUTER.routes.pop(me, None)
            if result is SpanExportResult.SUCCESS:
                dest.sent += len(batch)
            else:
                dest.failed += len(batch)
                dest.failing = True
                dest.last_error = dest.reason or dest.last_error or "export failed"

    def finish(self, *, send: bool = True) -> ExportStats:
        """End open spans, send what is left (unless ``send`` is False: it is counted unsent)."""
        self.builder.finish()
        if send:
            self.flush()
        else:
            self.stats.spans_unsent += len(self._collect.ended)
            self.stats.spans += len(self._collect.ended)
            self._collect.ended = []
        return self.stats

    def shutdown(self) -> None:
        """Stop every exporter (one waiting to retry gives up at once; a file is closed)."""
        for dest in self.stats.destinations:
            _close(dest)


def _close(dest: Destination) -> None:
    if dest.closed:
        return
    dest.closed = True
    try:
        dest.exporter.shutdown()
    except Exception:  # noqa: BLE001, S110 - closing is best effort
        pass


def _version() -> str | None:
    """The installed qitos-tui version, for the instrumentation scope."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("qitos-tui")
    except PackageNotFoundError:
        return None


def export_events(events: Iterable[RunEvent], batcher: Batcher) -> ExportStats:
    """Export a recorded run synchronously: every event, then the rest of the spans; returns the stats."""
    try:
        for event in events:
            batcher.feed(event)
        return batcher.finish()
    finally:
        batcher.shutdown()


_STOP = object()


class OtelExport:
    """An Engine hook exporting a live run: ``on_event`` queues, a worker thread builds and sends."""

    def __init__(
        self,
        batcher: Batcher,
        *,
        queue_events: int = DEFAULT_QUEUE_EVENTS,
        delay_seconds: float = DEFAULT_DELAY_SECONDS,
    ) -> None:
        self.batcher = batcher
        self.delay_seconds = delay_seconds
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=max(1, queue_events))
        self._dropped = 0  # refused at the door: the queue was full, or the worker gone
        self._accepted = 0
        self._closed = False
        self._dead = False
        self._final: ExportStats | None = None
        self._lock = threading.Lock()
        self._worker = threading.Thread(target=self._work, name="qitos-otel-export", daemon=True)
        self._worker.start()

    @property
    def stats(self) -> ExportStats:
        """The counts so far (read while the export runs; final once closed)."""
        if self._final is not None:
            return self._final
        stats = self.batcher.stats
        stats.events_dropped = self._dropped
        return stats

    def on_event(self, event: RunEvent) -> None:
        """Engine hook: queue the (already redacted) event; when the queue is full, count it dropped."""
        if self._closed:
            if self._dead:  # the worker is gone: the event is lost, and counted
                with self._lock:
                    self._dropped += 1
            return
        try:
            self._queue.put_nowait(event)
            self._accepted += 1  # only the Engine's thread calls this hook
        except queue.Full:
            with self._lock:
                self._dropped += 1

    def notice(self) -> str | None:
        """A line for the UI when something was lost (None while all is well)."""
        stats = self.stats
        return None if stats.lossless else stats.summary()

    def close(self, timeout: float = 5.0) -> ExportStats:
        """Stop taking events, send what is queued within ``timeout`` s, count whatever is left as lost."""
        deadline = time.monotonic() + max(0.0, timeout)
        if not self._closed:
            self._closed = True
            try:  # the worker drains everything queued before the stop mark
                self._queue.put(_STOP, timeout=max(0.0, timeout))
            except queue.Full:
                pass
        while self._worker.is_alive() and time.monotonic() < deadline:
            # A collector already failing will not get better: stop its retries instead of waiting.
            self.batcher.give_up_failing()
            self._worker.join(0.05)
        if self._worker.is_alive():
            self.batcher.shutdown()  # aborts a retry wait; a request in flight ends on its own timeout
            self._worker.join(0.5)
        with self._lock:
            # Whatever is still queued (a stuck or dead worker) never reaches the collector.
            while True:
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    break
            # A copy: a stuck worker that finishes a send later cannot change the final count.
            live = self.batcher.stats
            final = replace(live, destinations=[replace(d) for d in live.destinations])
            # Every event queued but not mapped by now is lost: events + dropped = events offered.
            final.events_dropped = self._dropped + max(0, self._accepted - final.events)
            if self._worker.is_alive():
                # Given up on: every span not acknowledged by now is lost.
                final.spans_unsent += self.batcher.pending
                for dest in final.destinations:
                    missing = final.spans - final.spans_unsent - dest.sent - dest.failed
                    if missing > 0:
                        dest.failed += missing
                        dest.last_error = dest.last_error or dest.reason or "no answer within the timeout"
            self._final = final
        self.batcher.shutdown()  # closes a file destination; stops anything still retrying
        return final

    def _work(self) -> None:
        last_send = time.monotonic()
        try:
            while True:
                try:
                    item = self._queue.get(timeout=self.delay_seconds)
                except queue.Empty:
                    item = None
                if item is _STOP:
                    self.batcher.finish()
                    return
                if item is not None:
                    self.batcher.feed(item)
                if self.batcher.pending and time.monotonic() - last_send >= self.delay_seconds:
                    self.batcher.flush()
                    last_send = time.monotonic()
        except Exception as exc:  # noqa: BLE001 - the export dies quietly; the run goes on, loss counted
            for dest in self.batcher.stats.destinations:
                dest.last_error = f"export stopped: {type(exc).__name__}: {exc}"
            self._dead = True
            self._closed = True  # later events are not queued for a worker that is gone

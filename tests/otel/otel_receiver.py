"""A loopback OTLP/HTTP receiver: a real http.server that decodes ExportTraceServiceRequest bodies."""

from __future__ import annotations

import gzip
import threading
import zlib
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


@dataclass
class Span:
    """One received span, flattened: ids as hex, attributes as Python values."""

    name: str
    span_id: str
    parent_id: str
    trace_id: str
    kind: int
    start: int
    end: int
    attributes: dict[str, Any]
    events: list[tuple[str, int, dict[str, Any]]]
    status_code: int
    resource: dict[str, Any]


def _value(v: Any) -> Any:
    which = v.WhichOneof("value")
    if which == "array_value":
        return [_value(x) for x in v.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in v.kvlist_value.values}
    return getattr(v, which) if which else None


def _attrs(kvs: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in kvs}


def flatten(requests: list[ExportTraceServiceRequest]) -> list[Span]:
    """Every span of the requests, in the order received."""
    out = []
    for request in requests:
        for rs in request.resource_spans:
            resource = _attrs(rs.resource.attributes)
            for ss in rs.scope_spans:
                for s in ss.spans:
                    out.append(
                        Span(
                            name=s.name,
                            span_id=s.span_id.hex(),
                            parent_id=s.parent_span_id.hex(),
                            trace_id=s.trace_id.hex(),
                            kind=s.kind,
                            start=s.start_time_unix_nano,
                            end=s.end_time_unix_nano,
                            attributes=_attrs(s.attributes),
                            events=[(e.name, e.time_unix_nano, _attrs(e.attributes)) for e in s.events],
                            status_code=s.status.code,
                            resource=resource,
                        )
                    )
    return out


class Receiver:
    """Listens on 127.0.0.1 (port 0: any free one); ``delay`` makes every answer that slow."""

    def __init__(self, delay: float = 0.0) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        self.delay = delay
        self.release = threading.Event()  # set to end a delay early (teardown)
        self.got = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                encoding = self.headers.get("Content-Encoding", "")
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding == "deflate":
                    body = zlib.decompress(body)
                if receiver.delay:
                    receiver.release.wait(receiver.delay)
                if self.path != "/v1/traces":
                    self.send_response(404)
                    self.end_headers()
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with receiver.got:
                    receiver.requests.append(request)
                    receiver.got.notify_all()
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def spans(self) -> list[Span]:
        """Every span received so far."""
        with self.got:
            return flatten(list(self.requests))

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> list[Span]:
        """Wait until ``predicate(spans)`` holds (the live export sends from its own thread)."""
        with self.got:
            self.got.wait_for(lambda: predicate(flatten(list(self.requests))), timeout=timeout)
        return self.spans()

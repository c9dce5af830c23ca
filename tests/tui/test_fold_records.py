"""The background fold's fast path: records (parsed line objects) fold exactly as their RunEvents do.

``TraceReader.records`` hands the fold each line's object without building a RunEvent, reading it
with orjson unless one pass over the block finds something orjson may read otherwise than ``json``
(19 digits in a row, more brackets than MAX_DEPTH); ``RunStore.apply`` folds a record as it would
``RunEvent.from_dict`` of it. Both are held against the plain path on hostile traces here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qitos.trace.events import EventKind, RunEvent
from qitos.trace.reader import TraceReader
from tui.replay import HeadSource
from tui.store import RunStore

KINDS = [kind.value for kind in EventKind] + ["", "custom_kind", "<malformed>"]
# Payload fields the fold reads, so that arbitrary values land where they are looked at.
FIELDS = [
    "request_id", "model_id", "view", "budget", "used", "max_units", "unit", "available_units",
    "usage", "total_tokens", "prompt_tokens", "tool_calls", "name", "args", "text", "call_id",
    "tool", "ok", "attempts", "error", "latency_ms", "stage", "message", "category", "retrying",
    "details", "status", "stop_reason", "final_result", "token_usage", "policy_id", "reason",
    "step_id", "boundary", "pending_actions", "actions", "final_answer", "run_meta", "model_name",
]  # fmt: skip

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(KINDS)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=4),
    max_leaves=20,
)
events = st.fixed_dictionaries(
    {"phase": st.sampled_from(KINDS) | values},
    optional={
        "run_id": st.text(max_size=4) | values,
        "step_id": st.integers(min_value=-3, max_value=6) | values,
        "ok": st.booleans() | values,
        "payload": st.dictionaries(st.sampled_from(FIELDS), values, max_size=6) | values,
        "error": st.none() | st.text(max_size=10) | values,
        "ts": st.text(max_size=4),
    },
)
ODD_LINES = [
    b'{"step_id": 12345678901234567890, "phase": "tool_call", "payload": {"call_id": 1}}',
    b'{"phase": "model_response", "payload": {"usage": {"total_tokens": 99999999999999999999}}}',
    b'{"phase": "error", "ok": false, "payload": {"n": 1e999}}',
    b'{"phase": "OBSERVE", "payload": {"s": "\\ud800"}}',
    b'\xef\xbb\xbf{"phase": "INIT"}',
    b'{"phase": "model_request", "payload": {"a": "\xff"}}',
    b'{"phase": "tool_result", "phase": "error", "ok": true, "ok": false}',
    b'{"phase": "ACT", "payload": ' + b"[" * 70 + b"]" * 70 + b"}",
    b'{"phase": "ACT", "payload": ' + b"[" * 62 + b"]" * 62 + b"}",
    b'{"phase": "DECIDE", "payload": {"t": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}}',
    b"[1, 2]",
    b"not json at all",
    b'{"phase": "run_end", "payload": {"status": "completed"}} trailing',
    b'{"phase": "OBSERVE"}\r',
    b"",
]


def snapshot(store: RunStore) -> str:
    """Everything the fold holds, spelled out (NaN and -0.0 included), the event source aside."""
    state = {name: value for name, value in vars(store).items() if name != "source"}
    return repr(sorted(state.items()))


def fold_both(run_dir: Path) -> tuple[str, str, list[str], list[str]]:
    """The fold of the trace from its events and from its records, and each reader's notices;
    the replay's head (the first frame's records) is held to the same fold on the way."""
    by_events = TraceReader(run_dir)
    plain = RunStore(by_events, run_id=by_events.run_id)
    plain.apply(by_events.events(), 0)
    by_records = TraceReader(run_dir)
    fast = RunStore(by_records, run_id=by_records.run_id)
    for start, records in by_records.records(block_size=300):  # small blocks: many boundaries
        fast.apply(records, start)
    head = HeadSource(run_dir, limit=len(by_events), run_id=by_events.run_id)
    first_frame = RunStore(head, run_id=by_events.run_id)
    first_frame.apply(head.records(), 0)
    assert snapshot(first_frame) == snapshot(plain)
    assert [repr(e) for e in head.events()] == [repr(e) for e in by_events.events()]
    return snapshot(plain), snapshot(fast), by_events.notices, by_records.notices


def write(run_dir: Path, lines: list[bytes]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "events.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))


@settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    objects=st.lists(events, max_size=25),
    odd=st.lists(st.sampled_from(ODD_LINES), max_size=4),
    ascii_only=st.booleans(),
    data=st.data(),
)
def test_records_fold_as_their_events_on_any_trace(
    tmp_path_factory: Any, objects: list[dict[str, Any]], odd: list[bytes], ascii_only: bool, data: Any
) -> None:
    lines = [json.dumps(o, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass") for o in objects]
    for line in odd:  # damaged and unusual lines, anywhere
        lines.insert(data.draw(st.integers(min_value=0, max_value=len(lines))), line)
    run_dir = tmp_path_factory.mktemp("run")
    write(run_dir, lines)
    plain, fast, plain_notices, fast_notices = fold_both(run_dir)
    assert fast == plain
    assert fast_notices == plain_notices


def test_every_odd_line_folds_alike_and_each_record_reads_as_its_event(tmp_path: Path) -> None:
    write(tmp_path, ODD_LINES)
    plain, fast, plain_notices, fast_notices = fold_both(tmp_path)
    assert fast == plain and fast_notices == plain_notices
    reader = TraceReader(tmp_path)
    records = [record for _, block in reader.records() for record in block]
    assert len(records) == len(reader) == len(ODD_LINES) - 1  # the empty line is skipped
    for index, record in enumerate(records):
        event = RunEvent.from_dict(record)
        event.run_id = event.run_id or reader.run_id  # as the reader fills it in for an event
        assert repr(event) == repr(reader.event(index)), ODD_LINES[index]
    # The lines orjson would read otherwise are read the total way: exact and refused alike.
    assert records[0]["step_id"] == 0  # beyond 2**63: unusable, as RunEvent.from_dict reads it
    assert records[1]["payload"]["usage"]["total_tokens"] == 99999999999999999999  # exact, not a float
    assert records[7]["phase"] == "<malformed>" and records[8]["phase"] == "ACT"

"""Hostile run directories: a generator of traces mixing valid events with damage, and the checker
that reads one back through the TraceReader and the fold and accounts for every line.

Shared by the property test (``test_total_fold.py``, hypothesis strategies) and the seeded fuzz
benchmark (``tests/benchmarks/bench_fuzz_fold.py``, a ``random.Random`` generator).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from qitos.trace.events import KNOWN_KINDS, MALFORMED_PHASE, EventKind
from qitos.trace.payloads import read_payload
from qitos.trace.reader import TraceReader
from tui.search import event_text, export_request
from tui.store import RunStore

DEEP = 10_000
# Lines that crashed the reader or the fold before (issue 11), and their relatives.
HOSTILE_LINES: tuple[bytes, ...] = (
    b"[" * DEEP + b"]" * DEEP,
    b'{"a":' * DEEP + b"1" + b"}" * DEEP,
    b'{"phase": "model_response", "payload": ' + b"[" * DEEP + b"]" * DEEP + b"}",
    b'{"phase": "tool_result", "payload": {"result": ' + b"[" * 900 + b"]" * 900 + b"}}",
    b'{"step_id": 1e999, "phase": "model_response", "payload": {"usage": {"total_tokens": Infinity}}}',
    b'{"step_id": NaN, "phase": "run_end", "payload": {"token_usage": -Infinity}}',
    b'{"step_id": ' + b"1" + b"0" * 400 + b', "phase": "OBSERVE"}',
    b'{"step_id": ' + b"9" * 5000 + b', "phase": "OBSERVE"}',
    b'{"step_id": "' + b"9" * 40 + b'", "phase": "ACT"}',
    (
        b'{"phase": "model_request", "payload": {"view": {"budget": {"max_units": 1e999, "used": '
        b'{"context": 1e308, "tools": ' + b"1" + b"0" * 400 + b'}, "available_units": true}}}}'
    ),
    b'{"phase": "lifecycle_pause", "payload": {"step_id": Infinity, "pending_actions": 5}}',
    b'{"phase": "ACT", "payload": {"stage": "action_results", "tool_invocations": 7}}',
    b'{"phase": "ACT", "payload": {"stage": "action_results", "tool_invocations": [{"status": ["x"]}]}}',
    b'{"phase": "\xff\xfe", "payload": {}}',
    b'{"phase": "error", "payload": {"message": "\\ud800 lone", "category": {"a": 1}}}',
    b'{"phase": "DECIDE", "phase": "run_end", "payload": {"status": 1}, "payload": {"status": "x"}}',
    b"[]",
    b"1",
    b'"a string"',
    b"null",
    b"true",
    b"{}",
    b"\x00\x01\x02",
    b"{",
    b"}",
    b"\r",
    b"\xef\xbb\xbf{}",
    b'{"run_id": ["x"], "step_id": true, "phase": 7, "ok": {"a": 1}, "payload": "s", "error": [1], "ts": 3}',
    b'{"phase": "model_response", "payload": {"request_id": {"x": 1}, "tool_calls": "ls", "usage": [1, 2]}}',
    b'{"phase": "tool_call", "payload": {"call_id": [1], "tool": null, "args": "x"}}',
    b'{"phase": "memory_recall", "payload": {"records": [1, {"record_id": 2, "content": {"x": []}}]}}',
    b'{"phase": "skill_publish", "payload": {"name": null, "version": 1e999, "description": 5}}',
    b'{"phase": "shiny_new_kind", "payload": {}}',
    b'{"phase": "", "payload": {}}',
)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([10**400, -(10**400), 2**63, 2**63 - 1, 0, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["7", "-3", "1e999", "NaN", "", "false", "success", "stop", "model_input"]),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)

S = "scalar"  # a leaf in the shapes below
_CONTRIBUTION = {
    k: S for k in ("contribution_id", "source", "units", "priority", "required", "selected", "reason")
}
_RECEIPT = {
    "receipt_id": S,
    "policy_id": S,
    "input_exchange_ids": [S],
    "output_digest": S,
    "declared_losses": [S],
    "model_reference": S,
}
_VIEW = {
    "selected_exchange_ids": [S],
    "omitted_exchange_ids": [S],
    "exchanges": [{"exchange_id": S, "step_id": S}],
    "contributions": [_CONTRIBUTION],
    "budget": {"max_units": S, "unit": S, "used": {"instructions": S, "context": S}, "available_units": S},
    "receipts": [_RECEIPT],
}
_PHASE = {
    "stage": S,
    "actions": [{"name": S, "args": {"path": S}}],
    "final_answer": S,
    "prepared": S,
    "raw_output": S,
    "messages": [{"role": S, "content": S}],
    "tool_invocations": [{"tool_name": S, "status": S, "error": S}],
    "action_results": [{"stdout": S}],
    "run_meta": {"model_name": S},
    "stop_reason": S,
    "final_result": S,
}
# The payload shape of each kind, as the Engine writes it (see qitos/trace/events.py).
SHAPES: dict[str, dict[str, Any]] = {
    EventKind.MODEL_REQUEST: {
        "request_id": S,
        "model_id": S,
        "messages": [{"role": S, "content": S}],
        "view": _VIEW,
    },
    EventKind.MODEL_RESPONSE: {
        "request_id": S,
        "text": S,
        "tool_calls": [{"name": S, "args": {"q": S}}],
        "usage": {"prompt_tokens": S, "completion_tokens": S, "total_tokens": S},
        "latency_ms": S,
    },
    EventKind.TOOL_CALL: {"call_id": S, "tool": S, "args": {"path": S}},
    EventKind.TOOL_RESULT: {"call_id": S, "tool": S, "ok": S, "result": S, "error": S, "attempts": S},
    EventKind.MEMORY_APPEND: {"record_id": S, "role": S, "step_id": S, "namespace": S, "chars": S},
    EventKind.MEMORY_RECALL: {
        "namespace": S,
        "query": S,
        "record_ids": [S],
        "records": [{"record_id": S, "role": S, "content": S}],
    },
    EventKind.MEMORY_DELETE: {"record_id": S, "namespace": S, "removed": S},
    EventKind.SKILL_PUBLISH: {"name": S, "version": S, "namespace": S, "description": S},
    EventKind.SKILL_DEPRECATE: {"name": S, "namespace": S, "changed": S},
    EventKind.LIFECYCLE_PAUSE: {
        "policy_id": S,
        "reason": S,
        "step_id": S,
        "boundary": S,
        "pending_actions": [{"name": S, "args": {"a": S}}],
    },
    EventKind.LIFECYCLE_RESUME: {"policy_id": S, "step_id": S},
    EventKind.ERROR: {"category": S, "message": S, "phase": S, "recoverable": S, "details": {"x": S}},
    EventKind.RUN_END: {
        "status": S,
        "stop_reason": S,
        "final_result": S,
        "steps": S,
        "token_usage": {"total_tokens": S, "prompt_tokens": S},
    },
}
for _kind in EventKind:
    SHAPES.setdefault(_kind, _PHASE)
PHASES = [*(k.value for k in EventKind), "SOMETHING_NEW", ""]
# Kinds with a payload class of their own are drawn three times as often: their fields are where
# readers can go wrong.
_DRAWN_PHASES = [*PHASES, *(2 * [k.value for k in EventKind if SHAPES.get(k) is not _PHASE])]


def shaped(shape: Any) -> st.SearchStrategy[Any]:
    """Values of ``shape`` whose every part may instead be any hostile JSON value.

    Mostly the shape itself (three branches in four), so that a wrong value deep inside a
    well-formed payload — a string for a contribution's units — is drawn often, not once in ten
    thousand lines."""
    if isinstance(shape, dict):
        fields = {k: shaped(v) for k, v in shape.items()}
        whole = st.fixed_dictionaries(fields)
        return st.one_of(whole, whole, st.fixed_dictionaries({}, optional=fields), JSON)
    if isinstance(shape, list):
        items = st.lists(shaped(shape[0]), min_size=1, max_size=3)
        return st.one_of(items, items, items, JSON)
    return SCALARS | JSON


@st.composite
def event_lines(draw: st.DrawFn) -> bytes:
    """One events.jsonl line: an event of a known kind with any field wrong, or a hostile line."""
    choice = draw(st.integers(0, 9))
    if choice < 2:
        return draw(st.sampled_from(HOSTILE_LINES))
    if choice == 2:
        return json.dumps(draw(JSON)).encode()
    if choice == 3:
        return draw(st.binary(max_size=24))
    phase = draw(st.sampled_from(_DRAWN_PHASES))
    event: dict[str, Any] = {"phase": phase}
    for key, strategy in (
        ("run_id", SCALARS),
        ("step_id", SCALARS | st.integers(0, 5)),
        ("ok", SCALARS),
        ("error", SCALARS),
        ("ts", SCALARS),
    ):
        if draw(st.booleans()):
            event[key] = draw(strategy)
    event["payload"] = draw(shaped(SHAPES.get(phase, _PHASE)))
    return json.dumps(event, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")


MANIFEST_SHAPE = {
    "run_id": S,
    "status": S,
    "model_id": S,
    "token_usage": S,
    "step_count": S,
    "summary": {"stop_reason": S, "token_usage": S},
}


@st.composite
def trace_families(draw: st.DrawFn) -> list[dict[str, bytes | None]]:
    """Run directories built from one drawn set of lines: every prefix of the lines is a trace of
    its own, ending cleanly, cut inside the next line, and (every other one) with blank lines
    between its lines, with one of the drawn manifests.

    Hypothesis spends far longer drawing a line than the reader and the fold spend on it, so each
    example yields a family of traces (one per prefix) rather than one."""
    lines = draw(st.lists(event_lines(), min_size=6, max_size=20))
    sep = draw(st.sampled_from([b"\n", b"\n", b"\r\n", b"\n\n"]))
    manifests = draw(
        st.lists(
            st.one_of(
                st.none(),
                st.sampled_from(HOSTILE_LINES),
                JSON.map(lambda v: json.dumps(v).encode()),
                shaped(MANIFEST_SHAPE).map(lambda v: json.dumps(v).encode()),
            ),
            min_size=1,
            max_size=3,
        )
    )
    steps_lines = draw(
        st.lists(st.one_of(event_lines(), JSON.map(lambda v: json.dumps(v).encode())), max_size=3)
    )
    steps = b"".join(line + b"\n" for line in steps_lines) if steps_lines else None
    family: list[dict[str, bytes | None]] = []
    for count in range(1, len(lines) + 1):
        events = sep.join(lines[:count]) + b"\n"
        manifest = manifests[count % len(manifests)]
        family.append({"events.jsonl": events, "steps.jsonl": steps, "manifest.json": manifest})
        if count < len(lines):  # and the same run cut off inside its next line
            cut = events + lines[count][: len(lines[count]) // 2]
            family.append({"events.jsonl": cut, "steps.jsonl": steps, "manifest.json": manifest})
        if count % 2 == 0:  # and with blank lines between its lines (line numbers shift)
            spaced = b"\n\n".join(lines[:count]) + b"\n"
            family.append({"events.jsonl": spaced, "steps.jsonl": steps, "manifest.json": manifest})
    return family


def random_trace(rng: random.Random) -> dict[str, bytes | None]:
    """A trace for the seeded fuzz run: valid and hostile lines, spliced, flipped and cut."""
    lines: list[bytes] = []
    for _ in range(rng.randint(1, 12)):
        roll = rng.random()
        if roll < 0.3:
            line = rng.choice(HOSTILE_LINES)
        else:
            phase = rng.choice(PHASES)
            line = json.dumps(
                {
                    "run_id": "r",
                    "step_id": rng.randint(0, 4),
                    "phase": phase,
                    "payload": _fill(rng, SHAPES.get(phase, _PHASE)),
                }
            ).encode()
        if rng.random() < 0.2 and line:
            cut = rng.randrange(len(line))
            line = line[:cut] + bytes([rng.randrange(256)]) + line[cut + 1 :]  # a flipped byte
        if rng.random() < 0.1 and line:
            line = line[: rng.randrange(len(line))]  # cut short
        lines.append(line.replace(b"\n", b" "))
    events = b"\n".join(lines) + (b"\n" if rng.random() < 0.75 else b"")
    manifest = rng.choice(
        [None, b"{}", b"[]", rng.choice(HOSTILE_LINES), b'{"status": "completed", "token_usage": 1e999}']
    )
    steps = b"\n".join(rng.choice(HOSTILE_LINES) for _ in range(rng.randint(0, 3))) + b"\n"
    return {"events.jsonl": events, "steps.jsonl": steps, "manifest.json": manifest}


_ODD_VALUES: tuple[Any, ...] = (
    None,
    True,
    -1,
    10**400,
    float("inf"),
    float("nan"),
    "x",
    [],
    {},
    [1, "a"],
    {"k": [None]},
)


def _fill(rng: random.Random, shape: Any) -> Any:
    """A value of ``shape``, with some parts replaced by odd values."""
    if rng.random() < 0.15:
        return rng.choice(_ODD_VALUES)
    if isinstance(shape, dict):
        return {k: _fill(rng, v) for k, v in shape.items() if rng.random() < 0.8}
    if isinstance(shape, list):
        return [_fill(rng, shape[0]) for _ in range(rng.randint(0, 2))]
    return rng.choice(("text", 3, 0, "success", "model_input", "stop", 1.5, "r1", "c1"))


def write_trace(run_dir: Path, files: dict[str, bytes | None]) -> None:
    """Put ``files`` in ``run_dir`` (reused between traces: absent files are removed)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        path = run_dir / name
        if data is None:
            if path.exists():
                path.unlink()
        else:
            path.write_bytes(data)


def _expected_lines(data: bytes) -> tuple[int, bool]:
    """How many events the reader must give for ``data`` (non-empty complete lines), and whether a
    non-blank incomplete last line is left over."""
    parts = data.split(b"\n")
    tail = parts.pop()
    return sum(1 for p in parts if p), bool(tail.strip())


def _manifest_value(data: bytes | None) -> Any:
    """What the manifest bytes hold as JSON (None when absent or unparseable)."""
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def check_trace(run_dir: Path, files: dict[str, bytes | None], export_dir: Path | None = None) -> list[str]:
    """Read ``run_dir`` and fold it; return what was not accounted for (empty when all is well)."""
    problems: list[str] = []
    with TraceReader(run_dir) as reader:
        store = RunStore(reader, run_id=reader.run_id)
        events = list(reader.events())
        store.apply(events)
        expected, cut = _expected_lines(files["events.jsonl"] or b"")
        if len(events) != expected:
            problems.append(f"{len(events)} events for {expected} lines")
        raw = {i for s in store.steps for i in s.raw}
        for i, event in enumerate(events):
            read_payload(event)  # the typed payloads are total too
            event_text(event)
            if not event.phase.startswith("toolset_"):  # teardown events belong to no step
                pos = store.step_pos.get(event.step_id)
                if pos is None or not store.steps[pos].first <= i <= store.steps[pos].last:
                    problems.append(f"event {i} is not folded into its step {event.step_id}")
            if event.phase == MALFORMED_PHASE:
                if not (
                    event.error
                    and i in raw
                    and any(f"line {reader.line_number(i)}:" in n for n in reader.notices)
                ):
                    problems.append(f"event {i}: malformed without a reason, raw index or notice")
            elif event.phase not in KNOWN_KINDS:
                if i not in raw or not store.notices:
                    problems.append(f"event {i}: unknown kind {event.phase!r} neither kept raw nor noticed")
        if cut and not any("incomplete last line" in n for n in reader.notices):
            problems.append("truncated last line not noticed")
        if not reader.manifest and _manifest_value(files["manifest.json"]) != {}:
            if not any("manifest.json" in n for n in reader.notices):
                problems.append("missing or unusable manifest not noticed")
        for record in reader.steps():
            if type(record.get("step_id")) is not int:
                problems.append(f"steps record without an int step_id: {record!r:.80}")
        # Everything the header, the step list and the budget sparkline read from the fold.
        _ = (store.display_status, store.tokens, store.used_series(), store.stop_reason, store.model_id)
        for pos, step in enumerate(store.steps):
            store.exchanges_until(pos, 8)
            if export_dir is not None and step.requests:
                export_request(store, pos, export_dir)
        reader.refresh()
    return problems


def run_checked(run_dir: Path, files: dict[str, bytes | None], export_dir: Path | None = None) -> list[str]:
    """:func:`check_trace`, with any exception that escapes reported as a problem (for the fuzz run)."""
    write_trace(run_dir, files)
    try:
        return check_trace(run_dir, files, export_dir)
    except Exception as exc:  # noqa: BLE001 - the fuzz run counts crashes rather than stopping at one
        return [f"crash: {type(exc).__name__}: {exc}"[:300]]


__all__: list[str] = [
    "HOSTILE_LINES",
    "check_trace",
    "random_trace",
    "run_checked",
    "trace_families",
    "write_trace",
]

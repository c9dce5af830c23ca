"""Deterministic synthetic run events (fixed ids and clock) for tests, benchmarks and snapshots.

The stream uses every payload shape of ``qitos/trace/events.py`` — request views with selected and
dropped contributions, budgets, compaction receipts, tool calls, memory and skill operations, a
lifecycle pause — so a pane can be exercised before (or without) a real Engine run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from qitos.trace.events import EventKind, RunEvent

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
TOOLS = ["read_file", "run_tests", "write_file"]


def _ts(n: int) -> str:
    return (EPOCH + timedelta(milliseconds=10 * n)).isoformat()


def synthetic_events(
    steps: int = 6,
    *,
    run_id: str = "synthetic_run",
    pause_at: int | None = 3,
    end: bool = True,
    payload_pad: int = 0,
    model_id: str = "scripted-1",
) -> Iterator[RunEvent]:
    """Yield a full run of ``steps`` steps; ``payload_pad`` adds that many chars to each tool result."""
    n = 0
    max_units = 4000

    def ev(step: int, phase: str, payload: dict, ok: bool = True, error: str | None = None) -> RunEvent:
        nonlocal n
        n += 1
        return RunEvent(run_id, step, phase, ok, payload, error, _ts(n))

    yield ev(
        0, EventKind.INIT, {"task": "Fix the failing test in calc.py", "run_meta": {"model_name": model_id}}
    )
    for s in range(steps):
        yield ev(s, EventKind.OBSERVE, {"stage": "start"})
        if s % 3 == 1:
            yield ev(
                s,
                EventKind.MEMORY_RECALL,
                {
                    "namespace": "notes",
                    "query": "calc add bug",
                    "record_ids": [f"mem-{s:03d}"],
                    "records": [
                        {"record_id": f"mem-{s:03d}", "role": "note", "content": "add() had a sign bug"}
                    ],
                },
            )
        if pause_at is not None and s == pause_at:
            pending = [{"name": TOOLS[s % 3], "args": {"path": "calc.py"}}]
            yield ev(
                s,
                EventKind.LIFECYCLE_PAUSE,
                {
                    "policy_id": "demo.pause_before_write",
                    "reason": "about to write a file",
                    "step_id": s,
                    "boundary": "before_decide",
                    "pending_actions": pending,
                },
            )
            yield ev(s, EventKind.LIFECYCLE_RESUME, {"policy_id": "demo.pause_before_write", "step_id": s})
        yield ev(s, EventKind.DECIDE, {"stage": "start"})
        selected = [f"ex-{k:04d}" for k in range(max(0, s - 2), s)]
        # Older exchanges were compacted by earlier receipts: a request lists only the recent ones.
        omitted = [f"ex-{k:04d}" for k in range(max(0, s - 22), max(0, s - 2))]
        receipts = []
        if omitted:
            receipts.append(
                {
                    "receipt_id": f"rcpt-{s:04d}",
                    "policy_id": "closed_window",
                    "input_exchange_ids": omitted,
                    "output_digest": f"sha256:{(s * 7919) % 65536:04x}",
                    "declared_losses": ["tool output bodies", "intermediate reasoning"],
                    "model_reference": None,
                }
            )
        used = {"instructions": 300, "tools": 120, "context": 200 + 40 * s, "exchanges": 150 * min(s, 2)}
        view = {
            "selected_exchange_ids": selected,
            "omitted_exchange_ids": omitted,
            "contributions": [
                {
                    "contribution_id": "task",
                    "source": "task",
                    "units": 60,
                    "priority": 100,
                    "required": True,
                    "selected": True,
                    "reason": "required",
                },
                {
                    "contribution_id": f"memory:mem-{s:03d}",
                    "source": "memory",
                    "units": 140 + 40 * s,
                    "priority": 50,
                    "required": False,
                    "selected": True,
                    "reason": "fits budget",
                },
                {
                    "contribution_id": "repo-map",
                    "source": "workspace",
                    "units": 2600,
                    "priority": 10,
                    "required": False,
                    "selected": False,
                    "reason": "over budget",
                },
            ],
            "budget": {
                "max_units": max_units,
                "unit": "chars",
                "used": used,
                "available_units": max_units - sum(used.values()),
                "protected_recent_exchanges": 2,
            },
            "receipts": receipts,
        }
        rid = f"ex-{s:04d}"
        messages = [
            {"role": "system", "content": "You are a careful coding agent."},
            {"role": "user", "content": f"Step {s}: continue fixing calc.py"},
        ]
        yield ev(
            s,
            EventKind.MODEL_REQUEST,
            {"request_id": rid, "model_id": model_id, "messages": messages, "tools": TOOLS, "view": view},
        )
        tool = TOOLS[s % 3]
        final = s == steps - 1
        yield ev(
            s,
            EventKind.MODEL_RESPONSE,
            {
                "request_id": rid,
                "text": "Done: the test passes." if final else f"I will call {tool}.",
                "tool_calls": [] if final else [{"name": tool, "args": {"path": "calc.py"}}],
                "usage": {
                    "prompt_tokens": 100 + 10 * s,
                    "completion_tokens": 20,
                    "total_tokens": 120 + 10 * s,
                },
                "latency_ms": 5.0,
            },
        )
        if not final:
            yield ev(s, EventKind.ACT, {"stage": "start"})
            call = f"call-{s:04d}"
            yield ev(s, EventKind.TOOL_CALL, {"call_id": call, "tool": tool, "args": {"path": "calc.py"}})
            ok = s != 2
            body = ("def add(a, b):\n    return a - b\n" if ok else "") + "x" * payload_pad
            yield ev(
                s,
                EventKind.TOOL_RESULT,
                {
                    "call_id": call,
                    "tool": tool,
                    "ok": ok,
                    "result": body if ok else None,
                    "error": None if ok else "AssertionError: add(2, 2) == 0",
                    "attempts": 1,
                    "latency_ms": 1.5,
                },
                ok=ok,
                error=None if ok else "tool failed",
            )
            if s % 2 == 0:
                yield ev(
                    s,
                    EventKind.MEMORY_APPEND,
                    {
                        "record_id": f"mem-{s + 1:03d}",
                        "role": "note",
                        "step_id": s,
                        "namespace": "notes",
                        "chars": 42,
                    },
                )
        if s == steps - 2:
            yield ev(
                s,
                EventKind.SKILL_PUBLISH,
                {"name": "fix_sign_bug", "version": 2, "namespace": "demo", "description": "x"},
            )
        yield ev(s, EventKind.CHECK_STOP, {"stage": "stop" if final else "continue"})
    if end:
        yield ev(
            steps - 1,
            EventKind.RUN_END,
            {
                "status": "completed",
                "stop_reason": "final_result",
                "final_result": "Done: the test passes.",
                "steps": steps,
                "token_usage": sum(120 + 10 * s for s in range(steps)),
            },
        )


def write_trace(run_dir: Path, events: Iterator[RunEvent], *, status: str = "completed") -> int:
    """Write ``events`` as a run directory (manifest, events.jsonl, steps.jsonl); returns the count."""
    run_dir.mkdir(parents=True, exist_ok=True)
    count = 0
    run_id = run_dir.name
    steps: set[int] = set()
    with (run_dir / "events.jsonl").open("w", encoding="utf-8") as out:
        for event in events:
            run_id = event.run_id
            steps.add(event.step_id)
            out.write(event.to_json() + "\n")
            count += 1
    with (run_dir / "steps.jsonl").open("w", encoding="utf-8") as out:
        for step in sorted(steps):
            out.write(json.dumps({"step_id": step}) + "\n")
    manifest = {
        "run_id": run_id,
        "schema_version": "v1",
        "status": status,
        "updated_at": EPOCH.isoformat(),
        "event_count": count,
        "step_count": len(steps),
        "summary": {"stop_reason": "final_result", "steps": len(steps)},
        "model_id": "scripted-1",
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return count

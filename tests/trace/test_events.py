"""The run-event vocabulary: one trace line in, the same line out, loose upstream typing tolerated."""

from __future__ import annotations

from qitos.trace.events import KNOWN_KINDS, EventKind, RunEvent


def test_round_trip_keeps_every_field() -> None:
    """to_dict / from_dict keep the upstream field names and values."""
    event = RunEvent(
        "r1", 3, "tool_result", ok=False, payload={"tool": "t"}, error="boom", ts="2026-01-01T00:00:00+00:00"
    )
    assert RunEvent.from_dict(event.to_dict()) == event
    assert list(event.to_dict()) == ["run_id", "step_id", "phase", "ok", "payload", "error", "ts"]


def test_upstream_string_step_ids_and_string_booleans() -> None:
    """steps written as strings become ints; "false" is false, not a truthy string."""
    event = RunEvent.from_dict({"run_id": "r", "step_id": "7", "phase": "ACT", "ok": "false", "payload": {}})
    assert event.step_id == 7 and event.ok is False
    assert RunEvent.from_dict({"step_id": "x", "phase": "ACT", "ok": "true"}).ok is True


def test_unknown_phase_is_kept_raw_with_no_kind() -> None:
    """A phase this version does not know is kept as is; its kind is None."""
    event = RunEvent.from_dict({"run_id": "r", "step_id": 0, "phase": "shiny_new_thing", "payload": [1, 2]})
    assert event.phase == "shiny_new_thing" and event.kind is None
    assert event.payload == {"value": [1, 2]}
    assert RunEvent("r", 0, "DECIDE", payload={"stage": "model_output"}).stage == "model_output"
    assert EventKind.MODEL_REQUEST.value in KNOWN_KINDS

"""StateSchema: stop, step advance, validation, dict round trips and migrations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from qitos import StateExecutionError, StateSchema, StopReason


@dataclass
class Plan:
    """A nested dataclass field."""

    steps: list[str] = field(default_factory=list)
    cursor: int = 0


@dataclass
class PlanState(StateSchema):
    """A state with a nested plan."""

    plan: Plan = field(default_factory=Plan)
    notes: list[str] = field(default_factory=list)


def test_documented_defaults() -> None:
    """Defaults exactly as the root API page lists them."""
    s = StateSchema()
    assert (s.schema_version, s.task, s.current_step, s.max_steps) == (1, "", 0, 10)
    assert (s.final_result, s.stop_reason, s.metadata, s.metrics) == (None, None, {}, {})


def test_set_stop_accepts_enum_or_value_and_rejects_unknown() -> None:
    """set_stop writes the StopReason value and the final result."""
    s = StateSchema()
    s.set_stop(StopReason.FINAL, "answer")
    assert (s.stop_reason, s.final_result) == ("final", "answer")
    s.set_stop("budget_time")
    assert s.stop_reason == "budget_time" and s.final_result == "answer"
    with pytest.raises(ValueError, match="unknown stop reason"):
        s.set_stop("tired")


def test_advance_step_stops_at_max_steps() -> None:
    """advance_step counts up to max_steps and refuses to pass it."""
    s = StateSchema(max_steps=2)
    s.advance_step()
    s.advance_step()
    assert s.current_step == 2
    with pytest.raises(StateExecutionError, match="max_steps=2"):
        s.advance_step()
    assert s.current_step == 2


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"current_step": 11}, "exceeds max_steps"),
        ({"max_steps": -1}, "max_steps"),
        ({"stop_reason": "nope"}, "not a StopReason"),
        ({"metadata": []}, "metadata"),
        ({"task": 3}, "task must be a string"),
    ],
)
def test_validate_names_each_problem(changes: dict[str, Any], message: str) -> None:
    """validate raises StateExecutionError with the failing invariant."""
    s = StateSchema()
    for key, value in changes.items():
        setattr(s, key, value)
    with pytest.raises(StateExecutionError, match=message):
        s.validate()


def test_round_trip_with_nested_dataclass() -> None:
    """to_dict → from_dict rebuilds nested dataclasses."""
    s = PlanState(task="t", plan=Plan(["a", "b"], 1), notes=["n"])
    back = PlanState.from_dict(s.to_dict())
    assert back == s and isinstance(back.plan, Plan)


def test_from_dict_strict_rejects_unknown_fields_lenient_drops_them() -> None:
    """strict=True (default) refuses unknown keys; strict=False ignores them."""
    payload = {**StateSchema(task="t").to_dict(), "extra": 1}
    with pytest.raises(ValueError, match="unknown field"):
        StateSchema.from_dict(payload)
    assert StateSchema.from_dict(payload, strict=False).task == "t"
    with pytest.raises(ValueError, match="needs a dict"):
        StateSchema.from_dict([1])  # type: ignore[arg-type]


@dataclass
class V3State(StateSchema):
    """A state at schema v3 with registered migrations."""

    MIGRATIONS: ClassVar[dict[int, Any]] = {
        1: lambda p: {**{k: v for k, v in p.items() if k != "name"}, "label": p.get("name", "")},
        2: lambda p: {**p, "label": p["label"].upper()},
    }
    schema_version: int = 3
    label: str = ""


def test_migrate_payload_applies_each_step_in_order() -> None:
    """v1 → v3 renames then upper-cases; from_dict migrates implicitly."""
    old = {"schema_version": 1, "task": "t", "name": "abc"}
    migrated = V3State.migrate_payload(old, 3)
    assert migrated["schema_version"] == 3 and migrated["label"] == "ABC"
    assert V3State.from_dict(old).label == "ABC"


def test_migrate_payload_refuses_downgrade_and_gaps() -> None:
    """No downgrade; a missing step is an error naming it."""
    with pytest.raises(ValueError, match="cannot downgrade"):
        V3State.migrate_payload({"schema_version": 3}, 1)
    with pytest.raises(ValueError, match="no migration from schema v1"):
        StateSchema.migrate_payload({"schema_version": 1}, 2)

"""qitos.engine.runtime to the letter: budget limits refused with the field and the value, the
smaller limit winning when a task narrows a budget, the base policy never pausing, and a paused
run's JSON form holding exactly its inspectable part.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a user relies on (the message for a bad limit, which limit a run obeys, what a trace keeps).
"""

from __future__ import annotations

from typing import Any

import pytest

from qitos import Action
from qitos.core.task import TaskBudget
from qitos.engine.runtime import (
    BOUNDARIES,
    LifecyclePolicy,
    RuntimeBudget,
    RuntimePhase,
    RuntimeSnapshot,
    RuntimeSnapshotContext,
)


def refused(message: str, **kwargs: Any) -> None:
    """``RuntimeBudget(**kwargs)`` raises a ValueError whose message is exactly ``message``."""
    with pytest.raises(ValueError) as info:
        RuntimeBudget(**kwargs)
    assert str(info.value) == message


def test_the_default_budget_is_ten_steps_without_time_or_token_limits() -> None:
    assert RuntimeBudget() == RuntimeBudget(10, None, None)


def test_budget_limits_accept_their_smallest_values() -> None:
    assert RuntimeBudget(max_steps=1, max_runtime_seconds=0.001, max_tokens=1) == RuntimeBudget(1, 0.001, 1)
    assert RuntimeBudget(max_runtime_seconds=5).max_runtime_seconds == 5  # an int number of seconds


@pytest.mark.parametrize("steps", [0, -1, 2.0, "3", None])
def test_max_steps_must_be_an_int_of_at_least_one(steps: Any) -> None:
    refused(f"RuntimeBudget.max_steps must be an int >= 1, got {steps!r}", max_steps=steps)


@pytest.mark.parametrize("seconds", [0, -0.5, "10"])
def test_max_runtime_seconds_must_be_positive(seconds: Any) -> None:
    refused(
        f"RuntimeBudget.max_runtime_seconds must be positive or None, got {seconds!r}",
        max_runtime_seconds=seconds,
    )


@pytest.mark.parametrize("tokens", [0, -5, 1.5, "100"])
def test_max_tokens_must_be_a_positive_int(tokens: Any) -> None:
    refused(f"RuntimeBudget.max_tokens must be a positive int or None, got {tokens!r}", max_tokens=tokens)


def test_a_task_budget_narrows_each_limit_and_the_smaller_wins() -> None:
    mine = RuntimeBudget(max_steps=10, max_runtime_seconds=60.0, max_tokens=None)
    assert mine.tightened(TaskBudget()) == mine
    assert mine.tightened(None) == mine  # a task without a budget changes nothing
    assert mine.tightened(
        TaskBudget(max_steps=3, max_runtime_seconds=120.0, max_tokens=500)
    ) == RuntimeBudget(3, 60.0, 500)
    assert mine.tightened(TaskBudget(max_steps=30, max_runtime_seconds=5.0)) == RuntimeBudget(10, 5.0, None)


def test_the_phases_and_boundaries_are_spelled_as_upstream_traces_spell_them() -> None:
    assert [p.value for p in RuntimePhase] == [
        "INIT",
        "OBSERVE",
        "DECIDE",
        "ACT",
        "REDUCE",
        "CRITIC",
        "CHECK_STOP",
        "END",
    ]
    assert RuntimePhase("ACT") is RuntimePhase.ACT and RuntimePhase.ACT == "ACT"
    assert BOUNDARIES == ("before_decide", "before_act")


def test_the_base_lifecycle_policy_never_pauses() -> None:
    policy = LifecyclePolicy()
    assert policy.policy_id == "qitos.lifecycle/never"
    for boundary in BOUNDARIES:
        context = RuntimeSnapshotContext("r", 0, boundary, None, None, (Action("rm"),))  # type: ignore[arg-type]
        assert policy.should_pause(context) is False


def test_a_snapshot_context_has_nothing_pending_by_default() -> None:
    context = RuntimeSnapshotContext("r", 2, "before_decide", {"x": 1})
    assert (context.pending_decision, context.pending_actions) == (None, ())


def test_a_snapshot_as_json_holds_its_inspectable_part_only() -> None:
    snapshot = RuntimeSnapshot(
        "r1", 3, "before_act", "qitos.approve", "approval", {"k": (1, 2)}, ("add",), [Action("add", {"a": 1})]
    )
    assert snapshot.run is None and snapshot.policy_index == 0
    data = snapshot.to_dict()
    (action,) = data.pop("pending_actions")
    assert data == {
        "run_id": "r1",
        "step_id": 3,
        "boundary": "before_act",
        "policy_id": "qitos.approve",
        "reason": "approval",
        "state": {"k": [1, 2]},
        "pending_decision": ["add"],
    }
    assert (action["name"], action["args"]) == ("add", {"a": 1})


def test_a_snapshot_keeps_the_live_run_out_of_its_repr_and_equality() -> None:
    one = RuntimeSnapshot("r", 0, "before_act", "p", "why", None, run=object())
    other = RuntimeSnapshot("r", 0, "before_act", "p", "why", None, run=object())
    assert one == other
    assert "run=" not in repr(one).replace("run_id=", "")
    assert one.pending_actions == [] and one.pending_actions is not other.pending_actions


def test_a_task_without_a_token_limit_keeps_the_runs_token_limit() -> None:
    mine = RuntimeBudget(max_steps=4, max_runtime_seconds=None, max_tokens=800)
    assert mine.tightened(TaskBudget()) == RuntimeBudget(4, None, 800)
    assert mine.tightened(TaskBudget(max_tokens=200)) == RuntimeBudget(4, None, 200)

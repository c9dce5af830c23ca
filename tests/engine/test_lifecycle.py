"""Lifecycle pause: policies asked at both boundaries, cooperative pause, resume to the same result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_agents import ScriptAgent, add_decision

from qitos import Decision, Engine
from qitos.engine.runtime import LifecyclePolicy, RuntimeSnapshot, RuntimeSnapshotContext
from qitos.trace.reader import TraceReader
from qitos.trace.writer import TraceWriter


def _script() -> list[Decision[Any]]:
    return [add_decision(1, 1), add_decision(2, 2), Decision.final("done")]


class AskLog(LifecyclePolicy):
    """Pauses where told, and logs every question."""

    policy_id = "test.pause"

    def __init__(self, pause_at: set[tuple[int, str]] | None = None, always: bool = False) -> None:
        self.pause_at = pause_at or set()
        self.always = always
        self.asked: list[tuple[int, str]] = []
        self.contexts: list[RuntimeSnapshotContext] = []

    def should_pause(self, context: RuntimeSnapshotContext) -> bool:
        self.asked.append((context.step_id, context.boundary))
        self.contexts.append(context)
        return self.always or (context.step_id, context.boundary) in self.pause_at


def _agent(policy: LifecyclePolicy) -> ScriptAgent:
    return ScriptAgent(_script(), extensions={"pauser": lambda: policy}, lifecycle=["pauser"])


def _comparable(result: Any) -> tuple[Any, ...]:
    phases = [
        (e.step_id, e.phase, e.payload.get("stage"))
        for e in result.events
        if not e.phase.startswith("lifecycle_")
    ]
    records = [r.to_dict() for r in result.records]
    for record in records:  # wall-clock latency is the only thing allowed to differ
        for invocation in record["tool_invocations"]:
            invocation.pop("latency_ms")
    return (result.state, records, result.step_count, result.stop_reason, phases)


def test_policy_is_asked_before_decide_and_before_act_each_step() -> None:
    """A policy that never pauses sees both boundaries of every step, with the pending decision."""
    policy = AskLog()
    result = Engine(_agent(policy)).run("t")
    assert result.status == "completed"
    assert policy.asked == [(s, b) for s in range(3) for b in ("before_decide", "before_act")]
    before_act = policy.contexts[1]
    assert before_act.pending_decision.mode == "act" and before_act.pending_actions[0].name == "add"
    assert policy.contexts[0].pending_decision is None and policy.contexts[0].run_id == result.run_id


def test_pause_before_act_stops_the_tool_and_resume_finishes_identically(tmp_path: Path) -> None:
    """Pause before acting at step 1: no tool ran; resume gives the unpaused result; trace says so."""
    baseline = Engine(ScriptAgent(_script())).run("t")
    policy = AskLog({(1, "before_act")})
    writer = TraceWriter(tmp_path, run_id="paused-run")
    engine = Engine(_agent(policy), trace_writer=writer)
    paused = engine.run("t")
    assert paused.status == "paused" and paused.state.seen == [2] and paused.step_count == 1
    snapshot = paused.snapshot
    assert isinstance(snapshot, RuntimeSnapshot)
    assert (snapshot.step_id, snapshot.boundary, snapshot.policy_id) == (1, "before_act", "test.pause")
    assert snapshot.pending_actions[0].args == {"a": 2, "b": 2}
    pause_event = paused.events[-1]
    assert pause_event.phase == "lifecycle_pause"
    assert pause_event.payload["pending_actions"] == [{"name": "add", "args": {"a": 2, "b": 2}}]
    assert (
        pause_event.payload["policy_id"] == "test.pause" and pause_event.payload["boundary"] == "before_act"
    )
    assert json.loads((tmp_path / "paused-run" / "manifest.json").read_text())["status"] == "paused"
    assert json.dumps(snapshot.to_dict())  # the inspectable part is JSON data

    asked_before = len(policy.asked)
    resumed = engine.resume(snapshot)
    assert policy.asked[asked_before] == (2, "before_decide")  # not asked again at (1, before_act)
    assert resumed.status == "completed" and resumed.run_id == paused.run_id
    assert _comparable(resumed) == _comparable(baseline)
    kinds = [e.phase for e in resumed.events]
    assert kinds.count("lifecycle_pause") == 1 and kinds.count("lifecycle_resume") == 1
    reader = TraceReader(tmp_path / "paused-run")
    assert reader.status == "completed" and len(reader) == len(resumed.events)
    assert reader.manifest["summary"]["final_result"] == "done"


def test_pause_before_decide_and_pause_everywhere() -> None:
    """A policy pausing at every boundary needs one resume per boundary and still ends identically."""
    baseline = Engine(ScriptAgent(_script())).run("t")
    policy = AskLog(always=True)
    engine = Engine(_agent(policy))
    result = engine.run("t")
    resumes = 0
    while result.status == "paused":
        assert result.snapshot.boundary in ("before_decide", "before_act")
        result = engine.resume(result.snapshot)
        resumes += 1
    assert resumes == 6
    assert _comparable(result) == _comparable(baseline)


def test_resume_rejects_foreign_or_stale_snapshots() -> None:
    """Only the pausing engine resumes, and only once per snapshot."""
    engine = Engine(_agent(AskLog({(0, "before_decide")})))
    paused = engine.run("t")
    other = Engine(ScriptAgent(_script()))
    with pytest.raises(ValueError, match="not paused by this Engine"):
        other.resume(paused.snapshot)
    engine.resume(paused.snapshot)
    with pytest.raises(ValueError, match="not paused at this snapshot"):
        engine.resume(paused.snapshot)
    with pytest.raises(TypeError, match="RuntimeSnapshot"):
        engine.resume({"step_id": 0})  # type: ignore[arg-type]


def test_paused_time_does_not_count_against_the_time_budget() -> None:
    """Wall time spent paused is not run time."""
    from qitos.engine.runtime import RuntimeBudget

    ticks = {"now": 0.0}
    engine = Engine(_agent(AskLog({(1, "before_decide")})), budget=RuntimeBudget(max_runtime_seconds=10))
    engine.clock = lambda: ticks["now"]
    paused = engine.run("t")
    ticks["now"] += 1000.0  # a long coffee break
    result = engine.resume(paused.snapshot)
    assert result.stop_reason == "final"


def test_a_failing_policy_is_an_unrecoverable_error() -> None:
    """A policy raising ends the run with a message naming the boundary."""

    class Broken(LifecyclePolicy):
        policy_id = "broken"

        def should_pause(self, context: RuntimeSnapshotContext) -> bool:
            raise RuntimeError("policy bug")

    agent = ScriptAgent(_script(), extensions={"b": Broken}, lifecycle=["b"])
    result = Engine(agent).run("t")
    assert result.stop_reason == "unrecoverable_error" and "policy bug" in result.error["message"]


def test_later_policies_are_asked_after_resuming_at_the_same_boundary() -> None:
    """Two policies pausing at the same boundary pause one after the other; neither twice."""
    first = AskLog({(0, "before_act")})
    first.policy_id = "first"
    second = AskLog({(0, "before_act")})
    second.policy_id = "second"
    agent = ScriptAgent(_script(), extensions={"a": lambda: first, "b": lambda: second}, lifecycle=["a", "b"])
    engine = Engine(agent)
    paused = engine.run("t")
    assert paused.snapshot.policy_id == "first" and second.asked == [(0, "before_decide")]
    paused = engine.resume(paused.snapshot)
    assert paused.status == "paused" and paused.snapshot.policy_id == "second"
    assert first.asked.count((0, "before_act")) == 1
    done = engine.resume(paused.snapshot)
    assert done.stop_reason == "final" and second.asked.count((0, "before_act")) == 1
    assert done.state.seen == [2, 4]

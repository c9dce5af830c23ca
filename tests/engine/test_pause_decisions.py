"""Acting on a pause: approve, deny and change the pending actions, and the approval policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engine_agents import ScriptAgent, add_decision

from qitos import Decision, Engine
from qitos.engine.approval import ApprovalPolicy, PauseDecision, parse_patterns
from qitos.trace.events import EventKind
from qitos.trace.payloads import LifecycleDecision, read_payload
from qitos.trace.reader import TraceReader
from qitos.trace.writer import TraceWriter


def _paused(tmp_path: Path | None = None, patterns: str = "add") -> tuple[Engine, Any, ScriptAgent]:
    """A run of two ``add`` steps and a final answer, paused by the approval policy before step 0 acts."""
    agent = ScriptAgent(
        [add_decision(1, 1), add_decision(2, 2), Decision.final("done")],
        extensions={"approve": lambda: ApprovalPolicy(patterns)},
        lifecycle=["approve"],
    )
    writer = TraceWriter(tmp_path, run_id="r") if tmp_path is not None else None
    engine = Engine(agent, trace_writer=writer)
    paused = engine.run("t")
    assert paused.status == "paused" and paused.snapshot.boundary == "before_act"
    return engine, paused, agent


def _decisions(result: Any) -> list[LifecycleDecision]:
    return [read_payload(e) for e in result.events if e.phase == EventKind.LIFECYCLE_DECISION]


def test_approve_runs_the_pending_action_and_records_the_decision() -> None:
    """``a``: the action runs as it was; the trace names who decided and which policy paused."""
    engine, paused, _ = _paused()
    result = engine.resume(paused.snapshot, decision=PauseDecision.approve())
    while result.status == "paused":  # the policy pauses before every add
        result = engine.resume(result.snapshot, decision=PauseDecision.approve())
    assert result.state.seen == [2, 4]
    first = _decisions(result)[0]
    assert (first.verdict, first.by, first.policy_id, first.step_id) == (
        "approved",
        "person",
        "qitos.approve",
        0,
    )
    assert first.actions == ({"name": "add", "args": {"a": 1, "b": 1}},) and first.changed_actions is None


def test_deny_runs_nothing_and_the_agent_observes_why(tmp_path: Path) -> None:
    """``d``: no tool call, the agent sees a denial with the reason, the run goes on to the next step."""
    engine, paused, _ = _paused(tmp_path)
    result = engine.resume(paused.snapshot, decision=PauseDecision.deny("adding is not allowed today"))
    assert result.status == "paused" and result.snapshot.step_id == 1  # went on, paused at the next add
    denial = result.state.seen[0]
    assert denial["status"] == "denied" and "adding is not allowed today" in denial["error"]
    step0 = [e for e in result.events if e.step_id == 0]
    assert not [e for e in step0 if e.phase in (EventKind.TOOL_CALL, EventKind.TOOL_RESULT)]
    (decision,) = _decisions(result)
    assert decision.verdict == "denied" and decision.reason == "adding is not allowed today"
    # The next model request would see it: the exchange log holds the denial as the step's tool result.
    log = engine.request_builder.exchange_log
    assert "adding is not allowed today" in str(log.exchanges[0].items[-1])
    on_disk = [e for e in TraceReader(tmp_path / "r").events() if e.phase == EventKind.LIFECYCLE_DECISION]
    assert len(on_disk) == 1 and on_disk[0].payload["verdict"] == "denied"


def test_change_runs_the_changed_action_and_records_both_argument_sets() -> None:
    """``c``: the changed arguments run; the trace keeps the original and the changed ones."""
    engine, paused, _ = _paused()
    result = engine.resume(paused.snapshot, decision=PauseDecision.change(0, {"a": 40, "b": 2}))
    assert result.state.seen == [42]
    call = next(e for e in result.events if e.phase == EventKind.TOOL_CALL)
    assert call.payload["args"] == {"a": 40, "b": 2}
    (decision,) = _decisions(result)
    assert decision.verdict == "changed"
    assert decision.actions == ({"name": "add", "args": {"a": 1, "b": 1}},)
    assert decision.changed_actions == ({"name": "add", "args": {"a": 40, "b": 2}},)
    assert result.records[0].actions[0].args == {"a": 40, "b": 2}  # reduce saw what ran


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"a": "forty", "b": 2}, "'a' must be integer, got string"),
        ({"a": 1}, "missing required argument 'b'"),
        ({"a": 1, "b": 2, "c": 3}, "unknown argument 'c'"),
        (["not", "an", "object"], "must be a JSON object"),
    ],
)
def test_an_invalid_change_is_refused_and_nothing_changes(args: Any, message: str) -> None:
    """A change that breaks the tool's schema is refused with the message; the run stays paused as it was."""
    engine, paused, _ = _paused()
    events_before = len(engine._run.events)
    with pytest.raises(ValueError, match=message):
        engine.resume(paused.snapshot, decision=PauseDecision.change(0, args))
    assert engine._run.status == "paused" and len(engine._run.events) == events_before
    result = engine.resume(paused.snapshot, decision=PauseDecision.approve())  # still resumable
    assert result.state.seen == [2]


def test_plain_resume_still_approves_without_a_decision_event() -> None:
    """``engine.resume(snapshot)`` keeps working as before: the action runs, no decision is recorded."""
    engine, paused, _ = _paused()
    result = engine.resume(paused.snapshot)
    assert result.state.seen == [2] and _decisions(result) == []


def test_deny_or_change_needs_a_pending_action() -> None:
    """A pause before deciding has nothing to deny."""

    class Always(ApprovalPolicy):
        def should_pause(self, context: Any) -> bool:
            return context.boundary == "before_decide"

    agent = ScriptAgent([Decision.final("x")], extensions={"p": lambda: Always("*")}, lifecycle=["p"])
    engine = Engine(agent)
    paused = engine.run("t")
    with pytest.raises(ValueError, match="no pending action"):
        engine.resume(paused.snapshot, decision=PauseDecision.deny("no"))


def test_approval_patterns() -> None:
    """Globs, comma-separated, or ``all``; nothing at all is refused."""
    assert parse_patterns("write_*, run") == ("write_*", "run")
    assert parse_patterns("all") == ("*",)
    with pytest.raises(ValueError, match="--approve needs"):
        parse_patterns(" , ")
    policy = ApprovalPolicy("write_*,rm")
    assert policy.matches("write_file") and policy.matches("rm") and not policy.matches("read_file")


def test_approval_policy_only_pauses_on_matching_tools() -> None:
    """Patterns that match no pending tool never pause the run."""
    agent = ScriptAgent(
        [add_decision(1, 1), Decision.final("done")],
        extensions={"approve": lambda: ApprovalPolicy("write_*")},
        lifecycle=["approve"],
    )
    assert Engine(agent).run("t").status == "completed"


def test_a_replay_rules_again_as_the_person_did(tmp_path: Path) -> None:
    """A recorded denial and a recorded change are made again when the run is replayed or forked,
    so the replay ends in the recorded state (the tool is never called while replaying)."""
    from qitos.engine.replay import Recording, fork_engine, replay_against
    from qitos.engine.serialize import state_dict

    engine, paused, _ = _paused(tmp_path)
    result = engine.resume(paused.snapshot, decision=PauseDecision.deny("not this one"))
    result = engine.resume(result.snapshot, decision=PauseDecision.change(0, {"a": 40, "b": 2}))
    assert result.status == "completed" and result.state.seen[1] == 42
    report = replay_against(
        tmp_path / "r", ScriptAgent([add_decision(1, 1), add_decision(2, 2), Decision.final("done")])
    )
    assert report.matches, report.divergence
    agent = ScriptAgent([add_decision(1, 1), add_decision(2, 2), Decision.final("done")])
    fork = Engine(agent)
    fork_engine(fork, Recording.load(tmp_path / "r"), 2)
    at_two = fork.run("t")
    assert at_two.status == "paused" and at_two.state.seen == result.state.seen  # the final step adds none
    assert state_dict(at_two.state)["current_step"] == 2
    assert [d.verdict for d in _decisions(at_two)] == ["denied", "changed"]

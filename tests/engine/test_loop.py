"""The Engine loop: phase order, records, stop reasons and budgets."""

from __future__ import annotations

from typing import Any

import pytest
from engine_agents import ScriptAgent, add_decision, phases

from qitos import Decision, Engine, StopReason
from qitos.engine.runtime import RuntimeBudget


def test_act_then_final_runs_every_phase_in_upstream_order() -> None:
    """Two steps: act (tool runs, result reduced) then final; events follow upstream's stages."""
    agent = ScriptAgent([add_decision(2, 3), Decision.final("five")])
    result = Engine(agent).run("add numbers")
    assert result.state.seen == [5]
    assert result.state.final_result == "five"
    assert result.state.stop_reason == StopReason.FINAL.value == result.stop_reason
    assert result.step_count == 2 and result.status == "completed"
    step0 = [(p, s) for step, p, s in phases(result) if step == 0]
    assert step0 == [
        ("INIT", None),
        ("OBSERVE", "start"),
        ("OBSERVE", "observation_ready"),
        ("DECIDE", "start"),
        ("DECIDE", "decision_ready"),
        ("ACT", "start"),
        ("tool_call", None),
        ("tool_result", None),
        ("ACT", "action_results"),
        ("REDUCE", "start"),
        ("REDUCE", "state_reduced"),
        ("CHECK_STOP", "start"),
        ("CHECK_STOP", "continue"),
    ]
    tail = [(p, s) for _, p, s in phases(result)][-4:]
    assert tail == [("CHECK_STOP", "start"), ("CHECK_STOP", "stop"), ("END", None), ("run_end", None)]
    record = result.records[0].to_dict()
    assert list(record)[:8] == [
        "step_id",
        "observation",
        "decision",
        "actions",
        "action_results",
        "tool_invocations",
        "critic_outputs",
        "state_diff",
    ]
    assert record["actions"] == [{"name": "add", "args": {"a": 2, "b": 3}}]
    assert record["action_results"] == [5]
    assert record["tool_invocations"][0]["status"] == "success"
    assert record["state_diff"]["seen"] == {"before": [], "after": [5]}
    run_end = result.events[-1]
    assert run_end.payload["status"] == "completed" and run_end.payload["stop_reason"] == "final"


def test_default_state_cap_stops_with_max_steps() -> None:
    """An agent that never finishes stops at state.max_steps (10 by default) with max_steps."""
    result = Engine(ScriptAgent([add_decision()])).run("loop")
    assert result.step_count == 10
    assert result.state.current_step == 10
    assert result.state.stop_reason == "max_steps"


def test_runtime_budget_steps_stops_with_budget_steps() -> None:
    """A smaller RuntimeBudget.max_steps than the state cap ends the run with budget_steps."""
    result = Engine(ScriptAgent([add_decision()]), budget=RuntimeBudget(max_steps=3)).run("loop")
    assert result.step_count == 3
    assert result.state.stop_reason == "budget_steps"


def test_runtime_budget_defaults() -> None:
    """RuntimeBudget() is 10 steps, no time or token limit; bad values are rejected."""
    assert RuntimeBudget() == RuntimeBudget(max_steps=10, max_runtime_seconds=None, max_tokens=None)
    with pytest.raises(ValueError, match="max_steps"):
        RuntimeBudget(max_steps=0)
    with pytest.raises(ValueError, match="max_tokens"):
        RuntimeBudget(max_tokens=-1)


def test_time_budget_stops_with_budget_time() -> None:
    """An injected clock that advances 1 s per reading passes a 2.5 s budget quickly."""
    agent = ScriptAgent([add_decision()])
    engine = Engine(agent, budget=RuntimeBudget(max_steps=50, max_runtime_seconds=2.5))
    ticks = iter(range(10_000))
    engine.clock = lambda: float(next(ticks))
    result = engine.run("slow")
    assert result.state.stop_reason == "budget_time"
    assert result.step_count < 50


def test_agent_should_stop_gives_agent_condition() -> None:
    """should_stop returning True ends the run with agent_condition."""

    class Stopper(ScriptAgent):
        def should_stop(self, state: Any) -> bool:
            return len(state.seen) >= 2

    result = Engine(Stopper([add_decision()])).run("two")
    assert result.state.stop_reason == "agent_condition"
    assert result.step_count == 2


def test_final_result_set_by_reduce_stops_with_final() -> None:
    """FinalResultCriteria (the default) stops with final (upstream's reason) when reduce sets
    final_result; a criterion saying stop without a reason stops with success."""

    class Finisher(ScriptAgent):
        def reduce(self, state: Any, observation: Any, decision: Any) -> Any:
            state = super().reduce(state, observation, decision)
            if state.seen:
                state.final_result = f"sum={state.seen[-1]}"
            return state

    result = Engine(Finisher([add_decision(4, 4)])).run("sum")
    assert result.state.stop_reason == "final"
    assert result.state.final_result == "sum=8"

    class Done:
        def should_stop(self, state: Any, step_id: int, runtime_info: Any) -> bool:
            return bool(state.seen)

    result = Engine(ScriptAgent([add_decision(4, 4)]), stop_criteria=[Done()]).run("sum")
    assert result.state.stop_reason == "success" and result.step_count == 1


def test_wait_decision_skips_actions() -> None:
    """A wait decision runs no tool."""
    result = Engine(ScriptAgent([Decision.wait("thinking"), Decision.final("ok")])).run("w")
    assert result.records[0].action_results == []
    assert not any(e.phase == "tool_call" for e in result.events)
    assert result.state.stop_reason == "final"


def test_engine_rejects_non_agent_and_bad_task() -> None:
    """Clear TypeErrors for a wrong agent or task type."""
    with pytest.raises(TypeError, match="AgentModule"):
        Engine(object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="task must be"):
        Engine(ScriptAgent([Decision.final("x")])).run(42)  # type: ignore[arg-type]


def test_plain_dict_state_runs_and_reports_its_stop_reason() -> None:
    """A state without StateSchema's fields still runs; the result carries the stop reason."""
    from qitos import AgentModule

    class DictAgent(AgentModule):
        def init_state(self, task: str, **kwargs: Any) -> dict[str, Any]:
            return {"task": task, "n": 0}

        def decide(self, state: dict[str, Any], observation: Any) -> Decision[Any]:
            return Decision.wait() if state["n"] < 2 else Decision.final("ok")

        def reduce(self, state: dict[str, Any], observation: Any, decision: Any) -> dict[str, Any]:
            state["n"] += 1
            return state

    result = Engine(DictAgent()).run("x")
    assert result.stop_reason == "final" and result.step_count == 3 and result.state["n"] == 3
    assert result.records[0].state_diff == {"n": {"before": 0, "after": 1}}

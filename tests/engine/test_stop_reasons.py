"""Every StopReason is reachable and written to state.stop_reason."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from engine_agents import ScriptAgent, add_decision

from qitos import (
    Action,
    Decision,
    Engine,
    EnvSpec,
    StopReason,
    Task,
    TaskBudget,
    TaskResource,
    ToolRegistry,
    tool,
)
from qitos.engine.policies import StagnationCriteria, StateValidationGate
from qitos.kit.env import HostEnv


def test_task_validation_failure_stops_before_any_step(tmp_path: Path) -> None:
    """A Task whose required resource is missing never runs a step."""
    task = Task(id="t", objective="o", resources=[TaskResource(kind="file", path="missing.txt")])
    agent = ScriptAgent([add_decision()])
    result = Engine(agent, env=HostEnv(tmp_path)).run(task)
    assert result.state.stop_reason == StopReason.TASK_VALIDATION_FAILED.value
    assert result.step_count == 0 and agent.calls == 0 and result.status == "failed"
    error = next(e for e in result.events if e.phase == "error")
    assert "missing.txt" in error.payload["message"] and error.payload["details"]["issues"]
    assert result.task_result is not None and result.task_result.success is False


def test_env_capability_mismatch_from_env_spec_and_required_ops(tmp_path: Path) -> None:
    """Required capabilities, tools or tool ops the env lacks stop the run before a step."""
    task = Task(id="t", objective="o", env_spec=EnvSpec(type="host", capabilities=["process"]))
    result = Engine(ScriptAgent([add_decision()]), env=HostEnv(tmp_path)).run(task)
    assert result.state.stop_reason == "env_capability_mismatch"
    assert "lacks capabilities ['process']" in result.error["message"]

    task = Task(id="t", objective="o", env_spec=EnvSpec(type="host", required_tools=["shell"]))
    result = Engine(ScriptAgent([add_decision()]), env=HostEnv(tmp_path)).run(task)
    assert "required tools not registered: ['shell']" in result.error["message"]

    @tool(name="run_command", required_ops=["process"])
    def run_command(command: str) -> str:
        return command

    agent = ScriptAgent([add_decision()], tool_registry=ToolRegistry().register(run_command))
    result = Engine(agent).run(Task(id="t", objective="o"))
    assert result.state.stop_reason == "env_capability_mismatch" and "run_command" in result.error["message"]
    ok = Engine(agent, env=HostEnv(tmp_path, allow_commands=True), budget=None).run(
        Task(id="t", objective="o", budget=TaskBudget(max_steps=1))
    )
    assert ok.state.stop_reason == "budget_steps"


def test_task_budget_tightens_runtime_budget_and_task_result() -> None:
    """TaskBudget.max_steps caps the run (budget_steps: it narrows the RuntimeBudget); the TaskResult
    reports the outcome."""
    task = Task(id="t9", objective="loop", budget=TaskBudget(max_steps=2), success_criteria=["sum is 3"])
    result = Engine(ScriptAgent([add_decision()])).run(task)
    assert result.step_count == 2 and result.state.stop_reason == "budget_steps"
    tr = result.task_result
    assert tr.task_id == "t9" and tr.success is False and tr.metrics["steps"] == 2
    assert tr.metadata == {"unevaluated_criteria": ["sum is 3"]}
    done = Engine(ScriptAgent([Decision.final("ok")])).run(Task(id="t", objective="o"))
    assert done.task_result.success is True and done.task_result.final_result == "ok"


def test_stagnation() -> None:
    """StagnationCriteria stops a run whose state stops changing."""
    result = Engine(ScriptAgent([Decision.wait()]), stop_criteria=[StagnationCriteria(window=2)]).run("idle")
    assert result.state.stop_reason == "stagnation" and result.step_count == 3


def test_env_terminal(tmp_path: Path) -> None:
    """An env reporting terminal ends the run with env_terminal."""
    agent = ScriptAgent([Decision.act([Action("finish", {"summary": "s"})])], tool_registry=ToolRegistry())
    result = Engine(agent, env=HostEnv(tmp_path)).run("finish")
    assert result.state.stop_reason == "env_terminal" and result.step_count == 1


def test_cancel_request_stops_immediately_and_trace_says_stopped(tmp_path: Path) -> None:
    """request_cancel from another thread ends the run with cancelled_immediate; manifest status stopped."""
    from qitos.trace.reader import TraceReader
    from qitos.trace.writer import TraceWriter

    started = threading.Event()
    release = threading.Event()

    @tool(name="block")
    def block() -> str:
        started.set()
        release.wait(5)
        return "done"

    agent = ScriptAgent(
        [Decision.act([Action("block"), Action("block")])], tool_registry=ToolRegistry().register(block)
    )
    writer = TraceWriter(tmp_path, run_id="cancel-run")
    engine = Engine(agent, trace_writer=writer)
    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", engine.run("block")))
    thread.start()
    assert started.wait(5)
    engine.request_cancel()
    release.set()
    thread.join(5)
    result = box["r"]
    assert result.state.stop_reason == "cancelled_immediate" and result.status == "stopped"
    assert len(result.state.seen) == 0  # the step never reached reduce
    assert [e.phase for e in result.events].count("tool_call") == 1  # the second call never started
    reader = TraceReader(tmp_path / "cancel-run")
    assert reader.manifest["status"] == "stopped"
    assert reader.manifest["summary"]["stop_reason"] == "cancelled_immediate"


def test_validation_gate_failure_is_unrecoverable() -> None:
    """A reduce producing an invalid state fails at the gate; a custom check can fail too."""

    class Breaker(ScriptAgent):
        def reduce(self, state: Any, observation: Any, decision: Any) -> Any:
            state.current_step = 99
            return state

    result = Engine(Breaker([add_decision()])).run("t")
    assert result.state.stop_reason == "unrecoverable_error" and result.error["category"] == "state"
    gate = StateValidationGate(checks=[lambda s: "too many" if len(s.seen) > 1 else None])
    result = Engine(ScriptAgent([add_decision()]), validation_gate=gate).run("t")
    assert result.step_count == 2 and "too many" in result.error["message"]
    assert result.records[1].errors[0]["message"] == result.error["message"]
    off = Engine(Breaker([add_decision()]), validation_gate=StateValidationGate(mode="off")).run("t")
    assert off.state.stop_reason == "max_steps"


def test_agent_exceptions_are_reported_not_raised() -> None:
    """An exception in agent code ends the run with unrecoverable_error and names the exception."""

    class Crashy(ScriptAgent):
        def reduce(self, state: Any, observation: Any, decision: Any) -> Any:
            raise KeyError("missing")

    result = Engine(Crashy([add_decision()])).run("t")
    assert result.state.stop_reason == "unrecoverable_error"
    assert "REDUCE failed: KeyError" in result.error["message"] and result.status == "failed"


def test_every_stop_reason_is_covered_by_this_suite() -> None:
    """Guard: the suite names every StopReason value (success/final/budget ones live in test_loop)."""
    text = "".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    missing = [r.value for r in StopReason if f'"{r.value}"' not in text and r.name not in text]
    assert missing == []


def test_malformed_action_dict_from_decide_is_reported() -> None:
    """A dict action without a name ends the run with a clear error instead of raising."""
    result = Engine(ScriptAgent([Decision.act([{"args": {"a": 1}}])])).run("t")
    assert result.stop_reason == "unrecoverable_error"
    assert "missing required field 'name'" in result.error["message"]

"""Tool calls inside the loop: timeouts abandon slow tools, retries, errors as results, the event sink."""

from __future__ import annotations

import threading
from typing import Any

from engine_agents import ScriptAgent

from qitos import Action, Decision, Engine, ToolRegistry, tool
from qitos.trace import sink


def _agent(registry: ToolRegistry, *actions: Action) -> ScriptAgent:
    return ScriptAgent([Decision.act(list(actions)), Decision.final("done")], tool_registry=registry)


def test_slow_tool_is_abandoned_at_its_timeout() -> None:
    """A tool sleeping past timeout_s yields a ToolExecutionError result quickly; the run goes on."""
    release = threading.Event()
    finished = threading.Event()

    @tool(name="slow", timeout_s=0.1)
    def slow() -> str:
        release.wait(30)
        finished.set()
        return "late"

    result = Engine(_agent(ToolRegistry().register(slow), Action("slow"))).run("t")
    # The tool is still blocked on `release` (set only now): the run went on without waiting for it.
    assert not finished.is_set()
    release.set()
    (outcome,) = result.state.seen
    assert outcome["status"] == "error" and "timed out after 0.1s" in outcome["error"]
    tool_result = next(e for e in result.events if e.phase == "tool_result")
    assert tool_result.ok is False and tool_result.payload["attempts"] == 1
    error = next(e for e in result.events if e.phase == "error")
    assert error.payload["category"] == "tool" and error.payload["details"]["timed_out"] is True
    assert result.state.stop_reason == "final"


def test_action_timeout_overrides_tool_default() -> None:
    """Action.timeout_s applies to a tool without its own timeout."""
    release = threading.Event()

    def wait() -> str:
        """Wait."""
        release.wait(5)
        return "late"

    result = Engine(_agent(ToolRegistry().register(wait), Action("wait", timeout_s=0.05))).run("t")
    release.set()
    assert "timed out after 0.05s" in result.state.seen[0]["error"]


def test_failing_tool_is_retried_up_to_max_retries() -> None:
    """A tool failing twice then succeeding, with max_retries=2, returns its value after 3 attempts."""
    attempts: list[int] = []

    @tool(name="flaky", max_retries=2)
    def flaky() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return "ok"

    result = Engine(_agent(ToolRegistry().register(flaky), Action("flaky"))).run("t")
    assert result.state.seen == ["ok"]
    assert result.records[0].tool_invocations[0]["attempts"] == 3


def test_retries_exhausted_and_non_idempotent_actions_are_not_retried() -> None:
    """Retries stop at the limit; an action marked non-idempotent runs once."""
    attempts: list[int] = []

    @tool(name="broken", max_retries=1)
    def broken() -> str:
        attempts.append(1)
        raise ValueError("nope")

    result = Engine(_agent(ToolRegistry().register(broken), Action("broken"))).run("t")
    assert len(attempts) == 2 and "ValueError: nope" in result.state.seen[0]["error"]
    attempts.clear()
    Engine(_agent(ToolRegistry().register(broken), Action("broken", idempotent=False))).run("t")
    assert len(attempts) == 1


def test_unknown_tool_is_an_error_result() -> None:
    """An action naming no registered tool becomes an error result naming the known tools."""
    result = Engine(_agent(ToolRegistry(), Action("ghost"))).run("t")
    assert "unknown tool 'ghost'" in result.state.seen[0]["error"]


def test_sink_events_from_tool_threads_reach_the_run() -> None:
    """sink.emit inside a timed tool (its own thread) lands in the run's events, in order."""

    @tool(name="remember", timeout_s=2)
    def remember(text: str) -> str:
        sink.emit(
            "memory_append", {"record_id": "r1", "role": "user", "step_id": 0, "namespace": "n", "chars": 4}
        )
        return text

    @tool(name="inline")
    def inline() -> bool:
        return sink.emit("skill_publish", {"name": "s", "version": 1, "namespace": "n", "description": ""})

    result = Engine(
        _agent(
            ToolRegistry().register(remember).register(inline),
            Action("remember", {"text": "x"}),
            Action("inline"),
        )
    ).run("t")
    kinds = [
        e.phase
        for e in result.events
        if e.phase in ("tool_call", "memory_append", "tool_result", "skill_publish")
    ]
    assert kinds == ["tool_call", "memory_append", "tool_result", "tool_call", "skill_publish", "tool_result"]
    assert result.state.seen == ["x", True]
    assert sink.emit("memory_append", {}) is False  # outside a run nothing is recorded


def test_actions_without_a_registry_tool_go_to_the_env(tmp_path: Any) -> None:
    """With an env, an action that is no registered tool is applied by env.step."""
    from qitos.kit.env import HostEnv

    env = HostEnv(tmp_path)
    agent = _agent(ToolRegistry(), Action("write", {"path": "n.txt", "content": "hi"}))
    result = Engine(agent, env=env).run("t")
    assert (tmp_path / "n.txt").read_text() == "hi"
    assert any(e.phase == "ACT" and e.payload.get("stage") == "env_step" for e in result.events)
    assert result.records[0].tool_invocations[0]["source"] == "env"

"""Hooks at every phase, the event tap, and the trace files a run writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_agents import ScriptAgent, add_decision

from qitos import Decision, Engine
from qitos.engine.hooks import EngineHook, HookContext, hook_method
from qitos.kit.parser import JsonDecisionParser
from qitos.models.scripted import ScriptedModel
from qitos.trace.reader import TraceReader
from qitos.trace.writer import TraceWriter


class Recorder(EngineHook):
    """Records every hook call and event."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, int]] = []
        self.events: list[str] = []

    def _rec(self, name: str, ctx: HookContext) -> None:
        self.calls.append((name, ctx.phase, ctx.step_id))

    def on_run_start(self, task: str, state: Any, engine: Any) -> None:
        self.calls.append(("run_start", "INIT", 0))

    def on_before_step(self, ctx: HookContext, engine: Any) -> None:
        self._rec("step_start", ctx)

    def on_after_step(self, ctx: HookContext, engine: Any) -> None:
        self._rec("step_end", ctx)

    def on_run_end(self, result: Any, engine: Any) -> None:
        self.calls.append(("run_end", "END", result.step_count))

    def on_event(self, event: Any) -> None:
        self.events.append(event.phase)


# Upstream's per-phase hooks, each recorded as ("before"|"after", PHASE).
for _phase in ("decide", "act", "reduce", "critic", "check_stop"):
    for _when in ("before", "after"):

        def _hook(self: Recorder, ctx: HookContext, engine: Any, _when: str = _when) -> None:
            self._rec(_when, ctx)

        setattr(Recorder, f"on_{_when}_{_phase}", _hook)


def test_hooks_are_called_at_each_phase_and_see_every_event() -> None:
    """Before/after each phase, step start/end, run start/end; on_event mirrors result.events."""
    hook = Recorder()
    result = Engine(ScriptAgent([add_decision(), Decision.final("x")]), hooks=[hook]).run("t")
    step0 = [(n, p) for n, p, s in hook.calls if s == 0]
    assert step0[:2] == [("run_start", "INIT"), ("step_start", "OBSERVE")]
    phases_seen = [p for n, p in step0 if n == "before"]
    assert phases_seen == ["DECIDE", "ACT", "REDUCE", "CHECK_STOP"]
    assert [p for n, p in step0 if n == "after"] == phases_seen
    assert hook.calls[-1][0] == "run_end"
    assert hook.events == [e.phase for e in result.events]


def test_a_hook_overriding_one_method_gets_each_of_its_calls() -> None:
    """Only the overridden methods count (EngineHook's no-ops are skipped): a hook with just
    ``on_step_end`` (the second method of its point) or just ``on_after_check_stop`` is still
    called once per step, with that step's record and context."""

    class StepEnds(EngineHook):
        def __init__(self) -> None:
            self.records: list[Any] = []

        def on_step_end(self, record: Any, state: Any, engine: Any) -> None:
            self.records.append(record)

    class StopChecks(EngineHook):
        def __init__(self) -> None:
            self.steps: list[tuple[int, str]] = []

        def on_after_check_stop(self, ctx: HookContext, engine: Any) -> None:
            self.steps.append((ctx.step_id, ctx.phase))

    ends, stops = StepEnds(), StopChecks()
    result = Engine(ScriptAgent([add_decision(), Decision.final("x")]), hooks=[ends, stops]).run("t")
    assert [r.step_id for r in ends.records] == [r.step_id for r in result.records] == [0, 1]
    assert stops.steps == [(0, "CHECK_STOP"), (1, "CHECK_STOP")]


def test_hook_method_skips_the_base_no_ops_only() -> None:
    """An inherited no-op is nothing to call; an override, a duck-typed hook's function and a
    callable set on the instance are called; a missing method is None."""

    class One(EngineHook):
        def on_before_act(self, ctx: HookContext, engine: Any) -> None:
            """Overridden."""

    class Duck:
        def on_before_act(self, ctx: HookContext, engine: Any) -> None:
            """Upstream's hooks need not subclass EngineHook."""

    one = One()
    assert hook_method(one, "on_before_decide") is None
    assert hook_method(one, "on_event") is None
    assert hook_method(one, "on_before_act") == one.on_before_act
    assert hook_method(Duck(), "on_before_act") is not None
    assert hook_method(Duck(), "on_before_decide") is None
    one.on_before_decide = lambda ctx, engine: None  # type: ignore[method-assign]
    assert hook_method(one, "on_before_decide") is one.on_before_decide


def test_register_unregister_clear_and_render_hooks() -> None:
    """Hooks can be added and removed by identity; render_hooks are merged into hooks."""
    a, b, c = Recorder(), Recorder(), Recorder()
    engine = Engine(ScriptAgent([Decision.final("x")]), hooks=[a], render_hooks=[c])
    assert engine.hooks == [a, c]
    engine.register_hook(b)
    engine.unregister_hook(a)
    assert engine.hooks == [c, b]
    with pytest.raises(ValueError, match="not registered"):
        engine.unregister_hook(a)
    engine.run("t")
    assert a.events == [] and b.events and c.events
    engine.clear_hooks()
    assert engine.hooks == []


def test_a_failing_hook_is_reported_and_the_run_continues() -> None:
    """A hook raising in a phase becomes an error event; a failing on_event is kept in hook_errors."""

    class Bad(EngineHook):
        def on_before_act(self, ctx: HookContext, engine: Any) -> None:
            raise RuntimeError("hook bug")

        def on_event(self, event: Any) -> None:
            if event.phase == "run_end":
                raise ValueError("tap bug")

    engine = Engine(ScriptAgent([add_decision(), Decision.final("x")]), hooks=[Bad()])
    with pytest.warns(RuntimeWarning, match="tap bug"):
        result = engine.run("t")
    assert result.state.stop_reason == "final"
    errors = [e.payload["message"] for e in result.events if e.phase == "error"]
    assert errors == ["Bad.on_before_act failed: RuntimeError: hook bug"] * 2  # ACT of both steps
    assert any("tap bug" in m for m in engine.hook_errors)


def test_trace_files_match_upstream_layout(tmp_path: Path) -> None:
    """events.jsonl mirrors result.events; steps.jsonl has upstream fields; manifest completed."""
    model = ScriptedModel(
        ['{"action": {"name": "add", "args": {"a": 1, "b": 2}}}', '{"final": "3"}'], model_id="m1"
    )
    clock_values = iter(f"2026-01-01T00:00:{i:02d}+00:00" for i in range(100))
    writer = TraceWriter(tmp_path, run_id="r1", clock=lambda: next(clock_values))
    agent = ScriptAgent(None, llm=model, model_parser=JsonDecisionParser())
    result = Engine(agent, trace_writer=writer).run("trace me")
    reader = TraceReader(tmp_path / "r1")
    assert len(reader) == len(result.events)
    assert [e.phase for e in reader.events()] == [e.phase for e in result.events]
    assert all(e.run_id == "r1" for e in result.events)
    # Event timestamps come from the writer's injected clock (it also stamps manifest updates).
    assert all(e.ts.startswith("2026-01-01T00:00:") for e in result.events)
    assert result.events == sorted(result.events, key=lambda e: e.ts)
    steps = reader.steps()
    assert [s["step_id"] for s in steps] == [0, 1]
    assert set(steps[0]) >= {
        "observation",
        "decision",
        "actions",
        "action_results",
        "tool_invocations",
        "critic_outputs",
        "state_diff",
    }
    manifest = reader.manifest
    assert manifest["status"] == "completed" and manifest["model_id"] == "m1"
    assert manifest["summary"]["stop_reason"] == "final" and manifest["summary"]["final_result"] == "3"
    assert manifest["summary"]["token_usage"] == result.token_usage > 0
    assert manifest["step_count"] == 2


def test_failed_run_manifest_reports_failure(tmp_path: Path) -> None:
    """An unrecoverable error finalises the trace as failed with a failure report."""
    writer = TraceWriter(tmp_path, run_id="bad")
    result = Engine(ScriptAgent(None), trace_writer=writer).run("no llm")
    manifest = json.loads((tmp_path / "bad" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and result.status == "failed"
    assert manifest["summary"]["failure_report"]["failures"][0]["message"].startswith(
        "agent.decide returned None"
    )


def test_agent_run_convenience(tmp_path: Path) -> None:
    """AgentModule.run returns the final result, or the EngineResult; trace=True writes a run dir."""
    agent = ScriptAgent([add_decision(), Decision.final("fin")])
    assert agent.run("t") == "fin"
    agent = ScriptAgent([add_decision(), Decision.final("fin")])
    result = agent.run(
        "t", return_state=True, trace=True, trace_logdir=str(tmp_path), trace_prefix="demo", max_steps=5
    )
    assert result.state.max_steps == 5
    (run_dir,) = tmp_path.iterdir()
    assert run_dir.name.startswith("demo_") and (run_dir / "events.jsonl").is_file()
    capped = ScriptAgent([add_decision()]).run("t", return_state=True, max_steps=3)
    assert capped.step_count == 3
    with pytest.raises(TypeError, match="trace must be"):
        ScriptAgent([add_decision()]).run("t", trace="yes")


def test_workspace_builds_a_host_env(tmp_path: Path) -> None:
    """run(workspace=...) gives tools a HostEnv confined to that root."""
    from qitos import Action, ToolRegistry, tool

    @tool(name="save")
    def save(path: str, text: str, runtime_context: dict[str, Any] | None = None) -> int:
        return runtime_context["env"].write_text(path, text)

    agent = ScriptAgent(
        [
            Decision.act(
                [
                    Action("save", {"path": "a.txt", "text": "hi"}),
                    Action("save", {"path": "../x", "text": "no"}),
                ]
            ),
            Decision.final("ok"),
        ],
        tool_registry=ToolRegistry().register(save),
    )
    result = agent.run("save", return_state=True, workspace=str(tmp_path / "ws"))
    assert (tmp_path / "ws" / "a.txt").read_text() == "hi"
    assert result.state.seen[0] == 2 and "leaves the workspace root" in result.state.seen[1]["error"]
    assert not (tmp_path / "x").exists()


def test_render_hook_prints_a_line_per_step(capsys: pytest.CaptureFixture[str]) -> None:
    """render=True adds the console render hook with the chosen theme."""
    ScriptAgent([add_decision(), Decision.final("fin")]).run("t", render=True, theme="plain")
    out = capsys.readouterr().out
    assert "# 0 act add" in out and "end completed final" in out
    with pytest.raises(ValueError, match="unknown render theme"):
        ScriptAgent([add_decision()]).run("t", render=True, theme="neon")


def test_an_escaping_exception_still_finalises_the_trace(tmp_path: Path) -> None:
    """A KeyboardInterrupt inside agent code propagates, and the manifest still ends as stopped."""

    class Interrupted(ScriptAgent):
        def reduce(self, state: Any, observation: Any, decision: Any) -> Any:
            raise KeyboardInterrupt

    writer = TraceWriter(tmp_path, run_id="ctrl-c")
    with pytest.raises(KeyboardInterrupt):
        Engine(Interrupted([add_decision()]), trace_writer=writer).run("t")
    reader = TraceReader(tmp_path / "ctrl-c")
    assert reader.manifest["status"] == "stopped"
    assert reader.manifest["summary"]["stop_reason"] == "cancelled_immediate"
    assert [e.phase for e in reader.events()][-1] == "run_end"


def test_manifest_lists_every_failure_and_the_task_result(tmp_path: Path) -> None:
    """Recovered errors are in the failure report too; a Task run's result is in the summary."""
    from qitos import Task

    model = ScriptedModel(["junk", '{"final": "ok"}'])
    writer = TraceWriter(tmp_path, run_id="fr")
    agent = ScriptAgent(None, llm=model, model_parser=JsonDecisionParser())
    Engine(agent, trace_writer=writer).run(Task(id="t7", objective="o"))
    summary = json.loads((tmp_path / "fr" / "manifest.json").read_text())["summary"]
    report = summary["failure_report"]
    assert report["failure_count"] == 1 and report["failures"][0]["category"] == "parse"
    assert summary["task_result"]["task_id"] == "t7" and summary["task_result"]["success"] is True


def test_run_forwards_engine_options_and_build_engine() -> None:
    """run() hands critics, stop criteria, parser, search and engine_kwargs to the Engine it builds."""
    from qitos.engine.policies import RecoveryPolicy, StagnationCriteria
    from qitos.engine.runtime import RuntimeBudget

    class StopAtOnce:
        def evaluate(self, state: Any, decision: Any, results: list[Any]) -> str:
            return "stop"

    agent = ScriptAgent([add_decision()])
    result = agent.run("t", return_state=True, critics=[StopAtOnce()])
    assert result.stop_reason == "critic_stop"
    result = ScriptAgent([Decision.wait()]).run(
        "t",
        return_state=True,
        stop_criteria=[StagnationCriteria(window=1)],
        engine_kwargs={"budget": RuntimeBudget(5)},
    )
    assert result.stop_reason == "stagnation" and result.step_count == 2
    engine = ScriptAgent([Decision.final("x")]).build_engine(
        recovery_policy=RecoveryPolicy(max_retries_per_step=0)
    )
    assert isinstance(engine, Engine) and engine.recovery_policy.max_retries_per_step == 0
    assert engine.run("t").final_result == "x"


def test_a_step_cut_short_is_in_steps_jsonl(tmp_path: Path) -> None:
    """A run failing inside a step still writes that step (with its errors) to steps.jsonl."""

    class Crashy(ScriptAgent):
        def reduce(self, state: Any, observation: Any, decision: Any) -> Any:
            raise ValueError("reduce broke")

    writer = TraceWriter(tmp_path, run_id="cut")
    result = Engine(Crashy([add_decision(2, 2)]), trace_writer=writer).run("t")
    steps = TraceReader(tmp_path / "cut").steps()
    assert len(steps) == 1 == result.step_count
    assert steps[0]["action_results"] == [4]
    assert "REDUCE failed: ValueError: reduce broke" in steps[0]["errors"][0]["message"]

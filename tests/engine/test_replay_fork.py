"""Fork and deterministic replay: recorded responses and results put back, checked step by step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qitos import Action, AgentModule, Decision, StateSchema, ToolRegistry, tool
from qitos.engine.hooks import EngineHook
from qitos.engine.replay import Recording, ReplayError, fork_engine, replay_against
from qitos.engine.serialize import state_dict
from qitos.kit.parser.json_parser import JsonDecisionParser
from qitos.models.base import Model, ModelResponse
from qitos.models.scripted import ScriptedModel
from qitos.trace.writer import TraceWriter

TOOL_CALLS: list[dict[str, Any]] = []  # every real call of the held-back agent's tool


@tool(name="note", description="Write a note; returns how many notes exist.")
def note(text: str) -> dict[str, Any]:
    """Write a note (a side effect the replay must not repeat)."""
    TOOL_CALLS.append({"text": text})
    return {"count": len(TOOL_CALLS), "text": text.upper()}


class CountingModel(Model):
    """A scripted model that counts the calls it really answered."""

    def __init__(self, replies: list[str]) -> None:
        self.inner = ScriptedModel(replies, model_id="counting")
        self.model_id = "counting"
        self.calls = 0

    def complete(self, messages: Any, *, tools: Any = None) -> ModelResponse:
        self.calls += 1
        return self.inner.complete(messages, tools=tools)

    def fast_forward(self, calls: int) -> None:
        self.inner.fast_forward(calls)


class NoteState(StateSchema):
    """Keeps every tool result."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.results: list[Any] = []


def _replies(n: int) -> list[str]:
    steps = [
        json.dumps({"thought": f"note {i}", "action": {"name": "note", "args": {"text": f"n{i}"}}})
        for i in range(n)
    ]
    return [*steps, json.dumps({"thought": "done", "final": "wrote notes"})]


class NoteAgent(AgentModule):
    """The held-back agent: asks its model every step, writes notes, keeps the results."""

    def __init__(self, replies: list[str], *, skip_text: str | None = None, stop_after: int = 99) -> None:
        super().__init__(
            tool_registry=ToolRegistry().register(note),
            llm=CountingModel(replies),
            model_parser=JsonDecisionParser(),
        )
        self.skip_text = skip_text  # a "new version" that rewrites one note
        self.stop_after = stop_after  # a "new version" that stops early

    def should_stop(self, state: NoteState) -> bool:
        return len(state.results) >= self.stop_after

    def init_state(self, task: str, **kwargs: Any) -> NoteState:
        return NoteState(task=task, max_steps=30)

    def prepare(self, state: NoteState) -> str:
        return f"{state.task}; results so far: {state.results}"

    def decide(self, state: NoteState, observation: Any) -> Decision[Any] | None:
        if self.skip_text is not None and len(state.results) == 2:
            return Decision.act([Action("note", {"text": self.skip_text})])
        return None  # ask the model

    def reduce(self, state: NoteState, observation: Any, decision: Decision[Any]) -> NoteState:
        state.results.extend(observation["action_results"])
        if decision.mode == "final":
            state.final_result = decision.final_answer
        return state


class Capture(EngineHook):
    """The state and exchange log at the start of every step."""

    def __init__(self) -> None:
        super().__init__()
        self.at: dict[int, tuple[dict[str, Any], Any]] = {}

    def on_before_step(self, ctx: Any, engine: Any) -> None:
        self.at[ctx.step_id] = (state_dict(ctx.state), engine.request_builder.exchange_log.exchanges)


def _record(tmp_path: Path, steps: int = 5) -> tuple[Path, Capture, Any]:
    TOOL_CALLS.clear()
    capture = Capture()
    writer = TraceWriter(tmp_path / "runs", run_id="parent")
    result = NoteAgent(_replies(steps)).build_engine(trace_writer=writer, hooks=[capture]).run("write notes")
    assert result.status == "completed"
    return tmp_path / "runs" / "parent", capture, result


@pytest.mark.parametrize("at", [0, 1, 3, 5])
def test_fork_rebuilds_the_recorded_state_without_model_or_tool_calls(tmp_path: Path, at: int) -> None:
    """Up to step N nothing is called; at N the state and ExchangeLog are the recorded ones; it goes on live."""
    run_dir, capture, original = _record(tmp_path)
    TOOL_CALLS.clear()
    agent = NoteAgent(_replies(5))
    writer = TraceWriter(tmp_path / "runs", run_id=f"fork{at}")
    engine = agent.build_engine(trace_writer=writer)
    replay = fork_engine(engine, Recording.load(run_dir), at, writer=writer)
    paused = engine.run("write notes")
    assert paused.status == "paused" and paused.snapshot.step_id == at
    assert paused.snapshot.policy_id == "qitos.fork"
    assert agent.llm.calls == 0 and TOOL_CALLS == []  # counted: nothing real before N
    assert replay.model_calls == at and replay.tool_calls == at
    state, exchanges = capture.at[at]
    assert state_dict(paused.snapshot.state) == state
    assert engine.request_builder.exchange_log.exchanges == exchanges
    manifest = json.loads((tmp_path / "runs" / f"fork{at}" / "manifest.json").read_text())
    assert (manifest["parent_run_id"], manifest["fork_step"]) == ("parent", at)
    done = engine.resume(paused.snapshot)  # live from N: the real model and tool
    assert done.status == "completed" and state_dict(done.state) == state_dict(original.state)
    assert agent.llm.calls == 6 - at and len(TOOL_CALLS) == 5 - at


def test_fork_of_a_changed_agent_stops_at_the_first_mismatch(tmp_path: Path) -> None:
    """A new version that decides differently at step 2 is stopped there, saying both decisions."""
    run_dir, _, _ = _record(tmp_path)
    TOOL_CALLS.clear()
    agent = NoteAgent(_replies(5), skip_text="changed")
    engine = agent.build_engine()
    replay = fork_engine(engine, Recording.load(run_dir), 4)
    result = engine.run("write notes")
    assert result.status == "failed" and TOOL_CALLS == []
    assert replay.divergence is not None and replay.divergence.step == 2
    message = next(e.payload["message"] for e in result.events if e.phase == "error")
    assert (
        'note({"text": "n2"})' in message and 'note({"text": "changed"})' in message and "step 2" in message
    )


def test_fork_refuses_a_step_the_run_never_reached(tmp_path: Path) -> None:
    run_dir, _, _ = _record(tmp_path, steps=2)
    with pytest.raises(ReplayError, match="steps 0..2"):
        fork_engine(NoteAgent(_replies(2)).build_engine(), Recording.load(run_dir), 9)


def test_replay_against_reports_the_first_step_that_differs(tmp_path: Path) -> None:
    """The test tool: the same agent reproduces the record; a new version is caught at its first change."""
    run_dir, _, _ = _record(tmp_path)
    TOOL_CALLS.clear()
    same = NoteAgent(_replies(5))
    report = replay_against(run_dir, same)
    assert report.matches and report.steps_replayed == 6 and report.model_calls == 6
    assert same.llm.calls == 0 and TOOL_CALLS == []
    changed = replay_against(run_dir, NoteAgent(_replies(5), skip_text="other"))
    assert not changed.matches and changed.divergence.step == 2
    assert "other" in changed.divergence.new and "n2" in changed.divergence.recorded
    # A version that stops early differs too: it never goes on to the recorded steps.
    shorter = replay_against(run_dir, NoteAgent(_replies(5), stop_after=3))
    assert not shorter.matches and shorter.divergence.step == 3


def test_demo_fork_rebuilds_the_recorded_state(tmp_path: Path) -> None:
    """The demo, recorded then forked at several steps with a fresh workspace: same state, same log."""
    from qitos.demo import TASK, build_agent
    from qitos.demo.workspace import BUGGY_SOURCE

    def demo(name: str) -> Any:
        return build_agent(
            workspace=tmp_path / name / "ws",
            memory_dir=tmp_path / name / "mem",
            skills_db=tmp_path / name / "s.db",
        )

    capture = Capture()
    writer = TraceWriter(tmp_path / "runs", run_id="demo")
    engine = demo("a").build_engine(trace_writer=writer, hooks=[capture])
    result = engine.run(TASK)
    while result.status == "paused":
        result = engine.resume(result.snapshot)
    assert result.status == "completed"
    recording = Recording.load(tmp_path / "runs" / "demo")
    for at in (1, 4, recording.last_step):
        agent = demo(f"f{at}")
        model_calls_before = agent.llm.calls
        tool_calls: list[str] = []
        registry = agent.tool_registry
        for name in registry.list_tools():  # every real tool call is counted
            tool_obj = registry.get(name)
            tool_obj.run = _counting(tool_obj.run, name, tool_calls)
        fork = agent.build_engine()
        fork_engine(fork, recording, at)
        paused = fork.run(TASK)
        assert paused.status == "paused" and paused.snapshot.policy_id == "qitos.fork", paused.stop_reason
        assert agent.llm.calls == model_calls_before and tool_calls == []
        state, exchanges = capture.at[at]
        assert state_dict(paused.snapshot.state) == state
        assert fork.request_builder.exchange_log.exchanges == exchanges
        # No tool side effect: the fork's workspace still has the bug the recorded run fixed.
        assert (tmp_path / f"f{at}" / "ws" / "calc.py").read_text() == BUGGY_SOURCE
        if at == 1:  # the counters do count: going live calls the model and the tools
            done = fork.resume(paused.snapshot)
            while done.status == "paused":
                done = fork.resume(done.snapshot)
            assert done.status == "completed" and tool_calls and agent.llm.calls > model_calls_before


def _counting(run: Any, name: str, calls: list[str]) -> Any:
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return run(*args, **kwargs)

    return counted

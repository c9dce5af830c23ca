"""One masked event per emitted event, whichever way it leaves the Engine: the writer, hooks, the
result, the sink used by stores inside a run, and AsyncEngine's stream."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from qitos import Action, AgentModule, AsyncEngine, Decision, StateSchema, ToolRegistry, tool
from qitos.engine.engine import Engine
from qitos.engine.hooks import EngineHook
from qitos.trace import sink
from qitos.trace.events import RunEvent
from qitos.trace.redact import MASK, Redactor, is_secret_name
from qitos.trace.writer import TraceWriter

TOKEN = "gh" + "p_" + "Zq81mW4xT6vN2bK9cR3yL7pD5fH0sJ1gA4eU"
AWS_KEY_ID = "AS" + "IA" + "Q3ZK7X2M9WPL4T6B"


@dataclass
class _State(StateSchema):
    """Nothing but the steps."""

    seen: list[Any] = field(default_factory=list)


@tool(name="leak", description="Return credentials and report one through the run's sink.")
def leak() -> str:
    """A tool that leaks both ways: its result, and an event a store inside the run records."""
    sink.emit("memory_append", {"record_id": "mem_1", "content": f"remember {AWS_KEY_ID}"})
    return f"token {TOKEN} key {AWS_KEY_ID}"


class _LeakAgent(AgentModule):
    """Calls ``leak`` once, then answers with the token in its final result."""

    def init_state(self, task: str, **kwargs: Any) -> _State:
        """A short state."""
        return _State(task=task, max_steps=3)

    def decide(self, state: _State, observation: Any) -> Decision[Any]:
        """Leak, then finish quoting the token."""
        if state.current_step == 0:
            return Decision.act([Action("leak", {})])
        return Decision.final(f"done with {TOKEN}")

    def reduce(self, state: _State, observation: Any, decision: Decision[Any]) -> _State:
        """Nothing to keep."""
        return state


def _agent() -> _LeakAgent:
    return _LeakAgent(tool_registry=ToolRegistry().register(leak))


class _Recorder(EngineHook):
    """Keeps the events it is handed."""

    def __init__(self) -> None:
        self.events: list[RunEvent] = []

    def on_event(self, event: RunEvent) -> None:
        """Keep the object itself."""
        self.events.append(event)


def test_hook_result_and_writer_share_one_masked_event(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path, run_id="once", redactor=Redactor(env={}))
    recorder = _Recorder()
    result = Engine(_agent(), trace_writer=writer, hooks=[recorder]).run(f"use {TOKEN}")
    assert result.status == "completed"
    # The very same objects: what the hook got is what the result holds.
    assert len(recorder.events) == len(result.events) > 0
    assert all(a is b for a, b in zip(recorder.events, result.events, strict=True))
    lines = (writer.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [e.to_dict() for e in recorder.events]
    text = json.dumps([e.to_dict() for e in result.events])
    assert TOKEN not in text and AWS_KEY_ID not in text and MASK in text
    memory = next(e for e in result.events if e.phase == "memory_append")  # through the sink
    assert memory.payload["content"] == f"remember {MASK}"
    on_disk = "".join(p.read_text(encoding="utf-8") for p in writer.run_dir.iterdir() if p.is_file())
    assert TOKEN not in on_disk and AWS_KEY_ID not in on_disk


def test_writer_does_not_mask_the_engines_events_a_second_time(tmp_path: Path) -> None:
    """The Engine hands the writer the line it masked: the writer's own masking pass never runs."""
    calls: list[str] = []

    class CountingRedactor(Redactor):
        def mask_line(self, line: str) -> str:
            calls.append(line)
            return super().mask_line(line)

    writer = TraceWriter(tmp_path, run_id="one_pass", redactor=CountingRedactor(env={}))
    result = Engine(_agent(), trace_writer=writer).run("t")
    lines = (writer.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    event_lines = [line for line in calls if line.startswith('{"run_id"') and '"phase": ' in line]
    assert len(event_lines) == len(lines) == len(result.events)  # one pass per event, not two


def test_without_a_writer_hooks_and_result_still_get_masked_events() -> None:
    recorder = _Recorder()
    result = Engine(_agent(), hooks=[recorder]).run("t")
    text = json.dumps([e.to_dict() for e in recorder.events])
    assert TOKEN not in text and AWS_KEY_ID not in text
    assert result.events[-1] is recorder.events[-1]


def test_async_stream_events_are_masked() -> None:
    async def collect() -> list[Any]:
        engine = AsyncEngine(_agent())
        return [event async for event in engine.arun_stream(f"task with {TOKEN}")]

    events = asyncio.run(collect())
    text = json.dumps([{"payload": e.payload, "error": e.error} for e in events], default=str)
    assert events[0].payload["task"] == f"task with {MASK}"
    assert events[-1].payload["final_result"] == f"done with {MASK}"
    assert TOKEN not in text and AWS_KEY_ID not in text


def test_write_masked_takes_one_line(tmp_path: Path) -> None:
    with TraceWriter(tmp_path, run_id="lines") as writer:
        with pytest.raises(ValueError, match="one-line"):
            writer.write_masked(RunEvent("lines", 0, "x"), '{"a": 1}\n{"b": 2}')
        with pytest.raises(TypeError):
            writer.write_masked({"phase": "x"}, "{}")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "OPENAI_API_KEY",
        "X-Auth-Token",
        "aws_secret_access_key",
        "Cookie",
        "session_token",
        "db_password",
        "Api-Token",
        "secretAccessKey",
        "pwd",
        "Authorization",
        "OPENAIKEY",
        "DATABASEPASSWORD",
        "client_secret",
        "private_key",
        "credentials",
        "passphrase",
        "AccountKey",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "max_tokens",
        "token_usage",
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "token_count",
        "num_tokens",
        "tokenizer",
        "keyboard_layout",
        "author",
        "key_id",
        "token_type",
        "session_id",
        "public_key",
        "sort_key",
        "private_key_path",
        "monkey",
        "keys",
        "secretary",
    ],
)
def test_not_secret_names(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("export DB_PASSWORD=correcthorse && run", "correcthorse"),
        ("api_key: 'quoted value here'", "quoted value here"),
        ("Cookie: sid=abc123; theme=dark", "sid=abc123; theme=dark"),
        ("X-Api-Key: opaque-value-1", "opaque-value-1"),
        ("GET /cb?access_token=opaque42&state=x", "opaque42"),
        ({"headers": {"Proxy-Authorization": "opaque credentials"}}, "opaque credentials"),
        ({"har": [{"name": "Authorization", "value": "opaque credentials"}]}, "opaque credentials"),
        ({"body": json.dumps(json.dumps({"password": "two levels deep"}))}, "two levels deep"),
        ({"db": {"passwd": 12345678}}, "12345678"),
        ({"aws": {"credentials": {"user": "u1", "id": "opaque-inner"}}}, "opaque-inner"),
    ],
)
def test_values_of_secret_named_fields_are_masked_whatever_their_shape(value: Any, secret: str) -> None:
    line = Redactor(env={}).to_json_line(value)
    json.loads(line)
    assert secret not in line and MASK in line


def test_on_error_hooks_get_the_masked_error() -> None:
    """An error quoting a credential reaches the error hook (upstream's on_recover) masked, as it
    reaches on_event."""

    class Failing(_LeakAgent):
        def decide(self, state: _State, observation: Any) -> Decision[Any]:
            raise RuntimeError(f"upstream refused {TOKEN}")

    class ErrorRecorder(_Recorder):
        def __init__(self) -> None:
            super().__init__()
            self.errors: list[Any] = []

        def on_recover(self, ctx: Any, engine: Any) -> None:
            self.errors.append(ctx.payload)

    recorder = ErrorRecorder()
    result = Engine(Failing(tool_registry=ToolRegistry().register(leak)), hooks=[recorder]).run("t")
    assert result.status == "failed" and recorder.errors
    text = json.dumps(recorder.errors) + json.dumps([e.to_dict() for e in recorder.events])
    assert TOKEN not in text and "upstream refused [REDACTED]" in text


def test_data_json_cannot_hold_is_still_written() -> None:
    """A cycle, nesting too deep for the encoder, a tuple key: the event is written, those parts
    as text, never lost."""
    cycle: list[Any] = [1]
    cycle.append(cycle)
    deep: list[Any] = []
    cur = deep
    for _ in range(5000):
        cur.append([])
        cur = cur[0]
    redactor = Redactor(env={})
    assert json.loads(redactor.to_json_line({"x": cycle})) == {"x": [1, "<cycle: list>"]}
    assert "nested deeper than" in redactor.to_json_line({"deep": deep})
    assert json.loads(redactor.to_json_line({("a", 1): TOKEN})) == {"('a', 1)": MASK}


def test_a_mask_that_broke_the_line_falls_back_to_masking_value_by_value() -> None:
    """Should a mask ever cut JSON syntax, the line is still valid and still holds no secret."""

    class Breaking(Redactor):
        def mask_line(self, line: str) -> str:
            masked = super().mask_line(line)
            return masked if masked is line else masked + "]"  # a mask that broke the line

    line = Breaking(env={}).to_json_line({"a": f"x {TOKEN}", "n": 3, "api_key": "v", "ok": "fine"})
    assert json.loads(line) == {"a": MASK, "n": 3, "api_key": MASK, "ok": "fine"}

"""The redactor against a corpus: every secret in every context masked, every look-alike kept.

Each secret sample goes through the real TraceWriter onto disk and through a real Engine run to a
hook; each look-alike goes through both and must come back unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from secret_corpus import LOOKALIKES, SAMPLES, contexts, spellings

from qitos import Action, AgentModule, Decision, StateSchema, ToolRegistry, tool
from qitos.engine.engine import Engine
from qitos.engine.hooks import EngineHook
from qitos.engine.runtime import RuntimeBudget
from qitos.trace.events import RunEvent
from qitos.trace.redact import Redactor
from qitos.trace.writer import TraceWriter


def test_corpus_sizes() -> None:
    """The promise is measured on at least 40 secrets in at least 6 contexts and 20 look-alikes."""
    assert len(SAMPLES) >= 40
    assert len({name for name, _, _ in SAMPLES}) == len(SAMPLES)
    assert len(contexts(0, "x")) >= 6
    assert len(LOOKALIKES) >= 20


def _leaks(text: str) -> list[str]:
    """Names of the corpus samples whose secret (in any spelling) is in ``text``."""
    return [name for name, secret, _ in SAMPLES if any(form in text for form in spellings(secret))]


def test_every_secret_in_every_context_is_masked_on_disk(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path, run_id="corpus", redactor=Redactor(env={}))
    written: list[tuple[str, str]] = []
    for index, (name, _, carrier) in enumerate(SAMPLES):
        for context, value in contexts(index, carrier).items():
            writer.write_event(RunEvent("corpus", index, "tool_result", payload={"result": value}))
            written.append((name, context))
    writer.close()
    lines = (writer.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(written) == len(SAMPLES) * 7
    leaked = []
    for (name, context), line in zip(written, lines, strict=True):
        json.loads(line)  # masking never breaks a line
        secret = next(s for n, s, _ in SAMPLES if n == name)
        if any(form in line for form in spellings(secret)):
            leaked.append(f"{name} / {context}: {line}")
    assert leaked == [], f"{len(leaked)} of {len(written)} leaked:\n" + "\n".join(leaked)


# -- through a real Engine run: the tool returns the corpus, a hook watches the events ----------


@dataclass
class _State(StateSchema):
    """Nothing to keep but the steps."""

    results: list[Any] = field(default_factory=list)


PAYLOADS: list[Any] = [
    *(contexts(index, carrier) for index, (_, _, carrier) in enumerate(SAMPLES)),
    *(value for _, value in LOOKALIKES),
]


@tool(name="fetch", description="Return payload number `index`.")
def fetch(index: int) -> Any:
    """The corpus payload at ``index``."""
    return PAYLOADS[index]


class _CorpusAgent(AgentModule):
    """Fetches every payload, one per step, then finishes."""

    def init_state(self, task: str, **kwargs: Any) -> _State:
        """A state allowing one step per payload."""
        return _State(task=task, max_steps=len(PAYLOADS) + 1)

    def decide(self, state: _State, observation: Any) -> Decision[Any]:
        """Fetch the next payload, or finish."""
        step = state.current_step
        if step >= len(PAYLOADS):
            return Decision.final("done")
        return Decision.act([Action("fetch", {"index": step})])

    def reduce(self, state: _State, observation: Any, decision: Decision[Any]) -> _State:
        """Keep nothing (the events are what is tested)."""
        return state


class _Recorder(EngineHook):
    """Keeps every event the Engine hands its hooks."""

    def __init__(self) -> None:
        self.events: list[RunEvent] = []

    def on_event(self, event: RunEvent) -> None:
        """Record the event object itself."""
        self.events.append(event)


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, _Recorder, Path]:
    """One Engine run over the whole corpus, traced, with a recording hook."""
    folder = tmp_path_factory.mktemp("engine")
    writer = TraceWriter(folder, run_id="corpus_engine", redactor=Redactor(env={}))
    recorder = _Recorder()
    agent = _CorpusAgent(tool_registry=ToolRegistry().register(fetch))
    budget = RuntimeBudget(max_steps=len(PAYLOADS) + 1)
    result = Engine(agent, budget=budget, trace_writer=writer, hooks=[recorder]).run("fetch them all")
    assert result.status == "completed", result.stop_reason
    return result, recorder, writer.run_dir


def _tool_results(events: list[RunEvent]) -> list[Any]:
    return [e.payload["result"] for e in events if e.phase == "tool_result"]


def test_every_secret_is_masked_for_hooks_and_on_disk(corpus_run: tuple[Any, _Recorder, Path]) -> None:
    _, recorder, run_dir = corpus_run
    hooked = json.dumps([e.to_dict() for e in recorder.events], ensure_ascii=False)
    on_disk = (run_dir / "events.jsonl").read_text(encoding="utf-8") + (run_dir / "steps.jsonl").read_text(
        encoding="utf-8"
    )
    assert len(_tool_results(recorder.events)) == len(PAYLOADS)
    assert _leaks(hooked) == []
    assert _leaks(on_disk) == []


def test_no_lookalike_is_masked(corpus_run: tuple[Any, _Recorder, Path]) -> None:
    _, recorder, _ = corpus_run
    results = _tool_results(recorder.events)[len(SAMPLES) :]
    changed = [name for (name, value), got in zip(LOOKALIKES, results, strict=True) if got != value]
    assert changed == []
    redactor = Redactor(env={})
    assert [name for name, value in LOOKALIKES if redactor.redact(value) != value] == []


def test_hook_and_trace_get_the_very_same_masked_event(corpus_run: tuple[Any, _Recorder, Path]) -> None:
    """One masked object per event: the hook's, the result's and the written line's data agree."""
    result, recorder, run_dir = corpus_run
    assert len(recorder.events) == len(result.events)
    assert all(a is b for a, b in zip(recorder.events, result.events, strict=True))
    lines = (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [e.to_dict() for e in recorder.events]


def test_env_secret_values_are_masked_and_ordinary_env_values_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Values of secret-named variables in os.environ are masked by value; PWD and HOME are not."""
    value = "zq" + "Xw9" * 6  # no known shape: only the environment says it is a secret
    special = 'p@ss/w0rd "x" + 1\\'  # JSON-escaped and URL-encoded in the line, never plain
    monkeypatch.setenv("MY_SERVICE_TOKEN", value)
    monkeypatch.setenv("LEGACY_DB_PASSWD", special)
    monkeypatch.setenv("PWD", str(tmp_path))
    writer = TraceWriter(tmp_path, run_id="env")
    payload = {
        "out": f"cwd {tmp_path} token {value}!",
        "db": special,
        "url": f"db?p={quote(special, safe='')}&x",
    }
    writer.write_event(RunEvent("env", 0, "tool_result", payload=payload))
    writer.close()
    line = (writer.run_dir / "events.jsonl").read_text(encoding="utf-8")
    assert value not in line and not [form for form in spellings(special) if form in line]
    assert f"cwd {tmp_path} token [REDACTED]!" in line
    assert json.loads(line)["payload"]["url"] == "db?p=[REDACTED]&x"

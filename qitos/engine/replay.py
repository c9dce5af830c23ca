"""Deterministic replay: re-run an agent with a recorded trace's model responses and tool results.

Every trace records each model response and each tool result, so a run can be re-run without a
model call or a tool side effect: the Engine asks this module instead (``engine.replay``). At each
step the agent's new decision is checked against the recorded one; the first difference ends the
run with an error saying where (step, recorded decision, new decision), never silently.

Two uses:

- **Fork** (:func:`fork_engine`): steps before ``at`` are replayed, then the run pauses before step
  ``at`` decides (or goes on) and continues live with the real model and tools, in a new run
  directory whose manifest names ``parent_run_id`` and ``fork_step``.
- **A test tool** (:func:`replay_against`): re-run a recorded trace against a new version of an
  agent and get the first step where it behaves differently::

      report = replay_against("runs/run_abc", build_agent())
      assert report.divergence is None, report.divergence

Limits: results are what the trace holds, i.e. JSON data after redaction (a tool that returned an
object is replayed as its JSON form; a masked secret stays masked); env steps are replayed like
tool results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn

from qitos.core.errors import SystemExecutionError
from qitos.engine.approval import CHANGED, DENIED, PauseDecision
from qitos.engine.runtime import LifecyclePolicy, RuntimeSnapshotContext
from qitos.engine.serialize import jsonable
from qitos.engine.tool_executor import ToolOutcome
from qitos.models.base import ModelResponse, ToolCall, Usage
from qitos.trace.errors import TraceError
from qitos.trace.events import EventKind, Stage
from qitos.trace.fields import as_dict, as_dicts, as_int, as_text
from qitos.trace.reader import TraceReader

if TYPE_CHECKING:
    from qitos.core.agent_module import AgentModule
    from qitos.core.task import Task
    from qitos.engine.engine import Engine
    from qitos.trace.writer import TraceWriter

FORK_POLICY_ID = "qitos.fork"


class ReplayError(ValueError):
    """A recorded run cannot be replayed as asked (no such step, not a run directory, ...)."""


@dataclass
class RecordedStep:
    """What one recorded step holds: its model responses, tool results and decisions, in order."""

    responses: list[ModelResponse] = field(default_factory=list)
    outcomes: list[tuple[str, ToolOutcome]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    rulings: list[dict[str, Any]] = field(default_factory=list)  # lifecycle_decision payloads


@dataclass
class Recording:
    """A recorded run, read for replay: its task, steps and where it ended."""

    run_id: str
    task: str
    steps: dict[int, RecordedStep]
    last_step: int  # the highest step that decided (-1: none)

    @classmethod
    def load(cls, run_dir: str | Path) -> Recording:
        """Read a run directory (totally: unreadable lines are skipped, as the reader reports them)."""
        try:
            reader = TraceReader(run_dir)
        except (OSError, ValueError, TraceError) as exc:
            raise ReplayError(f"{run_dir} cannot be read as a run: {exc}") from exc
        steps: dict[int, RecordedStep] = {}
        task = ""
        invocations: dict[int, list[dict[str, Any]]] = {}
        for event in reader.events():
            kind, p, step_id = event.phase, as_dict(event.payload), event.step_id
            if kind == EventKind.INIT:
                task = as_text(p.get("task"))
                continue
            step = steps.setdefault(step_id, RecordedStep())
            if kind == EventKind.MODEL_RESPONSE:
                step.responses.append(_response(p))
            elif kind == EventKind.TOOL_RESULT:
                step.outcomes.append((as_text(p.get("tool")), _outcome(p)))
            elif kind == EventKind.DECIDE and p.get("stage") == Stage.DECISION_READY:
                step.decisions.append(normal_decision(p.get("mode"), p.get("actions"), p.get("final_answer")))
            elif kind == EventKind.LIFECYCLE_DECISION:
                step.rulings.append(p)
            elif kind == EventKind.ACT and p.get("stage") == Stage.ACTION_RESULTS:
                invocations.setdefault(step_id, []).extend(as_dicts(p.get("tool_invocations")))
        for step_id, found in invocations.items():
            _add_origins(steps[step_id], found)
        deciding = [s for s, step in steps.items() if step.decisions]
        manifest = reader.manifest if isinstance(reader.manifest, dict) else {}
        run_id = as_text(manifest.get("run_id")) or Path(run_dir).name
        return cls(run_id=run_id, task=task, steps=steps, last_step=max(deciding, default=-1))


def _response(p: dict[str, Any]) -> ModelResponse:
    """A model response as the model gave it, from its ``model_response`` payload."""
    usage = as_dict(p.get("usage"))
    calls = tuple(
        ToolCall(
            name=as_text(c.get("name")),
            args=dict(as_dict(c.get("args"))),
            call_id=None if c.get("call_id") is None else as_text(c.get("call_id")),
        )
        for c in as_dicts(p.get("tool_calls"))
    )
    return ModelResponse(
        text=as_text(p.get("text")),
        tool_calls=calls,
        usage=Usage(
            prompt_tokens=as_int(usage.get("prompt_tokens")) or 0,
            completion_tokens=as_int(usage.get("completion_tokens")) or 0,
            total_tokens=as_int(usage.get("total_tokens")) or 0,
            estimated=usage.get("estimated") is True,
        ),
        model_id=as_text(p.get("model_id")) or "unknown",
        finish_reason=None if p.get("finish_reason") is None else as_text(p.get("finish_reason")),
    )


def _outcome(p: dict[str, Any]) -> ToolOutcome:
    """A tool's outcome from its ``tool_result`` payload."""
    ok = p.get("ok") is not False
    error = p.get("error")
    return ToolOutcome(
        ok=ok,
        result=p.get("result"),
        error=None if error is None else as_text(error),
        error_category=None if ok else "tool",
        attempts=as_int(p.get("attempts")) or 0,
        latency_ms=0.0,
    )


def _add_origins(step: RecordedStep, invocations: list[dict[str, Any]]) -> None:
    """Put each invocation's origin and error category back on the outcome it describes."""
    for (_, outcome), inv in zip(step.outcomes, invocations, strict=False):
        outcome.origin = {
            "source": inv.get("source"),
            "toolset_name": inv.get("toolset_name"),
            "toolset_version": inv.get("toolset_version"),
        }
        if not outcome.ok and inv.get("error_category") is not None:
            outcome.error_category = as_text(inv.get("error_category"))


def normal_decision(mode: Any, actions: Any, final_answer: Any) -> dict[str, Any]:
    """A decision reduced to what is compared: its mode, each action's name and args, the answer."""
    items = []
    for action in actions if isinstance(actions, list | tuple) else []:
        if isinstance(action, dict):
            name, args = action.get("name"), action.get("args", action.get("arguments", {}))
        else:
            name, args = getattr(action, "name", type(action).__name__), getattr(action, "args", {})
        items.append({"name": as_text(name), "args": _json(args)})
    return {"mode": as_text(mode), "actions": items, "final_answer": _json(final_answer)}


def _json(value: Any) -> Any:
    """``value`` as it reads back from a trace (JSON data)."""
    return json.loads(json.dumps(jsonable(value), default=str))


def describe(decision: dict[str, Any] | None) -> str:
    """One line for a normalised decision."""
    if decision is None:
        return "nothing (the recorded run had ended)"
    if decision["mode"] == "final":
        return f"final answer {json.dumps(decision['final_answer'], ensure_ascii=False)}"
    if decision["mode"] == "act":
        return "act " + "; ".join(
            f"{a['name']}({json.dumps(a['args'], ensure_ascii=False, sort_keys=True)})"
            for a in decision["actions"]
        )
    return str(decision["mode"])


@dataclass(frozen=True)
class Divergence:
    """Where a re-run stopped matching its record: the step, the recorded and the new decision."""

    step: int
    recorded: str
    new: str

    def __str__(self) -> str:
        return f"step {self.step}: the record says {self.recorded}; the agent now decides {self.new}"


class Replay:
    """What the Engine asks instead of the model and the tools while a step is being replayed."""

    def __init__(self, recording: Recording, live_from: int | None = None) -> None:
        self.recording = recording
        self.live_from = live_from  # None: every step is replayed (the test tool)
        self.model_calls = 0  # responses put back in place of model calls
        self.tool_calls = 0  # results put back in place of tool calls
        self.divergence: Divergence | None = None
        self._cursors: dict[tuple[int, str], int] = {}
        self._forwarded = False

    def replaying(self, step: int) -> bool:
        """Whether ``step`` is re-run from the record (rather than live)."""
        return self.live_from is None or step < self.live_from

    def _next(self, step: int, what: str, items: list[Any]) -> Any:
        cursor = self._cursors.get((step, what), 0)
        self._cursors[(step, what)] = cursor + 1
        return items[cursor] if cursor < len(items) else None

    def response(self, step: int) -> ModelResponse:
        """The recorded model response for this call of ``step``; a divergence when there is none."""
        recorded = self.recording.steps.get(step)
        found: ModelResponse | None = self._next(step, "model", recorded.responses if recorded else [])
        if found is None:
            self._diverge(step, "no model call here", "to call the model")
        self.model_calls += 1
        return found

    def tool_outcome(self, step: int, tool: str) -> ToolOutcome:
        """The recorded result of this tool call of ``step``; a divergence when it does not fit."""
        recorded = self.recording.steps.get(step)
        found = self._next(step, "tool", recorded.outcomes if recorded else [])
        if found is None or found[0] != tool:
            said = f"a call to {found[0]!r}" if found else "no further tool call"
            self._diverge(step, said, f"to call {tool!r}")
        self.tool_calls += 1
        name, outcome = found
        return ToolOutcome(**{**outcome.__dict__, "origin": dict(outcome.origin)})

    def going_live(self, model: Any) -> None:
        """Before the first live model call: a scripted model skips the replies the replay gave."""
        if self._forwarded:
            return
        self._forwarded = True
        fast_forward = getattr(model, "fast_forward", None)
        if callable(fast_forward) and self.model_calls:
            fast_forward(self.model_calls)

    def ruling(self, step: int, actions: list[Any]) -> tuple[Any, Any] | None:
        """The recorded ruling on step ``step``'s actions while replaying it: (PauseDecision, the
        pause it answered), so a denial or a change made then is made again; None when there was none."""
        recorded = self.recording.steps.get(step)
        if not self.replaying(step) or recorded is None:
            return None
        found = self._next(step, "ruling", recorded.rulings)
        if found is None or found.get("verdict") not in (DENIED, CHANGED):
            return None
        changes: dict[int, dict[str, Any]] = {}
        for index, changed in enumerate(as_dicts(found.get("changed_actions"))):
            if index < len(actions) and as_dict(changed.get("args")) != _json(
                getattr(actions[index], "args", {})
            ):
                changes[index] = dict(as_dict(changed.get("args")))
        decision = PauseDecision(
            verdict=as_text(found.get("verdict")),
            reason=as_text(found.get("reason")),
            changes=changes,
            by=as_text(found.get("by")) or "person",
        )
        paused = SimpleNamespace(
            policy_id=as_text(found.get("policy_id")),
            step_id=step,
            boundary="before_act",
            pending_actions=actions,
        )
        return decision, paused

    def check(self, step: int, decision: Any) -> str | None:
        """The divergence message when the agent's decision at ``step`` is not the recorded one."""
        if not self.replaying(step):
            return None
        recorded_step = self.recording.steps.get(step)
        recorded = self._next(step, "decision", recorded_step.decisions if recorded_step else [])
        new = normal_decision(
            getattr(decision, "mode", None),
            getattr(decision, "actions", None),
            getattr(decision, "final_answer", None),
        )
        if recorded == new:
            return None
        self.divergence = Divergence(step, describe(recorded), describe(new))
        return f"replay diverged at {self.divergence}"

    def _diverge(self, step: int, recorded: str, new: str) -> NoReturn:
        self.divergence = Divergence(step, recorded, new)
        raise SystemExecutionError.make(
            f"replay diverged at {self.divergence}", phase="DECIDE", step_id=step, recoverable=False
        )


class ForkPolicy(LifecyclePolicy):
    """Pauses once, before step ``at`` decides: where a fork stops replaying and goes live."""

    policy_id = FORK_POLICY_ID

    def __init__(self, at: int) -> None:
        self.at = at
        self.done = False

    def should_pause(self, context: RuntimeSnapshotContext) -> bool:
        """True at the first ``before_decide`` of step ``at``."""
        if self.done or context.boundary != "before_decide" or context.step_id != self.at:
            return False
        self.done = True
        return True


def check_fork_step(recording: Recording, at: int) -> None:
    """Refuse a fork step the recording cannot reach (ReplayError with the reason)."""
    if not isinstance(at, int) or isinstance(at, bool) or at < 0:
        raise ReplayError(f"the fork step must be a step number >= 0, got {at!r}")
    if at > recording.last_step:
        raise ReplayError(
            f"run {recording.run_id} has steps 0..{recording.last_step}: cannot fork at step {at}"
        )


def fork_engine(
    engine: Engine[Any, Any, Any],
    recording: Recording,
    at: int,
    *,
    pause: bool = True,
    writer: TraceWriter | None = None,
) -> Replay:
    """Make ``engine`` re-run ``recording`` up to step ``at`` and go live there (pausing first when asked).

    ``writer`` (the fork's TraceWriter) gets ``parent_run_id`` and ``fork_step`` in its manifest."""
    check_fork_step(recording, at)
    replay = Replay(recording, live_from=at)
    engine.replay = replay
    if pause:
        engine.lifecycle_policies.append(ForkPolicy(at))
    if writer is not None:
        writer.update_manifest(parent_run_id=recording.run_id, fork_step=at)
    return replay


@dataclass(frozen=True)
class ReplayReport:
    """What re-running a recorded trace against an agent found."""

    run_id: str
    steps_replayed: int
    divergence: Divergence | None
    model_calls: int
    tool_calls: int

    @property
    def matches(self) -> bool:
        """Whether the agent behaved as recorded at every step."""
        return self.divergence is None


def replay_against(
    run_dir: str | Path,
    agent: AgentModule[Any, Any, Any],
    *,
    task: str | Task | None = None,
    **engine_kwargs: Any,
) -> ReplayReport:
    """Re-run the recorded run in ``run_dir`` against ``agent`` (no model call, no tool side effect)
    and report the first step where it behaves differently (None when it reproduces the record)."""
    recording = Recording.load(run_dir)
    engine = agent.build_engine(**engine_kwargs)
    replay = Replay(recording, live_from=None)
    engine.replay = replay
    engine.lifecycle_policies = []  # a replay is not reviewed: nothing pauses it
    result = engine.run(recording.task if task is None else task)
    steps = result.step_count
    divergence = replay.divergence
    if divergence is None and steps - 1 < recording.last_step:
        divergence = Divergence(
            max(steps, 0),
            f"the run going on to step {recording.last_step}",
            f"to stop ({result.stop_reason})",
        )
    return ReplayReport(recording.run_id, steps, divergence, replay.model_calls, replay.tool_calls)

"""The Engine: the observe → decide → act → reduce → critic → check_stop kernel of a run."""

from __future__ import annotations

import threading
import time
import uuid
import warnings
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from qitos.core.action import Action
from qitos.core.agent_module import AgentModule
from qitos.core.decision import Decision
from qitos.core.errors import (
    ParseExecutionError,
    QitosRuntimeError,
    StateExecutionError,
    SystemExecutionError,
)
from qitos.core.history import HistoryMessage, HistoryPolicy
from qitos.core.stop_reason import StopReason
from qitos.core.task import Task
from qitos.engine.composition import CONFIG_KEYS, compose
from qitos.engine.hooks import HookContext
from qitos.engine.model_call import ModelCaller
from qitos.engine.policies import (
    BranchSelector,
    CriticOutput,
    FinalResultCriteria,
    RecoveryHandler,
    RecoveryPolicy,
    StateValidationGate,
)
from qitos.engine.request_builder import RequestBuilder
from qitos.engine.result import EngineResult, StepRecord
from qitos.engine.run_state import RunState, StopSignal, is_stopped
from qitos.engine.runtime import LifecyclePolicy, RuntimeBudget, RuntimeSnapshot, RuntimeSnapshotContext
from qitos.engine.serialize import diff, jsonable, state_dict
from qitos.engine.startup import preflight
from qitos.engine.tool_executor import ToolExecutor
from qitos.trace import sink
from qitos.trace.events import (
    STATUS_COMPLETED,
    STATUS_FAILED,
    STATUS_PAUSED,
    STATUS_RUNNING,
    STATUS_STOPPED,
    RunEvent,
    utc_now,
)

StateT = TypeVar("StateT")
ObservationT = TypeVar("ObservationT")
ActionT = TypeVar("ActionT")

_FAILED_REASONS = frozenset(
    {
        StopReason.UNRECOVERABLE_ERROR.value,
        StopReason.TASK_VALIDATION_FAILED.value,
        StopReason.ENV_CAPABILITY_MISMATCH.value,
    }
)


def status_for(stop_reason: str | None) -> str:
    """The manifest status of a run that ended with ``stop_reason``."""
    if stop_reason == StopReason.CANCELLED_IMMEDIATE.value:
        return STATUS_STOPPED
    if stop_reason in _FAILED_REASONS:
        return STATUS_FAILED
    return STATUS_COMPLETED


class _Pause(Exception):
    """Raised inside the loop when a lifecycle policy pauses the run."""

    def __init__(self, snapshot: RuntimeSnapshot) -> None:
        super().__init__(snapshot.policy_id)
        self.snapshot = snapshot


class Engine(Generic[StateT, ObservationT, ActionT]):
    """The execution kernel: phase loop, tools, recovery, tracing, stop criteria and lifecycle."""

    def __init__(
        self,
        agent: AgentModule[StateT, ObservationT, ActionT],
        budget: RuntimeBudget | None = None,
        validation_gate: StateValidationGate | None = None,
        recovery_handler: RecoveryHandler | None = None,
        recovery_policy: RecoveryPolicy | None = None,
        trace_writer: Any = None,
        parser: Any = None,
        stop_criteria: list[Any] | None = None,
        branch_selector: BranchSelector | None = None,
        search: Any = None,
        critics: list[Any] | None = None,
        env: Any = None,
        history_policy: HistoryPolicy | None = None,
        hooks: list[Any] | None = None,
        render_hooks: list[Any] | None = None,
    ) -> None:
        if not isinstance(agent, AgentModule):
            raise TypeError(f"Engine needs an AgentModule, got {type(agent).__name__}")
        if budget is not None and not isinstance(budget, RuntimeBudget):
            raise TypeError(f"budget must be a RuntimeBudget, got {type(budget).__name__}")
        from qitos.models.base import as_model

        as_model(agent.llm)  # a TypeError naming the problem now, not at the first model call
        self.agent = agent
        self.budget = budget or RuntimeBudget()
        self.validation_gate = validation_gate or StateValidationGate()
        self.recovery_handler = recovery_handler
        self.recovery_policy = recovery_policy or RecoveryPolicy()
        self.trace_writer = trace_writer
        self.parser = parser
        self.stop_criteria = list(stop_criteria) if stop_criteria is not None else [FinalResultCriteria()]
        from qitos.engine.policies import FirstCandidateSelector

        self.branch_selector = branch_selector or FirstCandidateSelector()
        self.search = search
        self.critics = list(critics or [])
        self.env = env
        self.history_policy = history_policy or HistoryPolicy()
        self.hooks: list[Any] = [*(hooks or []), *(render_hooks or [])]
        config = {k: v for k, v in agent.config.items() if k in CONFIG_KEYS}
        # Composition happens here so a configured name with no factory fails before any run.
        self.composition = compose(config, agent.config.get("extensions"))
        self.lifecycle_policies: list[LifecyclePolicy] = list(self.composition.lifecycle_policies)
        self.request_builder = RequestBuilder(
            contributors=self.composition.all_contributors,
            selection_policy=self.composition.selection_policy,
            budget_policy=self.composition.budget_policy,
            compactor=self.composition.compactor,
            history_policy=self.history_policy,
            model=None,
        )
        self.max_steps_override: int | None = None
        self.owned_env: Any = None
        # Injectable for deterministic tests: run ids and the budget clock.
        self.new_run_id: Callable[[], str] = lambda: f"run_{uuid.uuid4().hex[:12]}"
        self.clock: Callable[[], float] = time.monotonic
        self.hook_errors: list[str] = []
        self._cancel = threading.Event()
        self._run: RunState | None = None

    # ----------------------------------------------------------------- hooks and cancellation
    def register_hook(self, hook: Any) -> None:
        """Append one hook instance to the active hook list."""
        self.hooks.append(hook)

    def unregister_hook(self, hook: Any) -> None:
        """Remove one hook instance (identity comparison); ValueError if it is not registered."""
        for index, existing in enumerate(self.hooks):
            if existing is hook:
                del self.hooks[index]
                return
        raise ValueError(f"hook {hook!r} is not registered")

    def clear_hooks(self) -> None:
        """Remove all registered hooks."""
        self.hooks.clear()

    def request_cancel(self) -> None:
        """Ask the running (or next) run to stop at the next boundary with ``cancelled_immediate``."""
        self._cancel.set()

    # ----------------------------------------------------------------- run / resume
    def run(self, task: str | Task, **kwargs: Any) -> EngineResult[StateT]:
        """Execute the agent loop for ``task`` until a stop condition (or a pause) ends it."""
        if not isinstance(task, str | Task):
            raise TypeError(f"task must be a str or a Task, got {type(task).__name__}")
        writer = self.trace_writer
        run_id = getattr(writer, "run_id", None) or self.new_run_id()
        run = RunState(run_id=run_id, task=task, writer=writer, started=self.clock(), engine_id=id(self))
        self._run = run
        self.hook_errors = []
        with sink.bind(self._sink_emitter(run)):
            try:
                self._start(run, kwargs)
                if not is_stopped(run):
                    self._loop(run, resume_boundary=None)
            except _Pause as pause:
                return self._paused(run, pause.snapshot)
            except StopSignal:
                pass
            return self._finish(run)

    def resume(self, snapshot: RuntimeSnapshot) -> EngineResult[StateT]:
        """Continue a paused run from its snapshot; it ends as if it had never paused."""
        if not isinstance(snapshot, RuntimeSnapshot):
            raise TypeError(f"resume needs a RuntimeSnapshot, got {type(snapshot).__name__}")
        run = snapshot.run
        if not isinstance(run, RunState) or run.engine_id != id(self):
            raise ValueError(
                "this snapshot was not paused by this Engine; resume it with the Engine that paused it"
            )
        if run.status != STATUS_PAUSED or run.snapshot is not snapshot:
            raise ValueError(f"run {run.run_id!r} is not paused at this snapshot (status {run.status!r})")
        self._run = run
        run.status = STATUS_RUNNING
        run.snapshot = None
        run.segment_start = self.clock()
        with sink.bind(self._sink_emitter(run)):
            self._emit(
                run, "lifecycle_resume", {"policy_id": snapshot.policy_id, "step_id": snapshot.step_id}
            )
            if run.writer is not None:
                run.writer.update_manifest(status=STATUS_RUNNING)
            try:
                self._loop(run, resume_boundary=(snapshot.step_id, snapshot.boundary, snapshot))
            except _Pause as pause:
                return self._paused(run, pause.snapshot)
            except StopSignal:
                pass
            return self._finish(run)

    # ----------------------------------------------------------------- events
    def _sink_emitter(self, run: RunState) -> Callable[..., None]:
        def emitter(kind: str, payload: dict[str, Any], *, ok: bool = True, error: str | None = None) -> None:
            self._emit(run, kind, payload, ok=ok, error=error)

        return emitter

    def _emit(
        self,
        run: RunState,
        phase: str,
        payload: dict[str, Any],
        *,
        ok: bool = True,
        error: str | None = None,
        step_id: int | None = None,
    ) -> RunEvent:
        """The one place every RunEvent goes through: result events, trace writer, hooks' on_event."""
        writer = run.writer
        event = RunEvent(
            run_id=run.run_id,
            step_id=run.step_count if step_id is None else step_id,
            phase=phase,
            ok=ok,
            payload=payload,
            error=error,
            ts=writer.clock() if writer is not None else utc_now(),
        )
        with run.lock:
            run.events.append(event)
            if writer is not None and not run.closed:
                writer.write_event(event)
        for hook in self.hooks:
            on_event = getattr(hook, "on_event", None)
            if on_event is None:
                continue
            try:
                on_event(event)
            except Exception as exc:  # noqa: BLE001 - a broken observer must not end the run
                message = f"{type(hook).__name__}.on_event failed: {type(exc).__name__}: {exc}"
                self.hook_errors.append(message)
                warnings.warn(message, RuntimeWarning, stacklevel=2)
        return event

    def _call_hooks(self, name: str, run: RunState, phase: str, **extra: Any) -> None:
        if not self.hooks:
            return
        ctx = HookContext(
            run_id=run.run_id,
            step_id=run.step_count,
            phase=phase,
            state=run.state,
            decision=extra.pop("decision", None),
            payload=extra,
            engine=self,
        )
        for hook in list(self.hooks):
            method = getattr(hook, name, None)
            if method is None:
                continue
            try:
                method(ctx)
            except Exception as exc:  # noqa: BLE001 - reported as an error event, the run goes on
                message = f"{type(hook).__name__}.{name} failed: {type(exc).__name__}: {exc}"
                self.hook_errors.append(message)
                self._emit(
                    run,
                    "error",
                    {
                        "category": "system",
                        "message": message,
                        "phase": phase,
                        "recoverable": True,
                        "details": {},
                    },
                    ok=False,
                    error=message,
                )

    # ----------------------------------------------------------------- start
    def _start(self, run: RunState, kwargs: dict[str, Any]) -> None:
        task = run.task
        objective = task.objective if isinstance(task, Task) else task
        budget = self.budget.tightened(task.budget) if isinstance(task, Task) else self.budget
        run.budget = budget
        model = self._model_caller(run)
        self.request_builder.start_run(run.run_id)
        for criterion in self.stop_criteria:
            reset = getattr(criterion, "reset", None)
            if callable(reset):
                reset()
        if self.agent.memory is not None:
            self.agent.memory.reset(run.run_id)
        if self.agent.history is not None:
            self.agent.history.reset(run.run_id)
        try:
            state = self.agent.init_state(objective, **kwargs)
        except QitosRuntimeError as exc:
            return self._fail_early(run, exc.info.message, StopReason.UNRECOVERABLE_ERROR, "INIT", exc)
        except Exception as exc:  # noqa: BLE001 - agent code: report, never crash the caller
            err = SystemExecutionError.make(f"init_state failed: {type(exc).__name__}: {exc}", phase="INIT")
            return self._fail_early(run, err.info.message, StopReason.UNRECOVERABLE_ERROR, "INIT", err)
        run.state = state
        if self.max_steps_override is not None and hasattr(state, "max_steps"):
            state.max_steps = self.max_steps_override
        if isinstance(task, Task) and task.budget.max_steps is not None and hasattr(state, "max_steps"):
            state.max_steps = min(state.max_steps, task.budget.max_steps)
        registry = self.agent.tool_registry
        run.executor = ToolExecutor(registry, self.env.runtime_context() if self.env is not None else {})
        init_payload = {
            "task": objective,
            "task_id": task.id if isinstance(task, Task) else None,
            "run_meta": {
                "model_name": model.model_id if model.model is not None else None,
                "parser": type(self._parser()).__name__ if self._parser() is not None else None,
                "tool_count": len(registry.list_tools()) if registry is not None else 0,
                "tools": registry.list_tools() if registry is not None else [],
                "env": self._env_info(),
                "lifecycle_policies": [p.policy_id for p in self.lifecycle_policies],
            },
        }
        if isinstance(task, Task):
            init_payload["task_meta"] = jsonable(task.to_dict())
        if run.writer is not None:
            run.writer.update_manifest(
                status=STATUS_RUNNING, model_id=model.model_id if model.model else None
            )
        problem = preflight(task, self.env, registry)
        if problem is not None:
            reason, message, details = problem
            self._emit(run, "INIT", init_payload)
            return self._fail_early(run, message, reason, "INIT", None, details)
        if registry is not None and registry.list_toolsets():
            self._emit(run, "toolset_setup_start", {"toolsets": registry.list_toolsets()})
            registry.setup({"run_id": run.run_id, "env": self.env})
            self._emit(run, "toolset_setup_end", {"toolsets": registry.list_toolsets()})
            run.toolsets_open = True
        if self.env is not None:
            try:
                self.env.reset(task)
            except Exception as exc:  # noqa: BLE001 - env failure ends the run with a reason
                self._emit(run, "INIT", init_payload)
                err = SystemExecutionError.make(
                    f"env.reset failed: {type(exc).__name__}: {exc}", phase="INIT"
                )
                return self._fail_early(run, err.info.message, StopReason.UNRECOVERABLE_ERROR, "INIT", err)
        self._emit(run, "INIT", init_payload)
        try:
            self.validation_gate.after_phase("INIT", state, 0)
        except StateExecutionError as exc:
            return self._fail_early(run, exc.info.message, StopReason.UNRECOVERABLE_ERROR, "INIT", exc)
        self._call_hooks("on_run_start", run, "INIT")

    def _fail_early(
        self,
        run: RunState,
        message: str,
        reason: StopReason,
        phase: str,
        exc: QitosRuntimeError | None,
        details: dict[str, Any] | None = None,
    ) -> None:
        info = {"category": "task" if reason != StopReason.UNRECOVERABLE_ERROR else "system"}
        if exc is not None:
            info = exc.info.to_dict()
        else:
            info.update({"message": message, "phase": phase, "recoverable": False, "details": details or {}})
        self._emit(run, "error", info, ok=False, error=message)
        run.error = info
        self._set_stop(run, reason)

    # ----------------------------------------------------------------- the loop
    def _loop(self, run: RunState, resume_boundary: tuple[int, str, RuntimeSnapshot] | None) -> None:
        while True:
            resumed = resume_boundary if resume_boundary and resume_boundary[0] == run.step_count else None
            resume_boundary = None
            self._step(run, resumed)
            if is_stopped(run):
                return

    def _step(self, run: RunState, resumed: tuple[int, str, RuntimeSnapshot] | None) -> None:
        step_id = run.step_count
        if resumed is not None and resumed[1] == "before_act":
            pending = resumed[2]
            observation = pending.run.pending["observation"]
            decision = pending.pending_decision
            actions = list(pending.pending_actions)
            record = pending.run.pending["record"]
            before = pending.run.pending["before"]
            rollback = pending.run.pending["rollback"]
            run.pending = {}
        else:
            self._check_interrupts(run)
            if resumed is None:
                self._maybe_pause(run, "before_decide", None, [])
            self._call_hooks("on_step_start", run, "OBSERVE")
            rollback = self._rollback_copy(run.state) if self.critics else None
            before = state_dict(run.state)
            observation = self._observe(run)
            record = StepRecord(step_id=step_id, observation=observation)
            decision = self._decide(run, observation)
            actions = self._actions_of(decision)
            record.decision = decision
            record.actions = actions
            self._check_interrupts(run)
            run.pending = {
                "observation": observation,
                "record": record,
                "before": before,
                "rollback": rollback,
            }
            self._maybe_pause(run, "before_act", decision, actions)
            run.pending = {}
        results = self._act(run, actions, record)
        reduce_obs = dict(observation) if isinstance(observation, dict) else {"observation": observation}
        reduce_obs["action_results"] = results
        self._reduce(run, reduce_obs, decision, record, before)
        verdict = self._critic(run, decision, results, record)
        if verdict == "retry":
            if rollback is not None:
                run.state = rollback
            return
        self._check_stop(run, decision, verdict, record)

    # ----------------------------------------------------------------- phases
    def _observe(self, run: RunState) -> Any:
        self._call_hooks("on_before_phase", run, "OBSERVE")
        self._emit(run, "OBSERVE", {"stage": "start"})
        env_view = None
        if self.env is not None:
            env_view = self._guard(run, "OBSERVE", self.env.observe)
        observation = self._guard(run, "OBSERVE", lambda: self.agent.observe(run.state, env_view))
        payload = {"stage": "observation_ready", "observation": jsonable(observation)}
        self._emit(run, "OBSERVE", payload)
        self._call_hooks("on_after_phase", run, "OBSERVE", observation=observation)
        return observation

    def _decide(self, run: RunState, observation: Any) -> Decision[Any]:
        self._call_hooks("on_before_phase", run, "DECIDE")
        self._emit(run, "DECIDE", {"stage": "start"})
        retries = 0
        while True:
            try:
                decision = self._decide_once(run, observation)
                break
            except QitosRuntimeError as exc:
                exc.info.step_id = run.step_count
                exc.info.phase = exc.info.phase or "DECIDE"
                retry = self.recovery_policy.should_retry(exc.info, retries, run.recoveries)
                self._report_error(run, exc, retrying=retry)
                if not retry:
                    run.error = exc.info.to_dict()
                    self._stop_now(run, StopReason.UNRECOVERABLE_ERROR)
                retries += 1
                run.recoveries += 1
                if self.recovery_handler is not None:
                    self._guard(run, "DECIDE", lambda exc=exc: self.recovery_handler(exc.info, run.state))
                self._check_interrupts(run)
        if decision.mode == "branch":
            chooser = self.search if self.search is not None else self.branch_selector
            candidates = decision.candidates
            chosen = self._guard(run, "DECIDE", lambda: chooser.select(candidates, run.state, observation))
            if not isinstance(chosen, Decision) or chosen.mode == "branch":
                self._fatal(
                    run, "DECIDE", f"{type(chooser).__name__}.select must return a non-branch Decision"
                )
            chosen.meta.setdefault(
                "branch", {"candidate_count": len(candidates), "selector": type(chooser).__name__}
            )
            decision = chosen
            self._guard(run, "DECIDE", decision.validate)
        self._emit(
            run,
            "DECIDE",
            {
                "stage": "decision_ready",
                "mode": decision.mode,
                "rationale": decision.rationale,
                "actions": jsonable(decision.to_dict()["actions"]),
                "final_answer": decision.final_answer,
                "candidate_count": decision.meta.get("branch", {}).get("candidate_count", 0),
            },
        )
        self._call_hooks("on_after_phase", run, "DECIDE", decision=decision)
        return decision

    def _decide_once(self, run: RunState, observation: Any) -> Decision[Any]:
        try:
            decision = self.agent.decide(run.state, observation)
        except QitosRuntimeError:
            raise
        except Exception as exc:  # noqa: BLE001 - agent code failure is a system error
            raise SystemExecutionError.make(
                f"agent.decide failed: {type(exc).__name__}: {exc}", phase="DECIDE", step_id=run.step_count
            ) from exc
        from_model = decision is None
        if from_model:
            decision = run.model.call(run, self._parser())
        if not isinstance(decision, Decision):
            cls = ParseExecutionError if from_model else SystemExecutionError
            raise cls.make(f"decide produced {type(decision).__name__}, not a Decision", phase="DECIDE")
        try:
            decision.validate()
        except ValueError as exc:
            cls = ParseExecutionError if from_model else SystemExecutionError
            raise cls.make(f"invalid decision: {exc}", phase="DECIDE") from exc
        return decision

    def _actions_of(self, decision: Decision[Any]) -> list[Any]:
        if decision.mode != "act":
            return []
        actions = []
        for item in decision.actions:
            if isinstance(item, dict):
                try:
                    item = Action.from_dict(item)
                except ValueError as exc:
                    raise ParseExecutionError.make(f"bad action {item!r}: {exc}", phase="DECIDE") from exc
            actions.append(item)
        return actions

    def _act(self, run: RunState, actions: list[Any], record: StepRecord) -> list[Any]:
        self._call_hooks("on_before_phase", run, "ACT")
        self._emit(run, "ACT", {"stage": "start"})
        results: list[Any] = []
        invocations: list[dict[str, Any]] = []
        for index, action in enumerate(actions):
            self._check_interrupts(run)
            call_id = getattr(action, "action_id", None) or f"{run.step_count}-{index}"
            if isinstance(action, Action) and (
                run.executor.registry is not None and action.name in run.executor.registry
            ):
                result, invocation = self._run_tool(run, action, call_id)
            elif self.env is not None:
                result, invocation = self._run_env_step(run, action, call_id)
            else:
                result, invocation = self._run_tool(run, action, call_id)
            results.append(result)
            invocations.append(invocation)
        record.action_results = results
        record.tool_invocations = invocations
        if results:
            self.request_builder.record_tool_results(
                [
                    {"tool": inv["tool_name"], "result": jsonable(res), "error": inv["error"]}
                    for inv, res in zip(invocations, results, strict=True)
                ],
                step_id=run.step_count,
            )
        self._emit(
            run,
            "ACT",
            {"stage": "action_results", "tool_invocations": invocations, "action_results": jsonable(results)},
        )
        self._call_hooks("on_after_phase", run, "ACT", action_results=results)
        return results

    def _run_tool(self, run: RunState, action: Any, call_id: str) -> tuple[Any, dict[str, Any]]:
        name = getattr(action, "name", type(action).__name__)
        args = getattr(action, "args", {})
        self._emit(run, "tool_call", {"call_id": call_id, "tool": name, "args": jsonable(args)})
        if isinstance(action, Action):
            outcome = run.executor.execute(action)
        else:
            from qitos.engine.tool_executor import ToolOutcome

            outcome = ToolOutcome(
                ok=False,
                error=f"cannot execute {type(action).__name__} without an env",
                error_category="tool",
            )
        self._emit(
            run,
            "tool_result",
            {
                "call_id": call_id,
                "tool": name,
                "ok": outcome.ok,
                "result": jsonable(outcome.result),
                "error": outcome.error,
                "attempts": outcome.attempts,
                "latency_ms": round(outcome.latency_ms, 3),
            },
            ok=outcome.ok,
            error=outcome.error,
        )
        if not outcome.ok:
            self._emit(
                run,
                "error",
                {
                    "category": "tool",
                    "message": outcome.error,
                    "phase": "ACT",
                    "recoverable": True,
                    "details": {"tool": name, "attempts": outcome.attempts, "timed_out": outcome.timed_out},
                },
                ok=False,
                error=outcome.error,
            )
        origin = outcome.origin or {"source": "function", "toolset_name": None, "toolset_version": None}
        invocation = {
            "tool_name": name,
            "toolset_name": origin.get("toolset_name"),
            "toolset_version": origin.get("toolset_version"),
            "source": origin.get("source"),
            "attempts": outcome.attempts,
            "latency_ms": outcome.latency_ms,
            "status": "success" if outcome.ok else "error",
            "error_category": outcome.error_category,
            "error": outcome.error,
        }
        return outcome.as_action_result(), invocation

    def _run_env_step(self, run: RunState, action: Any, call_id: str) -> tuple[Any, dict[str, Any]]:
        name = getattr(action, "name", type(action).__name__)
        self._emit(
            run,
            "tool_call",
            {"call_id": call_id, "tool": name, "args": jsonable(getattr(action, "args", {}))},
        )
        start = time.perf_counter()
        try:
            result, ok, error = self.env.step(action), True, None
        except Exception as exc:  # noqa: BLE001 - env refusal is a step result
            result, ok, error = None, False, f"env.step failed: {type(exc).__name__}: {exc}"
        latency = (time.perf_counter() - start) * 1000
        self._emit(run, "ACT", {"stage": "env_step", "env_result": jsonable(result)})
        payload = {"call_id": call_id, "tool": name, "ok": ok, "result": jsonable(result), "error": error}
        self._emit(
            run,
            "tool_result",
            {**payload, "attempts": 1, "latency_ms": round(latency, 3)},
            ok=ok,
            error=error,
        )
        invocation = {
            "tool_name": name,
            "toolset_name": None,
            "toolset_version": None,
            "source": "env",
            "attempts": 1,
            "latency_ms": latency,
            "status": "success" if ok else "error",
            "error_category": None if ok else "env",
            "error": error,
        }
        return (result if ok else {"status": "error", "error": error, "error_category": "env"}), invocation

    def _reduce(
        self,
        run: RunState,
        observation: Any,
        decision: Decision[Any],
        record: StepRecord,
        before: dict[str, Any],
    ) -> None:
        self._call_hooks("on_before_phase", run, "REDUCE", decision=decision)
        self._emit(run, "REDUCE", {"stage": "start"})
        new_state = self._guard(run, "REDUCE", lambda: self.agent.reduce(run.state, observation, decision))
        if new_state is None:
            self._fatal(
                run, "REDUCE", "agent.reduce returned None; it must return the next state", state=True
            )
        run.state = new_state
        if decision.mode == "final" and getattr(new_state, "final_result", None) is None:
            try:
                new_state.final_result = decision.final_answer
            except AttributeError:
                pass
        try:
            self.validation_gate.after_phase("REDUCE", new_state, run.step_count)
        except StateExecutionError as exc:
            self._report_error(run, exc, retrying=False)
            run.error = exc.info.to_dict()
            self._stop_now(run, StopReason.UNRECOVERABLE_ERROR)
        record.state_diff = diff(before, state_dict(new_state))
        self._emit(run, "REDUCE", {"stage": "state_reduced", "state_diff": record.state_diff})
        self._call_hooks("on_after_phase", run, "REDUCE", state_diff=record.state_diff)

    def _critic(self, run: RunState, decision: Decision[Any], results: list[Any], record: StepRecord) -> str:
        if not self.critics:
            return "continue"
        self._call_hooks("on_before_phase", run, "CRITIC", decision=decision)
        self._emit(run, "CRITIC", {"stage": "start", "critic_count": len(self.critics)})
        outputs: list[CriticOutput] = []
        for critic in self.critics:
            raw = self._guard(
                run, "CRITIC", lambda critic=critic: critic.evaluate(run.state, decision, results)
            )
            outputs.append(self._guard(run, "CRITIC", lambda raw=raw: CriticOutput.coerce(raw)))
        record.critic_outputs = [o.to_dict() for o in outputs]
        self._emit(run, "CRITIC", {"stage": "outputs", "critic_outputs": record.critic_outputs})
        verdict = "continue"
        if any(o.action == "stop" for o in outputs):
            verdict = "stop"
        elif any(o.action == "retry" for o in outputs):
            if run.critic_retries < self.recovery_policy.max_critic_retries_per_step:
                run.critic_retries += 1
                verdict = "retry"
            else:
                verdict = "stop"
        stage = {"continue": "pass", "retry": "retry", "stop": "stop"}[verdict]
        self._emit(run, "CRITIC", {"stage": stage, "critic_retries": run.critic_retries})
        self._call_hooks(
            "on_after_phase", run, "CRITIC", critic_outputs=record.critic_outputs, verdict=verdict
        )
        return verdict

    def _check_stop(self, run: RunState, decision: Decision[Any], verdict: str, record: StepRecord) -> None:
        self._call_hooks("on_before_phase", run, "CHECK_STOP")
        self._emit(run, "CHECK_STOP", {"stage": "start"})
        state = run.state
        run.critic_retries = 0
        reason: StopReason | None = None
        detail = ""
        if verdict == "stop":
            reason, detail = StopReason.CRITIC_STOP, "a critic asked to stop"
        elif decision.mode == "final":
            reason, detail = StopReason.FINAL, "Decision.final accepted"
        if reason is None:
            info = {
                "elapsed_seconds": run.elapsed(self.clock),
                "token_usage": run.tokens,
                "decision": decision,
            }
            for criterion in self.stop_criteria:
                verdict_obj = self._guard(
                    run, "CHECK_STOP", lambda c=criterion: c.should_stop(state, run.step_count, info)
                )
                stop, why, text = _criterion_verdict(verdict_obj)
                if stop:
                    reason, detail = why or StopReason.SUCCESS, text
                    break
        if reason is None and self._guard(run, "CHECK_STOP", lambda: bool(self.agent.should_stop(state))):
            reason, detail = StopReason.AGENT_CONDITION, "agent.should_stop returned True"
        if reason is None and self.env is not None and self._guard(run, "CHECK_STOP", self.env.is_terminal):
            reason, detail = StopReason.ENV_TERMINAL, "env.is_terminal returned True"
        self._advance(run, state)
        if reason is None:
            reason, detail = self._limit_reason(run, state, run.step_count + 1)
        if run.writer is not None:
            run.writer.write_step(record.to_dict())
        run.records.append(record)
        if reason is None:
            self._emit(run, "CHECK_STOP", {"stage": "continue"})
        else:
            self._set_stop(run, reason)
            final = jsonable(run.final_result)
            self._emit(
                run,
                "CHECK_STOP",
                {"stage": "stop", "stop_reason": reason.value, "final_result": final, "detail": detail},
            )
        self._call_hooks("on_after_phase", run, "CHECK_STOP", stop_reason=run.stop_reason)
        self._call_hooks("on_step_end", run, "CHECK_STOP", record=record)
        run.step_count += 1

    def _advance(self, run: RunState, state: Any) -> None:
        advance = getattr(state, "advance_step", None)
        max_steps = getattr(state, "max_steps", None)
        current = getattr(state, "current_step", None)
        if (
            callable(advance)
            and isinstance(max_steps, int)
            and isinstance(current, int)
            and current < max_steps
        ):
            self._guard(run, "CHECK_STOP", advance)

    def _limit_reason(self, run: RunState, state: Any, steps_done: int) -> tuple[StopReason | None, str]:
        max_steps = getattr(state, "max_steps", None)
        current = getattr(state, "current_step", None)
        if isinstance(max_steps, int) and isinstance(current, int) and current >= max_steps:
            return StopReason.MAX_STEPS, f"state.current_step reached max_steps={max_steps}"
        budget = run.budget
        if steps_done >= budget.max_steps:
            return StopReason.BUDGET_STEPS, f"budget of {budget.max_steps} steps used"
        if budget.max_tokens is not None and run.tokens >= budget.max_tokens:
            return StopReason.BUDGET_TOKENS, f"{run.tokens} tokens used of {budget.max_tokens}"
        if budget.max_runtime_seconds is not None and run.elapsed(self.clock) >= budget.max_runtime_seconds:
            return StopReason.BUDGET_TIME, f"runtime budget of {budget.max_runtime_seconds}s used"
        return None, ""

    # ----------------------------------------------------------------- interrupts, pause, stop
    def _check_interrupts(self, run: RunState) -> None:
        """Cancellation and the time/token budgets, checked at every boundary inside a step."""
        if self._cancel.is_set():
            self._cancel.clear()
            self._emit(run, "CHECK_STOP", {"stage": "cancel", "detail": "request_cancel() observed"})
            self._stop_now(run, StopReason.CANCELLED_IMMEDIATE)
        budget = run.budget
        if budget.max_runtime_seconds is not None and run.elapsed(self.clock) >= budget.max_runtime_seconds:
            self._stop_now(run, StopReason.BUDGET_TIME)
        if budget.max_tokens is not None and run.tokens >= budget.max_tokens:
            self._stop_now(run, StopReason.BUDGET_TOKENS)

    def _maybe_pause(self, run: RunState, boundary: str, decision: Any, actions: list[Any]) -> None:
        if not self.lifecycle_policies:
            return
        context = RuntimeSnapshotContext(
            run_id=run.run_id,
            step_id=run.step_count,
            boundary=boundary,  # type: ignore[arg-type]
            state=run.state,
            pending_decision=decision,
            pending_actions=tuple(actions),
        )
        for policy in self.lifecycle_policies:
            pause = self._guard(run, boundary, lambda p=policy: bool(p.should_pause(context)))
            if pause:
                snapshot = RuntimeSnapshot(
                    run_id=run.run_id,
                    step_id=run.step_count,
                    boundary=boundary,  # type: ignore[arg-type]
                    policy_id=policy.policy_id,
                    reason=f"{policy.policy_id} paused {boundary.replace('_', ' ')}",
                    state=run.state,
                    pending_decision=decision,
                    pending_actions=list(actions),
                    run=run,
                )
                raise _Pause(snapshot)

    def _paused(self, run: RunState, snapshot: RuntimeSnapshot) -> EngineResult[StateT]:
        run.active_elapsed += self.clock() - run.segment_start
        run.status = STATUS_PAUSED
        run.snapshot = snapshot
        pending = [
            {"name": getattr(a, "name", str(a)), "args": jsonable(getattr(a, "args", {}))}
            for a in snapshot.pending_actions
        ]
        self._emit(
            run,
            "lifecycle_pause",
            {
                "policy_id": snapshot.policy_id,
                "reason": snapshot.reason,
                "step_id": snapshot.step_id,
                "boundary": snapshot.boundary,
                "pending_actions": pending,
            },
        )
        if run.writer is not None:
            run.writer.update_manifest(
                status=STATUS_PAUSED, summary=self._summary(run), step_count=run.step_count
            )
        result = self._result(run)
        self._call_hooks("on_run_end", run, "END", result=result)
        return result

    def _set_stop(self, run: RunState, reason: StopReason) -> None:
        run.stop_reason = reason.value
        state = run.state
        if state is None:
            return
        set_stop = getattr(state, "set_stop", None)
        if callable(set_stop):
            set_stop(reason)
        else:
            try:
                state.stop_reason = reason.value
            except AttributeError:
                pass

    def _stop_now(self, run: RunState, reason: StopReason) -> None:
        self._set_stop(run, reason)
        raise StopSignal(reason)

    def _report_error(self, run: RunState, exc: QitosRuntimeError, *, retrying: bool) -> None:
        payload = exc.info.to_dict()
        payload["retrying"] = retrying
        self._emit(run, "error", payload, ok=False, error=exc.info.message)
        self._call_hooks("on_error", run, exc.info.phase, error=payload)

    def _fatal(self, run: RunState, phase: str, message: str, *, state: bool = False) -> None:
        cls = StateExecutionError if state else SystemExecutionError
        exc = cls.make(message, phase=phase, step_id=run.step_count)
        self._report_error(run, exc, retrying=False)
        run.error = exc.info.to_dict()
        self._stop_now(run, StopReason.UNRECOVERABLE_ERROR)

    def _guard(self, run: RunState, phase: str, fn: Callable[[], Any]) -> Any:
        """Run agent/env/policy code; any failure becomes an error event and an unrecoverable stop."""
        try:
            return fn()
        except (StopSignal, _Pause):
            raise
        except QitosRuntimeError as exc:
            exc.info.phase = exc.info.phase or phase
            exc.info.step_id = run.step_count
            self._report_error(run, exc, retrying=False)
            run.error = exc.info.to_dict()
            self._stop_now(run, StopReason.UNRECOVERABLE_ERROR)
        except Exception as exc:  # noqa: BLE001 - agent code: report with its type, never crash the caller
            self._fatal(run, phase, f"{phase} failed: {type(exc).__name__}: {exc}")
        return None

    # ----------------------------------------------------------------- finish
    def _finish(self, run: RunState) -> EngineResult[StateT]:
        run.active_elapsed += self.clock() - run.segment_start
        if run.stop_reason is None:
            self._set_stop(run, StopReason.UNRECOVERABLE_ERROR)
        status = status_for(run.stop_reason)
        run.status = status
        self._emit(run, "END", {"stop_reason": run.stop_reason}, step_id=max(run.step_count - 1, 0))
        registry = self.agent.tool_registry
        if run.toolsets_open and registry is not None:
            self._emit(run, "toolset_teardown_start", {"toolsets": registry.list_toolsets()})
            try:
                registry.teardown({"run_id": run.run_id, "env": self.env})
            except QitosRuntimeError as exc:
                self._report_error(run, exc, retrying=False)
            self._emit(run, "toolset_teardown_end", {"toolsets": registry.list_toolsets()})
        if self.owned_env is not None:
            self.owned_env.close()
        result = self._result(run)
        summary = self._summary(run)
        self._emit(
            run,
            "run_end",
            {
                "status": status,
                "stop_reason": run.stop_reason,
                "final_result": summary["final_result"],
                "steps": run.step_count,
                "token_usage": run.tokens,
            },
            step_id=max(run.step_count - 1, 0),
        )
        if run.writer is not None:
            run.writer.update_manifest(step_count=run.step_count, token_usage=run.tokens)
            run.writer.finalize(status=status, summary=summary)
            run.closed = True
        self._call_hooks("on_run_end", run, "END", result=result)
        return result

    def _result(self, run: RunState) -> EngineResult[StateT]:
        task_result = (
            self._task_result(run) if isinstance(run.task, Task) and run.status != STATUS_PAUSED else None
        )
        return EngineResult(
            state=run.state,
            records=run.records,
            events=run.events,
            step_count=run.step_count,
            task_result=task_result,
            status=run.status,
            run_id=run.run_id,
            snapshot=run.snapshot,
            token_usage=run.tokens,
            error=run.error,
        )

    def _summary(self, run: RunState) -> dict[str, Any]:
        summary = {
            "stop_reason": run.stop_reason,
            "final_result": jsonable(run.final_result),
            "steps": run.step_count,
            "token_usage": run.tokens,
        }
        if run.error is not None:
            summary["failure_report"] = {
                "failure_count": 1,
                "failures": [run.error],
                "stop_reason": run.stop_reason,
            }
        if run.snapshot is not None:
            summary["paused"] = {"policy_id": run.snapshot.policy_id, "boundary": run.snapshot.boundary}
        return summary

    def _task_result(self, run: RunState) -> Any:
        from qitos.core.task import TaskResult

        task: Task = run.task  # type: ignore[assignment]
        workspace = getattr(self.env, "root", None)
        return TaskResult(
            task_id=task.id,
            success=run.stop_reason in (StopReason.SUCCESS.value, StopReason.FINAL.value),
            stop_reason=run.stop_reason,
            final_result=run.final_result,
            artifacts=task.resolve_resources(str(workspace) if workspace else None) if task.resources else [],
            metrics={
                "steps": run.step_count,
                "elapsed_seconds": run.active_elapsed,
                "token_usage": run.tokens,
            },
            metadata={"unevaluated_criteria": list(task.success_criteria)} if task.success_criteria else {},
        )

    # ----------------------------------------------------------------- helpers
    def _parser(self) -> Any:
        return self.parser if self.parser is not None else self.agent.model_parser

    def _model_caller(self, run: RunState) -> ModelCaller:
        run.model = ModelCaller(self, self.agent.llm)
        return run.model

    def _env_info(self) -> dict[str, Any]:
        if self.env is None:
            return {"enabled": False}
        return {
            "enabled": True,
            "name": getattr(self.env, "name", type(self.env).__name__),
            "version": getattr(self.env, "version", None),
        }

    def _history_append(self, role: str, content: str, step_id: int) -> None:
        if self.agent.history is not None:
            self.agent.history.append(HistoryMessage(role=role, content=content, step_id=step_id))

    def _rollback_copy(self, state: Any) -> Any:
        import copy

        try:
            return copy.deepcopy(state)
        except Exception:  # noqa: BLE001 - an uncopyable state is retried without rollback
            return None


def _criterion_verdict(value: Any) -> tuple[bool, StopReason | None, str]:
    """Normalise what a stop criterion returned: a StopDecision, a bool, or (stop, reason[, detail])."""
    from qitos.engine.policies import StopDecision

    if isinstance(value, StopDecision):
        return value.stop, StopReason(value.reason) if value.reason is not None else None, value.detail
    if isinstance(value, bool):
        return value, None, ""
    if isinstance(value, tuple) and value and isinstance(value[0], bool):
        reason = StopReason(value[1]) if len(value) > 1 and value[1] is not None else None
        return value[0], reason, str(value[2]) if len(value) > 2 else ""
    raise TypeError(f"a stop criterion must return a StopDecision, bool or tuple, got {type(value).__name__}")

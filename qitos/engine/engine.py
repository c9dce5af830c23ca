"""The Engine: the observe → decide → act → reduce → critic → check_stop kernel of a run."""

from __future__ import annotations

import threading
import time
import uuid
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, NoReturn, ParamSpec, TypeVar

from qitos.core.agent_module import AgentModule
from qitos.core.errors import (
    QitosRuntimeError,
    StateExecutionError,
    SystemExecutionError,
)
from qitos.core.history import HistoryMessage, HistoryPolicy
from qitos.core.stop_reason import StopReason
from qitos.core.task import Task
from qitos.engine.acting import ActMixin
from qitos.engine.composition import CONFIG_KEYS, compose
from qitos.engine.hooks import HookContext, call_on_event, hook_method, hook_method_names
from qitos.engine.model_call import ModelCaller
from qitos.engine.outcome import OutcomeMixin, status_for  # noqa: F401 - status_for re-exported
from qitos.engine.phases import PhaseMixin
from qitos.engine.policies import (
    BranchSelector,
    FinalResultCriteria,
    RecoveryHandler,
    RecoveryPolicy,
    StateValidationGate,
)
from qitos.engine.request_builder import RequestBuilder
from qitos.engine.result import EngineResult, StepRecord
from qitos.engine.run_state import RunState, StopSignal, is_stopped
from qitos.engine.runtime import (
    Boundary,
    LifecyclePolicy,
    RuntimeBudget,
    RuntimePhase,
    RuntimeSnapshot,
    RuntimeSnapshotContext,
)
from qitos.engine.serialize import state_dict
from qitos.engine.startup import StartMixin
from qitos.trace import sink
from qitos.trace.events import (
    STATUS_PAUSED,
    STATUS_RUNNING,
    EventKind,
    RunEvent,
    utc_now,
)
from qitos.trace.redact import Redactor

if TYPE_CHECKING:
    from qitos.engine.host import EngineHost
    from qitos.engine.replay import Replay

StateT = TypeVar("StateT")
ObservationT = TypeVar("ObservationT")
ActionT = TypeVar("ActionT")
P = ParamSpec("P")
R = TypeVar("R")


class _Pause(Exception):
    """Raised inside the loop when a lifecycle policy pauses the run."""

    def __init__(self, snapshot: RuntimeSnapshot) -> None:
        super().__init__(snapshot.policy_id)
        self.snapshot = snapshot


class Engine(StartMixin, PhaseMixin, ActMixin, OutcomeMixin, Generic[StateT, ObservationT, ActionT]):
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
        self._busy = threading.Lock()  # one run at a time per Engine (the request builder is per run)
        self._finalised_writers: set[int] = set()
        self._own_redactor: Redactor | None = None
        # A recorded trace put back in place of model and tool calls (qitos.engine.replay), or None.
        self.replay: Replay | None = None

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
        """Ask the run to stop at its next boundary with ``cancelled_immediate`` (thread-safe).

        A request made before ``run``/``resume`` applies to that run at its first boundary; a request
        the run ends without observing is dropped, so it never leaks into a later run.
        """
        self._cancel.set()

    def _withdraw_cancel(self) -> None:
        """Drop a cancel request that no run is left to observe (AsyncEngine, once its run returned)."""
        self._cancel.clear()

    # ----------------------------------------------------------------- run / resume
    def run(self, task: str | Task, **kwargs: Any) -> EngineResult[StateT]:
        """Execute the agent loop for ``task`` until a stop condition (or a pause) ends it."""
        if not isinstance(task, str | Task):
            raise TypeError(f"task must be a str or a Task, got {type(task).__name__}")
        writer = self.trace_writer
        if writer is not None and id(writer) in self._finalised_writers:
            raise RuntimeError(
                "this Engine's TraceWriter already holds a finished run; give each run its own"
            )
        previous = self._run
        if (
            writer is not None
            and previous is not None
            and previous.writer is writer
            and previous.status == STATUS_PAUSED
        ):
            raise RuntimeError(
                f"run {previous.run_id!r} is paused on this Engine's TraceWriter; resume it, or give the new run its own"
            )
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("this Engine is already running; use one Engine per concurrent run")
        try:
            return self._run_new(task, writer, kwargs)
        finally:
            self._busy.release()

    def _run_new(self, task: str | Task, writer: Any, kwargs: dict[str, Any]) -> EngineResult[StateT]:
        run_id = getattr(writer, "run_id", None) or self.new_run_id()
        run = RunState(run_id=run_id, task=task, writer=writer, started=self.clock(), engine_id=id(self))
        self._run = run
        self.hook_errors = []
        with sink.bind(self._sink_emitter(run)):

            def body() -> None:
                self._start(run, kwargs)
                if not is_stopped(run):
                    self._loop(run, resume_boundary=None)

            return self._drive(run, body)

    def _drive(self, run: RunState, body: Callable[[], None]) -> EngineResult[StateT]:
        """Run ``body`` (a fresh run or a resumed one) and end it: paused, stopped, finished or aborted."""
        try:
            body()
        except _Pause as pause:
            return self._paused(run, pause.snapshot)
        except StopSignal:
            pass
        except BaseException as exc:
            self._abort(run, exc)
            raise
        return self._finish(run)

    def resume(self, snapshot: RuntimeSnapshot, *, decision: Any = None) -> EngineResult[StateT]:
        """Continue a paused run from its snapshot; it ends as if it had never paused.

        ``decision`` (a :class:`qitos.engine.approval.PauseDecision`) approves, denies or changes the
        pending actions of a run paused before acting; it is checked (a change against the tool's
        schema) before anything about the run changes, and recorded as a ``lifecycle_decision``."""
        if not isinstance(snapshot, RuntimeSnapshot):
            raise TypeError(f"resume needs a RuntimeSnapshot, got {type(snapshot).__name__}")
        run = snapshot.run
        if not isinstance(run, RunState) or run.engine_id != id(self):
            raise ValueError(
                "this snapshot was not paused by this Engine; resume it with the Engine that paused it"
            )
        if run.status != STATUS_PAUSED or run.snapshot is not snapshot:
            raise ValueError(f"run {run.run_id!r} is not paused at this snapshot (status {run.status!r})")
        if self._run is not run:
            raise ValueError(
                f"a newer run was started on this Engine; run {run.run_id!r} can no longer resume"
            )
        if decision is not None:
            from qitos.engine.approval import decision_problem

            problem = decision_problem(snapshot, decision, self.agent.tool_registry)
            if problem is not None:
                raise ValueError(problem)
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("this Engine is already running; resume once the current run returns")
        try:
            return self._resume_locked(run, snapshot, decision)
        finally:
            self._busy.release()

    def stop_paused(self, snapshot: RuntimeSnapshot) -> EngineResult[StateT]:
        """End a paused run where it stands, running nothing more: it stops as cancelled
        (status "stopped") and its trace is finalised, so a run given up while paused never stays
        "paused" in its manifest."""
        if not isinstance(snapshot, RuntimeSnapshot):
            raise TypeError(f"stop_paused needs a RuntimeSnapshot, got {type(snapshot).__name__}")
        run = snapshot.run
        if not isinstance(run, RunState) or run.engine_id != id(self):
            raise ValueError("this snapshot was not paused by this Engine")
        if run.status != STATUS_PAUSED or run.snapshot is not snapshot:
            raise ValueError(f"run {run.run_id!r} is not paused at this snapshot (status {run.status!r})")
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("this Engine is already running")
        try:
            run.status = STATUS_RUNNING
            run.snapshot = None
            run.segment_start = self.clock()
            with sink.bind(self._sink_emitter(run)):
                self._emit(
                    run,
                    EventKind.CHECK_STOP,
                    {"stage": "cancel", "detail": f"stopped while paused by {snapshot.policy_id}"},
                    step_id=snapshot.step_id,
                )
                self._set_stop(run, StopReason.CANCELLED_IMMEDIATE)
                return self._finish(run)
        finally:
            self._busy.release()

    def _resume_locked(self, run: RunState, snapshot: RuntimeSnapshot, decision: Any) -> EngineResult[StateT]:
        run.status = STATUS_RUNNING
        run.snapshot = None
        run.segment_start = self.clock()
        with sink.bind(self._sink_emitter(run)):
            self._emit(
                run,
                EventKind.LIFECYCLE_RESUME,
                {"policy_id": snapshot.policy_id, "step_id": snapshot.step_id},
            )
            if decision is not None:
                self._emit_decision(run, snapshot, decision)
                run.pending["verdict"] = decision
            if run.writer is not None:
                run.writer.update_manifest(status=STATUS_RUNNING)
            boundary = (snapshot.step_id, snapshot.boundary, snapshot)
            return self._drive(run, lambda: self._loop(run, resume_boundary=boundary))

    def _abort(self, run: RunState, exc: BaseException) -> None:
        """An exception escaped the loop (a runtime bug, a failing writer, Ctrl-C): still end the run
        and finalise its trace, so nothing is left "running", then let the exception propagate."""
        interrupted = isinstance(exc, KeyboardInterrupt)
        reason = StopReason.CANCELLED_IMMEDIATE if interrupted else StopReason.UNRECOVERABLE_ERROR
        message = f"run aborted: {type(exc).__name__}: {exc}"
        info = {"category": "system", "message": message, "phase": "", "recoverable": False, "details": {}}
        run.error = info
        try:
            self._emit(run, EventKind.ERROR, info, ok=False, error=message)
            self._set_stop(run, reason)
            self._finish(run)
        except Exception:  # noqa: BLE001 - the original exception is the one worth raising
            if run.writer is not None and not run.closed:
                run.writer.finalize(
                    status=status_for(reason.value), summary={"stop_reason": reason.value, "error": message}
                )
                run.closed = True

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
        """The one place every RunEvent goes through, masked once: the trace writer, hooks' on_event
        (the TUI's live tap included) and ``EngineResult.events`` all get the same masked event."""
        writer = run.writer
        raw = RunEvent(
            run_id=run.run_id,
            step_id=run.step_count if step_id is None else step_id,
            phase=phase,
            ok=ok,
            payload=payload,
            error=error,
            ts=writer.clock() if writer is not None else utc_now(),
        )
        redactor = self.redactor_for(writer)
        event, line = redactor.mask_event(raw)
        with run.lock:
            run.events.append(event)
            if phase == EventKind.ERROR:
                run.failures.append(event.payload)
            if writer is not None and not run.closed:
                if getattr(writer, "redactor", None) is redactor and hasattr(writer, "write_masked"):
                    writer.write_masked(event, line)  # masked already: written as is, no second pass
                else:
                    writer.write_event(event)
        for hook in self.hooks:
            on_event = hook_method(hook, "on_event")
            if on_event is None:
                continue
            try:
                call_on_event(on_event, event, run.state, run.current_record, self)
            except Exception as exc:  # noqa: BLE001 - a broken observer must not end the run
                message = f"{type(hook).__name__}.on_event failed: {type(exc).__name__}: {exc}"
                self.hook_errors.append(message)
                warnings.warn(message, RuntimeWarning, stacklevel=2)
        return event

    def redactor_for(self, writer: Any = None) -> Redactor:
        """The Redactor events are masked with: the trace writer's (so its extra secrets count
        everywhere), or one of this Engine's own, reading the environment when first needed."""
        found = getattr(writer, "redactor", None)
        if isinstance(found, Redactor):
            return found
        if self._own_redactor is None:
            self._own_redactor = Redactor()
        return self._own_redactor

    def _call_hooks(self, name: str, run: RunState, phase: str, **extra: Any) -> None:
        """Call the upstream hook(s) for this point (``on_before_phase`` at DECIDE is ``on_before_decide``)."""
        if not self.hooks:
            return
        methods = hook_method_names(name, phase)
        # A hook that inherits EngineHook's no-op has nothing to do here: when no hook has more,
        # the context (a dozen fields and a timestamp, at every phase of every step) is not built.
        if not any(hook_method(hook, m) is not None for hook in self.hooks for m in methods):
            return
        for method_name, args in self._hook_calls(name, run, phase, methods, extra):
            for hook in list(self.hooks):
                method = hook_method(hook, method_name)
                if method is None:
                    continue
                try:
                    method(*args)
                except Exception as exc:  # noqa: BLE001 - reported as an error event, the run goes on
                    message = f"{type(hook).__name__}.{method_name} failed: {type(exc).__name__}: {exc}"
                    self.hook_errors.append(message)
                    self._emit(
                        run,
                        EventKind.ERROR,
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

    def _hook_calls(
        self, name: str, run: RunState, phase: str, methods: tuple[str, ...], extra: dict[str, Any]
    ) -> list[tuple[str, tuple[Any, ...]]]:
        """The upstream hook methods (``methods``, as hook_method_names gives them) and their
        arguments for one of the Engine's hook points."""
        task = run.task.objective if isinstance(run.task, Task) else run.task
        if name == "on_run_start":
            return [("on_run_start", (task, run.state, self))]
        if name == "on_run_end":
            return [("on_run_end", (extra.get("result"), self))]
        record = extra.get("record") or run.current_record
        decision = extra.pop("decision", None)
        ctx = HookContext(
            task=task,
            step_id=run.step_count,
            phase=RuntimePhase(phase) if phase in RuntimePhase.__members__ else phase,
            state=run.state,
            observation=extra.get("observation"),
            decision=decision if decision is not None else getattr(record, "decision", None),
            action_results=list(extra.get("action_results") or []),
            record=record,
            payload=extra.get("error", extra) if name == "on_error" else extra,
            error=extra.get("exception"),
            stop_reason=extra.get("stop_reason"),
            run_id=run.run_id,
            ts=utc_now(),
        )
        calls: list[tuple[str, tuple[Any, ...]]] = [(methods[0], (ctx, self))]
        if name == "on_step_end":
            calls.append(("on_step_end", (record, run.state, self)))
        return calls

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
            snapshot = resumed[2]
            observation = run.pending["observation"]
            decision = snapshot.pending_decision
            actions = list(snapshot.pending_actions)
            record = run.pending["record"]
            before = run.pending["before"]
            rollback = run.pending["rollback"]
            # A person's ruling on the pending actions (taken once: a later pause starts afresh).
            ruling = run.pending.pop("verdict", None)
            if ruling is not None:
                decision, actions = self._apply_verdict(ruling, decision, actions, record)
            if ruling is None or ruling.verdict != "denied":
                # Policies after the one that paused have not been asked at this boundary yet.
                self._maybe_pause(run, "before_act", decision, actions, after=snapshot.policy_index)
            run.pending = {}
        else:
            ruling = None
            self._check_interrupts(run)
            after = resumed[2].policy_index if resumed is not None else -1
            self._maybe_pause(run, "before_decide", None, [], after=after)
            self._call_hooks("on_step_start", run, "OBSERVE")
            rollback = self._rollback_copy(run.state) if self.critics else None
            before = state_dict(run.state)
            observation = self._observe(run)
            record = StepRecord(step_id=step_id, observation=observation)
            run.current_record = record
            decision = self._decide(run, observation)
            actions = self._guard(run, "DECIDE", lambda: self._actions_of(decision))
            record.decision = decision
            record.actions = actions
            if self.replay is not None:
                # Re-running a recorded trace: a decision that differs from the record ends the run here.
                divergence = self.replay.check(run.step_count, decision)
                if divergence is not None:
                    self._fatal(run, "DECIDE", divergence)
                # A person's recorded ruling on this step (denied, changed) is ruled again.
                recorded = self.replay.ruling(run.step_count, actions)
                if recorded is not None:
                    ruling, paused = recorded
                    self._emit_decision(run, paused, ruling)
                    decision, actions = self._apply_verdict(ruling, decision, actions, record)
            self._check_interrupts(run)
            run.pending = {
                "observation": observation,
                "record": record,
                "before": before,
                "rollback": rollback,
            }
            self._maybe_pause(run, "before_act", decision, actions)
            run.pending = {}
        if ruling is not None and ruling.verdict == "denied":
            results = self._act_denied(run, actions, record, ruling)
        else:
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

    # ----------------------------------------------------------------- interrupts, pause, stop
    def _check_interrupts(self, run: RunState) -> None:
        """Cancellation and the time/token budgets, checked at every boundary inside a step."""
        if self._cancel.is_set():
            self._cancel.clear()
            self._emit(run, EventKind.CHECK_STOP, {"stage": "cancel", "detail": "request_cancel() observed"})
            self._stop_now(run, StopReason.CANCELLED_IMMEDIATE)
        budget = run.budget
        if budget.max_runtime_seconds is not None and run.elapsed(self.clock) >= budget.max_runtime_seconds:
            self._stop_now(run, StopReason.BUDGET_TIME)
        if budget.max_tokens is not None and run.tokens >= budget.max_tokens:
            self._stop_now(run, StopReason.BUDGET_TOKENS)

    def _maybe_pause(
        self, run: RunState, boundary: Boundary, decision: Any, actions: list[Any], *, after: int = -1
    ) -> None:
        """Ask each lifecycle policy (those past index ``after``) whether to pause here."""
        if len(self.lifecycle_policies) <= after + 1:
            return
        if self.replay is not None and self.replay.replaying(run.step_count):
            return  # recorded steps are re-run, not reviewed again: no policy pauses them
        context = RuntimeSnapshotContext(
            run_id=run.run_id,
            step_id=run.step_count,
            boundary=boundary,
            state=run.state,
            pending_decision=decision,
            pending_actions=tuple(actions),
        )
        for index, policy in enumerate(self.lifecycle_policies):
            if index <= after:
                continue
            pause = self._guard(run, boundary, lambda p: bool(p.should_pause(context)), policy)
            if pause:
                snapshot = RuntimeSnapshot(
                    run_id=run.run_id,
                    step_id=run.step_count,
                    boundary=boundary,
                    policy_id=policy.policy_id,
                    reason=f"{policy.policy_id} paused {boundary.replace('_', ' ')}",
                    state=run.state,
                    pending_decision=decision,
                    pending_actions=list(actions),
                    run=run,
                    policy_index=index,
                )
                raise _Pause(snapshot)

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

    def _stop_now(self, run: RunState, reason: StopReason) -> NoReturn:
        self._set_stop(run, reason)
        raise StopSignal(reason)

    def _report_error(self, run: RunState, exc: QitosRuntimeError, *, retrying: bool) -> None:
        payload = exc.info.to_dict()
        payload["retrying"] = retrying
        event = self._emit(run, EventKind.ERROR, payload, ok=False, error=exc.info.message)
        # Hooks get the masked payload, as on_event does.
        self._call_hooks("on_error", run, exc.info.phase, error=event.payload, exception=exc)

    def _fatal(self, run: RunState, phase: str, message: str, *, state: bool = False) -> NoReturn:
        cls = StateExecutionError if state else SystemExecutionError
        exc = cls.make(message, phase=phase, step_id=run.step_count)
        self._report_error(run, exc, retrying=False)
        run.error = exc.info.to_dict()
        self._stop_now(run, StopReason.UNRECOVERABLE_ERROR)

    def _guard(self, run: RunState, phase: str, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run agent/env/policy code, ``fn(*args, **kwargs)``; any failure becomes an error event and
        an unrecoverable stop."""
        try:
            return fn(*args, **kwargs)
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

    # ----------------------------------------------------------------- helpers
    def _parser(self) -> Any:
        return self.parser if self.parser is not None else self.agent.model_parser

    def _model_caller(self, run: RunState) -> ModelCaller:
        model = ModelCaller(self, self.agent.llm)
        run.model = model
        return model

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


if TYPE_CHECKING:

    def _engine_is_a_host(engine: Engine[Any, Any, Any]) -> EngineHost:
        """Where mypy checks that the Engine gives its mixins all they expect of ``self``."""
        return engine

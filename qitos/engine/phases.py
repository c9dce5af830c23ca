"""The step phases of the Engine: observe, decide, reduce, critic and check_stop."""

from __future__ import annotations

from typing import Any

from qitos.core.action import Action
from qitos.core.decision import Decision
from qitos.core.errors import (
    ParseExecutionError,
    QitosRuntimeError,
    StateExecutionError,
    SystemExecutionError,
)
from qitos.core.stop_reason import StopReason
from qitos.engine.host import EngineHost
from qitos.engine.policies import CriticOutput
from qitos.engine.result import StepRecord
from qitos.engine.run_state import RunState
from qitos.engine.serialize import diff, jsonable, state_dict
from qitos.trace.events import EventKind


class PhaseMixin:
    """Observe, decide, reduce, critic and check_stop, mixed into the Engine."""

    def _observe(self: EngineHost, run: RunState) -> Any:
        self._call_hooks("on_before_phase", run, "OBSERVE")
        self._emit(run, EventKind.OBSERVE, {"stage": "start"})
        env_view = None
        if self.env is not None:
            env_view = self._guard(run, "OBSERVE", self.env.observe)
        observation = self._guard(run, "OBSERVE", lambda: self.agent.observe(run.state, env_view))
        payload = {"stage": "observation_ready", "observation": jsonable(observation)}
        self._emit(run, EventKind.OBSERVE, payload)
        self._call_hooks("on_after_phase", run, "OBSERVE", observation=observation)
        return observation

    def _decide(self: EngineHost, run: RunState, observation: Any) -> Decision[Any]:
        self._call_hooks("on_before_phase", run, "DECIDE", observation=observation)
        self._emit(run, EventKind.DECIDE, {"stage": "start"})
        retries = 0
        while True:
            try:
                decision = self._decide_once(run, observation)
                break
            except QitosRuntimeError as exc:
                exc.info.step_id = run.step_count
                exc.info.phase = exc.info.phase or "DECIDE"
                retry = self.recovery_policy.should_retry(exc.info, retries, run.recoveries)
                # "attempt n of m" for the trace and the UI (m: the first try and the step's retries).
                exc.info.details.setdefault("attempt", retries + 1)
                exc.info.details.setdefault("max_attempts", self.recovery_policy.max_retries_per_step + 1)
                self._report_error(run, exc, retrying=retry)
                if not retry:
                    run.error = exc.info.to_dict()
                    self._stop_now(run, StopReason.UNRECOVERABLE_ERROR)
                retries += 1
                run.recoveries += 1
                if self.recovery_handler is not None:
                    self._guard(run, "DECIDE", self.recovery_handler, exc.info, run.state)
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
            EventKind.DECIDE,
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

    def _decide_once(self: EngineHost, run: RunState, observation: Any) -> Decision[Any]:
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
            try:
                assert run.model is not None  # set by _start
                decision = run.model.call(run, self._parser())
            except QitosRuntimeError:
                raise
            except Exception as exc:  # noqa: BLE001 - prompt hooks or request building failed
                raise SystemExecutionError.make(
                    f"building the model request failed: {type(exc).__name__}: {exc}",
                    phase="DECIDE",
                    step_id=run.step_count,
                ) from exc
        if not isinstance(decision, Decision):
            cls = ParseExecutionError if from_model else SystemExecutionError
            raise cls.make(f"decide produced {type(decision).__name__}, not a Decision", phase="DECIDE")
        try:
            decision.validate()
        except ValueError as exc:
            cls = ParseExecutionError if from_model else SystemExecutionError
            raise cls.make(f"invalid decision: {exc}", phase="DECIDE") from exc
        return decision

    def _actions_of(self: EngineHost, decision: Decision[Any]) -> list[Any]:
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

    def _reduce(
        self: EngineHost,
        run: RunState,
        observation: Any,
        decision: Decision[Any],
        record: StepRecord,
        before: dict[str, Any],
    ) -> None:
        self._call_hooks("on_before_phase", run, "REDUCE", decision=decision)
        self._emit(run, EventKind.REDUCE, {"stage": "start"})
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
        self._emit(run, EventKind.REDUCE, {"stage": "state_reduced", "state_diff": record.state_diff})
        self._call_hooks("on_after_phase", run, "REDUCE", state_diff=record.state_diff)

    def _critic(
        self: EngineHost, run: RunState, decision: Decision[Any], results: list[Any], record: StepRecord
    ) -> str:
        if not self.critics:
            return "continue"
        self._call_hooks("on_before_phase", run, "CRITIC", decision=decision)
        self._emit(run, EventKind.CRITIC, {"stage": "start", "critic_count": len(self.critics)})
        outputs: list[CriticOutput] = []
        for critic in self.critics:
            raw = self._guard(run, "CRITIC", lambda c: c.evaluate(run.state, decision, results), critic)
            outputs.append(self._guard(run, "CRITIC", CriticOutput.coerce, raw))
        record.critic_outputs = [o.to_dict() for o in outputs]
        self._emit(run, EventKind.CRITIC, {"stage": "outputs", "critic_outputs": record.critic_outputs})
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
        self._emit(run, EventKind.CRITIC, {"stage": stage, "critic_retries": run.critic_retries})
        self._call_hooks(
            "on_after_phase", run, "CRITIC", critic_outputs=record.critic_outputs, verdict=verdict
        )
        return verdict

    def _check_stop(
        self: EngineHost, run: RunState, decision: Decision[Any], verdict: str, record: StepRecord
    ) -> None:
        self._call_hooks("on_before_phase", run, "CHECK_STOP")
        self._emit(run, EventKind.CHECK_STOP, {"stage": "start"})
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
                stop, why, text = self._guard(
                    run,
                    "CHECK_STOP",
                    lambda c: _criterion_verdict(c.should_stop(state, run.step_count, info)),
                    criterion,
                )
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
        run.current_record = None
        if reason is None:
            self._emit(run, EventKind.CHECK_STOP, {"stage": "continue"})
        else:
            self._set_stop(run, reason)
            final = jsonable(run.final_result)
            self._emit(
                run,
                EventKind.CHECK_STOP,
                {"stage": "stop", "stop_reason": reason.value, "final_result": final, "detail": detail},
            )
        self._call_hooks("on_after_phase", run, "CHECK_STOP", stop_reason=run.stop_reason)
        self._call_hooks("on_step_end", run, "CHECK_STOP", record=record)
        run.step_count += 1

    def _advance(self: EngineHost, run: RunState, state: Any) -> None:
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

    def _limit_reason(
        self: EngineHost, run: RunState, state: Any, steps_done: int
    ) -> tuple[StopReason | None, str]:
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

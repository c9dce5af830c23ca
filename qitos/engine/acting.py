"""The ACT phase of the Engine: run each action as a tool call (or an env step) and record it."""

from __future__ import annotations

import dataclasses
from typing import Any

from qitos.core.action import Action
from qitos.core.decision import Decision
from qitos.engine.host import EngineHost
from qitos.engine.result import StepRecord
from qitos.engine.run_state import RunState
from qitos.engine.serialize import jsonable
from qitos.trace.events import EventKind


class ActMixin:
    """Tool dispatch with events and upstream tool_invocations, mixed into the Engine."""

    def _emit_decision(self: EngineHost, run: RunState, snapshot: Any, decision: Any) -> None:
        """Record a ruling on a pause (who, which policy paused, verdict, args before and after)."""
        pending = list(snapshot.pending_actions)
        changed = None
        if decision.verdict == "changed":
            changed = [
                {
                    "name": getattr(a, "name", str(a)),
                    "args": jsonable(decision.changes.get(i, getattr(a, "args", {}))),
                }
                for i, a in enumerate(pending)
            ]
        self._emit(
            run,
            EventKind.LIFECYCLE_DECISION,
            {
                "policy_id": snapshot.policy_id,
                "step_id": snapshot.step_id,
                "boundary": snapshot.boundary,
                "verdict": decision.verdict,
                "by": decision.by,
                "reason": decision.reason,
                "actions": [
                    {"name": getattr(a, "name", str(a)), "args": jsonable(getattr(a, "args", {}))}
                    for a in pending
                ],
                "changed_actions": changed,
            },
            step_id=snapshot.step_id,
        )

    def _apply_verdict(
        self, ruling: Any, decision: Any, actions: list[Any], record: StepRecord
    ) -> tuple[Any, list[Any]]:
        """The decision and actions as ruled: changed arguments put in (reduce sees what ran)."""
        if ruling.verdict != "changed":
            return decision, actions
        changed = list(actions)
        for index, args in ruling.changes.items():
            if isinstance(changed[index], Action):
                changed[index] = dataclasses.replace(changed[index], args=dict(args))
        if isinstance(decision, Decision):
            decision = dataclasses.replace(decision, actions=changed)
        record.decision = decision
        record.actions = changed
        return decision, changed

    def _act_denied(
        self: EngineHost, run: RunState, actions: list[Any], record: StepRecord, ruling: Any
    ) -> list[Any]:
        """ACT for denied actions: none runs; each result tells the agent it was denied, and why."""
        self._call_hooks("on_before_phase", run, "ACT")
        self._emit(run, EventKind.ACT, {"stage": "start"})
        why = f"denied by {ruling.by}" + (f": {ruling.reason}" if ruling.reason else "")
        results: list[Any] = []
        invocations: list[dict[str, Any]] = []
        for action in actions:
            name = getattr(action, "name", type(action).__name__)
            message = f"the call to {name!r} was not run: {why}"
            results.append({"status": "denied", "error": message, "error_category": "denied"})
            invocations.append(
                {
                    "tool_name": name,
                    "toolset_name": None,
                    "toolset_version": None,
                    "source": "denied",
                    "attempts": 0,
                    "latency_ms": 0.0,
                    "status": "denied",
                    "error_category": "denied",
                    "error": message,
                }
            )
        record.action_results = results
        record.tool_invocations = invocations
        if results:
            self.request_builder.record_tool_results(
                [
                    {"tool": inv["tool_name"], "result": res, "error": inv["error"]}
                    for inv, res in zip(invocations, results, strict=True)
                ],
                step_id=run.step_count,
            )
        self._emit(
            run,
            EventKind.ACT,
            {"stage": "action_results", "tool_invocations": invocations, "action_results": results},
        )
        self._call_hooks("on_after_phase", run, "ACT", action_results=results)
        return results

    def _act(self: EngineHost, run: RunState, actions: list[Any], record: StepRecord) -> list[Any]:
        self._call_hooks("on_before_phase", run, "ACT")
        self._emit(run, EventKind.ACT, {"stage": "start"})
        results: list[Any] = []
        invocations: list[dict[str, Any]] = []
        registry = run.executor.registry if run.executor is not None else None  # set by _start
        for index, action in enumerate(actions):
            self._check_interrupts(run)
            call_id = getattr(action, "action_id", None) or f"{run.step_count}-{index}"
            if isinstance(action, Action) and (registry is not None and action.name in registry):
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
            EventKind.ACT,
            {"stage": "action_results", "tool_invocations": invocations, "action_results": jsonable(results)},
        )
        self._call_hooks("on_after_phase", run, "ACT", action_results=results)
        return results

    def _run_tool(self: EngineHost, run: RunState, action: Any, call_id: str) -> tuple[Any, dict[str, Any]]:
        name = getattr(action, "name", type(action).__name__)
        args = getattr(action, "args", {})
        self._emit(run, EventKind.TOOL_CALL, {"call_id": call_id, "tool": name, "args": jsonable(args)})
        if self.replay is not None and self.replay.replaying(run.step_count):
            outcome = self.replay.tool_outcome(run.step_count, name)  # the recorded result: no side effect
        elif isinstance(action, Action):
            assert run.executor is not None  # set by _start
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
            EventKind.TOOL_RESULT,
            {
                "call_id": call_id,
                "tool": name,
                "ok": outcome.ok,
                "result": jsonable(outcome.result),
                "error": outcome.error,
                "attempts": outcome.attempts,
                "max_attempts": outcome.max_attempts,
                "latency_ms": round(outcome.latency_ms, 3),
            },
            ok=outcome.ok,
            error=outcome.error,
        )
        if not outcome.ok:
            self._emit(
                run,
                EventKind.ERROR,
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

    def _run_env_step(
        self: EngineHost, run: RunState, action: Any, call_id: str
    ) -> tuple[Any, dict[str, Any]]:
        name = getattr(action, "name", type(action).__name__)
        self._emit(
            run,
            EventKind.TOOL_CALL,
            {"call_id": call_id, "tool": name, "args": jsonable(getattr(action, "args", {}))},
        )
        start = self.clock()
        if self.replay is not None and self.replay.replaying(run.step_count):
            recorded = self.replay.tool_outcome(run.step_count, name)  # no env side effect either
            result, ok, error = recorded.result, recorded.ok, recorded.error
        else:
            try:
                result, ok, error = self.env.step(action), True, None
            except Exception as exc:  # noqa: BLE001 - env refusal is a step result
                result, ok, error = None, False, f"env.step failed: {type(exc).__name__}: {exc}"
        latency = (self.clock() - start) * 1000
        self._emit(run, EventKind.ACT, {"stage": "env_step", "env_result": jsonable(result)})
        payload = {"call_id": call_id, "tool": name, "ok": ok, "result": jsonable(result), "error": error}
        self._emit(
            run,
            EventKind.TOOL_RESULT,
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

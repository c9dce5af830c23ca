"""How a run ends: pause, finish, the result, the manifest summary and the TaskResult."""

from __future__ import annotations

from typing import Any

from qitos.core.errors import QitosRuntimeError
from qitos.core.stop_reason import StopReason
from qitos.core.task import Task, TaskResult
from qitos.engine.host import EngineHost
from qitos.engine.result import EngineResult
from qitos.engine.run_state import RunState
from qitos.engine.runtime import RuntimeSnapshot
from qitos.engine.serialize import jsonable
from qitos.trace.events import STATUS_COMPLETED, STATUS_FAILED, STATUS_PAUSED, STATUS_STOPPED, EventKind

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


class OutcomeMixin:
    """Pause and finish a run, mixed into the Engine."""

    def _paused(self: EngineHost, run: RunState, snapshot: RuntimeSnapshot) -> EngineResult[Any]:
        run.active_elapsed += self.clock() - run.segment_start
        run.status = STATUS_PAUSED
        run.snapshot = snapshot
        pending = [
            {"name": getattr(a, "name", str(a)), "args": jsonable(getattr(a, "args", {}))}
            for a in snapshot.pending_actions
        ]
        self._emit(
            run,
            EventKind.LIFECYCLE_PAUSE,
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

    def _finish(self: EngineHost, run: RunState) -> EngineResult[Any]:
        self._cancel.clear()  # a request the run ended without observing must not cancel the next one
        run.active_elapsed += self.clock() - run.segment_start
        if run.stop_reason is None:
            self._set_stop(run, StopReason.UNRECOVERABLE_ERROR)
        status = status_for(run.stop_reason)
        run.status = status
        self._keep_partial_step(run)
        self._emit(run, EventKind.END, {"stop_reason": run.stop_reason}, step_id=max(run.step_count - 1, 0))
        registry = self.agent.tool_registry
        if run.toolsets_open and registry is not None:
            self._emit(run, EventKind.TOOLSET_TEARDOWN_START, {"toolsets": registry.list_toolsets()})
            try:
                registry.teardown({"run_id": run.run_id, "env": self.env})
            except QitosRuntimeError as exc:
                self._report_error(run, exc, retrying=False)
            self._emit(run, EventKind.TOOLSET_TEARDOWN_END, {"toolsets": registry.list_toolsets()})
        if self.owned_env is not None:
            self.owned_env.close()
        result = self._result(run)
        summary = self._summary(run)
        if result.task_result is not None:
            summary["task_result"] = jsonable(result.task_result)
        self._emit(
            run,
            EventKind.RUN_END,
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
            self._finalised_writers.add(id(run.writer))
        self._call_hooks("on_run_end", run, "END", result=result)
        return result

    def _keep_partial_step(self: EngineHost, run: RunState) -> None:
        """A step the run ended inside (error, cancel, budget) is still recorded, with its errors."""
        record = run.current_record
        if record is None:
            return
        run.current_record = None
        if run.error is not None:
            record.errors.append(run.error)
        record.errors.append({"category": "system", "message": f"step ended early: {run.stop_reason}"})
        if run.writer is not None and not run.closed:
            run.writer.write_step(record.to_dict())
        run.records.append(record)
        run.step_count += 1

    def _result(self: EngineHost, run: RunState) -> EngineResult[Any]:
        task_result = (
            self._task_result(run, run.task)
            if isinstance(run.task, Task) and run.status != STATUS_PAUSED
            else None
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
            stop_reason=run.stop_reason,
        )

    def _summary(self: EngineHost, run: RunState) -> dict[str, Any]:
        summary = {
            "stop_reason": run.stop_reason,
            "final_result": jsonable(run.final_result),
            "steps": run.step_count,
            "token_usage": run.tokens,
            # What a run list shows for every run, a plain-string task too (a Task adds task_result).
            "task": task_label(run.task),
            "elapsed_seconds": run.active_elapsed,
        }
        if run.failures or run.error is not None:
            # Every error is emitted as an event before it is kept as run.error, so the events list them all.
            failures = list(run.failures) or ([run.error] if run.error is not None else [])
            summary["failure_report"] = {
                "failure_count": len(failures),
                "failures": failures,
                "stop_reason": run.stop_reason,
            }
        if run.snapshot is not None:
            summary["paused"] = {"policy_id": run.snapshot.policy_id, "boundary": run.snapshot.boundary}
        return summary

    def _task_result(self: EngineHost, run: RunState, task: Task) -> TaskResult:
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


TASK_LABEL_CHARS = 200  # a label for lists; the INIT event keeps the whole task


def task_label(task: str | Task) -> str:
    """The task in one line for a run list: a Task's id, else the task text's first line, cut short."""
    if isinstance(task, Task):
        return task.id
    line = next((part.strip() for part in str(task).splitlines() if part.strip()), "")
    return line if len(line) <= TASK_LABEL_CHARS else line[: TASK_LABEL_CHARS - 1] + "…"

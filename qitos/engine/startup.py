"""Starting a run: init_state, the INIT event, toolset setup, env reset, and the pre-flight checks
(task validation and environment capabilities) that may stop it before the first step."""

from __future__ import annotations

from typing import Any

from qitos.core.errors import QitosRuntimeError, StateExecutionError, SystemExecutionError
from qitos.core.stop_reason import StopReason
from qitos.core.task import Task
from qitos.engine.run_state import RunState
from qitos.engine.serialize import jsonable
from qitos.engine.tool_executor import ToolExecutor
from qitos.trace.events import STATUS_RUNNING, EventKind


def preflight(task: Any, env: Any, registry: Any) -> tuple[StopReason, str, dict[str, Any]] | None:
    """The reason a run must not start, with a message and details; None when it may start."""
    if not isinstance(task, Task):
        return None
    workspace = getattr(env, "root", None)
    if workspace is None and task.env_spec is not None:
        workspace = task.env_spec.config.get("workspace_root")
    issues = task.validate_structured(str(workspace) if workspace else None)
    if issues:
        text = "; ".join(i.message for i in issues)
        return (
            StopReason.TASK_VALIDATION_FAILED,
            f"task {task.id!r} failed validation: {text}",
            {"issues": [i.to_dict() for i in issues]},
        )
    provided = set(env.capabilities()) if env is not None and hasattr(env, "capabilities") else set()
    tools = set(registry.list_tools()) if registry is not None else set()
    problems: list[str] = []
    spec = task.env_spec
    if spec is not None:
        env_type = getattr(env, "env_type", None)
        if env is not None and env_type is not None and spec.type != env_type:
            problems.append(f"task wants env type {spec.type!r}, the engine has {env_type!r}")
        missing_tools = sorted(set(spec.required_tools) - tools)
        if missing_tools:
            problems.append(f"required tools not registered: {missing_tools}")
        missing_caps = sorted(set(spec.capabilities) - provided)
        if missing_caps:
            where = "the environment" if env is not None else "no environment is configured and"
            problems.append(f"{where} lacks capabilities {missing_caps}")
    if registry is not None:
        for name in sorted(tools):
            ops = getattr(getattr(registry.get(name), "meta", None), "required_ops", []) or []
            missing_ops = sorted(set(ops) - provided)
            if missing_ops:
                problems.append(
                    f"tool {name!r} needs runtime ops {missing_ops} the environment does not provide"
                )
    if problems:
        return (
            StopReason.ENV_CAPABILITY_MISMATCH,
            "environment capability mismatch: " + "; ".join(problems),
            {"problems": problems, "provided": sorted(provided)},
        )
    return None


class StartMixin:
    """Run start-up, mixed into the Engine."""

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
        run.executor = ToolExecutor(
            registry, self.env.runtime_context() if self.env is not None else {}, timer=self.clock
        )
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
            "env": self._env_info(),
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
            self._emit(run, EventKind.INIT, init_payload)
            return self._fail_early(run, message, reason, "INIT", None, details)
        if registry is not None and registry.list_toolsets():
            self._emit(run, EventKind.TOOLSET_SETUP_START, {"toolsets": registry.list_toolsets()})
            registry.setup({"run_id": run.run_id, "env": self.env})
            self._emit(run, EventKind.TOOLSET_SETUP_END, {"toolsets": registry.list_toolsets()})
            run.toolsets_open = True
        if self.env is not None:
            try:
                self.env.reset(task)
            except Exception as exc:  # noqa: BLE001 - env failure ends the run with a reason
                self._emit(run, EventKind.INIT, init_payload)
                err = SystemExecutionError.make(
                    f"env.reset failed: {type(exc).__name__}: {exc}", phase="INIT"
                )
                return self._fail_early(run, err.info.message, StopReason.UNRECOVERABLE_ERROR, "INIT", err)
        self._emit(run, EventKind.INIT, init_payload)
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
        self._emit(run, EventKind.ERROR, info, ok=False, error=message)
        run.error = info
        self._set_stop(run, reason)

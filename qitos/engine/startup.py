"""Starting a run: the pre-flight checks (task validation and environment capabilities) that may stop it
before the first step, toolset setup, env reset, init_state and the INIT event."""

from __future__ import annotations

from typing import Any

from qitos.core.errors import QitosRuntimeError, StateExecutionError, SystemExecutionError
from qitos.core.stop_reason import StopReason
from qitos.core.task import Task
from qitos.engine.host import EngineHost
from qitos.engine.run_state import RunState
from qitos.engine.serialize import jsonable
from qitos.engine.tool_executor import ToolExecutor
from qitos.trace.events import STATUS_RUNNING, EventKind


def provides(env: Any, op: str) -> bool:
    """Whether ``env`` provides the runtime ops group ``op`` (``has_ops`` as upstream, or ``capabilities``)."""
    if env is None:
        return False
    has_ops = getattr(env, "has_ops", None)
    if callable(has_ops):
        return bool(has_ops(op))
    capabilities = getattr(env, "capabilities", None)
    return callable(capabilities) and op in set(capabilities())


def preflight(task: Any, env: Any, registry: Any) -> tuple[StopReason, str, dict[str, Any]] | None:
    """The reason a run must not start, with a message and details; None when it may start.

    Task validation and the EnvSpec checks apply to a Task; the tools' ``required_ops`` are checked
    for every task form (a plain string task too), as upstream does.
    """
    if isinstance(task, Task):
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
    capabilities = getattr(env, "capabilities", None)
    provided = set(capabilities()) if callable(capabilities) else set()
    tools = set(registry.list_tools()) if registry is not None else set()
    problems: list[str] = []
    spec = task.env_spec if isinstance(task, Task) else None
    if spec is not None:
        env_type = getattr(env, "env_type", None)
        if env is not None and env_type is not None and spec.type != env_type:
            problems.append(f"task wants env type {spec.type!r}, the engine has {env_type!r}")
        missing_tools = sorted(set(spec.required_tools) - tools)
        if missing_tools:
            problems.append(f"required tools not registered: {missing_tools}")
        missing_caps = sorted(c for c in set(spec.capabilities) if not provides(env, c))
        if missing_caps:
            where = "the environment" if env is not None else "no environment is configured and"
            problems.append(f"{where} lacks capabilities {missing_caps}")
    if registry is not None:
        for name in sorted(tools):
            ops = getattr(getattr(registry.get(name), "meta", None), "required_ops", []) or []
            missing_ops = sorted(op for op in set(ops) if not provides(env, op))
            if missing_ops:
                where = "the environment does not provide" if env is not None else "and no env is configured"
                if "process" in missing_ops and getattr(env, "allow_commands", None) is False:
                    where += " (this HostEnv runs commands only with allow_commands=True)"
                problems.append(f"tool {name!r} needs runtime ops {missing_ops} {where}")
    if problems:
        return (
            StopReason.ENV_CAPABILITY_MISMATCH,
            "environment capability mismatch: " + "; ".join(problems),
            {"problems": problems, "provided": sorted(provided)},
        )
    return None


class StartMixin:
    """Run start-up, mixed into the Engine."""

    def _start(self: EngineHost, run: RunState, kwargs: dict[str, Any]) -> None:
        """Reset run state, check the task and env, set up toolsets, reset the env, then init_state.

        The order is the root page's: the env is initialised before ``agent.init_state`` so the
        state can be built from what the env holds. A run that fails its pre-flight checks never
        sets up toolsets nor resets the env; ``init_state`` still gives it a state to stop with.
        """
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
        registry = self.agent.tool_registry
        init_payload: dict[str, Any] = {
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
            if not self._init_state(run, objective, kwargs):
                return None
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
                if not self._init_state(run, objective, kwargs):
                    return None
                self._emit(run, EventKind.INIT, init_payload)
                err = SystemExecutionError.make(
                    f"env.reset failed: {type(exc).__name__}: {exc}", phase="INIT"
                )
                return self._fail_early(run, err.info.message, StopReason.UNRECOVERABLE_ERROR, "INIT", err)
        if not self._init_state(run, objective, kwargs):
            return None
        run.executor = ToolExecutor(
            registry, self.env.runtime_context() if self.env is not None else {}, timer=self.clock
        )
        self._emit(run, EventKind.INIT, init_payload)
        try:
            self.validation_gate.after_phase("INIT", run.state, 0)
        except StateExecutionError as exc:
            return self._fail_early(run, exc.info.message, StopReason.UNRECOVERABLE_ERROR, "INIT", exc)
        self._call_hooks("on_run_start", run, "INIT")
        return None

    def _init_state(self: EngineHost, run: RunState, objective: str, kwargs: dict[str, Any]) -> bool:
        """Call ``agent.init_state``; False (and the run stopped) when it failed."""
        try:
            state = self.agent.init_state(objective, **kwargs)
        except QitosRuntimeError as exc:
            self._fail_early(run, exc.info.message, StopReason.UNRECOVERABLE_ERROR, "INIT", exc)
            return False
        except Exception as exc:  # noqa: BLE001 - agent code: report, never crash the caller
            err = SystemExecutionError.make(f"init_state failed: {type(exc).__name__}: {exc}", phase="INIT")
            self._fail_early(run, err.info.message, StopReason.UNRECOVERABLE_ERROR, "INIT", err)
            return False
        run.state = state
        # AgentModule.run(max_steps=...) overrides the state's own cap; a Task's step budget does not
        # touch the state: it narrows the RuntimeBudget, so hitting it reports budget_steps.
        if self.max_steps_override is not None and hasattr(state, "max_steps"):
            state.max_steps = self.max_steps_override
        return True

    def _fail_early(
        self: EngineHost,
        run: RunState,
        message: str,
        reason: StopReason,
        phase: str,
        exc: QitosRuntimeError | None,
        details: dict[str, Any] | None = None,
    ) -> None:
        info: dict[str, Any] = {"category": "task" if reason != StopReason.UNRECOVERABLE_ERROR else "system"}
        if exc is not None:
            info = exc.info.to_dict()
        else:
            info.update({"message": message, "phase": phase, "recoverable": False, "details": details or {}})
        self._emit(run, EventKind.ERROR, info, ok=False, error=message)
        run.error = info
        self._set_stop(run, reason)

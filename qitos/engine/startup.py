"""Checks made before the first step: task validation and environment capabilities."""

from __future__ import annotations

from typing import Any

from qitos.core.stop_reason import StopReason
from qitos.core.task import Task


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

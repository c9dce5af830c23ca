"""Structured tasks: objective plus inputs, resources, env spec, criteria and budget."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from qitos.core.env import EnvSpec

RESOURCE_KINDS: tuple[str, ...] = ("file", "dir", "url", "artifact")


@dataclass
class TaskBudget:
    """Per-task limits; None means "no limit from the task"."""

    max_steps: int | None = None
    max_runtime_seconds: float | None = None
    max_tokens: int | None = None


@dataclass
class TaskResource:
    """A file, directory, URL or artifact the task needs."""

    kind: str
    path: str | None = None
    uri: str | None = None
    mount_to: str | None = None
    required: bool = True
    description: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class TaskValidationIssue:
    """One problem found by :meth:`Task.validate_structured`."""

    code: str
    message: str
    field: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The issue as JSON data."""
        return asdict(self)


@dataclass
class TaskResourceBinding:
    """Where a task resource was found on disk (or that it is remote)."""

    kind: str
    source: str
    resolved_path: str | None
    mount_to: str | None
    exists: bool
    required: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The binding as JSON data."""
        return asdict(self)


@dataclass
class TaskCriterionResult:
    """Whether one success criterion was met."""

    criterion: str
    passed: bool
    detail: str = ""


@dataclass
class TaskResult:
    """The structured outcome of running a Task."""

    task_id: str
    success: bool
    stop_reason: str | None
    final_result: Any
    criteria: list[TaskCriterionResult] = field(default_factory=list)
    artifacts: list[TaskResourceBinding] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON data."""
        return asdict(self)


@dataclass
class Task:
    """An objective with structured metadata, resources and budget constraints."""

    id: str
    objective: str
    inputs: dict[str, Any] = field(default_factory=dict)
    resources: list[TaskResource] = field(default_factory=list)
    env_spec: EnvSpec | None = None
    constraints: dict[str, Any] = field(default_factory=dict)
    success_criteria: list[str] = field(default_factory=list)
    budget: TaskBudget = field(default_factory=TaskBudget)
    metadata: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        """Raise ValueError listing every structural problem (resources are not looked up)."""
        issues = self._structural_issues()
        if issues:
            raise ValueError(f"invalid Task {self.id!r}: " + "; ".join(i.message for i in issues))

    def validate_structured(self, workspace: str | None = None) -> list[TaskValidationIssue]:
        """Every problem as an issue, including required resources missing under ``workspace``."""
        issues = self._structural_issues()
        if not any(i.field.startswith("resources") for i in issues):
            for index, binding in enumerate(self.resolve_resources(workspace)):
                if binding.required and not binding.exists and binding.kind in ("file", "dir"):
                    issues.append(
                        TaskValidationIssue(
                            "resource_missing",
                            f"required {binding.kind} resource {binding.source!r} not found"
                            + (f" under workspace {workspace!r}" if workspace else ""),
                            f"resources[{index}]",
                        )
                    )
                elif (
                    binding.exists
                    and binding.kind == "file"
                    and not Path(binding.resolved_path or "").is_file()
                ):
                    issues.append(
                        TaskValidationIssue(
                            "resource_kind",
                            f"resource {binding.source!r} is not a file",
                            f"resources[{index}]",
                        )
                    )
                elif (
                    binding.exists
                    and binding.kind == "dir"
                    and not Path(binding.resolved_path or "").is_dir()
                ):
                    issues.append(
                        TaskValidationIssue(
                            "resource_kind",
                            f"resource {binding.source!r} is not a directory",
                            f"resources[{index}]",
                        )
                    )
        return issues

    def resolve_resources(self, workspace: str | None = None) -> list[TaskResourceBinding]:
        """Resolve each file/dir resource against ``workspace`` (or the cwd); URLs stay remote."""
        root = Path(workspace) if workspace else Path.cwd()
        bindings: list[TaskResourceBinding] = []
        for res in self.resources:
            if res.kind in ("file", "dir") and res.path:
                path = Path(res.path)
                resolved = path if path.is_absolute() else root / path
                bindings.append(
                    TaskResourceBinding(
                        res.kind, res.path, str(resolved), res.mount_to, resolved.exists(), res.required
                    )
                )
            else:
                source = res.uri or res.path or ""
                bindings.append(
                    TaskResourceBinding(res.kind, source, None, res.mount_to, bool(source), res.required)
                )
        return bindings

    def to_dict(self) -> dict[str, Any]:
        """The task as JSON data."""
        return asdict(self)

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> Task:
        """Build a task from ``to_dict`` output; unknown keys and missing id/objective are errors."""
        if not isinstance(payload, dict):
            raise ValueError(f"Task.from_dict needs a dict, got {type(payload).__name__}")
        unknown = sorted(set(payload) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"Task.from_dict: unknown field(s) {unknown}")
        for key in ("id", "objective"):
            if key not in payload:
                raise ValueError(f"Task.from_dict: missing required field {key!r}")
        data = dict(payload)
        data["resources"] = [_build(TaskResource, r, "resources") for r in data.get("resources") or []]
        if data.get("env_spec") is not None:
            data["env_spec"] = EnvSpec.from_dict(data["env_spec"])
        if data.get("budget") is not None:
            data["budget"] = _build(TaskBudget, data["budget"], "budget")
        else:
            data.pop("budget", None)
        return cls(**data)

    def _structural_issues(self) -> list[TaskValidationIssue]:
        issues: list[TaskValidationIssue] = []
        if not isinstance(self.id, str) or not self.id.strip():
            issues.append(TaskValidationIssue("id_empty", "task id must be a non-empty string", "id"))
        if not isinstance(self.objective, str) or not self.objective.strip():
            issues.append(
                TaskValidationIssue("objective_empty", "objective must be a non-empty string", "objective")
            )
        for index, res in enumerate(self.resources):
            where = f"resources[{index}]"
            if not isinstance(res, TaskResource):
                issues.append(TaskValidationIssue("resource_type", f"{where} is not a TaskResource", where))
                continue
            if res.kind not in RESOURCE_KINDS:
                issues.append(
                    TaskValidationIssue(
                        "resource_kind", f"{where}.kind {res.kind!r} not in {RESOURCE_KINDS}", where
                    )
                )
            if res.kind in ("file", "dir") and not res.path:
                issues.append(
                    TaskValidationIssue("resource_path", f"{where} ({res.kind}) needs a path", where)
                )
            if res.kind == "url" and not res.uri:
                issues.append(TaskValidationIssue("resource_uri", f"{where} (url) needs a uri", where))
        budget = self.budget
        for name in ("max_steps", "max_tokens"):
            value = getattr(budget, name)
            if value is not None and (not isinstance(value, int) or value <= 0):
                issues.append(
                    TaskValidationIssue("budget", f"budget.{name} must be a positive int", f"budget.{name}")
                )
        seconds = budget.max_runtime_seconds
        if seconds is not None and (not isinstance(seconds, int | float) or seconds <= 0):
            issues.append(
                TaskValidationIssue(
                    "budget", "budget.max_runtime_seconds must be positive", "budget.max_runtime_seconds"
                )
            )
        return issues


def _build(cls: type, value: Any, where: str) -> Any:
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict):
        raise ValueError(f"Task.from_dict: {where} entries must be dicts, got {type(value).__name__}")
    unknown = sorted(set(value) - set(cls.__dataclass_fields__))
    if unknown:
        raise ValueError(f"Task.from_dict: unknown field(s) {unknown} in {where}")
    try:
        return cls(**value)
    except TypeError as exc:
        raise ValueError(f"Task.from_dict: bad {where}: {exc}") from exc

"""Structured tasks: objective plus inputs, resources, env spec, criteria and budget."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from qitos.core.env import EnvSpec

RESOURCE_KINDS: tuple[str, ...] = ("file", "dir", "url", "artifact")


def _factory(make: Any) -> Any:
    """A dataclass field defaulting to ``make()``."""
    return field(default_factory=make)


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
    """One problem found by :meth:`Task.validate_structured`; ``code`` is upstream's (``TASK_...``)."""

    code: str
    message: str
    field: str = ""
    # ``field`` above shadows dataclasses.field inside this class body.
    details: dict[str, Any] = _factory(dict)

    def to_dict(self) -> dict[str, Any]:
        """The issue as JSON data."""
        return asdict(self)


@dataclass
class TaskResourceBinding:
    """A resolved task resource, in upstream's shape plus where it was found on disk.

    ``target`` is where the agent sees it: ``mount_to`` when given, else the resource's own path
    (None for a URL or artifact without one). ``resolved_path`` is the absolute path looked up.
    """

    kind: str
    source: str
    target: str | None = None
    exists: bool = False
    required: bool = True
    metadata: dict[str, Any] = field(default_factory=dict)
    resolved_path: str | None = None

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
                            "TASK_RESOURCE_MISSING",
                            f"required {binding.kind} resource {binding.source!r} not found"
                            + (f" under workspace {workspace!r}" if workspace else ""),
                            f"resources[{index}].path",
                            {"path": binding.source},
                        )
                    )
                elif (
                    binding.exists
                    and binding.kind == "file"
                    and not Path(binding.resolved_path or "").is_file()
                ):
                    issues.append(
                        TaskValidationIssue(
                            "TASK_RESOURCE_KIND_MISMATCH",
                            f"resource {binding.source!r} is not a file",
                            f"resources[{index}].path",
                            {"path": binding.source, "kind": binding.kind},
                        )
                    )
                elif (
                    binding.exists
                    and binding.kind == "dir"
                    and not Path(binding.resolved_path or "").is_dir()
                ):
                    issues.append(
                        TaskValidationIssue(
                            "TASK_RESOURCE_KIND_MISMATCH",
                            f"resource {binding.source!r} is not a directory",
                            f"resources[{index}].path",
                            {"path": binding.source, "kind": binding.kind},
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
                        kind=res.kind,
                        source=res.path,
                        target=res.mount_to if res.mount_to else res.path,
                        exists=resolved.exists(),
                        required=res.required,
                        metadata=dict(res.metadata),
                        resolved_path=str(resolved),
                    )
                )
            else:
                source = res.uri or res.path or ""
                bindings.append(
                    TaskResourceBinding(
                        kind=res.kind,
                        source=source,
                        target=res.mount_to if res.mount_to else res.path,
                        exists=bool(source),
                        required=res.required,
                        metadata=dict(res.metadata),
                    )
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
        """Problems found without looking anything up, with upstream's issue codes and fields."""
        issues: list[TaskValidationIssue] = []
        if not isinstance(self.id, str) or not self.id.strip():
            issues.append(TaskValidationIssue("TASK_ID_INVALID", "task id must be a non-empty string", "id"))
        if not isinstance(self.objective, str) or not self.objective.strip():
            issues.append(
                TaskValidationIssue(
                    "TASK_OBJECTIVE_INVALID", "objective must be a non-empty string", "objective"
                )
            )
        if self.env_spec is not None and (
            not isinstance(self.env_spec.type, str) or not self.env_spec.type.strip()
        ):
            issues.append(
                TaskValidationIssue(
                    "TASK_ENV_SPEC_INVALID", "env_spec.type must be a non-empty string", "env_spec.type"
                )
            )
        for index, res in enumerate(self.resources):
            where = f"resources[{index}]"
            if not isinstance(res, TaskResource):
                issues.append(
                    TaskValidationIssue("TASK_RESOURCE_INVALID", f"{where} is not a TaskResource", where)
                )
                continue
            if res.kind not in RESOURCE_KINDS:
                issues.append(
                    TaskValidationIssue(
                        "TASK_RESOURCE_KIND_INVALID",
                        f"{where}.kind {res.kind!r} not in {RESOURCE_KINDS}",
                        f"{where}.kind",
                        {"kind": res.kind},
                    )
                )
            if res.kind in ("file", "dir") and not res.path:
                issues.append(
                    TaskValidationIssue(
                        "TASK_RESOURCE_LOCATOR_MISSING", f"{where} ({res.kind}) needs a path", where
                    )
                )
            elif res.kind == "url" and not res.uri:
                issues.append(
                    TaskValidationIssue("TASK_RESOURCE_LOCATOR_MISSING", f"{where} (url) needs a uri", where)
                )
            elif not res.path and not res.uri:
                issues.append(
                    TaskValidationIssue(
                        "TASK_RESOURCE_LOCATOR_MISSING", f"{where} needs a path or a uri", where
                    )
                )
            if res.mount_to is not None and (not isinstance(res.mount_to, str) or not res.mount_to.strip()):
                # An empty mount point would bind the resource over the workspace root.
                issues.append(
                    TaskValidationIssue(
                        "TASK_RESOURCE_MOUNT_INVALID",
                        f"{where}.mount_to must be a non-empty string when given, got {res.mount_to!r}",
                        f"{where}.mount_to",
                    )
                )
        budget = self.budget
        for name, code in (
            ("max_steps", "TASK_BUDGET_STEPS_INVALID"),
            ("max_runtime_seconds", "TASK_BUDGET_RUNTIME_INVALID"),
            ("max_tokens", "TASK_BUDGET_TOKENS_INVALID"),
        ):
            value = getattr(budget, name)
            if value is None:
                continue
            if name == "max_runtime_seconds":
                bad = isinstance(value, bool) or not isinstance(value, int | float) or not value > 0
                what = "positive"
            else:
                bad = isinstance(value, bool) or not isinstance(value, int) or value <= 0
                what = "a positive int"
            if bad:
                issues.append(
                    TaskValidationIssue(
                        code, f"budget.{name} must be {what}", f"budget.{name}", {"value": value}
                    )
                )
        return issues


_Part = TypeVar("_Part", "TaskResource", "TaskBudget")


def _build(cls: type[_Part], value: object, where: str) -> _Part:
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

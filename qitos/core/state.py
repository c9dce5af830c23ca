"""The canonical typed agent state: subclass StateSchema to add your agent's fields."""

from __future__ import annotations

import copy
import dataclasses
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from qitos.core.errors import StateExecutionError
from qitos.core.stop_reason import StopReason

StateT = TypeVar("StateT", bound="StateSchema")

Migration = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class StateSchema:
    """Base state: task, step counter, cap, final result, stop reason and free-form dicts."""

    # Subclasses register upgrades here: {from_version: fn(payload) -> payload at from_version + 1}.
    MIGRATIONS: ClassVar[dict[int, Migration]] = {}
    SCHEMA_VERSION: ClassVar[int] = 1

    schema_version: int = 1
    task: str = ""
    current_step: int = 0
    max_steps: int = 10
    final_result: str | None = None
    stop_reason: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)

    def set_stop(self, reason: StopReason | str, final_result: str | None = None) -> None:
        """Record why the run stops (a StopReason value) and, when given, the final result."""
        try:
            value = StopReason(reason).value
        except ValueError as exc:
            valid = [r.value for r in StopReason]
            raise ValueError(f"unknown stop reason {reason!r}; expected one of {valid}") from exc
        self.stop_reason = value
        if final_result is not None:
            self.final_result = final_result

    def advance_step(self) -> None:
        """Move to the next step; fails when that would pass ``max_steps``."""
        if self.current_step + 1 > self.max_steps:
            raise StateExecutionError.make(
                f"cannot advance past max_steps={self.max_steps} (current_step={self.current_step})",
                phase="advance_step",
                step_id=self.current_step,
            )
        self.current_step += 1
        self.validate()

    def validate(self) -> None:
        """Raise StateExecutionError when the state breaks its invariants."""
        problems: list[str] = []
        if not isinstance(self.schema_version, int) or self.schema_version < 1:
            problems.append(f"schema_version must be an int >= 1, got {self.schema_version!r}")
        if not isinstance(self.task, str):
            problems.append(f"task must be a string, got {type(self.task).__name__}")
        if not isinstance(self.max_steps, int) or self.max_steps < 0:
            problems.append(f"max_steps must be an int >= 0, got {self.max_steps!r}")
        if not isinstance(self.current_step, int) or self.current_step < 0:
            problems.append(f"current_step must be an int >= 0, got {self.current_step!r}")
        elif isinstance(self.max_steps, int) and self.current_step > self.max_steps:
            problems.append(f"current_step {self.current_step} exceeds max_steps {self.max_steps}")
        if self.stop_reason is not None and self.stop_reason not in {r.value for r in StopReason}:
            problems.append(f"stop_reason {self.stop_reason!r} is not a StopReason value")
        if not isinstance(self.metadata, dict):
            problems.append("metadata must be a dict")
        if not isinstance(self.metrics, dict):
            problems.append("metrics must be a dict")
        if problems:
            raise StateExecutionError.make(
                f"invalid {type(self).__name__}: " + "; ".join(problems), phase="validate", step_id=0
            )

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain data (nested dataclasses become dicts)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls: type[StateT], payload: dict[str, Any], strict: bool = True) -> StateT:
        """Rebuild a state from ``to_dict`` output; strict mode rejects unknown fields."""
        if not isinstance(payload, dict):
            raise ValueError(f"{cls.__name__}.from_dict needs a dict, got {type(payload).__name__}")
        data = dict(payload)
        version = data.get("schema_version", 1)
        target = _default_of(cls, "schema_version", 1)
        if version != target:
            data = cls.migrate_payload(data, target)
        fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
        unknown = sorted(set(data) - set(fields))
        if unknown and strict:
            raise ValueError(f"{cls.__name__}.from_dict: unknown field(s) {unknown} (strict=True)")
        hints = _hints(cls)
        kwargs = {}
        for name, value in data.items():
            if name not in fields:
                continue
            kwargs[name] = _revive(hints.get(name), copy.deepcopy(value))
        try:
            state = cls(**kwargs)
        except TypeError as exc:
            raise ValueError(f"{cls.__name__}.from_dict: {exc}") from exc
        state.validate()
        return state

    @classmethod
    def migrate_payload(cls, payload: dict[str, Any], target_version: int) -> dict[str, Any]:
        """Upgrade a payload step by step through ``MIGRATIONS`` to ``target_version``."""
        data = dict(payload)
        version = data.get("schema_version", 1)
        if not isinstance(version, int) or not isinstance(target_version, int):
            raise ValueError(f"schema versions must be ints, got {version!r} -> {target_version!r}")
        if version > target_version:
            raise ValueError(f"cannot downgrade {cls.__name__} payload from v{version} to v{target_version}")
        while version < target_version:
            step = cls.MIGRATIONS.get(version)
            if step is None:
                raise ValueError(f"{cls.__name__} has no migration from schema v{version} to v{version + 1}")
            data = dict(step(dict(data)))
            version += 1
            data["schema_version"] = version
        return data


def _default_of(cls: type, name: str, fallback: Any) -> Any:
    for f in dataclasses.fields(cls):
        if f.name == name and f.default is not dataclasses.MISSING:
            return f.default
    return fallback


def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - unresolved forward refs: fall back to no revival
        return {}


def _revive(hint: Any, value: Any) -> Any:
    """Turn a dict back into the dataclass its field is annotated with (also inside list/Optional)."""
    if hint is None or value is None:
        return value
    if dataclasses.is_dataclass(hint) and isinstance(hint, type) and isinstance(value, dict):
        if issubclass(hint, StateSchema):
            return hint.from_dict(value, strict=False)
        sub = _hints(hint)
        names = {f.name for f in dataclasses.fields(hint) if f.init}
        return hint(**{k: _revive(sub.get(k), v) for k, v in value.items() if k in names})
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (list, tuple) and args and isinstance(value, list | tuple):
        revived = [_revive(args[0], v) for v in value]
        return revived if origin is list else tuple(revived)
    if args and origin not in (dict,):
        for arg in args:
            if dataclasses.is_dataclass(arg) and isinstance(value, dict):
                return _revive(arg, value)
    return value

"""The environment interface (observe / step lifecycle) and the EnvSpec a Task declares."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class EnvSpec:
    """Declares the environment type, configuration, tools and capabilities a task needs."""

    type: str
    config: dict[str, Any] = field(default_factory=dict)
    required_tools: list[str] = field(default_factory=list)
    capabilities: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The spec as JSON data."""
        return asdict(self)

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> EnvSpec:
        """Build a spec from a dict; ``type`` is required and unknown keys are rejected."""
        if not isinstance(payload, dict):
            raise ValueError(f"EnvSpec.from_dict needs a dict, got {type(payload).__name__}")
        unknown = sorted(set(payload) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"EnvSpec.from_dict: unknown field(s) {unknown}")
        if not isinstance(payload.get("type"), str) or not payload["type"]:
            raise ValueError("EnvSpec.from_dict: 'type' must be a non-empty string")
        return cls(**payload)


@dataclass
class EnvObservation:
    """A structured observation from an environment: its data and free-form metadata."""

    data: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The observation as JSON data."""
        return asdict(self)


@dataclass
class EnvStepResult:
    """What one env operation returned, in upstream's shape."""

    observation: Any = None
    done: bool = False
    reward: float | None = None
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON data."""
        return asdict(self)


class Env(ABC):
    """The abstract environment: reset, observe, step, is_terminal, close."""

    name: str = "env"
    version: str = "1.0"

    @abstractmethod
    def reset(self, task: Any = None) -> Any:
        """Prepare the environment for a run of ``task``; return the first observation."""

    @abstractmethod
    def observe(self) -> Any:
        """The current observation."""

    @abstractmethod
    def step(self, action: Any) -> Any:
        """Apply one action; return its result."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the environment has reached a terminal state."""

    @abstractmethod
    def close(self) -> None:
        """Release resources."""

    def capabilities(self) -> list[str]:
        """The runtime ops this environment provides (e.g. ``file``, ``process``)."""
        return []

    def has_ops(self, group: str) -> bool:
        """Whether this environment provides the runtime ops group ``group`` (upstream's check)."""
        return group in self.capabilities()

    def runtime_context(self) -> dict[str, Any]:
        """What tools receive as their runtime context (ops objects, workspace root)."""
        return {"env": self}

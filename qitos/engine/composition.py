"""The composition entry point: resolve configured extension names to the objects a run uses.

Agents select parts by name in their configuration and bind the names to factories (or ready
objects) in ``extensions``::

    AgentModule(
        extensions={"notes": make_notes, "closed_window": ClosedExchangeWindowCompactor},
        context={"contributors": ["notes"], "budget": {"provider": "declared",
                 "default_max_input_units": 4096}, "selection": "priority"},
        compaction={"provider": "closed_window"},
        memory_sources=["project_memory"],
        lifecycle=["pause_first_tool"],
    )

:func:`compose` runs when the Engine is built, so a name with no factory fails before the run
starts, naming the missing extension. Context selection never grants tool authority: the composed
parts only shape the model request; tools come from the agent's ToolRegistry alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CONFIG_KEYS: frozenset[str] = frozenset({"context", "compaction", "memory_sources", "lifecycle"})
_CONTEXT_KEYS = frozenset({"contributors", "budget", "selection"})
_BUILTIN_SELECTION = "priority"
_BUILTIN_BUDGET = "declared"


class CompositionError(ValueError):
    """The configuration names an extension that is missing or does not fit its role."""


@dataclass
class Composition:
    """The resolved parts of one agent configuration."""

    contributors: list[Any] = field(default_factory=list)
    memory_sources: list[Any] = field(default_factory=list)
    selection_policy: Any = None
    budget_policy: Any = None
    compactor: Any = None
    lifecycle_policies: list[Any] = field(default_factory=list)

    @property
    def all_contributors(self) -> list[Any]:
        """Context contributors followed by memory sources (memory sources contribute context too)."""
        return [*self.contributors, *self.memory_sources]


def compose(config: Mapping[str, Any], extensions: Mapping[str, Any] | None = None) -> Composition:
    """Resolve every configured name against ``extensions`` (built-ins: "priority", "declared")."""
    if not isinstance(config, Mapping):
        raise CompositionError(f"composition config must be a mapping, got {type(config).__name__}")
    extensions = dict(extensions or {})
    for name in extensions:
        if not isinstance(name, str) or not name:
            raise CompositionError(f"extension names must be non-empty strings, got {name!r}")
    out = Composition()
    context = config.get("context") or {}
    if not isinstance(context, Mapping):
        raise CompositionError(f"config 'context' must be a mapping, got {type(context).__name__}")
    unknown = sorted(set(context) - _CONTEXT_KEYS)
    if unknown:
        raise CompositionError(f"config 'context' has unknown keys {unknown}; known: {sorted(_CONTEXT_KEYS)}")
    for name in _names(context.get("contributors"), "context.contributors"):
        out.contributors.append(_resolve(name, extensions, "contribute", "context contributor", {}))
    for name in _names(config.get("memory_sources"), "memory_sources"):
        out.memory_sources.append(_resolve(name, extensions, "contribute", "memory source", {}))
    if "selection" in context or out.all_contributors:
        out.selection_policy = _selection(context.get("selection", _BUILTIN_SELECTION), extensions)
    if "budget" in context:
        out.budget_policy = _budget(context["budget"], extensions)
    compaction = config.get("compaction")
    if compaction is not None:
        if isinstance(compaction, str):
            compaction = {"provider": compaction}
        if not isinstance(compaction, Mapping) or "provider" not in compaction:
            raise CompositionError("config 'compaction' must be {\"provider\": name, ...}")
        kwargs = {k: v for k, v in compaction.items() if k != "provider"}
        out.compactor = _resolve(compaction["provider"], extensions, "compact", "compaction provider", kwargs)
    for name in _names(config.get("lifecycle"), "lifecycle"):
        policy = _resolve(name, extensions, "should_pause", "lifecycle policy", {})
        if not isinstance(getattr(policy, "policy_id", None), str) or not policy.policy_id:
            raise CompositionError(f"lifecycle policy {name!r} has no policy_id string")
        out.lifecycle_policies.append(policy)
    return out


def _names(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        raise CompositionError(
            f"config {where!r} must be a list of extension names, got {type(value).__name__}"
        )
    for item in value:
        if not isinstance(item, str) or not item:
            raise CompositionError(f"config {where!r} holds a non-name entry {item!r}")
    return list(value)


def _selection(spec: Any, extensions: dict[str, Any]) -> Any:
    if isinstance(spec, Mapping):
        name = spec.get("provider", _BUILTIN_SELECTION)
        kwargs = {k: v for k, v in spec.items() if k != "provider"}
    else:
        name, kwargs = spec, {}
    if name == _BUILTIN_SELECTION and name not in extensions:
        from qitos.core.context import PriorityContextSelectionPolicy

        return _build(name, PriorityContextSelectionPolicy, "select", "selection policy", kwargs)
    return _resolve(name, extensions, "select", "selection policy", kwargs)


def _budget(spec: Any, extensions: dict[str, Any]) -> Any:
    if isinstance(spec, str):
        spec = {"provider": spec}
    if not isinstance(spec, Mapping):
        raise CompositionError("config 'context.budget' must be {\"provider\": name, ...}")
    name = spec.get("provider", _BUILTIN_BUDGET)
    kwargs = {k: v for k, v in spec.items() if k != "provider"}
    if name == _BUILTIN_BUDGET and name not in extensions:
        from qitos.core.context import DeclaredContextBudgetPolicy

        return _build(name, DeclaredContextBudgetPolicy, "budget_for", "budget policy", kwargs)
    return _resolve(name, extensions, "budget_for", "budget policy", kwargs)


def _resolve(name: Any, extensions: dict[str, Any], method: str, role: str, kwargs: dict[str, Any]) -> Any:
    if not isinstance(name, str) or not name:
        raise CompositionError(f"{role} must be named by a non-empty string, got {name!r}")
    if name not in extensions:
        known = ", ".join(sorted(extensions)) or "none"
        raise CompositionError(f"no factory for {role} {name!r} in extensions (registered: {known})")
    return _build(name, extensions[name], method, role, kwargs)


def _build(name: str, value: Any, method: str, role: str, kwargs: dict[str, Any]) -> Any:
    """A class or factory is called with ``kwargs``; a ready object (has ``method``) is used as is."""
    ready = not isinstance(value, type) and callable(getattr(value, method, None))
    if ready:
        if kwargs:
            raise CompositionError(f"{role} {name!r} is a ready object; it takes no options {sorted(kwargs)}")
        obj = value
    elif callable(value):
        try:
            obj = value(**kwargs)
        except TypeError as exc:
            raise CompositionError(
                f"factory for {role} {name!r} rejected options {sorted(kwargs)}: {exc}"
            ) from exc
    else:
        raise CompositionError(f"extension {name!r} is neither a factory nor a {role} (no .{method}())")
    if not callable(getattr(obj, method, None)):
        raise CompositionError(
            f"extension {name!r} built a {type(obj).__name__}, which is no {role} (no .{method}())"
        )
    return obj

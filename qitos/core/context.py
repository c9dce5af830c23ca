"""Context contributions, their selection under a declared budget, and the contributor protocol.

Context is request input with an explicit identity, provenance, size and loss semantics: each
contributor returns :class:`ContextContribution` values for one request, a selection policy decides
which of them fit the :class:`ContextBudget`, and every omission carries a reason. Context is not
conversation history (that is the ExchangeLog in :mod:`qitos.core.request_view`) and it never
grants tool authority: a contribution is data placed in a message, nothing more.

Everything here is deterministic: canonical JSON (sorted keys, fixed separators) is the only
serialisation used for digests and unit counts, so two processes agree byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "PLACEMENTS",
    "ContextBudget",
    "ContextBudgetExceededError",
    "ContextBudgetPolicy",
    "ContextContribution",
    "ContextContributor",
    "ContextDecision",
    "ContextError",
    "ContextRequest",
    "ContextSelection",
    "ContextSelectionPolicy",
    "DeclaredContextBudgetPolicy",
    "PriorityContextSelectionPolicy",
    "StaticContextContributor",
    "UnitCounter",
    "canonical_json",
    "collect_contributions",
    "default_unit_counter",
    "render_text",
    "sha256_text",
]

# Where a contribution may ask to be placed in the projected request. There is deliberately no
# "tool" placement: context is data for the model to read, never a tool declaration.
PLACEMENTS: frozenset[str] = frozenset({"system", "developer", "user"})
_UNITS: frozenset[str] = frozenset({"characters", "tokens"})


class ContextError(ValueError):
    """A context contribution, budget, selection or request view is invalid."""


class ContextBudgetExceededError(ContextError):
    """The request cannot fit its budget without dropping something that must not be dropped."""


def _check_json(value: Any, path: str) -> None:
    # json.dumps would silently coerce tuples, non-str keys and NaN; reject them so that what is
    # digested is exactly what a reader of the JSON gets back.
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ContextError(f"{path} holds a non-finite number ({value!r}), which JSON cannot carry")
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            _check_json(item, f"{path}[{index}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ContextError(f"{path} has a non-string key {key!r}; JSON object keys are strings")
            _check_json(item, f"{path}.{key}")
        return
    raise ContextError(f"{path} holds a {type(value).__name__}, which is not JSON data")


def canonical_json(value: Any, path: str = "value") -> str:
    """The canonical JSON text of ``value``: sorted keys, no spaces, UTF-8; rejects non-JSON data."""
    _check_json(value, path)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def sha256_text(text: str) -> str:
    """The lowercase hex SHA-256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def render_text(value: Any) -> str:
    """The text a model reads for ``value``: a string as is, anything else as canonical JSON."""
    return value if isinstance(value, str) else canonical_json(value)


class UnitCounter(Protocol):
    """Measures the size of a value in a budget unit (``counter(value, unit) -> int``)."""

    def __call__(self, value: Any, unit: str) -> int:
        """The size of ``value`` in ``unit``; a non-negative integer."""
        ...


def default_unit_counter(value: Any, unit: str = "characters") -> int:
    """Characters of the text the model reads for ``value``; other units need an injected counter."""
    if unit != "characters":
        # A token estimate from characters would be a guess presented as a measure; refuse instead.
        raise ContextError(f"default_unit_counter counts characters only; pass a counter for unit {unit!r}")
    return len(render_text(value))


def _measure(counter: UnitCounter, value: Any, unit: str, what: str) -> int:
    units = counter(value, unit)
    if not isinstance(units, int) or isinstance(units, bool) or units < 0:
        raise ContextError(f"unit counter returned {units!r} for {what}; it must be a non-negative int")
    return units


def _non_empty(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ContextError(f"{name} must be a non-empty string, got {value!r}")
    return value


def _int_field(value: Any, name: str, *, minimum: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ContextError(f"{name} must be an int, got {value!r}")
    if minimum is not None and value < minimum:
        raise ContextError(f"{name} must be at least {minimum}, got {value}")
    return value


@dataclass(frozen=True)
class ContextContribution:
    """One identified piece of request context: who supplied it, what it says, how big it is."""

    contribution_id: str
    source: str
    value: Any = field(repr=False, compare=False)
    priority: int = 0
    requested_placement: str = "developer"
    required: bool = False
    persistence_horizon: str = "request"
    sensitivity: str = "internal"
    units: int = field(init=False)
    digest: str = field(init=False)

    def __post_init__(self) -> None:
        _non_empty(self.contribution_id, "contribution_id")
        _non_empty(self.source, "source")
        _int_field(self.priority, f"priority of {self.contribution_id!r}")
        if not isinstance(self.required, bool):
            raise ContextError(f"required of {self.contribution_id!r} must be a bool, got {self.required!r}")
        if self.requested_placement not in PLACEMENTS:
            raise ContextError(
                f"requested_placement of {self.contribution_id!r} is {self.requested_placement!r}; "
                f"expected one of {sorted(PLACEMENTS)} (context never declares tools)"
            )
        _non_empty(self.persistence_horizon, "persistence_horizon")
        _non_empty(self.sensitivity, "sensitivity")
        value_json = canonical_json(self.value, f"value of {self.contribution_id!r}")
        # Keep an isolated copy: a contributor mutating its own dict later must not change a request.
        if not isinstance(self.value, str | int | float | bool) and self.value is not None:
            object.__setattr__(self, "value", json.loads(value_json))
        object.__setattr__(self, "units", len(render_text(self.value)))
        object.__setattr__(self, "digest", sha256_text(value_json))

    @property
    def text(self) -> str:
        """The text the model reads for this contribution."""
        return render_text(self.value)

    def to_dict(self, *, include_value: bool = True) -> dict[str, Any]:
        """The contribution as JSON data (the value only when asked, e.g. not in summaries)."""
        data: dict[str, Any] = {
            "contribution_id": self.contribution_id,
            "source": self.source,
            "priority": self.priority,
            "requested_placement": self.requested_placement,
            "required": self.required,
            "persistence_horizon": self.persistence_horizon,
            "sensitivity": self.sensitivity,
            "units": self.units,
            "digest": self.digest,
        }
        if include_value:
            data["value"] = self.value
        return data


@dataclass(frozen=True)
class ContextRequest:
    """What a contributor is told about the request it contributes to."""

    request_id: str
    run_id: str
    step_id: int
    user_text: str = ""
    model_id: str = "unknown"


@runtime_checkable
class ContextContributor(Protocol):
    """Supplies contributions for each request; owns (only) its own resources."""

    def contribute(self, request: Any) -> Sequence[ContextContribution]:
        """The contributions for ``request``; called fresh for every request."""
        ...

    def reset(self, run_id: str | None = None) -> None:
        """Forget per-run state before a new run."""
        ...

    def close(self) -> None:
        """Release owned resources."""
        ...


@dataclass(frozen=True)
class StaticContextContributor:
    """Small reusable contributor for project/user/session context."""

    contributor_id: str
    source: str
    value: Any = field(repr=False)
    priority: int = 0
    requested_placement: str = "developer"
    required: bool = False
    persistence_horizon: str = "request"
    sensitivity: str = "internal"

    def __post_init__(self) -> None:
        # Build once so a bad value fails when the contributor is configured, not mid-run.
        self._make()

    def _make(self) -> ContextContribution:
        return ContextContribution(
            contribution_id=self.contributor_id,
            source=self.source,
            value=self.value,
            priority=self.priority,
            requested_placement=self.requested_placement,
            required=self.required,
            persistence_horizon=self.persistence_horizon,
            sensitivity=self.sensitivity,
        )

    def contribute(self, request: Any = None) -> Sequence[ContextContribution]:
        """One contribution carrying the configured value, whatever the request."""
        return (self._make(),)

    def reset(self, run_id: str | None = None) -> None:
        """No per-run state to forget."""

    def close(self) -> None:
        """No owned resources to release."""


@dataclass(frozen=True)
class ContextBudget:
    """The input capacity of one request, in one unit, and the recent window that is protected."""

    max_input_units: int = 120_000
    unit: str = "characters"
    protected_recent_exchanges: int = 1

    def __post_init__(self) -> None:
        _int_field(self.max_input_units, "max_input_units", minimum=1)
        if self.unit not in _UNITS:
            raise ContextError(f"budget unit {self.unit!r} is not one of {sorted(_UNITS)}")
        _int_field(self.protected_recent_exchanges, "protected_recent_exchanges", minimum=0)

    def to_dict(self) -> dict[str, Any]:
        """The budget as JSON data."""
        return {
            "max_input_units": self.max_input_units,
            "unit": self.unit,
            "protected_recent_exchanges": self.protected_recent_exchanges,
        }


@dataclass(frozen=True)
class ContextDecision:
    """Why one contribution was selected or omitted, and how many units it measured."""

    contribution: ContextContribution
    units: int
    selected: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """The decision as the trace records it (no value)."""
        c = self.contribution
        return {
            "contribution_id": c.contribution_id,
            "source": c.source,
            "units": self.units,
            "priority": c.priority,
            "required": c.required,
            "placement": c.requested_placement,
            "sensitivity": c.sensitivity,
            "selected": self.selected,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ContextSelection:
    """The outcome of one selection: what was selected, what was omitted (with reasons), units used."""

    selected: tuple[ContextDecision, ...]
    omitted: tuple[ContextDecision, ...]
    units_used: int
    unit: str = "characters"
    policy_id: str = "unknown"

    def __post_init__(self) -> None:
        ids = [d.contribution.contribution_id for d in (*self.selected, *self.omitted)]
        if len(ids) != len(set(ids)):
            raise ContextError("a contribution appears twice in a selection (selected and omitted partition)")
        if any(not d.selected for d in self.selected) or any(d.selected for d in self.omitted):
            raise ContextError("selection decisions disagree with the selected/omitted split")
        if self.units_used != sum(d.units for d in self.selected):
            raise ContextError(
                f"units_used {self.units_used} differs from the selected units "
                f"{sum(d.units for d in self.selected)}"
            )

    @property
    def selected_contributions(self) -> tuple[ContextContribution, ...]:
        """The selected contributions, in selection order."""
        return tuple(d.contribution for d in self.selected)

    @property
    def decisions(self) -> tuple[ContextDecision, ...]:
        """Every decision in the order the policy made them."""
        return tuple(sorted((*self.selected, *self.omitted), key=_decision_order))


def _decision_order(decision: ContextDecision) -> tuple[bool, int, str]:
    c = decision.contribution
    return (not c.required, -c.priority, c.contribution_id)


class ContextSelectionPolicy(Protocol):
    """Chooses which contributions fit a budget."""

    policy_id: str

    def select(
        self,
        contributions: Iterable[ContextContribution],
        *,
        budget: ContextBudget,
        already_used_units: int = 0,
        counter: UnitCounter = default_unit_counter,
    ) -> ContextSelection:
        """Select contributions that fit ``budget`` after ``already_used_units``."""
        ...


@dataclass(frozen=True)
class PriorityContextSelectionPolicy:
    """Default deterministic priority/identity selection policy."""

    policy_id: str = "qitos.context.priority/v1"

    def select(
        self,
        contributions: Iterable[ContextContribution],
        *,
        budget: ContextBudget,
        already_used_units: int = 0,
        counter: UnitCounter = default_unit_counter,
    ) -> ContextSelection:
        """Required first, then higher priority, then identity; never over budget.

        A required contribution that cannot fit raises ContextBudgetExceededError; it is never
        dropped to make room, nor is it displaced by an optional one (required ones go first).
        """
        items = tuple(contributions)
        for item in items:
            if not isinstance(item, ContextContribution):
                raise ContextError(f"selection expects ContextContribution values, got {type(item).__name__}")
        ids = [item.contribution_id for item in items]
        duplicates = sorted({i for i in ids if ids.count(i) > 1}) if len(ids) != len(set(ids)) else []
        if duplicates:
            raise ContextError(f"contribution ids must be unique; repeated: {duplicates}")
        if not isinstance(budget, ContextBudget):
            raise ContextError(f"budget must be a ContextBudget, got {type(budget).__name__}")
        used = _int_field(already_used_units, "already_used_units", minimum=0)
        capacity = budget.max_input_units
        selected: list[ContextDecision] = []
        omitted: list[ContextDecision] = []
        for item in sorted(items, key=lambda c: (not c.required, -c.priority, c.contribution_id)):
            units = _measure(counter, item.value, budget.unit, f"contribution {item.contribution_id!r}")
            left = capacity - used
            if units <= left:
                used += units
                reason = "required" if item.required else f"fits: priority {item.priority}"
                selected.append(ContextDecision(item, units, True, reason))
            elif item.required:
                raise ContextBudgetExceededError(
                    f"required context {item.contribution_id!r} needs {units} {budget.unit} but only "
                    f"{max(left, 0)} of {capacity} remain; required context is never dropped"
                )
            else:
                why = f"needs {units}, {left} left" if left >= 0 else f"budget already exceeded by {-left}"
                omitted.append(ContextDecision(item, units, False, f"over budget: {why}"))
        return ContextSelection(
            selected=tuple(selected),
            omitted=tuple(omitted),
            units_used=sum(d.units for d in selected),
            unit=budget.unit,
            policy_id=self.policy_id,
        )


class ContextBudgetPolicy(Protocol):
    """Decides the ContextBudget of a request for a model."""

    policy_id: str

    def budget_for(self, model: Any = None, *, declared_max_input_units: int | None = None) -> ContextBudget:
        """The budget for requests sent to ``model``."""
        ...


@dataclass(frozen=True)
class DeclaredContextBudgetPolicy:
    """Use adapter-declared capacity; never infer it from a model name."""

    default_max_input_units: int = 120000
    unit: str = "characters"
    protected_recent_exchanges: int = 1
    policy_id: str = "qitos.context.declared_budget/v1"

    def __post_init__(self) -> None:
        _int_field(self.default_max_input_units, "default_max_input_units", minimum=1)
        if self.unit not in _UNITS:
            raise ContextError(f"budget unit {self.unit!r} is not one of {sorted(_UNITS)}")
        _int_field(self.protected_recent_exchanges, "protected_recent_exchanges", minimum=0)

    def budget_for(self, model: Any = None, *, declared_max_input_units: int | None = None) -> ContextBudget:
        """The user's declared capacity, else ``model.max_input_units``, else the default.

        Only the declared attribute is read: the model's name or id never changes the budget.
        """
        declared = declared_max_input_units
        origin = "declared_max_input_units"
        if declared is None and model is not None:
            declared = getattr(model, "max_input_units", None)
            origin = f"{type(model).__name__}.max_input_units"
        if declared is None:
            declared = self.default_max_input_units
        else:
            _int_field(declared, origin, minimum=1)
        return ContextBudget(
            max_input_units=declared,
            unit=self.unit,
            protected_recent_exchanges=self.protected_recent_exchanges,
        )


def collect_contributions(contributors: Iterable[Any], request: Any) -> tuple[ContextContribution, ...]:
    """Call every contributor's ``contribute(request)`` in order; check types and unique ids."""
    collected: list[ContextContribution] = []
    seen: dict[str, str] = {}
    for contributor in contributors:
        name = str(getattr(contributor, "contributor_id", type(contributor).__name__))
        contribute = getattr(contributor, "contribute", None)
        if not callable(contribute):
            raise ContextError(f"context contributor {name!r} has no contribute(request) method")
        values = contribute(request)
        if values is None or isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
            raise ContextError(
                f"context contributor {name!r} must return a sequence of ContextContribution, got {values!r}"
            )
        for value in values:
            if not isinstance(value, ContextContribution):
                raise ContextError(
                    f"context contributor {name!r} returned a {type(value).__name__}, not a ContextContribution"
                )
            if value.contribution_id in seen:
                raise ContextError(
                    f"contribution id {value.contribution_id!r} from {name!r} was already contributed by "
                    f"{seen[value.contribution_id]!r}; ids must be unique within a request"
                )
            seen[value.contribution_id] = name
            collected.append(value)
    return tuple(collected)

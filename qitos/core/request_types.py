"""The value types a request view is made of: target, reasoning, continuation, artifacts, receipts, report."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from qitos.core.context import ContextError
from qitos.core.exchange_log import non_empty_text

__all__ = [
    "ArtifactRef",
    "CompactionReceipt",
    "ContinuationRef",
    "ReasoningPolicy",
    "RequestTarget",
    "SelectionReport",
]

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_REASONING = frozenset({"preserve_if_supported", "drop", "inline_replay"})


@dataclass(frozen=True)
class RequestTarget:
    """Which model a request is for, as the adapter declares it (never inferred from a name)."""

    model_id: str
    provider: str = "unknown"
    api_mode: str = "chat"

    def __post_init__(self) -> None:
        for name in ("model_id", "provider", "api_mode"):
            non_empty_text(getattr(self, name), name)

    @classmethod
    def from_model(cls, model: Any) -> RequestTarget:
        """The target a model adapter declares through ``model_id`` (and ``provider`` if it has one)."""
        if model is None:
            return cls("unknown")
        return cls(
            str(getattr(model, "model_id", "unknown") or "unknown"),
            str(getattr(model, "provider", "unknown")),
        )

    def to_dict(self) -> dict[str, str]:
        """The target as JSON data."""
        return {"model_id": self.model_id, "provider": self.provider, "api_mode": self.api_mode}


@dataclass(frozen=True)
class ReasoningPolicy:
    """What to do with model reasoning from earlier exchanges."""

    mode: str = "preserve_if_supported"
    allow_loss: bool = False

    def __post_init__(self) -> None:
        if self.mode not in _REASONING:
            raise ContextError(f"reasoning mode {self.mode!r} is not one of {sorted(_REASONING)}")

    def to_dict(self) -> dict[str, Any]:
        """The policy as JSON data."""
        return {"mode": self.mode, "allow_loss": self.allow_loss}


@dataclass(frozen=True)
class ContinuationRef:
    """A provider-side continuation (e.g. a stored response) this request builds on."""

    reference_id: str
    model_id: str
    provider: str = "unknown"
    exchange_id: str | None = None  # the newest exchange the provider already holds, if known

    def __post_init__(self) -> None:
        non_empty_text(self.reference_id, "reference_id")
        non_empty_text(self.model_id, "model_id")
        non_empty_text(self.provider, "provider")

    def assert_compatible(self, target: RequestTarget) -> None:
        """Raise when the continuation belongs to another model or provider."""
        if (self.model_id, self.provider) != (target.model_id, target.provider):
            raise ContextError(
                f"continuation {self.reference_id!r} belongs to {self.provider}/{self.model_id}, "
                f"not {target.provider}/{target.model_id}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The reference as JSON data."""
        return {
            "reference_id": self.reference_id,
            "model_id": self.model_id,
            "provider": self.provider,
            "exchange_id": self.exchange_id,
        }


@dataclass(frozen=True)
class ArtifactRef:
    """A reference to an artifact the request mentions (never its body)."""

    artifact_id: str
    media_type: str = "application/octet-stream"
    required: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        non_empty_text(self.artifact_id, "artifact_id")

    def to_dict(self) -> dict[str, Any]:
        """The reference as JSON data."""
        return {
            "artifact_id": self.artifact_id,
            "media_type": self.media_type,
            "required": self.required,
            "description": self.description,
        }


@dataclass(frozen=True)
class CompactionReceipt:
    """Declares a lossy compaction: which exchanges went in, the digest of what came out, the losses."""

    receipt_id: str
    input_exchange_ids: tuple[str, ...]
    output_digest: str
    policy_id: str
    declared_losses: tuple[str, ...] = ()
    model_reference: str | None = None

    def __post_init__(self) -> None:
        non_empty_text(self.receipt_id, "receipt_id")
        non_empty_text(self.policy_id, "policy_id")
        ids = tuple(self.input_exchange_ids)
        if not ids or any(not isinstance(i, str) or not i for i in ids) or len(set(ids)) != len(ids):
            raise ContextError(f"receipt {self.receipt_id!r} must name unique, non-empty input exchange ids")
        object.__setattr__(self, "input_exchange_ids", ids)
        object.__setattr__(self, "declared_losses", tuple(str(loss) for loss in self.declared_losses))
        if not isinstance(self.output_digest, str) or not _SHA256.fullmatch(self.output_digest):
            raise ContextError(f"receipt {self.receipt_id!r} output_digest must be a lowercase SHA-256 hex")

    def to_dict(self) -> dict[str, Any]:
        """The receipt in full, as the trace records it."""
        return {
            "receipt_id": self.receipt_id,
            "policy_id": self.policy_id,
            "input_exchange_ids": list(self.input_exchange_ids),
            "output_digest": self.output_digest,
            "declared_losses": list(self.declared_losses),
            "model_reference": self.model_reference,
        }


@dataclass(frozen=True)
class SelectionReport:
    """What a request view selected and omitted, with units, reasons and per-category usage."""

    selected_item_ids: tuple[str, ...]
    omitted_item_ids: tuple[str, ...]
    selected_exchange_ids: tuple[str, ...]
    omitted_exchange_ids: tuple[str, ...]
    selected_categories: tuple[str, ...]
    omitted_categories: tuple[str, ...]
    selected_context_ids: tuple[str, ...]
    omitted_context_ids: tuple[str, ...]
    total_units: int
    selected_units: int
    omitted_units: int
    unit: str
    reasons: tuple[str, ...] = ()
    context_decisions_json: tuple[str, ...] = field(default=(), repr=False)
    used_by_category: tuple[tuple[str, int], ...] = ()
    protected_exchange_ids: tuple[str, ...] = ()
    exchange_units: tuple[tuple[str, int], ...] = field(default=(), repr=False)
    #: Closed exchanges the history selection (the agent's History and the HistoryPolicy) left out;
    #: they are also in ``omitted_exchange_ids``. Not a budget omission, so no receipt covers them.
    history_omitted_exchange_ids: tuple[str, ...] = ()

    @property
    def context_decisions(self) -> list[dict[str, Any]]:
        """Every contribution chosen or dropped: id, source, units, priority, required, reason."""
        return [json.loads(text) for text in self.context_decisions_json]

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON data."""
        return {
            "selected_item_ids": list(self.selected_item_ids),
            "omitted_item_ids": list(self.omitted_item_ids),
            "selected_exchange_ids": list(self.selected_exchange_ids),
            "omitted_exchange_ids": list(self.omitted_exchange_ids),
            "selected_categories": list(self.selected_categories),
            "omitted_categories": list(self.omitted_categories),
            "selected_context_ids": list(self.selected_context_ids),
            "omitted_context_ids": list(self.omitted_context_ids),
            "total_units": self.total_units,
            "selected_units": self.selected_units,
            "omitted_units": self.omitted_units,
            "unit": self.unit,
            "reasons": list(self.reasons),
            "context_decisions": self.context_decisions,
            "used_by_category": dict(self.used_by_category),
            "protected_exchange_ids": list(self.protected_exchange_ids),
            "exchange_units": dict(self.exchange_units),
            "history_omitted_exchange_ids": list(self.history_omitted_exchange_ids),
        }

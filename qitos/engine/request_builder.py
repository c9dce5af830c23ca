"""Builds each model request from the run's exchanges: the seam between the Engine and the context layer.

The Engine calls :meth:`RequestBuilder.build` before every model call and reports back what the
model answered and what the tools returned; the builder owns the run's exchange log and turns it
into the messages the model receives plus the ``view`` payload of the ``model_request`` event.

This first version projects plain history (system prompt, recent exchanges, the user turn) and
records no view; the context layer replaces it with RequestView-based building (selection,
budgets, compaction receipts) behind the same interface.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from qitos.models.base import ModelResponse


@dataclass(frozen=True)
class BuiltRequest:
    """One model request ready to send: its id, the messages, and the trace's view of it."""

    request_id: str
    messages: list[dict[str, Any]]
    view: dict[str, Any] | None = None


@dataclass
class _Exchange:
    role: str
    content: str
    step_id: int
    meta: dict[str, Any] = field(default_factory=dict)


class RequestBuilder:
    """Owns one run's exchanges and builds each model request from them."""

    def __init__(
        self,
        *,
        contributors: Sequence[Any] = (),
        selection_policy: Any = None,
        budget_policy: Any = None,
        compactor: Any = None,
        history_policy: Any = None,
        model: Any = None,
    ) -> None:
        self.contributors = list(contributors)
        self.selection_policy = selection_policy
        self.budget_policy = budget_policy
        self.compactor = compactor
        self.history_policy = history_policy
        self.model = model
        self._exchanges: list[_Exchange] = []
        self._run_id = "run"
        self._count = 0

    def start_run(self, run_id: str) -> None:
        """Begin a fresh exchange log for ``run_id``."""
        self._run_id = run_id
        self._exchanges = []
        self._count = 0

    def build(
        self,
        *,
        step_id: int,
        system_prompt: str | None,
        user_text: str,
        tool_specs: Sequence[Mapping[str, Any]] = (),
    ) -> BuiltRequest:
        """The request for this step: system prompt, the recent exchanges, then the user turn."""
        self._count += 1
        request_id = f"{self._run_id}:req-{self._count:04d}"
        max_messages = getattr(self.history_policy, "max_messages", 24)
        roles = set(getattr(self.history_policy, "roles", ["user", "assistant"]))
        history = [e for e in self._exchanges if e.role in roles][-max_messages:] if max_messages else []
        messages: list[dict[str, Any]] = []
        if system_prompt:
            messages.append({"role": "system", "content": system_prompt})
        messages.extend({"role": e.role, "content": e.content} for e in history)
        messages.append({"role": "user", "content": user_text})
        self._pending_user = _Exchange("user", user_text, step_id)
        return BuiltRequest(request_id=request_id, messages=messages, view=None)

    def record_response(self, request: BuiltRequest, response: ModelResponse, *, step_id: int) -> None:
        """Append the user turn and the model's answer to the log."""
        pending = getattr(self, "_pending_user", None)
        if pending is not None:
            self._exchanges.append(pending)
            self._pending_user = None
        self._exchanges.append(_Exchange("assistant", response.text, step_id))

    def record_tool_results(self, results: Sequence[Mapping[str, Any]], *, step_id: int) -> None:
        """Append what the tools returned at ``step_id`` as a user-visible observation."""
        if results:
            text = "\n".join(f"{r.get('tool', 'tool')}: {r.get('result', r.get('error'))}" for r in results)
            self._exchanges.append(_Exchange("user", f"Observation:\n{text}", step_id))

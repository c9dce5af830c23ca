"""Builds each model request from the run's exchanges: the seam between the Engine and the context layer.

The Engine calls :meth:`RequestBuilder.build` before every model call and reports back what the
model answered and what the tools returned. The builder owns the run's
:class:`~qitos.core.request_view.ExchangeLog`: each step opens one exchange (the user turn), the
model's answer and the tool observations are appended to it, and it is closed when the next step
begins. Every request is a :class:`~qitos.core.request_view.RequestView` built from that log and
from the contributions every contributor returns for this very request, projected to chat messages;
its ``view`` payload (fixed in :mod:`qitos.trace.events`) records what was selected, omitted and
compacted, so a replay shows all of it without the agent.

Which past exchanges a request carries is first decided by the agent's History and the HistoryPolicy
(:mod:`qitos.engine.history_selection`); the view reports the ones left out as history omissions,
and the budget and compactor then work on what remains.

Tools come only from the ``tool_specs`` the Engine passes: nothing a contribution carries can add
or enable a tool. Without a compactor, a request whose exchanges do not fit fails with
ContextBudgetExceededError rather than silently dropping history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qitos.core.context import (
    ContextRequest,
    DeclaredContextBudgetPolicy,
    PriorityContextSelectionPolicy,
    canonical_json,
    collect_contributions,
)
from qitos.core.history import HistoryPolicy
from qitos.core.request_view import ExchangeLog, RequestView
from qitos.engine.history_selection import carried_exchanges
from qitos.models.base import ModelResponse

__all__ = ["BuiltRequest", "RequestBuilder", "view_payload"]


@dataclass(frozen=True)
class BuiltRequest:
    """One model request ready to send: its id, the messages, and the trace's view of it."""

    request_id: str
    messages: list[dict[str, Any]]
    view: dict[str, Any] | None = None


def view_payload(
    view: RequestView, log: ExchangeLog, *, budget_policy_id: str | None = None
) -> dict[str, Any]:
    """The ``view`` field of a ``model_request`` event: everything a replay needs to show the request."""
    s = view.selection
    used = dict(s.used_by_category)
    selected = set(s.selected_exchange_ids)
    by_history = set(s.history_omitted_exchange_ids)
    protected = set(s.protected_exchange_ids)
    units = dict(s.exchange_units)
    provenance = view.provenance
    budget = view.context_budget
    return {
        "request_view_id": view.request_id,
        "schema_version": view.schema_version,
        "source_log_id": view.source_log_id,
        "source_log_digest": view.source_log_digest,
        "selected_digest": view.selected_digest,
        "selected_exchange_ids": list(s.selected_exchange_ids),
        "omitted_exchange_ids": list(s.omitted_exchange_ids),
        "history_omitted_exchange_ids": list(s.history_omitted_exchange_ids),
        "protected_exchange_ids": list(s.protected_exchange_ids),
        "exchanges": [
            {
                "exchange_id": exchange_id,
                "step_id": step_id,
                "units": units.get(exchange_id, 0),
                "closed": closed,
                "protected": exchange_id in protected,
                "selected": exchange_id in selected,
                "omitted_by": None
                if exchange_id in selected or not closed
                else "history"
                if exchange_id in by_history
                else "compaction",
            }
            for exchange_id, step_id, closed in log.summaries()
        ],
        "contributions": s.context_decisions,
        "budget": {
            "max_units": budget.max_input_units,
            "unit": budget.unit,
            "used": {k: used.get(k, 0) for k in ("instructions", "tools", "context", "exchanges")},
            "available_units": budget.max_input_units - s.selected_units,
            "protected_recent_exchanges": budget.protected_recent_exchanges,
            "total_units": s.total_units,
            "omitted_units": s.omitted_units,
        },
        "receipts": [r.to_dict() for r in view.compaction_receipts],
        "policies": {
            "selection": next(
                (r.split(":", 1)[1] for r in s.reasons if r.startswith("context_policy:")), None
            ),
            "budget": budget_policy_id,
            "compaction": provenance.get("compaction_policy"),
            "history": provenance.get("history_policy"),
        },
    }


def _observation(results: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for r in results:
        value = r.get("result") if r.get("error") is None else f"error: {r.get('error')}"
        text = value if isinstance(value, str) else canonical_json(value) if _is_json(value) else repr(value)
        lines.append(f"{r.get('tool', 'tool')}: {text}")
    return "Observation:\n" + "\n".join(lines)


def _is_json(value: Any) -> bool:
    try:
        canonical_json(value)
    except ValueError:
        return False
    return True


class RequestBuilder:
    """Owns one run's exchange log and builds each model request as a RequestView from it."""

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
        self.selection_policy = (
            selection_policy if selection_policy is not None else PriorityContextSelectionPolicy()
        )
        self.budget_policy = budget_policy if budget_policy is not None else DeclaredContextBudgetPolicy()
        self.compactor = compactor
        # Which past exchanges a request carries (reported in the view as history omissions).
        self.history_policy = history_policy if history_policy is not None else HistoryPolicy()
        self.model = model
        self._run_id = "run"
        self._log = ExchangeLog(self._run_id)
        self._count = 0
        self._exchange_of: dict[str, str] = {}
        self.last_view: RequestView | None = None

    @property
    def exchange_log(self) -> ExchangeLog:
        """The run's exchange log (read it; only the builder appends)."""
        return self._log

    def start_run(self, run_id: str) -> None:
        """Begin a fresh exchange log for ``run_id`` and reset every contributor for it.

        A paused run resumes without calling this: its log lives on in this builder.
        """
        self._run_id = run_id
        self._log = ExchangeLog(run_id)
        self._count = 0
        self._exchange_of = {}
        self.last_view = None
        for contributor in self.contributors:
            reset = getattr(contributor, "reset", None)
            if callable(reset):
                reset(run_id)

    def close(self) -> None:
        """Close every contributor that has a ``close`` method (each closes only what it owns)."""
        for contributor in self.contributors:
            close = getattr(contributor, "close", None)
            if callable(close):
                close()

    def _open_exchange(self, step_id: int, user_text: str) -> str:
        log = self._log
        last = log.last_exchange_id
        if last is not None and not log.is_closed(last):
            snap = log.get(last)
            # A retry of the same step's call (the model failed before answering): reuse the turn
            # rather than sending the same user text twice.
            if (
                snap.step_id == step_id
                and all(i.role == "user" and i.kind == "message" for i in snap.items)
                and [i.content for i in snap.items] == ([user_text] if user_text else [])
            ):
                return last
        if last is not None:
            log.close(last)  # the step that wrote it is over (only the newest exchange is ever open)
        exchange_id = log.open(step_id=step_id)
        if user_text:
            log.append(exchange_id, role="user", content=user_text)
        return exchange_id

    def build(
        self,
        *,
        step_id: int,
        system_prompt: str | None,
        user_text: str,
        tool_specs: Sequence[Mapping[str, Any]] = (),
        history: Any = None,
        state: Any = None,
        observation: Any = None,
    ) -> BuiltRequest:
        """The request for this step, as a RequestView over the log and this request's contributions.

        ``history`` is the agent's History (None: the policy applies to the log itself); ``state``
        and ``observation`` are what ``History.retrieve`` receives.
        """
        self._count += 1
        request_id = f"{self._run_id}:req-{self._count:04d}"
        exchange_id = self._open_exchange(step_id, user_text)
        carried = carried_exchanges(
            self._log,
            self.history_policy,
            step_id=step_id,
            history=history,
            state=state,
            observation=observation,
        )
        self._exchange_of[request_id] = exchange_id
        request = ContextRequest(
            request_id=request_id,
            run_id=self._run_id,
            step_id=step_id,
            user_text=user_text,
            model_id=str(getattr(self.model, "model_id", "unknown")),
        )
        contributions = collect_contributions(self.contributors, request)
        budget = self.budget_policy.budget_for(self.model)
        view = RequestView.from_exchange_log(
            self._log,
            model=self.model,
            instructions=[{"role": "system", "content": system_prompt}] if system_prompt else (),
            tool_schemas=tool_specs,
            context_budget=budget,
            context_contributions=contributions,
            context_selection_policy=self.selection_policy,
            compaction_policy=self.compactor,
            carried_exchange_ids=carried,
            history_policy_id=self.history_policy.policy_id,
        )
        self.last_view = view
        payload = view_payload(
            view, self._log, budget_policy_id=getattr(self.budget_policy, "policy_id", None)
        )
        return BuiltRequest(request_id=request_id, messages=view.to_messages(), view=payload)

    def record_response(self, request: BuiltRequest, response: ModelResponse, *, step_id: int) -> None:
        """Append the model's answer to the exchange its request opened."""
        exchange_id = self._exchange_of.get(request.request_id)
        if exchange_id is None:
            raise ValueError(f"request {request.request_id!r} was not built by this builder in this run")
        calls = [{"name": c.name, "args": dict(c.args)} for c in response.tool_calls]
        text = response.text or (f"Tool calls: {canonical_json(calls)}" if calls else "")
        self._log.append(exchange_id, role="assistant", content=text, tool_calls=calls)

    def record_tool_results(self, results: Sequence[Mapping[str, Any]], *, step_id: int) -> None:
        """Append what the tools returned at ``step_id`` as an observation in the step's exchange."""
        if not results:
            return
        last = self._log.last_exchange_id
        if last is None or self._log.is_closed(last):
            last = self._log.open(step_id=step_id)  # tools ran without a model call this step
        self._log.append(last, role="user", content=_observation(results), kind="observation")

"""The exchange log of a run and the immutable request view built from it for each model call.

:class:`ExchangeLog` is the run's conversation truth: append-only exchanges with stable ids, each
open while its step is in progress and closed afterwards. :meth:`RequestView.from_exchange_log`
derives one deterministic, provider-neutral request from it: instructions, tool schemas, the
selected context contributions and the selected exchanges, with a report of everything that was
left out and why.

The caller may also pass ``carried_exchange_ids``: the closed exchanges its history selection (an
agent's History and the HistoryPolicy limits) lets this request carry. The others are left out
before any budget arithmetic and reported as history omissions (``history_omitted_exchange_ids``,
also in ``omitted_exchange_ids``); the log itself keeps them, so it stays the record of the run.

Omitting exchanges to fit a budget is a loss, so it happens only through an explicit compaction
policy: the view computes which closed, unprotected exchanges must go, hands their ids and the
SHA-256 of the selected projection to ``compaction_policy.compact(...)``, and accepts the result
only if the returned :class:`CompactionReceipt` names exactly those ids and that digest. Receipts
passed in from earlier requests never authorise a new omission. The recent window, open exchanges
and (conservatively) every exchange under a provider continuation are protected: when they cannot
fit, the build fails with :class:`ContextBudgetExceededError` instead of dropping them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from qitos.core.context import (
    ContextBudget,
    ContextBudgetExceededError,
    ContextContribution,
    ContextError,
    ContextSelection,
    DeclaredContextBudgetPolicy,
    PriorityContextSelectionPolicy,
    canonical_json,
    default_unit_counter,
    sha256_text,
)
from qitos.core.exchange_log import Exchange, ExchangeItem, ExchangeLog, non_empty_text
from qitos.core.request_types import (
    ArtifactRef,
    CompactionReceipt,
    ContinuationRef,
    ReasoningPolicy,
    RequestTarget,
    SelectionReport,
)

__all__ = [
    "REQUEST_VIEW_SCHEMA_VERSION",
    "ArtifactRef",
    "CompactionReceipt",
    "ContextBudgetExceededError",
    "ContinuationRef",
    "Exchange",
    "ExchangeItem",
    "ExchangeLog",
    "ReasoningPolicy",
    "RequestTarget",
    "RequestView",
    "SelectionReport",
]

REQUEST_VIEW_SCHEMA_VERSION = "qitos.request_view/v1"
REQUEST_BUILDER_VERSION = "qitos.request_view.builder/v1"
_TOOL_USE = frozenset({"auto", "required", "none"})


def _json_list_digest(values: Iterable[str]) -> str:
    """SHA-256 of the canonical JSON list of ``values`` (each already canonical JSON).

    Hashed piece by piece: identical to hashing ``"[" + ",".join(values) + "]"`` without building
    that string, which for a long log would be megabytes per request.
    """
    h = hashlib.sha256(b"[")
    first = True
    for value in values:
        if not first:
            h.update(b",")
        h.update(value.encode("utf-8"))
        first = False
    h.update(b"]")
    return h.hexdigest()


@dataclass(frozen=True)
class RequestView:
    """One immutable, deterministic provider-neutral model request view."""

    request_id: str
    target: RequestTarget
    source_log_id: str
    source_log_digest: str
    selected_items_json: tuple[str, ...] = field(repr=False)
    instructions_json: tuple[str, ...] = field(default=(), repr=False)
    tool_schemas_json: tuple[str, ...] = field(default=(), repr=False)
    context_json: tuple[str, ...] = field(default=(), repr=False)
    capability_requirements: tuple[str, ...] = ()
    reasoning_policy: ReasoningPolicy = field(default_factory=ReasoningPolicy)
    continuation: ContinuationRef | None = None
    context_budget: ContextBudget = field(default_factory=ContextBudget)
    selection: SelectionReport = field(
        default_factory=lambda: SelectionReport((), (), (), (), (), (), (), (), 0, 0, 0, "characters")
    )
    compaction_receipts: tuple[CompactionReceipt, ...] = ()
    artifact_refs: tuple[ArtifactRef, ...] = ()
    steering_boundary_json: str = "{}"
    correlation_facts_json: tuple[str, ...] = field(default=(), repr=False)
    provenance_json: str = "{}"
    protocol_id: str = "unknown"
    tool_use_policy: str = "auto"
    tool_use_satisfied: bool = False
    schema_version: str = REQUEST_VIEW_SCHEMA_VERSION

    def __post_init__(self) -> None:
        if self.schema_version != REQUEST_VIEW_SCHEMA_VERSION:
            raise ContextError(f"unsupported request view schema {self.schema_version!r}")
        non_empty_text(self.request_id, "request_id")
        non_empty_text(self.protocol_id, "protocol_id")
        if self.tool_use_policy not in _TOOL_USE:
            raise ContextError(f"tool_use_policy {self.tool_use_policy!r} is not one of {sorted(_TOOL_USE)}")
        for name in (
            "selected_items_json",
            "instructions_json",
            "tool_schemas_json",
            "context_json",
            "correlation_facts_json",
            "capability_requirements",
            "compaction_receipts",
            "artifact_refs",
        ):
            if not isinstance(getattr(self, name), tuple):
                raise ContextError(f"{name} must be a tuple (the view is immutable)")
        if self.continuation is not None:
            self.continuation.assert_compatible(self.target)

    # -- reading ----------------------------------------------------------------------------

    @property
    def selected_items(self) -> list[dict[str, Any]]:
        """The selected exchange items as JSON data, in log order."""
        # One parse of the joined list is several times faster than one parse per item.
        items: list[dict[str, Any]] = json.loads("[" + ",".join(self.selected_items_json) + "]")
        return items

    @property
    def instructions(self) -> list[dict[str, Any]]:
        """The instructions as JSON data."""
        return [json.loads(text) for text in self.instructions_json]

    @property
    def tool_schemas(self) -> list[dict[str, Any]]:
        """The tool schemas as JSON data (only ever the caller's, never from context)."""
        return [json.loads(text) for text in self.tool_schemas_json]

    @property
    def context_contributions(self) -> list[dict[str, Any]]:
        """The selected context contributions as JSON data."""
        return [json.loads(text) for text in self.context_json]

    @property
    def selected_digest(self) -> str:
        """SHA-256 of the selected exchange projection (what a compaction receipt must match)."""
        return _json_list_digest(self.selected_items_json)

    @property
    def provenance(self) -> dict[str, Any]:
        """How the view was built: builder version, source, selected digest, compaction policy."""
        provenance: dict[str, Any] = json.loads(self.provenance_json)
        return provenance

    def to_dict(self) -> dict[str, Any]:
        """The whole view as JSON data."""
        return {
            "schema_version": self.schema_version,
            "request_id": self.request_id,
            "target": self.target.to_dict(),
            "source": {"log_id": self.source_log_id, "log_digest": self.source_log_digest},
            "selected_items": self.selected_items,
            "instructions": self.instructions,
            "tool_schemas": self.tool_schemas,
            "context_contributions": self.context_contributions,
            "capability_requirements": list(self.capability_requirements),
            "reasoning_policy": self.reasoning_policy.to_dict(),
            "continuation": self.continuation.to_dict() if self.continuation else None,
            "context_budget": self.context_budget.to_dict(),
            "selection": self.selection.to_dict(),
            "compaction_receipts": [r.to_dict() for r in self.compaction_receipts],
            "artifact_refs": [a.to_dict() for a in self.artifact_refs],
            "steering_boundary": json.loads(self.steering_boundary_json),
            "correlation_facts": [json.loads(t) for t in self.correlation_facts_json],
            "provenance": self.provenance,
            "protocol_id": self.protocol_id,
            "tool_use_policy": self.tool_use_policy,
            "tool_use_satisfied": self.tool_use_satisfied,
        }

    def to_json(self) -> str:
        """The canonical JSON text of :meth:`to_dict` (byte-identical across processes)."""
        return canonical_json(self.to_dict(), "request view")

    def to_messages(self) -> list[dict[str, str]]:
        """Project the view to chat messages whose content is exactly what the budget counted.

        Instructions first (system), then one message per selected contribution (system for
        system/developer placement, user for user placement), then the selected exchange items.
        No framing text is added, so the characters sent equal the characters budgeted. Tool
        schemas are not messages: the caller passes its own tool specs to the model.
        """
        messages = [{"role": "system", "content": str(i["content"])} for i in self.instructions]
        contributions = self.context_contributions
        for placement_roles, role in (({"system", "developer"}, "system"), ({"user"}, "user")):
            for c in contributions:
                if c["requested_placement"] in placement_roles:
                    value = c["value"]
                    messages.append(
                        {"role": role, "content": value if isinstance(value, str) else canonical_json(value)}
                    )
        messages.extend({"role": i["role"], "content": i["content"]} for i in self.selected_items)
        return messages

    # -- building ---------------------------------------------------------------------------

    @classmethod
    def from_exchange_log(
        cls,
        log: ExchangeLog,
        *,
        model: Any = None,
        target: RequestTarget | None = None,
        instructions: Iterable[Mapping[str, Any]] = (),
        tool_schemas: Iterable[Mapping[str, Any]] = (),
        capability_requirements: Iterable[str] = (),
        reasoning_policy: ReasoningPolicy | None = None,
        continuation: ContinuationRef | None = None,
        context_budget: ContextBudget | None = None,
        context_contributions: Iterable[ContextContribution] = (),
        context_selection_policy: Any = None,
        context_unit_counter: Any = None,
        compaction_receipts: Iterable[CompactionReceipt] = (),
        compaction_policy: Any = None,
        artifact_refs: Iterable[ArtifactRef] = (),
        available_artifact_ids: Iterable[str] | None = None,
        protocol_id: str = "unknown",
        tool_use_policy: str = "auto",
        tool_use_satisfied: bool = False,
        carried_exchange_ids: Iterable[str] | None = None,
        history_policy_id: str | None = None,
    ) -> RequestView:
        """Build the request for the next model call from ``log`` (see the module docstring)."""
        if not isinstance(log, ExchangeLog):
            raise ContextError(f"log must be an ExchangeLog, got {type(log).__name__}")
        resolved_target = target if target is not None else RequestTarget.from_model(model)
        if continuation is not None:
            continuation.assert_compatible(resolved_target)
        budget = (
            context_budget if context_budget is not None else DeclaredContextBudgetPolicy().budget_for(model)
        )
        counter = context_unit_counter if context_unit_counter is not None else default_unit_counter
        selector = (
            context_selection_policy
            if context_selection_policy is not None
            else PriorityContextSelectionPolicy()
        )
        unit, capacity = budget.unit, budget.max_input_units

        def measure(value: Any, what: str) -> int:
            units = counter(value, unit)
            if not isinstance(units, int) or isinstance(units, bool) or units < 0:
                raise ContextError(
                    f"unit counter returned {units!r} for {what}; it must be a non-negative int"
                )
            return units

        # Instructions and tool schemas: the caller's, validated and canonicalised.
        instruction_values: list[dict[str, Any]] = []
        for index, raw in enumerate(instructions):
            item = dict(raw)
            if item.get("role") not in ("system", "developer") or not isinstance(item.get("content"), str):
                raise ContextError(f"instructions[{index}] needs role system|developer and string content")
            instruction_values.append(item)
        instructions_json = tuple(canonical_json(i, "instruction") for i in instruction_values)
        tools_json = tuple(canonical_json(dict(s), "tool schema") for s in tool_schemas)
        instruction_units = sum(measure(i["content"], "instructions") for i in instruction_values)
        tool_units = sum(measure(t, "tool schemas") for t in tools_json)

        references = tuple(artifact_refs)
        available = set(available_artifact_ids or ())
        for ref in references:
            if not isinstance(ref, ArtifactRef):
                raise ContextError(f"artifact_refs must hold ArtifactRef values, got {type(ref).__name__}")
            if ref.required and ref.artifact_id not in available:
                raise ContextError(f"required artifact {ref.artifact_id!r} is not available")
        prior_receipts = tuple(compaction_receipts)
        for receipt in prior_receipts:
            if not isinstance(receipt, CompactionReceipt):
                raise ContextError(
                    f"compaction_receipts must hold CompactionReceipt, got {type(receipt).__name__}"
                )

        # The history selection comes first: exchanges it leaves out are not candidates at all.
        all_records = log._records
        if carried_exchange_ids is None:
            records = all_records
            history_omitted: list[Any] = []
        else:
            carried = set(carried_exchange_ids)
            records = [r for r in all_records if not r.closed or r.exchange_id in carried]
            history_omitted = [r for r in all_records if r.closed and r.exchange_id not in carried]
            if history_omitted and continuation is not None:
                # The provider holds state for the whole prefix; leaving any exchange out of the
                # request would desynchronise it.
                raise ContextError(
                    "a provider continuation covers every exchange; the history selection cannot "
                    f"leave out {[r.exchange_id for r in history_omitted]}"
                )

        # Exchange units and protection. The builder alone decides what is protected.
        default_chars = counter is default_unit_counter and unit == "characters"
        units_of = [
            r.chars
            if default_chars
            else sum(measure(i.content, f"exchange {r.exchange_id}") for i in r.items)
            for r in records
        ]
        window = budget.protected_recent_exchanges
        protected = [False] * len(records)
        if window:
            for k in range(max(0, len(records) - window), len(records)):
                protected[k] = True
        if continuation is not None:
            # Conservative: the provider holds state for a prefix we cannot inspect, so removing any
            # exchange could desynchronise it. Protect them all.
            if continuation.exchange_id is not None and continuation.exchange_id not in log._by_id:
                raise ContextError(f"continuation exchange {continuation.exchange_id!r} is not in the log")
            protected = [True] * len(records)
        for k, r in enumerate(records):
            if not r.closed:
                protected[k] = True  # an open exchange is still being written: never compacted
        protected_units = sum(u for u, p in zip(units_of, protected, strict=True) if p)
        base = instruction_units + tool_units
        if base + protected_units > capacity:
            raise ContextBudgetExceededError(
                f"instructions ({instruction_units}), tools ({tool_units}) and protected exchanges "
                f"({protected_units}) need {base + protected_units} {unit} but the budget is {capacity}; "
                "protected exchanges are never removed to make a request fit"
            )

        # Context goes after the protected exchanges are reserved, so optional context can never
        # push a protected exchange out, and a required contribution that cannot fit fails.
        selection = selector.select(
            tuple(context_contributions),
            budget=budget,
            already_used_units=base + protected_units,
            counter=counter,
        )
        if not isinstance(selection, ContextSelection):
            raise ContextError(f"selection policy returned {type(selection).__name__}, not ContextSelection")
        if base + protected_units + selection.units_used > capacity:
            raise ContextBudgetExceededError(
                f"selection policy {getattr(selector, 'policy_id', selector)!r} selected "
                f"{selection.units_used} {unit} of context, over the budget of {capacity}"
            )
        context_units = selection.units_used
        used = base + protected_units + context_units
        open_units = sum(u for u, p in zip(units_of, protected, strict=True) if not p)

        omit = [False] * len(records)
        if used + open_units > capacity:
            need = used + open_units - capacity
            freed = 0
            for k in range(len(records)):  # oldest first
                if freed >= need:
                    break
                if not protected[k]:
                    omit[k] = True
                    freed += units_of[k]
            # Unprotected exchanges are all closed, so omitting all of them always frees enough;
            # the only way to fail is the protected part, which was checked above.
        omitted_ids = tuple(r.exchange_id for r, o in zip(records, omit, strict=True) if o)
        selected_items_json = tuple(
            t for r, o in zip(records, omit, strict=True) if not o for t in r.item_json
        )
        selected_digest = _json_list_digest(selected_items_json)
        new_receipts: tuple[CompactionReceipt, ...] = ()
        if omitted_ids:
            required_units = used + open_units
            if compaction_policy is None:
                raise ContextBudgetExceededError(
                    f"the request needs {required_units} {unit} but the budget is {capacity}; exchanges "
                    f"{list(omitted_ids)} could be omitted only through an explicit compaction policy and "
                    "none is configured (existing receipts never authorise a new omission)"
                )
            receipt = compaction_policy.compact(
                exchange_ids=omitted_ids,
                selected_digest=selected_digest,
                required_units=required_units,
                available_units=capacity,
            )
            policy_name = getattr(compaction_policy, "policy_id", type(compaction_policy).__name__)
            if receipt is None:
                raise ContextBudgetExceededError(
                    f"compaction policy {policy_name!r} declined to omit {list(omitted_ids)}; the request "
                    f"needs {required_units} {unit} but the budget is {capacity}"
                )
            if not isinstance(receipt, CompactionReceipt):
                raise ContextError(f"compaction policy {policy_name!r} returned {type(receipt).__name__}")
            if receipt.input_exchange_ids != omitted_ids or receipt.output_digest != selected_digest:
                raise ContextError(
                    f"compaction receipt {receipt.receipt_id!r} does not match this request: it names "
                    f"{list(receipt.input_exchange_ids)} -> {receipt.output_digest[:12]}, the build omits "
                    f"{list(omitted_ids)} -> {selected_digest[:12]}"
                )
            new_receipts = (receipt,)
        exchange_units_used = sum(u for u, o in zip(units_of, omit, strict=True) if not o)
        used = base + context_units + exchange_units_used

        # Report.
        selected_records = [r for r, o in zip(records, omit, strict=True) if not o]
        omitted_records = [r for r, o in zip(records, omit, strict=True) if o]
        history_units = [
            r.chars
            if default_chars
            else sum(measure(i.content, f"exchange {r.exchange_id}") for i in r.items)
            for r in history_omitted
        ]
        if history_omitted:
            left_out = {id(r) for r in omitted_records} | {id(r) for r in history_omitted}
            omitted_records = [r for r in all_records if id(r) in left_out]  # log order
        decisions = selection.decisions
        context_total = sum(d.units for d in decisions)
        total = base + context_total + sum(units_of) + sum(history_units)
        report = SelectionReport(
            selected_item_ids=tuple(i for r in selected_records for i in r.item_ids),
            omitted_item_ids=tuple(i for r in omitted_records for i in r.item_ids),
            selected_exchange_ids=tuple(r.exchange_id for r in selected_records),
            omitted_exchange_ids=tuple(r.exchange_id for r in omitted_records),
            selected_categories=tuple(sorted(set().union(*(r.kinds for r in selected_records)))),
            omitted_categories=tuple(sorted(set().union(*(r.kinds for r in omitted_records)))),
            selected_context_ids=tuple(d.contribution.contribution_id for d in selection.selected),
            omitted_context_ids=tuple(d.contribution.contribution_id for d in selection.omitted),
            total_units=total,
            selected_units=used,
            omitted_units=total - used,
            unit=unit,
            reasons=(
                f"context_policy:{getattr(selector, 'policy_id', type(selector).__name__)}",
                "protected:recent_window,open_exchanges" + (",continuation" if continuation else ""),
                "omission:compaction_receipt" if omitted_ids else "omission:none",
                *(
                    (f"history:{history_policy_id or 'selection'}:{len(history_omitted)}_omitted",)
                    if carried_exchange_ids is not None
                    else ()
                ),
            ),
            context_decisions_json=tuple(canonical_json(d.to_dict()) for d in decisions),
            used_by_category=(
                ("instructions", instruction_units),
                ("tools", tool_units),
                ("context", context_units),
                ("exchanges", exchange_units_used),
            ),
            protected_exchange_ids=tuple(r.exchange_id for r, p in zip(records, protected, strict=True) if p),
            exchange_units=tuple(
                (r.exchange_id, u)
                for r, u in zip([*records, *history_omitted], [*units_of, *history_units], strict=True)
            ),
            history_omitted_exchange_ids=tuple(r.exchange_id for r in history_omitted),
        )
        requirements = set(map(str, capability_requirements))
        with_calls = [r for r in selected_records if r.tool_names]
        if with_calls:
            requirements.add("tool_calls")
        if continuation is not None:
            requirements.add("continuation")
        correlations = tuple(
            canonical_json({"exchange_id": r.exchange_id, "tool_calls": r.tool_names}) for r in with_calls
        )
        open_ids = [r.exchange_id for r in all_records if not r.closed]
        context_json = tuple(canonical_json(c.to_dict()) for c in selection.selected_contributions)
        receipts = prior_receipts + new_receipts
        source_digest = log.digest()
        identity = canonical_json(
            {
                "target": resolved_target.to_dict(),
                "source_log_digest": source_digest,
                "selected_digest": selected_digest,
                "instructions": list(instructions_json),
                "tools": list(tools_json),
                "context": [c.digest + ":" + c.contribution_id for c in selection.selected_contributions],
                "receipts": [r.receipt_id for r in receipts],
                "budget": budget.to_dict(),
            }
        )
        return cls(
            request_id="request_" + sha256_text(identity)[:24],
            target=resolved_target,
            source_log_id=log.log_id,
            source_log_digest=source_digest,
            selected_items_json=selected_items_json,
            instructions_json=instructions_json,
            tool_schemas_json=tools_json,
            context_json=context_json,
            capability_requirements=tuple(sorted(requirements)),
            reasoning_policy=reasoning_policy if reasoning_policy is not None else ReasoningPolicy(),
            continuation=continuation,
            context_budget=budget,
            selection=report,
            compaction_receipts=receipts,
            artifact_refs=references,
            steering_boundary_json=canonical_json(
                {"state": "open" if open_ids else "safe", "open_exchange_ids": open_ids}
            ),
            correlation_facts_json=correlations,
            provenance_json=canonical_json(
                {
                    "builder": REQUEST_BUILDER_VERSION,
                    "source": "ExchangeLog",
                    "selected_digest": selected_digest,
                    "compaction_policy": getattr(compaction_policy, "policy_id", None)
                    if compaction_policy is not None
                    else None,
                    **({"history_policy": history_policy_id} if history_policy_id is not None else {}),
                }
            ),
            protocol_id=protocol_id,
            tool_use_policy=tool_use_policy,
            tool_use_satisfied=bool(tool_use_satisfied),
        )

"""What changed from one model request to the next: messages, contributions and budget, as plain data.

Pure functions over a :class:`RunStore` (they load the two request events they compare); the
Exchanges, Context and Budget panes render what they return.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from qitos.trace.payloads import Message, ModelRequest, ModelResponse, RequestView, payload_of
from tui.store import Exchange, RunStore, StepSummary

HISTORY_POLICY_CAUSE = "history policy"
UNKNOWN_CAUSE = "no receipt or policy recorded"


def message_key(message: Message) -> tuple[str, str]:
    """A message as comparable text: its role and its content (JSON data as its repr)."""
    content = message.content if isinstance(message.content, str) else repr(message.content)
    return message.role, content


class MessageDiff(NamedTuple):
    """Messages of a request compared with the previous request (and that request's answer)."""

    previous_number: int  # the exchange number ``#N`` of the previous request
    added: tuple[Message, ...]
    removed: tuple[Message, ...]
    removal_cause: str  # the receipt or policy that left the removed ones out, or UNKNOWN_CAUSE

    @property
    def added_keys(self) -> set[tuple[str, str]]:
        """The added messages as comparable keys."""
        return {message_key(m) for m in self.added}


class ContributionMark(NamedTuple):
    """How one contribution differs from the previous request's: ``new``, ``gone`` or ``changed``."""

    mark: str
    delta: int | None = None  # units now less units before, for ``changed``
    units: int | None = None  # a gone contribution's units before


def removal_cause(before: RequestView | None, after: RequestView | None) -> str:
    """Why exchanges were left out of ``after`` that ``before`` still sent: receipts, or the policy."""
    if after is None:
        return UNKNOWN_CAUSE
    already = set(before.omitted_exchange_ids) if before is not None else set()
    newly = [x for x in after.omitted_exchange_ids if x not in already]
    causes: list[str] = []
    for receipt in after.receipts:
        if not newly or any(x in receipt.input_exchange_ids for x in newly):
            causes.append(f"receipt {receipt.receipt_id} by {receipt.policy_id}")
    history = set(after.history_omitted_exchange_ids)
    if any(x in history for x in newly) or (not causes and history):
        causes.append(HISTORY_POLICY_CAUSE)
    return ", ".join(causes) if causes else UNKNOWN_CAUSE


def previous_request_exchange(store: RunStore, ex: Exchange) -> Exchange | None:
    """The newest exchange before ``ex`` that sent a request."""
    for number in range(ex.number - 2, -1, -1):
        prev = store.exchanges[number]
        if prev.request is not None:
            return prev
    return None


def message_diff(store: RunStore, ex: Exchange) -> MessageDiff | None:
    """``ex``'s request against the previous request; None when either has no request."""
    if ex.request is None:
        return None
    prev = previous_request_exchange(store, ex)
    if prev is None or prev.request is None:
        return None
    now = ModelRequest.read(store.load(ex.request).payload)
    before = ModelRequest.read(store.load(prev.request).payload)
    seen = Counter(message_key(m) for m in before.conversation)
    if prev.response is not None:
        # The previous answer comes back as the next request's assistant message: not new.
        answer = ModelResponse.read(store.load(prev.response).payload).text
        seen[("assistant", answer)] += 1
    kept = Counter(message_key(m) for m in now.conversation)
    added: list[Message] = []
    for message in now.conversation:
        key = message_key(message)
        if seen[key] > 0:
            seen[key] -= 1
        else:
            added.append(message)
    removed: list[Message] = []
    for message in before.conversation:
        key = message_key(message)
        if kept[key] > 0:
            kept[key] -= 1
        else:
            removed.append(message)
    cause = removal_cause(before.view, now.view) if removed else ""
    return MessageDiff(prev.number, tuple(added), tuple(removed), cause)


def previous_request_index(store: RunStore, step: StepSummary) -> int | None:
    """The event index of the request sent before ``step``'s last one (same step or an earlier one)."""
    if len(step.requests) >= 2:
        return step.requests[-2]
    if not step.requests:
        return None
    pos = store.step_pos.get(step.step)
    if pos is None:
        return None
    for p in range(pos - 1, -1, -1):
        if store.steps[p].requests:
            return store.steps[p].requests[-1]
    return None


def previous_view(store: RunStore, step: StepSummary) -> tuple[int | None, RequestView | None]:
    """The step id and request view of the request before ``step``'s last one."""
    index = previous_request_index(store, step)
    if index is None:
        return None, None
    event = store.load(index)
    return event.step_id if isinstance(event.step_id, int) else None, ModelRequest.read(
        payload_of(event)
    ).view


def contribution_marks(before: RequestView | None, after: RequestView) -> dict[str, ContributionMark]:
    """Each contribution of ``after`` (and each one ``before`` had and ``after`` lacks) marked by id;
    unchanged ones are left out. Nothing is marked when there is no previous view to compare with."""
    if before is None:
        return {}
    old = {c.contribution_id: c for c in before.contributions}
    marks: dict[str, ContributionMark] = {}
    for c in after.contributions:
        was = old.pop(c.contribution_id, None)
        if was is None:
            marks[c.contribution_id] = ContributionMark("new")
        elif (was.units, was.selected) != (c.units, c.selected):
            delta = None if was.units is None or c.units is None else c.units - was.units
            marks[c.contribution_id] = ContributionMark("changed", delta)
    for cid, was in old.items():
        marks[cid] = ContributionMark("gone", units=was.units)
    return marks


def budget_deltas(before: StepSummary | None, after: StepSummary) -> dict[str, int]:
    """Units used per category now less before (a category new or gone counts from or to 0)."""
    if before is None or before.budget is None or after.budget is None:
        return {}
    old = dict(before.budget.used)
    new = dict(after.budget.used)
    return {name: new.get(name, 0) - old.get(name, 0) for name in [*new, *(k for k in old if k not in new)]}


def previous_budget_step(store: RunStore, step: StepSummary) -> StepSummary | None:
    """The nearest earlier step that recorded a budget."""
    pos = store.step_pos.get(step.step)
    if pos is None:
        return None
    for p in range(pos - 1, -1, -1):
        if store.steps[p].budget is not None:
            return store.steps[p]
    return None


def signed(delta: int) -> str:
    """``+n``, ``-n`` or ``±0``."""
    return f"+{delta}" if delta > 0 else (f"{delta}" if delta < 0 else "±0")

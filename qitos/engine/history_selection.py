"""Which past exchanges a model request carries: the agent's History and the HistoryPolicy decide.

The ExchangeLog stays the record of the run; this only chooses which of its closed exchanges the
next request includes, and the request view reports the others as history omissions.

- With an agent ``History``: the Engine calls ``history.retrieve(policy.build_query(step), state,
  observation)`` (the messages it appended: each model call's user turn and answer), applies the
  policy's limits to what comes back, and carries the exchanges of the steps those messages belong to.
- Without one: the policy's limits apply to the log's own items (each is a message in the request:
  user turns, answers, observations); an exchange is carried only when every one of its items in
  the policy's roles is kept, so a request never carries more than ``max_messages`` of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from qitos.core.exchange_log import ExchangeLog
from qitos.core.history import History, HistoryMessage, HistoryPolicy

__all__ = ["carried_exchanges", "history_messages"]


def history_messages(payload: Any) -> list[HistoryMessage]:
    """The well-formed messages in what ``History.retrieve`` returned (anything else is skipped)."""
    if not isinstance(payload, Iterable) or isinstance(payload, str | bytes | dict):
        return []
    out: list[HistoryMessage] = []
    for item in payload:
        role: object
        content: object
        step: object
        if isinstance(item, HistoryMessage):
            role, content, step = item.role, item.content, item.step_id
        elif isinstance(item, dict):
            role, content, step = item.get("role"), item.get("content"), item.get("step_id")
        else:
            continue
        if (
            isinstance(role, str)
            and isinstance(content, str)
            and isinstance(step, int)
            and not isinstance(step, bool)
        ):
            out.append(HistoryMessage(role=role, content=content, step_id=step))
    return out


def carried_exchanges(
    log: ExchangeLog,
    policy: HistoryPolicy,
    *,
    step_id: int,
    history: History | None = None,
    state: Any = None,
    observation: Any = None,
) -> list[str]:
    """The ids of the closed exchanges the next request at ``step_id`` may carry, in log order."""
    closed = [(eid, sid) for eid, sid, is_closed in log.summaries() if is_closed]
    if history is not None:
        retrieved = history.retrieve(query=policy.build_query(step_id), state=state, observation=observation)
        kept = policy.select(history_messages(retrieved), current_step=step_id)
        steps = {m.step_id for m in kept}
        return [eid for eid, sid in closed if sid in steps]
    return _from_log(log, closed, policy, step_id)


def _from_log(
    log: ExchangeLog, closed: list[tuple[str, int]], policy: HistoryPolicy, step_id: int
) -> list[str]:
    roles = set(policy.roles)
    # Only the newest messages can survive the cap: walk back until one more than it is seen.
    messages: list[HistoryMessage] = []
    owner: dict[int, str] = {}  # id(message) -> its exchange
    eligible = 0
    for exchange_id, step in reversed(closed):
        if eligible > policy.max_messages:
            break
        if policy.step_window is not None and step <= step_id - policy.step_window:
            break
        batch = [
            HistoryMessage(role=item.role, content=item.content, step_id=step)
            for item in log.get(exchange_id).items
            if item.role in roles
        ]
        for message in batch:
            owner[id(message)] = exchange_id
        messages[:0] = batch
        eligible += len(batch)
    kept = {id(m) for m in policy.select(messages, current_step=step_id)}
    whole: dict[str, bool] = {}
    for message in messages:
        exchange_id = owner[id(message)]
        whole[exchange_id] = whole.get(exchange_id, True) and id(message) in kept
    return [eid for eid, _ in closed if whole.get(eid, False)]

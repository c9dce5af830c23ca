"""A compaction receipt's digest is the SHA-256 of the selected projection, recomputed here by hand."""

from __future__ import annotations

import hashlib
import json

import pytest

from qitos.core.context import ContextBudget, ContextError
from qitos.core.request_view import CompactionReceipt, ExchangeLog, RequestView
from qitos.kit.context.compaction import ClosedExchangeWindowCompactor


def _log(newest_reply: str) -> ExchangeLog:
    """Five closed exchanges of 200 characters and an open one; only the newest reply varies."""
    log = ExchangeLog("log-1")
    for step in range(5):
        ex = log.open(step_id=step)
        log.append(ex, role="user", content=f"{step}".ljust(100, "u"))
        reply = newest_reply if step == 4 else f"{step}".ljust(100, "a")
        log.append(ex, role="assistant", content=reply)
        log.close(ex)
    log.append(log.open(step_id=5), role="user", content="now?")
    return log


def _digest_by_hand(log: ExchangeLog, selected_ids: tuple[str, ...]) -> str:
    """SHA-256 of the JSON list of the selected exchanges' item projections, in log order."""
    items = [item.to_dict() for ex in log.exchanges if ex.exchange_id in selected_ids for item in ex.items]
    text = json.dumps(items, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _view(log: ExchangeLog, policy: object) -> RequestView:
    budget = ContextBudget(700, protected_recent_exchanges=2)
    return RequestView.from_exchange_log(log, context_budget=budget, compaction_policy=policy)


def test_the_receipt_digest_is_the_sha256_of_the_selected_items() -> None:
    log = _log("4".ljust(100, "a"))
    view = _view(log, ClosedExchangeWindowCompactor())
    (receipt,) = view.compaction_receipts
    selected = view.selection.selected_exchange_ids
    assert receipt.output_digest == _digest_by_hand(log, selected) == view.selected_digest


def test_the_digest_depends_on_the_content_of_the_selected_items() -> None:
    """Same ids, same sizes, one selected reply differs by a letter: the digests differ."""
    one = _view(_log("4".ljust(100, "a")), ClosedExchangeWindowCompactor())
    other = _view(_log("4".ljust(99, "a") + "b"), ClosedExchangeWindowCompactor())
    assert one.selection.omitted_exchange_ids == other.selection.omitted_exchange_ids
    assert one.compaction_receipts[0].output_digest != other.compaction_receipts[0].output_digest


class _StaleReceipts:
    """A policy that hands back the receipt it made for another log's content."""

    policy_id = "test.stale"

    def __init__(self, receipt: CompactionReceipt) -> None:
        self.receipt = receipt

    def compact(self, **_kwargs: object) -> CompactionReceipt:
        return self.receipt


def test_a_receipt_made_for_different_content_is_refused() -> None:
    made_for = _view(_log("4".ljust(100, "a")), ClosedExchangeWindowCompactor()).compaction_receipts[0]
    with pytest.raises(ContextError, match="does not match this request"):
        _view(_log("4".ljust(99, "a") + "b"), _StaleReceipts(made_for))

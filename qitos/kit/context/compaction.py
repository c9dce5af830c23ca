"""Compaction policies: the explicit, receipted way a request view may omit old exchanges."""

from __future__ import annotations

import re
from collections.abc import Sequence

from qitos.core.context import ContextError, canonical_json, sha256_text
from qitos.core.request_view import CompactionReceipt

__all__ = ["ClosedExchangeWindowCompactor"]

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class ClosedExchangeWindowCompactor:
    """Omit the oldest eligible closed exchanges without a summary.

    RequestView owns eligibility and the ContextBudget recent-window boundary.
    This stateless policy authorizes that derived selection and records its loss;
    it never modifies an ExchangeLog or widens a budget or codec loss setting.
    """

    policy_id = "qitos.context.closed_window/v1"
    __slots__ = ()  # stateless by construction: no instance attributes can be set

    def compact(
        self,
        *,
        exchange_ids: Sequence[str],
        selected_digest: str,
        required_units: int,
        available_units: int,
    ) -> CompactionReceipt | None:
        """A receipt authorising the omission of ``exchange_ids``, or None when nothing must go.

        The loss is declared per exchange: each one is dropped whole and nothing summarises it.
        """
        ids = tuple(exchange_ids)
        if isinstance(exchange_ids, str) or any(not isinstance(i, str) or not i for i in ids):
            raise ContextError(f"exchange_ids must be a sequence of non-empty strings, got {exchange_ids!r}")
        if len(set(ids)) != len(ids):
            raise ContextError(f"exchange_ids must be unique, got {list(ids)}")
        if not isinstance(selected_digest, str) or not _SHA256.fullmatch(selected_digest):
            raise ContextError(f"selected_digest must be a lowercase SHA-256 hex, got {selected_digest!r}")
        for name, value in (("required_units", required_units), ("available_units", available_units)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ContextError(f"{name} must be a non-negative int, got {value!r}")
        if required_units <= available_units or not ids:
            return None  # the request fits: declaring a loss here would be a false receipt
        identity = canonical_json({"policy": self.policy_id, "input": list(ids), "output": selected_digest})
        return CompactionReceipt(
            receipt_id="compaction_" + sha256_text(identity)[:24],
            input_exchange_ids=ids,
            output_digest=selected_digest,
            policy_id=self.policy_id,
            declared_losses=tuple(f"exchange {i} omitted whole, without a summary" for i in ids),
            model_reference=None,
        )

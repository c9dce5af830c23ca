"""ClosedExchangeWindowCompactor to the letter: what it refuses and why, when it declares a loss,
and the exact receipt it hands back.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a caller relies on (a message naming the bad argument, a receipt that fits the omission
it authorises, a boundary where the request just fits), not the mutant.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from qitos.core.context import ContextError
from qitos.core.request_view import CompactionReceipt
from qitos.kit.context.compaction import ClosedExchangeWindowCompactor

DIGEST = "ab" * 32


def compact(**overrides: Any) -> CompactionReceipt | None:
    """The compactor's answer for a request that is one unit too big, with ``overrides`` applied."""
    kw: dict[str, Any] = {
        "exchange_ids": ("ex-1", "ex-2"),
        "selected_digest": DIGEST,
        "required_units": 11,
        "available_units": 10,
    }
    kw.update(overrides)
    return ClosedExchangeWindowCompactor().compact(**kw)


def raises(message: str, **overrides: Any) -> None:
    """``compact(**overrides)`` raises a ContextError whose message is exactly ``message``."""
    with pytest.raises(ContextError) as info:
        compact(**overrides)
    assert str(info.value) == message


# -- refusals name the argument and the bad value ---------------------------------------------------


def test_a_bare_string_is_not_a_sequence_of_exchange_ids() -> None:
    raises("exchange_ids must be a sequence of non-empty strings, got 'ex-1'", exchange_ids="ex-1")


@pytest.mark.parametrize("ids", [("ex-1", ""), ("ex-1", 7), ("", "ex-2")])
def test_every_exchange_id_must_be_a_non_empty_string(ids: tuple[Any, ...]) -> None:
    raises(f"exchange_ids must be a sequence of non-empty strings, got {ids!r}", exchange_ids=ids)


def test_exchange_ids_must_be_unique() -> None:
    raises("exchange_ids must be unique, got ['ex-1', 'ex-1']", exchange_ids=("ex-1", "ex-1"))


@pytest.mark.parametrize("digest", ["AB" * 32, "ab" * 31, "ab" * 32 + "a", 42, "g" * 64, "ab" * 32 + "\n"])
def test_the_selected_digest_must_be_a_lowercase_sha256_hex(digest: Any) -> None:
    raises(f"selected_digest must be a lowercase SHA-256 hex, got {digest!r}", selected_digest=digest)


@pytest.mark.parametrize("name", ["required_units", "available_units"])
@pytest.mark.parametrize("value", [-1, True, 1.0, "3", None])
def test_unit_figures_must_be_non_negative_ints(name: str, value: Any) -> None:
    raises(f"{name} must be a non-negative int, got {value!r}", **{name: value})


def test_zero_units_are_accepted() -> None:
    assert compact(required_units=0, available_units=0) is None
    assert compact(required_units=1, available_units=0) is not None


# -- when a loss is declared -----------------------------------------------------------------------


def test_a_request_that_fits_exactly_needs_no_receipt() -> None:
    """Declaring a loss for a request that fits would be a false receipt."""
    assert compact(required_units=10, available_units=10) is None
    assert compact(required_units=9, available_units=10) is None


def test_one_unit_over_the_budget_is_compacted() -> None:
    assert isinstance(compact(required_units=11, available_units=10), CompactionReceipt)


def test_nothing_to_omit_means_no_receipt_even_when_over_budget() -> None:
    assert compact(exchange_ids=(), required_units=11, available_units=10) is None
    assert compact(exchange_ids=[], required_units=11, available_units=10) is None


# -- the receipt -----------------------------------------------------------------------------------


def test_the_receipt_declares_each_omitted_exchange_whole() -> None:
    receipt = compact(exchange_ids=["ex-1", "ex-2"])
    assert receipt is not None
    assert receipt.input_exchange_ids == ("ex-1", "ex-2")
    assert receipt.output_digest == DIGEST
    assert receipt.policy_id == "qitos.context.closed_window/v1"
    assert receipt.policy_id == ClosedExchangeWindowCompactor.policy_id
    assert receipt.declared_losses == (
        "exchange ex-1 omitted whole, without a summary",
        "exchange ex-2 omitted whole, without a summary",
    )
    assert receipt.model_reference is None  # no model summarised anything


def test_the_receipt_id_is_the_hash_of_policy_input_and_output() -> None:
    """Anyone can recompute the id from what the receipt declares."""
    receipt = compact()
    assert receipt is not None
    identity = json.dumps(
        {"input": ["ex-1", "ex-2"], "output": DIGEST, "policy": "qitos.context.closed_window/v1"},
        sort_keys=True,
        separators=(",", ":"),
    )
    assert receipt.receipt_id == "compaction_" + hashlib.sha256(identity.encode()).hexdigest()[:24]


def test_the_receipt_id_changes_with_the_input_and_the_output() -> None:
    first = compact()
    assert first is not None
    other_input = compact(exchange_ids=("ex-1",))
    other_output = compact(selected_digest="cd" * 32)
    assert other_input is not None and other_output is not None
    assert len({first.receipt_id, other_input.receipt_id, other_output.receipt_id}) == 3


def test_the_receipt_does_not_depend_on_the_unit_figures() -> None:
    """The same omission authorised under two budgets is the same receipt."""
    assert compact(required_units=11, available_units=10) == compact(required_units=500, available_units=3)


def test_the_compactor_is_stateless() -> None:
    with pytest.raises(AttributeError):
        ClosedExchangeWindowCompactor().memo = 1  # type: ignore[attr-defined]

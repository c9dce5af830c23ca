"""The kit memory query to the letter: the exact message for each bad key or value, each filter's
boundary, ``limit`` keeping the newest, and the JSON form recorded in a ``memory_recall`` event.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a caller relies on (a message that says which key is wrong, a step boundary that is
inclusive, the newest records kept), not the mutant.
"""

from __future__ import annotations

from typing import Any

import pytest

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.query import filter_records, jsonable_query, validate_query

KNOWN = "['limit', 'record_ids', 'role', 'since_step', 'step_id', 'text']"


def refused(query: Any, message: str) -> None:
    """``validate_query(query)`` raises a ValueError whose message is exactly ``message``."""
    with pytest.raises(ValueError) as info:
        validate_query(query)
    assert str(info.value) == message


# -- validation ------------------------------------------------------------------------------------


def test_no_query_is_an_empty_query() -> None:
    assert validate_query(None) == {}
    assert validate_query({}) == {}


def test_a_query_must_be_a_mapping() -> None:
    refused(["role"], "query must be a mapping or None, got list")
    refused("role=user", "query must be a mapping or None, got str")


def test_unknown_keys_are_named_sorted_beside_the_known_ones() -> None:
    refused(
        {"zeta": 1, "alpha": 2, "role": "user"}, f"unknown memory query key(s): alpha, zeta; known: {KNOWN}"
    )
    refused({3: 1}, f"unknown memory query key(s): 3; known: {KNOWN}")


def test_the_normalised_query() -> None:
    """Roles and ids become sets, text is case-folded, ints are kept as given."""
    assert validate_query(
        {
            "role": ["user", "tool"],
            "step_id": 2,
            "since_step": 0,
            "limit": 0,
            "text": "ÄbC",
            "record_ids": ["a"],
        }
    ) == {
        "role": frozenset({"user", "tool"}),
        "step_id": 2,
        "since_step": 0,
        "limit": 0,
        "text": "äbc",
        "record_ids": frozenset({"a"}),
    }
    assert validate_query({"role": "user"}) == {"role": frozenset({"user"})}
    assert validate_query({"role": ("user",)}) == {"role": frozenset({"user"})}
    assert validate_query({"record_ids": ("a", "b")}) == {"record_ids": frozenset({"a", "b"})}


def test_none_values_mean_no_filter() -> None:
    keys = ("role", "step_id", "since_step", "text", "record_ids", "limit")
    assert validate_query(dict.fromkeys(keys)) == {}


@pytest.mark.parametrize("role", [3, ["user", 3], {"user"}, b"user"])
def test_a_role_is_a_str_or_a_list_of_str(role: Any) -> None:
    refused({"role": role}, "query 'role' must be a str or a list of str")


@pytest.mark.parametrize("key", ["step_id", "since_step", "limit"])
@pytest.mark.parametrize("value", [True, "3", 1.0])
def test_step_figures_and_limit_are_ints(key: str, value: Any) -> None:
    refused({key: value}, f"query {key!r} must be an int")


def test_a_limit_is_not_negative_but_steps_may_be() -> None:
    refused({"limit": -1}, "query 'limit' must be >= 0")
    assert validate_query({"step_id": -1, "since_step": -1}) == {"step_id": -1, "since_step": -1}


def test_text_is_a_str() -> None:
    refused({"text": 3}, "query 'text' must be a str")


@pytest.mark.parametrize("ids", ["abc", ["a", 1]])
def test_record_ids_are_a_list_of_str(ids: Any) -> None:
    refused({"record_ids": ids}, "query 'record_ids' must be a list of str")


# -- filtering -------------------------------------------------------------------------------------

RECORDS = [
    MemoryRecord("user", "Find the AUDIT log", 1, record_id="r1"),
    MemoryRecord("assistant", "looking", 2, record_id="r2"),
    MemoryRecord("tool", {"audit": "ok"}, 2, record_id="r3"),
    MemoryRecord("user", "thanks", 3, record_id="r4"),
]


def ids(query: dict[str, Any]) -> list[str]:
    """The ids of RECORDS a query keeps, in order."""
    return [r.record_id for r in filter_records(RECORDS, validate_query(query))]


def test_an_empty_query_keeps_everything_in_order() -> None:
    assert ids({}) == ["r1", "r2", "r3", "r4"]
    assert filter_records(iter(RECORDS), {}) == RECORDS


def test_each_filter_keeps_what_it_names() -> None:
    assert ids({"role": "user"}) == ["r1", "r4"]
    assert ids({"role": ["tool", "assistant"]}) == ["r2", "r3"]
    assert ids({"step_id": 2}) == ["r2", "r3"]
    assert ids({"since_step": 2}) == ["r2", "r3", "r4"]  # inclusive: step_id >= since_step
    assert ids({"record_ids": ["r4", "r1"]}) == ["r1", "r4"]
    assert ids({"text": "audit"}) == ["r1", "r3"]  # case-insensitive, over the content's text


def test_filters_combine() -> None:
    assert ids({"role": "user", "since_step": 2}) == ["r4"]
    assert ids({"step_id": 2, "text": "audit"}) == ["r3"]
    assert ids({"record_ids": ["r1", "r2"], "role": "assistant"}) == ["r2"]


def test_limit_keeps_the_newest() -> None:
    assert ids({"limit": 2}) == ["r3", "r4"]
    assert ids({"limit": 1, "role": "user"}) == ["r4"]
    assert ids({"limit": 9}) == ["r1", "r2", "r3", "r4"]
    assert ids({"limit": 0}) == []


# -- the recorded form -----------------------------------------------------------------------------


def test_the_recorded_query_turns_sets_into_sorted_lists() -> None:
    assert jsonable_query(None) is None
    assert jsonable_query(
        validate_query({"role": ["user", "tool", "assistant"], "limit": 3, "text": "A"})
    ) == {
        "role": ["assistant", "tool", "user"],
        "limit": 3,
        "text": "a",
    }
    assert jsonable_query({"record_ids": {"b", "a"}, "step_id": 1}) == {
        "record_ids": ["a", "b"],
        "step_id": 1,
    }
    assert jsonable_query({}) == {}

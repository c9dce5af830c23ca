"""Context contributions, budgets, contributors and priority selection (qitos.core.context)."""

from __future__ import annotations

import pytest

from qitos.core.context import (
    ContextBudget,
    ContextBudgetExceededError,
    ContextContribution,
    ContextContributor,
    ContextError,
    ContextSelection,
    DeclaredContextBudgetPolicy,
    PriorityContextSelectionPolicy,
    StaticContextContributor,
    canonical_json,
    collect_contributions,
    default_unit_counter,
)
from qitos.models.base import Model, ModelResponse


def cc(cid: str, value: object = "x", **kw: object) -> ContextContribution:
    return ContextContribution(cid, "test", value, **kw)  # type: ignore[arg-type]


def test_contribution_measures_units_and_digest_and_isolates_value() -> None:
    value = {"b": [1, 2], "a": "z"}
    c = cc("k", value)
    assert c.text == '{"a":"z","b":[1,2]}'
    assert c.units == len(c.text) == default_unit_counter(value, "characters")
    value["a"] = "changed"  # the contributor mutating its own dict later changes nothing
    assert c.value == {"a": "z", "b": [1, 2]}
    assert cc("s", "hello").units == 5
    assert len(c.digest) == 64 and c.digest == cc("other", {"a": "z", "b": [1, 2]}).digest


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"contribution_id": ""}, "contribution_id"),
        ({"source": "  "}, "source"),
        ({"value": {1: "x"}}, "non-string key"),
        ({"value": float("nan")}, "non-finite"),
        ({"value": object()}, "not JSON data"),
        ({"value": ("tuple",)}, "not JSON data"),
        ({"priority": "high"}, "priority"),
        ({"required": "yes"}, "required"),
        ({"requested_placement": "tool"}, "never declares tools"),
        ({"persistence_horizon": ""}, "persistence_horizon"),
    ],
)
def test_bad_contribution_is_rejected_with_a_message(kwargs: dict, message: str) -> None:
    args = {"contribution_id": "id", "source": "src", "value": "v"} | kwargs
    with pytest.raises(ContextError, match=message):
        ContextContribution(**args)


def test_canonical_json_sorts_keys_and_has_no_spaces() -> None:
    assert canonical_json({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'


def test_default_unit_counter_refuses_units_it_cannot_measure() -> None:
    assert default_unit_counter("abc", "characters") == 3
    with pytest.raises(ContextError, match="characters only"):
        default_unit_counter("abc", "tokens")


def test_static_contributor_documented_defaults_and_protocol() -> None:
    s = StaticContextContributor("notes.project", "project", "Use supplied notes only.")
    assert (s.priority, s.requested_placement, s.required) == (0, "developer", False)
    assert (s.persistence_horizon, s.sensitivity) == ("request", "internal")
    assert isinstance(s, ContextContributor)
    (c,) = s.contribute(None)
    assert (c.contribution_id, c.source, c.value) == ("notes.project", "project", "Use supplied notes only.")
    s.reset("run-1")
    s.close()
    assert s.contribute(object()) == (c,)
    with pytest.raises(ContextError):
        StaticContextContributor("bad", "project", {"k": object()})


def test_selection_orders_required_then_priority_then_identity() -> None:
    items = [
        cc("c", "1", priority=1),
        cc("a", "1", priority=1),
        cc("z", "1", required=True),
        cc("b", "1", priority=5),
    ]
    sel = PriorityContextSelectionPolicy().select(items, budget=ContextBudget(100))
    assert [d.contribution.contribution_id for d in sel.selected] == ["z", "b", "a", "c"]
    assert sel.units_used == 4 and sel.omitted == ()
    assert sel.policy_id == "qitos.context.priority/v1"


def test_selection_omits_optional_with_reason_and_never_exceeds_budget() -> None:
    items = [cc("big", "x" * 60, priority=9), cc("small", "y" * 30), cc("req", "r" * 20, required=True)]
    sel = PriorityContextSelectionPolicy().select(items, budget=ContextBudget(100), already_used_units=40)
    assert [d.contribution.contribution_id for d in sel.selected] == ["req", "small"]
    (omitted,) = sel.omitted
    assert omitted.contribution.contribution_id == "big" and omitted.units == 60
    assert omitted.reason == "over budget: needs 60, 40 left"
    assert sel.units_used == 50 and 40 + sel.units_used <= 100


def test_required_contribution_that_cannot_fit_raises() -> None:
    items = [cc("opt", "o" * 10, priority=100), cc("req", "r" * 50, required=True)]
    with pytest.raises(ContextBudgetExceededError, match="required context 'req' needs 50 characters"):
        PriorityContextSelectionPolicy().select(items, budget=ContextBudget(60), already_used_units=20)


def test_required_is_never_displaced_by_a_higher_priority_optional() -> None:
    items = [cc("opt", "o" * 40, priority=1000), cc("req", "r" * 40, required=True)]
    sel = PriorityContextSelectionPolicy().select(items, budget=ContextBudget(50))
    assert [d.contribution.contribution_id for d in sel.selected] == ["req"]
    assert [d.contribution.contribution_id for d in sel.omitted] == ["opt"]


def test_selection_rejects_duplicates_bad_counter_and_bad_usage() -> None:
    policy = PriorityContextSelectionPolicy()
    with pytest.raises(ContextError, match="unique"):
        policy.select([cc("a"), cc("a")], budget=ContextBudget(10))
    with pytest.raises(ContextError, match="non-negative int"):
        policy.select([cc("a")], budget=ContextBudget(10), counter=lambda v, u: -1)
    with pytest.raises(ContextError, match="already_used_units"):
        policy.select([cc("a")], budget=ContextBudget(10), already_used_units=-5)
    with pytest.raises(ContextError, match="ContextContribution"):
        policy.select(["plain string"], budget=ContextBudget(10))  # type: ignore[list-item]


def test_selection_uses_the_injected_counter_and_unit() -> None:
    sel = PriorityContextSelectionPolicy().select(
        [cc("a", "abcdefgh"), cc("b", "abcd")],
        budget=ContextBudget(2, unit="tokens"),
        counter=lambda v, unit: len(v) // 4 if unit == "tokens" else 0,
    )
    assert [d.units for d in sel.selected] == [2] and [d.units for d in sel.omitted] == [1]
    assert sel.unit == "tokens"


def test_context_selection_validates_partition() -> None:
    policy = PriorityContextSelectionPolicy()
    sel = policy.select([cc("a")], budget=ContextBudget(10))
    with pytest.raises(ContextError, match="twice"):
        ContextSelection(selected=sel.selected, omitted=(sel.selected[0],), units_used=1)


class _Declared(Model):
    model_id = "gpt-4o-with-a-128k-window"  # a name that must never decide the budget

    def __init__(self, units: int | None) -> None:
        self.max_input_units = units

    def complete(self, messages, *, tools=None):  # type: ignore[override]
        return ModelResponse("ok")


def test_declared_budget_policy_defaults_and_sources() -> None:
    policy = DeclaredContextBudgetPolicy()
    assert policy.default_max_input_units == 120000 and policy.unit == "characters"
    assert policy.protected_recent_exchanges == 1 and policy.policy_id == "qitos.context.declared_budget/v1"
    assert policy.budget_for().max_input_units == 120000
    assert policy.budget_for(_Declared(None)).max_input_units == 120000  # name is ignored
    assert policy.budget_for(_Declared(5000)).max_input_units == 5000
    assert policy.budget_for(_Declared(5000), declared_max_input_units=700).max_input_units == 700
    small = DeclaredContextBudgetPolicy(default_max_input_units=4096, protected_recent_exchanges=3)
    assert small.budget_for() == ContextBudget(4096, "characters", 3)


@pytest.mark.parametrize("bad", [0, -1, True, "100"])
def test_declared_budget_policy_rejects_bad_capacity(bad: object) -> None:
    with pytest.raises(ContextError):
        DeclaredContextBudgetPolicy(default_max_input_units=bad)  # type: ignore[arg-type]
    with pytest.raises(ContextError, match="max_input_units"):
        DeclaredContextBudgetPolicy().budget_for(_Declared(bad))  # type: ignore[arg-type]


def test_budget_validation() -> None:
    with pytest.raises(ContextError, match="unit"):
        ContextBudget(100, unit="bytes")
    with pytest.raises(ContextError, match="protected_recent_exchanges"):
        ContextBudget(100, protected_recent_exchanges=-1)


def test_collect_contributions_checks_types_and_unique_ids() -> None:
    a = StaticContextContributor("a", "project", "A")
    b = StaticContextContributor("b", "user", "B", priority=2)
    assert [c.contribution_id for c in collect_contributions([a, b], None)] == ["a", "b"]
    with pytest.raises(ContextError, match="already contributed"):
        collect_contributions([a, StaticContextContributor("a", "other", "A2")], None)

    class Bad:
        contributor_id = "bad"

        def contribute(self, request: object) -> object:
            return "not a sequence of contributions"

    with pytest.raises(ContextError, match="'bad' must return a sequence"):
        collect_contributions([Bad()], None)
    with pytest.raises(ContextError, match="no contribute"):
        collect_contributions([object()], None)

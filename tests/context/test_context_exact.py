"""qitos.core.context to the letter: every error names its field and the bad value, every JSON form
has exactly its documented keys, and every boundary sits where the contract puts it.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a user relies on (a message that says which field is wrong, a trace key a reader looks
up, a budget boundary), not the mutant.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest

from qitos.core.context import (
    ContextBudget,
    ContextBudgetExceededError,
    ContextContribution,
    ContextDecision,
    ContextError,
    ContextSelection,
    DeclaredContextBudgetPolicy,
    PriorityContextSelectionPolicy,
    StaticContextContributor,
    canonical_json,
    collect_contributions,
    default_unit_counter,
    sha256_text,
)


def raises(fn: Any, message: str) -> None:
    """``fn()`` raises a ContextError whose message is exactly ``message``."""
    with pytest.raises(ContextError) as info:
        fn()
    assert str(info.value) == message


def cc(cid: str = "c", value: Any = "v", **kw: Any) -> ContextContribution:
    return ContextContribution(cid, "src", value, **kw)


# -- canonical JSON and its refusals ---------------------------------------------------------------


def test_canonical_json_names_the_path_of_what_it_refuses() -> None:
    raises(
        lambda: canonical_json({"a": [1, {"b": {1, 2}}]}), "value.a[1].b holds a set, which is not JSON data"
    )
    raises(lambda: canonical_json([0, (1,)]), "value[1] holds a tuple, which is not JSON data")
    raises(
        lambda: canonical_json({"k": [float("nan")]}, "ctx"),
        "ctx.k[0] holds a non-finite number (nan), which JSON cannot carry",
    )
    raises(lambda: canonical_json({1: "x"}), "value has a non-string key 1; JSON object keys are strings")
    raises(lambda: canonical_json(b"x", "item"), "item holds a bytes, which is not JSON data")


def test_canonical_json_keeps_non_ascii_as_is_and_sorts_keys() -> None:
    assert canonical_json({"b": "é", "a": [1, None, True]}) == '{"a":[1,null,true],"b":"é"}'
    assert sha256_text("é") == hashlib.sha256("é".encode()).hexdigest()


def test_default_unit_counter_counts_characters_by_default_and_refuses_other_units() -> None:
    assert default_unit_counter({"a": "é"}) == len('{"a":"é"}') == 9
    raises(
        lambda: default_unit_counter("x", "tokens"),
        "default_unit_counter counts characters only; pass a counter for unit 'tokens'",
    )


# -- ContextContribution ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"contribution_id": " "}, "contribution_id must be a non-empty string, got ' '"),
        ({"source": ""}, "source must be a non-empty string, got ''"),
        ({"priority": True}, "priority of 'c' must be an int, got True"),
        ({"required": 1}, "required of 'c' must be a bool, got 1"),
        ({"persistence_horizon": ""}, "persistence_horizon must be a non-empty string, got ''"),
        ({"sensitivity": None}, "sensitivity must be a non-empty string, got None"),
        ({"value": {"x": (1,)}}, "value of 'c'.x holds a tuple, which is not JSON data"),
        (
            {"requested_placement": "tool"},
            "requested_placement of 'c' is 'tool'; expected one of ['developer', 'system', 'user'] "
            "(context never declares tools)",
        ),
    ],
)
def test_a_bad_contribution_field_is_named_with_its_value(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"contribution_id": "c", "source": "src", "value": "v", **kwargs}
    raises(lambda: ContextContribution(**args), message)


def test_contribution_to_dict_has_exactly_the_documented_keys() -> None:
    c = cc(
        "facts", {"k": [1]}, priority=3, required=True, persistence_horizon="session", sensitivity="secret"
    )
    assert c.to_dict() == {
        "contribution_id": "facts",
        "source": "src",
        "priority": 3,
        "requested_placement": "developer",
        "required": True,
        "persistence_horizon": "session",
        "sensitivity": "secret",
        "units": len('{"k":[1]}'),
        "digest": sha256_text('{"k":[1]}'),
        "value": {"k": [1]},
    }
    assert "value" not in c.to_dict(include_value=False)


def test_a_scalar_value_is_kept_as_given_and_a_container_is_copied() -> None:
    original = {"k": [1]}
    c = cc(value=original)
    original["k"].append(2)
    assert c.value == {"k": [1]}  # isolated from the contributor's own dict
    for scalar in ("".join(["te", "xt"]), 2.5, 10**30, False, None):
        assert cc(value=scalar).value is scalar  # a scalar cannot change: no copy is made


def test_static_contributor_passes_every_field_through() -> None:
    contributor = StaticContextContributor(
        "proj", "project", {"x": 1}, priority=5, requested_placement="user", required=True,
        persistence_horizon="session", sensitivity="public",
    )  # fmt: skip
    (made,) = contributor.contribute()
    assert made.to_dict() == cc(
        "proj", {"x": 1}, priority=5, requested_placement="user", required=True,
        persistence_horizon="session", sensitivity="public",
    ).to_dict() | {"source": "project"}  # fmt: skip


# -- ContextBudget and the declared policy ---------------------------------------------------------


def test_budget_fields_are_checked_at_their_boundaries() -> None:
    assert ContextBudget(1, protected_recent_exchanges=0).to_dict() == {
        "max_input_units": 1,
        "unit": "characters",
        "protected_recent_exchanges": 0,
    }
    raises(lambda: ContextBudget(0), "max_input_units must be at least 1, got 0")
    raises(lambda: ContextBudget("9"), "max_input_units must be an int, got '9'")
    raises(
        lambda: ContextBudget(10, protected_recent_exchanges=-1),
        "protected_recent_exchanges must be at least 0, got -1",
    )
    raises(lambda: ContextBudget(10, "bytes"), "budget unit 'bytes' is not one of ['characters', 'tokens']")


def test_declared_policy_fields_are_checked_at_their_boundaries() -> None:
    assert DeclaredContextBudgetPolicy(1, protected_recent_exchanges=0).budget_for() == ContextBudget(
        1, "characters", 0
    )
    raises(lambda: DeclaredContextBudgetPolicy(0), "default_max_input_units must be at least 1, got 0")
    raises(lambda: DeclaredContextBudgetPolicy(None), "default_max_input_units must be an int, got None")
    raises(
        lambda: DeclaredContextBudgetPolicy(5, protected_recent_exchanges=-1),
        "protected_recent_exchanges must be at least 0, got -1",
    )
    raises(
        lambda: DeclaredContextBudgetPolicy(5, protected_recent_exchanges=1.5),
        "protected_recent_exchanges must be an int, got 1.5",
    )
    raises(
        lambda: DeclaredContextBudgetPolicy(5, "bytes"),
        "budget unit 'bytes' is not one of ['characters', 'tokens']",
    )


class _Model:
    def __init__(self, units: Any) -> None:
        self.max_input_units = units


def test_budget_for_names_where_a_bad_capacity_came_from() -> None:
    policy = DeclaredContextBudgetPolicy(500, unit="tokens", protected_recent_exchanges=3)
    assert policy.budget_for(_Model(1)) == ContextBudget(1, "tokens", 3)
    assert policy.budget_for(object()) == ContextBudget(500, "tokens", 3)  # nothing declared: the default
    assert policy.budget_for(_Model(9), declared_max_input_units=7).max_input_units == 7
    raises(lambda: policy.budget_for(_Model(0)), "_Model.max_input_units must be at least 1, got 0")
    raises(
        lambda: policy.budget_for(declared_max_input_units=0),
        "declared_max_input_units must be at least 1, got 0",
    )
    raises(
        lambda: policy.budget_for(declared_max_input_units="8"),
        "declared_max_input_units must be an int, got '8'",
    )


# -- selection -------------------------------------------------------------------------------------


def test_selection_reasons_and_decision_order() -> None:
    policy = PriorityContextSelectionPolicy()
    selection = policy.select(
        [cc("low", "x" * 4, priority=1), cc("must", "y" * 3, required=True), cc("high", "z" * 5, priority=9)],
        budget=ContextBudget(9),
    )
    assert [d.reason for d in selection.selected] == ["required", "fits: priority 9"]
    assert [d.to_dict() for d in selection.omitted] == [
        {
            "contribution_id": "low",
            "source": "src",
            "units": 4,
            "priority": 1,
            "required": False,
            "placement": "developer",
            "sensitivity": "internal",
            "selected": False,
            "reason": "over budget: needs 4, 1 left",
        }
    ]
    assert [d.contribution.contribution_id for d in selection.decisions] == ["must", "high", "low"]
    assert (selection.units_used, selection.unit, selection.policy_id) == (
        8,
        "characters",
        "qitos.context.priority/v1",
    )


def test_an_optional_contribution_exactly_filling_the_budget_is_selected() -> None:
    selection = PriorityContextSelectionPolicy().select([cc("a", "x" * 5)], budget=ContextBudget(5))
    assert [d.reason for d in selection.selected] == ["fits: priority 0"]
    nothing_left = PriorityContextSelectionPolicy().select(
        [cc("a", "x" * 5), cc("b", "y")], budget=ContextBudget(5)
    )
    assert nothing_left.omitted[0].reason == "over budget: needs 1, 0 left"


def test_already_used_units_default_to_zero_and_an_exceeded_budget_says_by_how_much() -> None:
    policy = PriorityContextSelectionPolicy()
    assert policy.select([cc("a", "x" * 5)], budget=ContextBudget(5)).units_used == 5
    over = policy.select([cc("a", "x")], budget=ContextBudget(5), already_used_units=7)
    assert over.omitted[0].reason == "over budget: budget already exceeded by 2"
    raises(
        lambda: policy.select([], budget=ContextBudget(5), already_used_units=-1),
        "already_used_units must be at least 0, got -1",
    )


def test_required_context_that_cannot_fit_says_how_much_remains() -> None:
    policy = PriorityContextSelectionPolicy()
    with pytest.raises(ContextBudgetExceededError) as info:
        policy.select([cc("must", "x" * 6, required=True)], budget=ContextBudget(5))
    assert str(info.value) == (
        "required context 'must' needs 6 characters but only 5 of 5 remain; required context is never dropped"
    )
    with pytest.raises(ContextBudgetExceededError, match=r"only 0 of 5 remain"):
        policy.select([cc("must", "x", required=True)], budget=ContextBudget(5), already_used_units=9)


def test_selection_refuses_bad_inputs_naming_them() -> None:
    policy = PriorityContextSelectionPolicy()
    raises(
        lambda: policy.select(["x"], budget=ContextBudget()),
        "selection expects ContextContribution values, got str",
    )
    raises(lambda: policy.select([cc("a"), cc("b")], budget={}), "budget must be a ContextBudget, got dict")
    raises(
        lambda: policy.select([cc("b"), cc("a"), cc("b"), cc("c")], budget=ContextBudget()),
        "contribution ids must be unique; repeated: ['b']",
    )


def test_a_unit_counter_must_return_a_non_negative_int() -> None:
    policy = PriorityContextSelectionPolicy()
    for bad in (True, -1, 2.0):
        raises(
            lambda bad=bad: policy.select([cc("a")], budget=ContextBudget(), counter=lambda v, u: bad),
            f"unit counter returned {bad!r} for contribution 'a'; it must be a non-negative int",
        )


def test_a_selection_checks_its_own_partition() -> None:
    a, b = cc("a", "xx"), cc("b", "y")
    raises(
        lambda: ContextSelection(
            (ContextDecision(a, 2, True, "r"),), (ContextDecision(a, 2, False, "r"),), 2
        ),
        "a contribution appears twice in a selection (selected and omitted partition)",
    )
    for selected, omitted in (((a, False), (b, False)), ((a, True), (b, True))):
        raises(
            lambda s=selected, o=omitted: ContextSelection(
                (ContextDecision(s[0], 2, s[1], "r"),), (ContextDecision(o[0], 1, o[1], "r"),), 2
            ),
            "selection decisions disagree with the selected/omitted split",
        )
    raises(
        lambda: ContextSelection((ContextDecision(a, 2, True, "r"), ContextDecision(b, 1, True, "r")), (), 2),
        "units_used 2 differs from the selected units 3",
    )


# -- collecting from contributors ------------------------------------------------------------------


class _Named:
    contributor_id = "named"

    def __init__(self, *values: Any) -> None:
        self.values = values

    def contribute(self, request: Any) -> Any:
        return self.values


def test_collect_names_the_contributor_in_every_refusal() -> None:
    anonymous = type("Anon", (), {"contribute": lambda self, request: [cc("x")]})()
    raises(
        lambda: collect_contributions([object()], None),
        "context contributor 'object' has no contribute(request) method",
    )
    raises(
        lambda: collect_contributions([_Named("text")], None),
        "context contributor 'named' returned a str, not a ContextContribution",
    )
    raises(
        lambda: collect_contributions([anonymous, _Named(cc("x"))], None),
        "contribution id 'x' from 'named' was already contributed by 'Anon'; ids must be unique within a request",
    )
    bad = type("Gives", (), {"contribute": lambda self, request: {"a": 1}})()
    with pytest.raises(ContextError, match=re.escape("context contributor 'Gives' must return a sequence")):
        collect_contributions([bad], None)
    assert [c.contribution_id for c in collect_contributions([_Named(cc("p"), cc("q"))], None)] == ["p", "q"]
    assert json.loads(canonical_json([1])) == [1]

"""Decision factories and validation; Action fields and from_dict."""

from __future__ import annotations

import pytest

from qitos import Action, Decision
from qitos.core.action import ActionKind


def test_factories_build_each_mode() -> None:
    """act/final/wait/branch set their mode and payload; meta is copied."""
    meta = {"k": 1}
    act = Decision.act([Action("t")], rationale="why", meta=meta)
    assert (act.mode, act.rationale, act.meta) == ("act", "why", {"k": 1})
    assert act.meta is not meta
    assert Decision.final("done").final_answer == "done"
    assert Decision.wait().mode == "wait"
    branch = Decision.branch([Decision.final("a"), Decision.final("b")])
    assert [c.final_answer for c in branch.candidates] == ["a", "b"]
    for decision in (act, Decision.final("x"), Decision.wait(), branch):
        decision.validate()


@pytest.mark.parametrize(
    ("decision", "message"),
    [
        (Decision.act([]), "at least one action"),
        (Decision(mode="final"), "final_answer"),
        (Decision(mode="wait", actions=[Action("t")]), "must not carry actions"),
        (Decision(mode="bogus"), "mode must be one of"),  # type: ignore[arg-type]
        (Decision.branch([]), "at least one candidate"),
        (Decision.branch([Decision.branch([Decision.final("x")])]), "nesting"),
        (Decision.branch([Decision.act([])]), "at least one action"),
        (Decision(mode="wait", final_answer="x"), "must not carry a final_answer"),
    ],
)
def test_validate_rejects_structural_errors(decision: Decision, message: str) -> None:
    """Each structural problem raises ValueError with a message naming it."""
    with pytest.raises(ValueError, match=message):
        decision.validate()


def test_decision_to_dict_uses_name_args_actions() -> None:
    """to_dict writes actions as upstream's {name, args}."""
    data = Decision.act([Action("t", {"x": 1})]).to_dict()
    assert data == {
        "mode": "act",
        "actions": [{"name": "t", "args": {"x": 1}}],
        "final_answer": None,
        "rationale": None,
        "meta": {},
        "candidates": [],
    }


def test_action_defaults_and_from_dict() -> None:
    """Documented defaults; from_dict accepts args or arguments and rejects unknown keys."""
    action = Action("search")
    assert action.args == {} and action.kind is ActionKind.TOOL and action.max_retries == 0
    assert action.idempotent and action.classification == "default" and action.timeout_s is None
    built = Action.from_dict({"name": "s", "arguments": {"q": "x"}, "kind": "tool", "timeout_s": 2})
    assert built == Action("s", {"q": "x"}, timeout_s=2)
    assert Action.from_dict(built.to_dict()) == built
    with pytest.raises(ValueError, match="unknown field"):
        Action.from_dict({"name": "s", "bogus": 1})
    with pytest.raises(ValueError, match="missing required field 'name'"):
        Action.from_dict({"args": {}})
    with pytest.raises(ValueError, match="mapping"):
        Action.from_dict(["s"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": ""}, "non-empty"),
        ({"name": "t", "args": [1]}, "args must be a dict"),
        ({"name": "t", "kind": "shell"}, "unknown Action.kind"),
        ({"name": "t", "timeout_s": 0}, "timeout_s"),
        ({"name": "t", "max_retries": -1}, "max_retries"),
    ],
)
def test_action_rejects_bad_fields(kwargs: dict, message: str) -> None:
    """Bad action fields raise ValueError naming the field."""
    with pytest.raises(ValueError, match=message):
        Action(**kwargs)

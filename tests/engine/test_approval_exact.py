"""qitos.engine.approval to the letter: what each decision carries, the exact reason a decision
cannot apply to a pause, the ``--approve`` patterns, and which boundaries the approval policy pauses.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a user relies on (the message the pause screen shows, which tool calls wait for a person).
"""

from __future__ import annotations

from typing import Any

import pytest
from engine_agents import make_registry

from qitos import Action, ToolRegistry
from qitos.core.tool import BaseTool
from qitos.engine.approval import (
    APPROVAL_POLICY_ID,
    VERDICTS,
    ApprovalPolicy,
    PauseDecision,
    args_problem,
    decision_problem,
    parse_patterns,
)
from qitos.engine.runtime import RuntimeSnapshot, RuntimeSnapshotContext


def paused(boundary: Any = "before_act", *names: str) -> RuntimeSnapshot:
    """A snapshot paused at ``boundary`` with one pending call per name."""
    actions = [Action(name, {"a": 1, "b": 2}) for name in names]
    return RuntimeSnapshot("r", 0, boundary, APPROVAL_POLICY_ID, "approval", None, None, actions)


# -- PauseDecision ---------------------------------------------------------------------------------


def test_each_decision_says_what_was_decided_and_by_whom() -> None:
    assert PauseDecision.approve() == PauseDecision("approved", "", {}, "person")
    assert PauseDecision.approve(by="ci") == PauseDecision("approved", by="ci")
    assert PauseDecision.deny("risky") == PauseDecision("denied", "risky", {}, "person")
    assert PauseDecision.deny("risky", by="bot").by == "bot"
    assert PauseDecision.change(1, {"a": 2}) == PauseDecision("changed", "", {1: {"a": 2}}, "person")
    assert PauseDecision.change(0, {}, reason="fix", by="ci") == PauseDecision(
        "changed", "fix", {0: {}}, "ci"
    )
    assert VERDICTS == ("approved", "denied", "changed")


# -- decision_problem ------------------------------------------------------------------------------


def test_anything_but_a_pause_decision_is_refused_by_name() -> None:
    expected = "not a PauseDecision with a verdict in ('approved', 'denied', 'changed'): {!r}"
    assert decision_problem(paused("before_act", "add"), "approve", None) == expected.format("approve")
    odd = PauseDecision("maybe")
    assert decision_problem(paused("before_act", "add"), odd, None) == expected.format(odd)


def test_approving_needs_nothing_pending() -> None:
    assert decision_problem(paused("before_decide"), PauseDecision.approve(), None) is None


@pytest.mark.parametrize(
    ("decision", "verb"), [(PauseDecision.deny("no"), "deny"), (PauseDecision.change(0, {}), "change")]
)
def test_a_pause_before_deciding_has_no_action_to_deny_or_change(decision: PauseDecision, verb: str) -> None:
    assert decision_problem(paused("before_decide"), decision, make_registry()) == (
        f"the run paused before decide: there is no pending action to {verb}"
    )


def test_denying_needs_a_pending_action_and_nothing_else() -> None:
    assert (
        decision_problem(paused("before_act"), PauseDecision.deny("no"), None)
        == "the run has no pending action"
    )
    assert decision_problem(paused("before_act", "missing"), PauseDecision.deny("no"), None) is None


def test_a_change_needs_new_arguments() -> None:
    empty = PauseDecision("changed")
    assert decision_problem(paused("before_act", "add"), empty, make_registry()) == (
        "a change needs new arguments for at least one pending action"
    )


@pytest.mark.parametrize("index", [-1, 2, "0"])
def test_a_change_must_name_a_pending_action(index: Any) -> None:
    decision = PauseDecision("changed", changes={index: {"a": 1, "b": 2}})
    assert decision_problem(paused("before_act", "add", "add"), decision, make_registry()) == (
        f"no pending action #{index} (there are 2)"
    )


def test_a_change_is_checked_against_the_schema_of_the_action_it_changes() -> None:
    snapshot = paused("before_act", "add", "other")
    registry = make_registry()
    assert decision_problem(snapshot, PauseDecision.change(1, {"a": 1, "b": 2}), registry) == (
        "no tool named 'other' in the agent's ToolRegistry"
    )
    assert decision_problem(snapshot, PauseDecision.change(0, {"a": 1, "b": 2}), registry) is None
    # Every change is checked, not only the first.
    both = PauseDecision("changed", changes={0: {"a": 1, "b": 2}, 1: {}})
    assert decision_problem(snapshot, both, registry) == "no tool named 'other' in the agent's ToolRegistry"
    bad_first = PauseDecision("changed", changes={0: {"a": "x"}, 1: {}})
    assert decision_problem(snapshot, bad_first, registry) == (
        "invalid arguments for 'add': missing required argument 'b'; 'a' must be integer, got string"
    )


# -- args_problem ----------------------------------------------------------------------------------


class _BrokenSchema(BaseTool):
    """A tool whose schema cannot be read."""

    name = "broken"

    def parameters_schema(self) -> dict[str, Any]:
        raise KeyError("type")

    def run(self, runtime_context: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        return None


class _ListSchema(_BrokenSchema):
    """A tool whose schema is not an object: nothing can be checked, so anything goes."""

    name = "loose"

    def parameters_schema(self) -> Any:
        return ["not", "a", "schema"]


def test_args_are_checked_against_the_registry_tool() -> None:
    assert args_problem(None, "add", {}) == "no tool named 'add' in the agent's ToolRegistry"
    assert args_problem(make_registry(), "add", {"a": 1, "b": 2}) is None
    assert args_problem(make_registry(), "add", {"a": 1, "b": 2, "c": 3}) == (
        "invalid arguments for 'add': unknown argument 'c'"
    )


def test_a_tool_whose_schema_fails_is_reported_not_raised() -> None:
    registry = ToolRegistry().register(_BrokenSchema()).register(_ListSchema())
    assert (
        args_problem(registry, "broken", {}) == "the schema of 'broken' could not be read: KeyError: 'type'"
    )
    assert args_problem(registry, "loose", {"anything": 1}) is None
    assert (
        args_problem(registry, "loose", [1])
        == "invalid arguments for 'loose': the arguments must be a JSON object, got array"
    )


# -- parse_patterns and ApprovalPolicy -------------------------------------------------------------


def test_approve_patterns_are_trimmed_globs_or_all() -> None:
    assert parse_patterns(" write_* ,, run ") == ("write_*", "run")
    assert parse_patterns("write_*,ALL") == ("*",)
    assert parse_patterns("allow") == ("allow",)
    with pytest.raises(ValueError) as info:
        parse_patterns(",")
    assert str(info.value) == "--approve needs tool-name patterns (comma-separated globs) or 'all'"


def test_the_policy_takes_a_pattern_text_or_a_sequence() -> None:
    assert ApprovalPolicy("a, b").patterns == ("a", "b")
    assert ApprovalPolicy(["a", "b*"]).patterns == ("a", "b*")
    assert ApprovalPolicy("all").policy_id == "qitos.approve"
    with pytest.raises(ValueError) as info:
        ApprovalPolicy([])
    assert str(info.value) == "ApprovalPolicy needs at least one tool-name pattern"


def test_tool_names_match_globs_case_sensitively() -> None:
    policy = ApprovalPolicy("write_*,rm")
    assert policy.matches("write_file") and policy.matches("rm")
    assert not policy.matches("Write_file") and not policy.matches("rmdir") and not policy.matches("read")


def context(boundary: Any, *names: str) -> RuntimeSnapshotContext:
    return RuntimeSnapshotContext("r", 0, boundary, None, None, tuple(Action(n) for n in names))


def test_the_policy_pauses_only_before_acting_on_a_matching_call() -> None:
    policy = ApprovalPolicy("write_*")
    assert policy.should_pause(context("before_act", "read", "write_file"))
    assert not policy.should_pause(context("before_act", "read"))
    assert not policy.should_pause(context("before_act"))
    assert not policy.should_pause(context("before_decide", "write_file"))


class _Nameless:
    """A pending action that carries no tool name."""

    args: dict[str, Any] = {}


def test_a_pending_action_without_a_name_is_no_tool_of_the_registry() -> None:
    snapshot = RuntimeSnapshot(
        "r", 0, "before_act", APPROVAL_POLICY_ID, "approval", None, None, [_Nameless()]
    )
    assert decision_problem(snapshot, PauseDecision.change(0, {}), make_registry()) == (
        "no tool named '' in the agent's ToolRegistry"
    )


def test_a_nameless_pending_action_matches_only_a_pattern_of_the_empty_name() -> None:
    nameless = RuntimeSnapshotContext("r", 0, "before_act", None, None, (_Nameless(),))
    assert ApprovalPolicy("*").should_pause(nameless)  # "all" is all, a nameless call too
    assert not ApprovalPolicy("?*").should_pause(nameless)  # a glob of one letter or more

"""Critics (continue / retry / stop) and branch selection."""

from __future__ import annotations

from typing import Any

from engine_agents import ScriptAgent, add_decision

from qitos import Decision, Engine
from qitos.engine.policies import BranchSelector, Critic, CriticOutput, RecoveryPolicy, Search


class ScriptedCritic(Critic):
    """Returns the scripted verdicts in order, then 'continue'."""

    def __init__(self, *verdicts: Any) -> None:
        self.verdicts = list(verdicts)
        self.seen_results: list[Any] = []

    def evaluate(self, state: Any, decision: Any, results: list[Any]) -> Any:
        self.seen_results.append(list(results))
        return self.verdicts.pop(0) if self.verdicts else "continue"


def test_critic_continue_records_outputs() -> None:
    """Critic outputs go to the step record and the CRITIC events."""
    critic = ScriptedCritic({"action": "continue", "reason": "fine", "score": 0.9})
    result = Engine(ScriptAgent([add_decision(), Decision.final("x")]), critics=[critic]).run("t")
    assert result.records[0].critic_outputs == [{"action": "continue", "reason": "fine", "score": 0.9}]
    stages = [e.payload["stage"] for e in result.events if e.phase == "CRITIC" and e.step_id == 0]
    assert stages == ["start", "outputs", "pass"]
    assert critic.seen_results[0] == [3]


def test_critic_stop_ends_with_critic_stop() -> None:
    """A stop verdict ends the run with critic_stop."""
    result = Engine(ScriptAgent([add_decision()]), critics=[ScriptedCritic(CriticOutput("stop", "bad"))]).run(
        "t"
    )
    assert result.state.stop_reason == "critic_stop" and result.step_count == 1


def test_critic_retry_rolls_back_and_redoes_the_step() -> None:
    """A retry restores the state from before the step and runs the step again."""
    agent = ScriptAgent([add_decision(1, 1), add_decision(5, 5), Decision.final("done")])
    result = Engine(agent, critics=[ScriptedCritic("retry")]).run("t")
    # The first attempt's result (2) was rolled back; the retried step got the next decision.
    assert result.state.seen == [10]
    assert result.step_count == 2 and len(result.records) == 2
    assert [e.payload["stage"] for e in result.events if e.phase == "CRITIC"][:3] == [
        "start",
        "outputs",
        "retry",
    ]


def test_endless_retries_turn_into_a_stop() -> None:
    """After max_critic_retries_per_step retries the critic's retry becomes critic_stop."""
    critic = ScriptedCritic(*(["retry"] * 10))
    engine = Engine(
        ScriptAgent([add_decision()]),
        critics=[critic],
        recovery_policy=RecoveryPolicy(max_critic_retries_per_step=2),
    )
    result = engine.run("t")
    assert result.state.stop_reason == "critic_stop"
    assert len(critic.seen_results) == 3


def test_bad_critic_output_is_an_unrecoverable_error() -> None:
    """A critic returning an unknown action stops the run with a message naming it."""
    result = Engine(ScriptAgent([add_decision()]), critics=[ScriptedCritic("maybe")]).run("t")
    assert result.state.stop_reason == "unrecoverable_error"
    assert "critic action must be" in result.error["message"]


def test_branch_uses_first_candidate_by_default() -> None:
    """FirstCandidateSelector picks candidates[0]; decision_ready reports the candidate count."""
    branch = Decision.branch([add_decision(1, 0), add_decision(9, 0)])
    result = Engine(ScriptAgent([branch, Decision.final("x")])).run("t")
    assert result.state.seen == [1]
    ready = next(e for e in result.events if e.payload.get("stage") == "decision_ready")
    assert ready.payload["candidate_count"] == 2


def test_custom_selector_and_search() -> None:
    """A BranchSelector chooses; a Search, when given, replaces the selector."""

    class Last(BranchSelector):
        def select(self, candidates: list[Any], state: Any = None, observation: Any = None) -> Any:
            return candidates[-1]

    class Biggest(Search):
        def select(self, candidates: list[Any], state: Any = None, observation: Any = None) -> Any:
            return max(candidates, key=lambda d: d.actions[0].args["a"])

    branch = Decision.branch([add_decision(1, 0), add_decision(9, 0), add_decision(4, 0)])
    result = Engine(ScriptAgent([branch, Decision.final("x")]), branch_selector=Last()).run("t")
    assert result.state.seen == [4]
    result = Engine(ScriptAgent([branch, Decision.final("x")]), branch_selector=Last(), search=Biggest()).run(
        "t"
    )
    assert result.state.seen == [9]

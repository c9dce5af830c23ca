"""Acting on a pause: approve, deny or change the pending actions, and a policy pausing before tools.

A run paused before acting (``boundary == "before_act"``) is resumed with a :class:`PauseDecision`:
``engine.resume(snapshot, decision=PauseDecision.deny("too risky"))``. ``engine.resume(snapshot)``
without one still approves implicitly, as before. Each decision is written to the trace as a
``lifecycle_decision`` event (who decided, which policy paused, the verdict, the original and the
changed arguments, the reason).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any

from qitos.engine.arg_schema import schema_errors
from qitos.engine.runtime import LifecyclePolicy, RuntimeSnapshotContext

APPROVED = "approved"
DENIED = "denied"
CHANGED = "changed"
VERDICTS: tuple[str, ...] = (APPROVED, DENIED, CHANGED)
APPROVAL_POLICY_ID = "qitos.approve"
# The verb a message uses for a verdict ("no pending action to deny").
_VERBS = {APPROVED: "approve", DENIED: "deny", CHANGED: "change"}


@dataclass(frozen=True)
class PauseDecision:
    """What a person (or a program) decided about the actions a paused run was about to take."""

    verdict: str
    reason: str = ""
    # Index of a pending action -> its new arguments (only for CHANGED).
    changes: dict[int, dict[str, Any]] = field(default_factory=dict)
    by: str = "person"

    @classmethod
    def approve(cls, *, by: str = "person") -> PauseDecision:
        """Run the pending actions as they are."""
        return cls(APPROVED, by=by)

    @classmethod
    def deny(cls, reason: str, *, by: str = "person") -> PauseDecision:
        """Do not run the pending actions; the agent observes that they were denied, and why."""
        return cls(DENIED, reason=reason, by=by)

    @classmethod
    def change(
        cls, index: int, args: dict[str, Any], *, reason: str = "", by: str = "person"
    ) -> PauseDecision:
        """Run pending action ``index`` with ``args`` instead of the arguments the agent chose."""
        return cls(CHANGED, reason=reason, changes={index: args}, by=by)


def decision_problem(snapshot: Any, decision: PauseDecision, registry: Any) -> str | None:
    """Why ``decision`` cannot be applied to the paused ``snapshot`` (None when it can).

    A change is checked against the tool's schema from the ToolRegistry, so an invalid change is
    refused before anything about the run changes."""
    if not isinstance(decision, PauseDecision) or decision.verdict not in VERDICTS:
        return f"not a PauseDecision with a verdict in {VERDICTS}: {decision!r}"
    if decision.verdict == APPROVED:
        return None
    if snapshot.boundary != "before_act":
        return f"the run paused {snapshot.boundary.replace('_', ' ')}: there is no pending action to {_VERBS[decision.verdict]}"
    actions = list(snapshot.pending_actions)
    if not actions:
        return "the run has no pending action"
    if decision.verdict == DENIED:
        return None
    if not decision.changes:
        return "a change needs new arguments for at least one pending action"
    for index, args in decision.changes.items():
        if not isinstance(index, int) or not 0 <= index < len(actions):
            return f"no pending action #{index} (there are {len(actions)})"
        problem = args_problem(registry, getattr(actions[index], "name", ""), args)
        if problem is not None:
            return problem
    return None


def args_problem(registry: Any, tool: str, args: Any) -> str | None:
    """Why ``args`` are not valid arguments of ``tool`` by its schema (None when they are)."""
    tool_obj = registry.get(tool) if registry is not None else None
    if tool_obj is None:
        return f"no tool named {tool!r} in the agent's ToolRegistry"
    try:
        schema = tool_obj.parameters_schema()
    except Exception as exc:  # noqa: BLE001 - a tool whose schema fails cannot be checked: say so
        return f"the schema of {tool!r} could not be read: {type(exc).__name__}: {exc}"
    errors = schema_errors(schema if isinstance(schema, dict) else {}, args)
    if errors:
        return f"invalid arguments for {tool!r}: " + "; ".join(errors)
    return None


def parse_patterns(text: str) -> tuple[str, ...]:
    """Tool-name globs from ``--approve`` (comma-separated, or ``all``); ValueError when there are none."""
    patterns = tuple(p.strip() for p in str(text).split(",") if p.strip())
    if not patterns:
        raise ValueError("--approve needs tool-name patterns (comma-separated globs) or 'all'")
    return ("*",) if any(p.lower() == "all" for p in patterns) else patterns


class ApprovalPolicy(LifecyclePolicy):
    """Pauses before acting whenever a pending tool call's name matches one of the globs."""

    policy_id = APPROVAL_POLICY_ID

    def __init__(self, patterns: str | tuple[str, ...] | list[str]) -> None:
        self.patterns = parse_patterns(patterns) if isinstance(patterns, str) else tuple(patterns)
        if not self.patterns:
            raise ValueError("ApprovalPolicy needs at least one tool-name pattern")

    def matches(self, tool: str) -> bool:
        """Whether a call to ``tool`` needs approval."""
        return any(fnmatch.fnmatchcase(tool, p) for p in self.patterns)

    def should_pause(self, context: RuntimeSnapshotContext) -> bool:
        """True before acting when any pending action names a matching tool."""
        if context.boundary != "before_act":
            return False
        return any(self.matches(str(getattr(a, "name", ""))) for a in context.pending_actions)

"""``--approve PATTERNS``: install the approval policy that pauses before matching tool calls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qitos.core.agent_module import AgentModule

APPROVE_POLICY_NAME = "qitos_tui_approve"


def install_approval(agent: AgentModule[Any, Any, Any], patterns: str, *, headless: bool) -> str | None:
    """Install an ApprovalPolicy for ``patterns`` on ``agent``; the reason it cannot, or None."""
    if headless:
        return (
            "a headless run has nobody to approve tool calls; drop --headless to approve them in the UI, "
            "or drop --approve"
        )
    from qitos.engine.approval import ApprovalPolicy, parse_patterns
    from tui.live import install_policy

    try:
        policy = ApprovalPolicy(parse_patterns(patterns))
        install_policy(agent, APPROVE_POLICY_NAME, policy)
    except (TypeError, ValueError) as exc:
        return str(exc)
    return None

"""The demo agent: fixes a bug in a small project, remembers why, publishes a skill — offline.

It is driven by a scripted model, so it runs without keys or network and the same way every time.
It exercises every pane of qitos-tui: context contributions (one optional one is dropped for the
budget), compaction of old exchanges under a small declared budget, Memdir memory recalled
through a MemorySourceAdapter, a skill published as v1 and revised as v2, and one pause through
its own LifecyclePolicy before it writes a file.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qitos.core.action import Action
from qitos.core.agent_module import AgentModule
from qitos.core.context import StaticContextContributor
from qitos.core.decision import Decision
from qitos.core.state import StateSchema
from qitos.core.tool_registry import ToolRegistry
from qitos.demo.script import script_texts
from qitos.demo.tools import DemoTools
from qitos.demo.workspace import seed_workspace
from qitos.engine.runtime import LifecyclePolicy, RuntimeBudget, RuntimeSnapshotContext
from qitos.kit.context.compaction import ClosedExchangeWindowCompactor
from qitos.kit.memory.adapter import MemorySourceAdapter
from qitos.kit.memory.memdir_memory import MemdirMemory
from qitos.kit.parser.json_parser import JsonDecisionParser
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary
from qitos.models.scripted import ScriptedModel

if TYPE_CHECKING:
    from qitos.engine.engine import Engine

TASK = "The checks in test_calc.py fail. Find the bug, fix it, verify the fix and record what you learned."

# A deliberately small declared capacity (characters): old exchanges must be compacted away and
# the optional style guide does not always fit, so the Context and Compaction panes have content.
DEMO_MAX_INPUT_UNITS = 2500
MAX_STEPS = 20

SYSTEM_PROMPT = (
    "You are a careful coding agent working in a small Python project.\n"
    'Answer with one JSON object: {"thought": ..., "action": {"name": tool, "args": {...}}} '
    'or {"thought": ..., "final": answer}.'
)

PROJECT_NOTES = "Project: invoices. The check is `python test_calc.py`; it must print 'all checks passed'."

STYLE_GUIDE = (
    "House style for the invoices project.\n"
    "- Keep functions small, documented, and named for what they return.\n"
    "- Prefer explicit code over clever code; no new dependencies without a reason in the README.\n"
    "- Keep diffs minimal: change the line that is wrong, not the file around it.\n"
    "- Every fix comes with a check that would have caught the bug; run the checks before and after.\n"
    "- Describe the cause of a bug, not only its symptom, in the notes you leave behind.\n"
    "- Never silence, weaken or delete a failing assertion to make a check pass.\n"
    "- Money is handled in integer cents; never compare floats for equality in invoice totals.\n"
    "- Public helpers keep their signatures; add a new helper rather than changing an old one.\n"
    "- When unsure, read the tests first: they are the specification of the invoice tool."
)


class ReviewWritesPolicy(LifecyclePolicy):
    """Pauses once, before the agent's first file write, so a person can look before it acts."""

    policy_id = "demo.review-writes"

    def __init__(self) -> None:
        self.paused_once = False

    def should_pause(self, context: RuntimeSnapshotContext) -> bool:
        """True at the first ``before_act`` boundary whose pending actions write a file."""
        if self.paused_once or context.boundary != "before_act":
            return False
        if any(getattr(action, "name", None) == "write_file" for action in context.pending_actions):
            self.paused_once = True
            return True
        return False


@dataclass
class DemoState(StateSchema):
    """The demo's state: the last observation and a short log of what it did."""

    last_observation: str = ""
    log: list[str] = field(default_factory=list)


class DemoAgent(AgentModule[DemoState, Any, Action]):
    """Fixes the demo project's bug with a scripted model."""

    def __init__(self, tools: DemoTools, **kwargs: Any) -> None:
        registry = ToolRegistry().include(tools)
        super().__init__(tool_registry=registry, **kwargs)
        self.tools = tools

    def close(self) -> None:
        """Close the skill library: as the last connection to it, it folds its write-ahead log in
        and SQLite removes ``skills.db-wal`` / ``-shm``, so the database file alone is left."""
        self.tools.skills.close()

    def build_engine(self, **engine_kwargs: Any) -> Engine[DemoState, Any, Action]:
        """An Engine with room for the demo's steps (the default budget stops at 10)."""
        engine_kwargs.setdefault("budget", RuntimeBudget(max_steps=MAX_STEPS))
        return super().build_engine(**engine_kwargs)

    def init_state(self, task: str, **kwargs: Any) -> DemoState:
        """A fresh state for ``task``."""
        return DemoState(task=task, max_steps=MAX_STEPS)

    def build_system_prompt(self, state: DemoState) -> str | None:
        """The fixed instructions of the demo agent."""
        return SYSTEM_PROMPT

    def prepare(self, state: DemoState) -> str:
        """The user turn: the task and what the last tool call returned."""
        self.tools.step_id = state.current_step
        text = f"Task: {state.task}\nStep: {state.current_step}"
        if state.last_observation:
            text += f"\nLast observation:\n{state.last_observation}"
        return text

    def reduce(self, state: DemoState, observation: Any, decision: Decision[Action]) -> DemoState:
        """Keep the latest tool output as the next step's observation."""
        results = observation.get("action_results", []) if isinstance(observation, dict) else []
        state.last_observation = "\n".join(_result_text(r) for r in results)[:1200]
        for action in decision.actions:
            state.log.append(f"{action.name}({', '.join(sorted(action.args))})")
        if decision.mode == "final" and decision.final_answer:
            state.final_result = decision.final_answer
        return state


def _result_text(result: Any) -> str:
    """One tool result as text for the next user turn."""
    if isinstance(result, dict):
        if result.get("error"):
            return f"error: {result['error']}"
        value = result.get("result", result.get("output", result))
        return value if isinstance(value, str) else str(value)
    return str(result)


def build_agent(
    *,
    workspace: str | Path | None = None,
    memory_dir: str | Path = ".qitos/memory",
    skills_db: str | Path = ".qitos/skills.db",
) -> DemoAgent:
    """The demo agent, its project seeded in ``workspace`` (a fresh temp dir by default)."""
    root = seed_workspace(workspace or tempfile.mkdtemp(prefix="qitos-demo-"))
    memory_path = Path(memory_dir)
    memory = MemdirMemory(str(memory_path), create=not memory_path.exists())
    Path(skills_db).parent.mkdir(parents=True, exist_ok=True)
    skills = SqliteToolLibrary(skills_db, namespace="demo")
    tools = DemoTools(root, memory, skills)
    extensions = {
        "project_notes": StaticContextContributor(
            "notes.project", "project", PROJECT_NOTES, priority=10, required=True
        ),
        "style_guide": StaticContextContributor("notes.style", "project", STYLE_GUIDE, priority=1),
        "project_memory": MemorySourceAdapter(memory, namespace="project", priority=5),
        "closed_window": ClosedExchangeWindowCompactor,
        "review_writes": ReviewWritesPolicy(),
    }
    model = ScriptedModel(script_texts(), model_id="scripted-demo", max_input_units=DEMO_MAX_INPUT_UNITS)
    return DemoAgent(
        tools,
        llm=model,
        model_parser=JsonDecisionParser(),
        memory=memory,
        extensions=extensions,
        context={"contributors": ["project_notes", "style_guide"], "budget": {"provider": "declared"}},
        memory_sources=["project_memory"],
        compaction={"provider": "closed_window"},
        lifecycle=["review_writes"],
    )

"""Upstream QitOS's example agents, ported (our own code, the same behaviour), run offline.

Each keeps the upstream example's import lines and usage pattern: the quick-start's plain-dataclass
state and ``agent.run(task=Task(...), return_state=True)``; the ReAct pattern's StateSchema with a
scratchpad, ``ReActTextParser``, ``HostEnv(workspace_root=...)`` and ``EnvSpec(type="host")``; the
Plan-Act pattern's ``decide`` that asks ``self.llm`` for a plan before handing steps to the model.
A ScriptedModel stands in for the real model.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from qitos import Action, AgentModule, Decision, EnvSpec, StateSchema, Task, TaskBudget, ToolRegistry, tool
from qitos.kit.env import HostEnv
from qitos.kit.parser import ReActTextParser
from qitos.models.scripted import ScriptedModel

CHECK = f'{sys.executable} -c "import buggy_module; assert buggy_module.add(20, 22) == 42"'


# -- the quick-start pattern ------------------------------------------------------------------------
@dataclass
class ProductState:
    """A plain dataclass state (no StateSchema), as upstream's quick-start uses."""

    task: str
    max_steps: int = 2
    current_step: int = 0
    stop_reason: str | None = None
    final_result: str | None = None


class ProductAgent(AgentModule[ProductState, dict[str, Any], Action]):
    """Multiplies with a tool registered in __init__, then answers."""

    def __init__(self) -> None:
        registry = ToolRegistry()

        @tool(name="mul")
        def mul(a: int, b: int) -> int:
            return a * b

        registry.register(mul)
        super().__init__(tool_registry=registry)

    def init_state(self, task: str, **kwargs: Any) -> ProductState:
        return ProductState(task=task, max_steps=int(kwargs.get("max_steps", 2)))

    def decide(self, state: ProductState, observation: dict[str, Any]) -> Decision[Action]:
        if state.current_step == 0:
            return Decision.act([Action(name="mul", args={"a": 6, "b": 7})], rationale="compute")
        return Decision.final("42")

    def reduce(
        self, state: ProductState, observation: dict[str, Any], decision: Decision[Action]
    ) -> ProductState:
        results = observation.get("action_results", []) if isinstance(observation, dict) else []
        if results:
            state.final_result = str(results[0])
        return state


def test_quickstart_pattern_runs_unchanged() -> None:
    agent = ProductAgent()
    result = agent.run(
        task=Task(id="quickstart", objective="compute 6*7", budget=TaskBudget(max_steps=2)),
        return_state=True,
    )
    assert result.state.final_result == "42"
    assert result.state.stop_reason == "final" and result.step_count == 1
    assert result.task_result is not None and result.task_result.success


# -- shared tools (upstream: EditorToolSet and RunCommand; these are ours) -------------------------
class WorkspaceTools:
    """File and command tools over the run's HostEnv, found by ``ToolRegistry.include``."""

    @tool(name="read_file", required_ops=["file"])
    def read_file(self, path: str, runtime_context: dict[str, Any]) -> str:
        """Read a workspace file."""
        return runtime_context["file_ops"].read_text(path)

    @tool(name="write_file", required_ops=["file"])
    def write_file(self, path: str, content: str, runtime_context: dict[str, Any]) -> dict[str, Any]:
        """Replace a workspace file's content."""
        runtime_context["file_ops"].write_text(path, content)
        return {"status": "success", "path": path}

    @tool(name="run_command", required_ops=["process"])
    def run_command(self, command: str, runtime_context: dict[str, Any]) -> dict[str, Any]:
        """Run a shell command in the workspace."""
        return runtime_context["env"].run_command(command)


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "buggy_module.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    return root


def host_task(task_id: str, root: Path, max_steps: int) -> Task:
    return Task(
        id=task_id,
        objective="Open buggy_module.py and fix add(a,b) to return a+b, then run tests",
        env_spec=EnvSpec(type="host", config={"workspace_root": str(root)}),
        budget=TaskBudget(max_steps=max_steps),
    )


# -- the ReAct pattern ------------------------------------------------------------------------------
@dataclass
class ReactState(StateSchema):
    scratchpad: list[str] = field(default_factory=list)


class ReactAgent(AgentModule[ReactState, dict[str, Any], Action]):
    """One tool call per step in ReAct text; remembers thoughts, actions and observations."""

    def __init__(self, llm: Any) -> None:
        registry = ToolRegistry()
        registry.include(WorkspaceTools())
        super().__init__(tool_registry=registry, llm=llm, model_parser=ReActTextParser())

    def init_state(self, task: str, **kwargs: Any) -> ReactState:
        return ReactState(task=task, max_steps=int(kwargs.get("max_steps", 8)))

    def build_system_prompt(self, state: ReactState) -> str | None:
        return (
            "You are a concise ReAct agent. Exactly one tool call per step.\nTools:\n"
            + self.tool_registry.get_tool_descriptions()
            + "\nOutput:\nThought: ...\nAction: tool(arg=value)\nor\nFinal Answer: ..."
        )

    def prepare(self, state: ReactState) -> str:
        parts = [f"Task: {state.task}", f"Step: {state.current_step}/{state.max_steps}"]
        if state.scratchpad:
            parts.extend(["Recent:", *state.scratchpad[-6:]])
        return "\n".join(parts)

    def reduce(
        self, state: ReactState, observation: dict[str, Any], decision: Decision[Action]
    ) -> ReactState:
        results = observation.get("action_results", []) if isinstance(observation, dict) else []
        if decision.rationale:
            state.scratchpad.append(f"Thought: {decision.rationale}")
        if decision.actions:
            state.scratchpad.append(f"Action: {decision.actions[0].name}")
        if results:
            state.scratchpad.append(f"Observation: {results[0]}")
        state.scratchpad = state.scratchpad[-30:]
        return state


def test_react_pattern_fixes_the_bug(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    script = [
        "Thought: read the module first\nAction: read_file(path='buggy_module.py')",
        "Thought: add subtracts; make it add\n"
        "Action: write_file(path='buggy_module.py', content='def add(a, b):\\n    return a + b\\n')",
        f"Thought: verify\nAction: run_command(command='{CHECK}')",
        "Thought: the check passed\nFinal Answer: add(a, b) now returns a + b and the check passes",
    ]
    model = ScriptedModel(script)
    result = ReactAgent(llm=model).run(
        task=host_task("pattern_react", root, 8),
        return_state=True,
        max_steps=8,
        engine_kwargs={"env": HostEnv(workspace_root=str(root), allow_commands=True)},
    )
    assert (root / "buggy_module.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert result.state.stop_reason == "final" and result.step_count == 4
    assert result.state.final_result.startswith("add(a, b) now returns a + b")
    assert "Observation: def add(a, b):\n    return a - b\n" in result.state.scratchpad
    assert any("'returncode': 0" in line for line in result.state.scratchpad)
    # The model saw its earlier steps: the last request carries all three past exchanges.
    last = [e for e in result.events if e.phase == "model_request"][-1].payload
    assert last["view"]["history_omitted_exchange_ids"] == [] and len(last["view"]["exchanges"]) == 4


def test_react_pattern_without_a_shell_stops_before_step_zero(tmp_path: Path) -> None:
    """run_command needs the env's process ops: a HostEnv without commands stops the run up front."""
    root = workspace(tmp_path)
    model = ScriptedModel(["Final Answer: never asked"])
    result = ReactAgent(llm=model).run(
        task=host_task("pattern_react", root, 8),
        return_state=True,
        engine_kwargs={"env": HostEnv(workspace_root=str(root))},
    )
    assert result.state.stop_reason == "env_capability_mismatch" and result.step_count == 0
    assert model.calls == 0


# -- the Plan-Act pattern ---------------------------------------------------------------------------
@dataclass
class PlanActState(StateSchema):
    plan_steps: list[str] = field(default_factory=list)
    cursor: int = 0
    scratchpad: list[str] = field(default_factory=list)


def numbered_plan(text: str) -> list[str]:
    """The items of a ``1. ...`` / ``2) ...`` numbered list, in order."""
    return [m.group(1).strip() for m in re.finditer(r"^\s*\d+[.)]\s+(.+)$", text, re.MULTILINE)]


class PlanActAgent(AgentModule[PlanActState, dict[str, Any], Action]):
    """Asks the model for a numbered plan, then executes one plan step per model call."""

    def __init__(self, llm: Any) -> None:
        registry = ToolRegistry()
        registry.include(WorkspaceTools())
        super().__init__(tool_registry=registry, llm=llm, model_parser=ReActTextParser())

    def init_state(self, task: str, **kwargs: Any) -> PlanActState:
        return PlanActState(task=task, max_steps=int(kwargs.get("max_steps", 10)))

    def build_system_prompt(self, state: PlanActState) -> str | None:
        current = state.plan_steps[state.cursor] if state.cursor < len(state.plan_steps) else "done"
        return f"Execute one plan step per turn. Current plan step: {current}"

    def prepare(self, state: PlanActState) -> str:
        lines = [f"Task: {state.task}", f"Plan cursor: {state.cursor}/{len(state.plan_steps)}"]
        lines.extend(
            f"{'->' if i == state.cursor else '  '} [{i}] {s}" for i, s in enumerate(state.plan_steps)
        )
        return "\n".join(lines)

    def decide(self, state: PlanActState, observation: dict[str, Any]) -> Decision[Action] | None:
        if not state.plan_steps:
            raw = self.llm(
                [
                    {"role": "system", "content": "Return a numbered plan only."},
                    {"role": "user", "content": f"Task: {state.task}"},
                ]
            )
            state.plan_steps = numbered_plan(str(raw))
            if not state.plan_steps:
                return Decision.final("Failed to build a valid plan")
            return Decision.wait("plan_ready")
        return None

    def reduce(
        self, state: PlanActState, observation: dict[str, Any], decision: Decision[Action]
    ) -> PlanActState:
        results = observation.get("action_results", []) if isinstance(observation, dict) else []
        if decision.rationale:
            state.scratchpad.append(f"Thought: {decision.rationale}")
        if results:
            result = results[0]
            state.scratchpad.append(f"Observation: {result}")
            if isinstance(result, dict) and result.get("status") == "success":
                state.cursor += 1
            if isinstance(result, dict) and result.get("returncode") == 0:
                state.final_result = "Verification passed"
                state.cursor = len(state.plan_steps)
        return state


def test_plan_act_pattern_plans_then_executes(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    script = [
        "1. Rewrite add in buggy_module.py to return a + b\n2. Run the check",
        "Thought: step 1\n"
        "Action: write_file(path='buggy_module.py', content='def add(a, b):\\n    return a + b\\n')",
        f"Thought: step 2\nAction: run_command(command='{CHECK}')",
    ]
    model = ScriptedModel(script)
    result = PlanActAgent(llm=model).run(
        task=host_task("pattern_planact", root, 10),
        return_state=True,
        max_steps=10,
        engine_kwargs={"env": HostEnv(workspace_root=str(root), allow_commands=True)},
    )
    state = result.state
    assert state.plan_steps == ["Rewrite add in buggy_module.py to return a + b", "Run the check"]
    assert state.final_result == "Verification passed" and state.stop_reason == "final"
    assert result.step_count == 3 and state.cursor == 2
    assert [r.decision.mode for r in result.records] == ["wait", "act", "act"]
    assert (root / "buggy_module.py").read_text().endswith("return a + b\n")


def test_plan_act_pattern_without_a_plan_gives_up() -> None:
    result = PlanActAgent(llm=ScriptedModel(["I would rather not plan."])).run(
        "fix it", return_state=True, engine_kwargs={"env": HostEnv(workspace_root=".", allow_commands=True)}
    )
    assert result.state.final_result == "Failed to build a valid plan" and result.state.stop_reason == "final"


def test_upstreams_own_quickstart_file_when_a_checkout_is_given(tmp_path: Path) -> None:
    """With QITOS_UPSTREAM_DIR naming a checkout of Qitor/qitos, its quick-start runs here unchanged."""
    checkout = os.environ.get("QITOS_UPSTREAM_DIR")
    script = Path(checkout or "") / "examples" / "quickstart" / "minimal_agent.py"
    if not checkout or not script.is_file():
        pytest.skip("set QITOS_UPSTREAM_DIR to a checkout of github.com/Qitor/qitos to run its quick-start")
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "final_result: 42" in out.stdout and "stop_reason: final" in out.stdout

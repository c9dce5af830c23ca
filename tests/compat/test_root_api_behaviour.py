"""What the root API page promises and upstream QitOS does: capability checks for every task form,
which step limit bound, init order, the stop reason of a reduce-set final result, task resource issues."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qitos import (
    Action,
    AgentModule,
    Decision,
    Engine,
    RuntimeBudget,
    StateSchema,
    Task,
    TaskBudget,
    TaskResource,
    ToolRegistry,
    tool,
)
from qitos.core.env import Env
from qitos.kit.env import HostEnv


@tool(name="run_command", required_ops=["process"])
def run_command(command: str) -> str:
    """Run a shell command (needs the env's ``process`` ops)."""
    return command


class ShellAgent(AgentModule):
    """Calls ``run_command`` every step; counts how often it decided."""

    def __init__(self, state_max_steps: int = 10) -> None:
        super().__init__(tool_registry=ToolRegistry().register(run_command))
        self.state_max_steps = state_max_steps
        self.decided = 0

    def init_state(self, task: str, **kwargs: Any) -> StateSchema:
        return StateSchema(task=task, max_steps=self.state_max_steps)

    def decide(self, state: StateSchema, observation: Any) -> Decision:
        self.decided += 1
        return Decision.act([Action("run_command", {"command": "echo hi"})])

    def reduce(self, state: StateSchema, observation: Any, decision: Decision) -> StateSchema:
        return state


# -- 1. the capability check applies to every task form -------------------------------------------
@pytest.mark.parametrize("task", ["a plain string task", Task(id="t", objective="a structured task")])
def test_required_ops_without_an_env_stop_before_step_zero(task: Any) -> None:
    agent = ShellAgent()
    result = Engine(agent).run(task)
    assert result.state.stop_reason == "env_capability_mismatch"
    assert result.step_count == 0 and agent.decided == 0
    assert "run_command" in result.error["message"] and "process" in result.error["message"]


def test_required_ops_with_an_env_lacking_them_stop_a_string_task(tmp_path: Path) -> None:
    agent = ShellAgent()
    result = Engine(agent, env=HostEnv(tmp_path)).run("no shell here")
    assert result.state.stop_reason == "env_capability_mismatch" and agent.decided == 0
    assert "allow_commands=True" in result.error["message"]


def test_required_ops_provided_run_a_string_task(tmp_path: Path) -> None:
    agent = ShellAgent()
    result = Engine(agent, env=HostEnv(tmp_path, allow_commands=True), budget=RuntimeBudget(2)).run("go")
    assert agent.decided == 2 and result.state.stop_reason == "budget_steps"


def test_upstream_style_env_declares_ops_with_has_ops() -> None:
    """An env written for upstream says what it provides through ``has_ops(group)``."""

    class ProcessEnv(Env):
        def reset(self, task: Any = None) -> Any:
            return None

        def observe(self) -> Any:
            return {}

        def step(self, action: Any) -> Any:
            return None

        def is_terminal(self) -> bool:
            return False

        def close(self) -> None:
            pass

        def has_ops(self, group: str) -> bool:
            return group == "process"

    agent = ShellAgent()
    result = Engine(agent, env=ProcessEnv(), budget=RuntimeBudget(1)).run("go")
    assert result.state.stop_reason == "budget_steps" and agent.decided == 1


# -- 3. report the step limit that actually bound --------------------------------------------------
def test_task_step_budget_reports_budget_steps(tmp_path: Path) -> None:
    task = Task(id="t", objective="o", budget=TaskBudget(max_steps=2))
    result = Engine(ShellAgent(), env=_shell_env(tmp_path)).run(task)
    assert result.step_count == 2 and result.state.stop_reason == "budget_steps"
    assert result.state.max_steps == 10  # the task budget narrows the RuntimeBudget, not the state


def test_runtime_budget_reports_budget_steps_and_state_limit_reports_max_steps(tmp_path: Path) -> None:
    by_budget = Engine(ShellAgent(), env=_shell_env(tmp_path), budget=RuntimeBudget(max_steps=3)).run("o")
    assert by_budget.step_count == 3 and by_budget.state.stop_reason == "budget_steps"
    by_state = Engine(ShellAgent(state_max_steps=2), env=_shell_env(tmp_path), budget=RuntimeBudget(5)).run(
        "o"
    )
    assert by_state.step_count == 2 and by_state.state.stop_reason == "max_steps"


def _shell_env(root: Path) -> HostEnv:
    return HostEnv(root, allow_commands=True)


# -- 5. env.reset before agent.init_state -----------------------------------------------------------
def test_env_is_reset_before_init_state() -> None:
    order: list[str] = []

    class RecordingEnv(Env):
        def reset(self, task: Any = None) -> Any:
            order.append("env.reset")

        def observe(self) -> Any:
            return {}

        def step(self, action: Any) -> Any:
            return None

        def is_terminal(self) -> bool:
            return False

        def close(self) -> None:
            pass

    class Agent(AgentModule):
        def init_state(self, task: str, **kwargs: Any) -> StateSchema:
            order.append("init_state")
            return StateSchema(task=task)

        def decide(self, state: StateSchema, observation: Any) -> Decision:
            return Decision.final("done")

        def reduce(self, state: StateSchema, observation: Any, decision: Decision) -> StateSchema:
            return state

    Engine(Agent(), env=RecordingEnv()).run("o")
    assert order == ["env.reset", "init_state"]


# -- 7. a final result set by reduce stops with ``final`` (upstream's FinalResultCriteria) ---------
def test_final_result_set_in_reduce_stops_with_final() -> None:
    class Reducer(AgentModule):
        def init_state(self, task: str, **kwargs: Any) -> StateSchema:
            return StateSchema(task=task)

        def decide(self, state: StateSchema, observation: Any) -> Decision:
            return Decision.wait()

        def reduce(self, state: StateSchema, observation: Any, decision: Decision) -> StateSchema:
            state.final_result = "computed"
            return state

    result = Engine(Reducer()).run(Task(id="t", objective="o"))
    assert result.state.stop_reason == "final" and result.step_count == 1
    assert result.task_result is not None and result.task_result.success is True


# -- 8. task resource issue codes, mount_to, binding target -----------------------------------------
def test_task_issue_codes_are_upstreams(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x")
    task = Task(
        id="",
        objective="",
        resources=[
            TaskResource(kind="blob", path="x"),
            TaskResource(kind="url"),
            TaskResource(kind="file", path="f.txt", mount_to=""),
            TaskResource(kind="file", path="f.txt", mount_to="   "),
            TaskResource(kind="file", path="missing.txt"),
        ],
        budget=TaskBudget(max_steps=0, max_runtime_seconds=-1, max_tokens=0),
    )
    codes = [(i.code, i.field) for i in task.validate_structured(str(tmp_path))]
    assert codes == [
        ("TASK_ID_INVALID", "id"),
        ("TASK_OBJECTIVE_INVALID", "objective"),
        ("TASK_RESOURCE_KIND_INVALID", "resources[0].kind"),
        ("TASK_RESOURCE_LOCATOR_MISSING", "resources[1]"),
        ("TASK_RESOURCE_MOUNT_INVALID", "resources[2].mount_to"),
        ("TASK_RESOURCE_MOUNT_INVALID", "resources[3].mount_to"),
        ("TASK_BUDGET_STEPS_INVALID", "budget.max_steps"),
        ("TASK_BUDGET_RUNTIME_INVALID", "budget.max_runtime_seconds"),
        ("TASK_BUDGET_TOKENS_INVALID", "budget.max_tokens"),
    ]
    good = Task(id="t", objective="o", resources=[TaskResource(kind="file", path="missing.txt")])
    issue = good.validate_structured(str(tmp_path))[0]
    assert (issue.code, issue.field, issue.details) == (
        "TASK_RESOURCE_MISSING",
        "resources[0].path",
        {"path": "missing.txt"},
    )


def test_resource_binding_target(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    task = Task(
        id="t",
        objective="o",
        resources=[
            TaskResource(kind="file", path="a.txt", mount_to="/in/a.txt"),
            TaskResource(kind="file", path="a.txt"),
            TaskResource(kind="url", uri="https://example.org/x"),
        ],
    )
    mounted, plain, url = task.resolve_resources(str(tmp_path))
    assert (mounted.target, mounted.exists, mounted.source) == ("/in/a.txt", True, "a.txt")
    assert plain.target == "a.txt" and plain.resolved_path == str(tmp_path / "a.txt")
    assert (url.target, url.source) == (None, "https://example.org/x")

"""`qitos-tui fork` and `--approve` on the command line (headless)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tui.cli import main

AGENT = """
import json
from qitos import AgentModule, Decision, StateSchema, ToolRegistry, tool
from qitos.kit.parser.json_parser import JsonDecisionParser
from qitos.models.scripted import ScriptedModel

@tool(name="shout", description="Upper-case a word.")
def shout(word: str) -> str:
    return word.upper()

def reply(word):
    return json.dumps({"thought": word, "action": {"name": "shout", "args": {"word": word}}})

class Agent(AgentModule):
    def init_state(self, task, **kwargs):
        return StateSchema(task=task, max_steps=10)

    def prepare(self, state):
        return state.task

    def decide(self, state, observation):
        if CHANGED and state.current_step == 1:
            return Decision.act([__import__("qitos").Action("shout", {"word": "different"})])
        return None

    def reduce(self, state, observation, decision):
        if decision.mode == "final":
            state.final_result = decision.final_answer
        return state

agent = Agent(
    tool_registry=ToolRegistry().register(shout),
    llm=ScriptedModel([reply("a"), reply("b"), reply("c"), json.dumps({"thought": "x", "final": "ok"})]),
    model_parser=JsonDecisionParser(),
)
TASK = "shout three words"
"""


def _agent(tmp_path: Path, name: str, changed: bool) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(AGENT).replace("CHANGED", str(changed)), encoding="utf-8")
    return path


def _recorded(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    assert main(["run", str(_agent(tmp_path, "v1.py", False)), "--headless", "--trace-dir", str(runs)]) == 0
    (run_dir,) = list(runs.iterdir())
    return run_dir


def test_fork_headless_goes_on_live_and_names_its_parent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _recorded(tmp_path)
    capsys.readouterr()
    code = main(["fork", str(run_dir), "--at", "2", str(tmp_path / "v1.py"), "--headless"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "2 model responses and 2 tool results put back" in out
    (fork_dir,) = [p for p in run_dir.parent.iterdir() if p != run_dir]  # beside its parent
    manifest = json.loads((fork_dir / "manifest.json").read_text())
    assert manifest["parent_run_id"] == run_dir.name and manifest["fork_step"] == 2
    assert manifest["status"] == "completed"


def test_fork_of_a_changed_agent_says_where_it_diverged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _recorded(tmp_path)
    capsys.readouterr()
    code = main(["fork", str(run_dir), "--at", "3", str(_agent(tmp_path, "v2.py", True)), "--headless"])
    err = capsys.readouterr().err
    assert code == 1
    assert "replay diverged at step 1" in err
    assert 'shout({"word": "b"})' in err and 'shout({"word": "different"})' in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--at", "99"], "cannot fork at step 99"),
        (["--at", "-1"], "must be a step number >= 0"),
    ],
)
def test_fork_refuses_bad_steps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    run_dir = _recorded(tmp_path)
    capsys.readouterr()
    assert main(["fork", str(run_dir), *argv, str(tmp_path / "v1.py"), "--headless"]) == 2
    assert expected in capsys.readouterr().err


def test_fork_of_a_folder_that_is_not_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fork", str(tmp_path / "nope"), "--at", "1", "demo", "--headless"]) == 2
    assert "Cannot fork" in capsys.readouterr().err


def test_headless_refuses_approve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--headless", "--approve", "write_*", "--workspace", str(tmp_path / "ws")])
    err = capsys.readouterr().err
    assert code == 2 and "Cannot use --approve" in err and "headless run has nobody to approve" in err
    assert not (tmp_path / "runs").exists()

"""Loading a user's agent file: every bad input gets one clear line naming the file and the cause."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tui.loader import AgentLoadError, load_agent_file

GOOD_AGENT = """
from dataclasses import dataclass
from qitos import AgentModule, Decision, StateSchema

class EchoAgent(AgentModule):
    def init_state(self, task, **kwargs):
        return StateSchema(task=task)

    def decide(self, state, observation):
        return Decision.final(f"echo: {state.task}")

    def reduce(self, state, observation, decision):
        return state
"""


def write(tmp_path: Path, name: str, body: str) -> Path:
    """Write an agent file and return its path."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_build_agent_factory_and_module_task(tmp_path: Path) -> None:
    """build_agent() builds the agent and a module-level TASK is the task."""
    path = write(
        tmp_path, "agent.py", GOOD_AGENT + "\nTASK = 'say hi'\ndef build_agent():\n    return EchoAgent()\n"
    )
    loaded = load_agent_file(path)
    assert type(loaded.agent).__name__ == "EchoAgent"
    assert loaded.task == "say hi"
    assert loaded.source == path.resolve()


def test_module_level_agent_and_task_override(tmp_path: Path) -> None:
    """A module-level `agent` works, and --task wins over TASK."""
    path = write(tmp_path, "agent.py", GOOD_AGENT + "\nTASK = 'default'\nagent = EchoAgent()\n")
    assert load_agent_file(path, task_override="override").task == "override"


def test_sibling_module_imports_work(tmp_path: Path) -> None:
    """An agent file can import a helper module that sits next to it, as it would as a script."""
    write(tmp_path, "helpers_for_agent.py", "GREETING = 'hello'\n")
    path = write(
        tmp_path,
        "agent.py",
        GOOD_AGENT + "\nfrom helpers_for_agent import GREETING\nTASK = GREETING\nagent = EchoAgent()\n",
    )
    assert load_agent_file(path).task == "hello"


@pytest.mark.parametrize(
    ("name", "body", "expected"),
    [
        ("syntax.py", "def broken(:\n    pass\n", "failed to import: SyntaxError"),
        (
            "raises.py",
            "x = 1\nraise RuntimeError('no config found')\n",
            "RuntimeError: no config found (line 2)",
        ),
        ("missing_dep.py", "import a_module_that_does_not_exist\n", "ModuleNotFoundError"),
        ("nofactory.py", "X = 1\n", "defines neither build_agent() nor a module-level `agent`"),
        ("badfactory.py", "def build_agent():\n    return 1 / 0\n", "build_agent() raised ZeroDivisionError"),
        ("nonefactory.py", "def build_agent():\n    return None\n", "build_agent() returned None"),
        ("notagent.py", "agent = object()\nTASK = 't'\n", "is not a qitos AgentModule"),
        ("exits.py", "import sys\nsys.exit(3)\n", "exited while importing (SystemExit 3)"),
    ],
)
def test_bad_agent_files_get_one_clear_line(tmp_path: Path, name: str, body: str, expected: str) -> None:
    """Each way an agent file can be unusable names the file and the cause, on one line."""
    path = write(tmp_path, name, body)
    with pytest.raises(AgentLoadError) as info:
        load_agent_file(path, task_override="t")
    message = str(info.value)
    assert message.startswith(str(path)), message
    assert expected in message
    assert "\n" not in message


def test_missing_task_is_reported(tmp_path: Path) -> None:
    """No --task and no TASK: say how to give one."""
    path = write(tmp_path, "agent.py", GOOD_AGENT + "\nagent = EchoAgent()\n")
    with pytest.raises(AgentLoadError, match="no task: pass --task or define a module-level TASK"):
        load_agent_file(path)


def test_missing_file_and_wrong_kind(tmp_path: Path) -> None:
    """A path that does not exist, a folder, or a non-Python file is refused by name."""
    with pytest.raises(AgentLoadError, match="no such file"):
        load_agent_file(tmp_path / "nope.py")
    with pytest.raises(AgentLoadError, match="not a file"):
        load_agent_file(tmp_path)
    text = tmp_path / "agent.txt"
    text.write_text("agent = 1\n")
    with pytest.raises(AgentLoadError, match="not a Python file"):
        load_agent_file(text)

"""The headless runner: runs to the end, finalises the trace, reports failures in one line."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

from tui.headless import run_headless
from tui.loader import load_agent_file

AGENTS = """
from qitos import AgentModule, Decision, StateSchema

class Echo(AgentModule):
    def init_state(self, task, **kwargs):
        return StateSchema(task=task)

    def decide(self, state, observation):
        return Decision.final(f"echo: {state.task}")

    def reduce(self, state, observation, decision):
        return state

class Raiser(Echo):
    def decide(self, state, observation):
        return Decision.wait()

    def reduce(self, state, observation, decision):
        if state.current_step == 1:
            raise KeyError("missing plan")
        return state
"""


def load(tmp_path: Path, cls: str):
    """Load the named agent class from a real agent file."""
    path = tmp_path / f"{cls.lower()}.py"
    path.write_text(textwrap.dedent(AGENTS) + f"\nagent = {cls}()\nTASK = 'hello'\n", encoding="utf-8")
    return load_agent_file(path)


def manifest(run_dir: Path) -> dict:
    """The manifest of the single run written under ``run_dir``."""
    (run,) = [p for p in run_dir.iterdir() if p.is_dir()]
    return json.loads((run / "manifest.json").read_text())


def test_finished_run_prints_summary_and_writes_trace(tmp_path: Path) -> None:
    """A run that finishes exits 0, prints its result and leaves a completed manifest."""
    loaded = load(tmp_path, "Echo")
    out, err = io.StringIO(), io.StringIO()
    code = run_headless(loaded.agent, loaded.task, trace_dir=tmp_path / "runs", out=out, err=err)
    assert code == 0, err.getvalue()
    assert "result: echo: hello" in out.getvalue()
    assert manifest(tmp_path / "runs")["status"] == "completed"


def test_agent_raising_while_running_gives_one_line_and_a_finalised_trace(tmp_path: Path) -> None:
    """An agent that raises mid-run: exit 2, one stderr line naming the file and the cause."""
    loaded = load(tmp_path, "Raiser")
    out, err = io.StringIO(), io.StringIO()
    code = run_headless(
        loaded.agent, loaded.task, trace_dir=tmp_path / "runs", source=loaded.source, out=out, err=err
    )
    assert code == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1
    assert str(loaded.source) in lines[0] and "KeyError" in lines[0] and "missing plan" in lines[0]
    data = manifest(tmp_path / "runs")
    assert data["status"] == "failed"
    assert data["summary"]["stop_reason"] == "unrecoverable_error"


def test_unwritable_trace_dir_is_reported(tmp_path: Path) -> None:
    """A trace folder that cannot be created is one clear line, exit 2, and nothing runs."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    loaded = load(tmp_path, "Echo")
    err = io.StringIO()
    code = run_headless(loaded.agent, loaded.task, trace_dir=blocker / "runs", out=io.StringIO(), err=err)
    assert code == 2
    assert "cannot write traces to" in err.getvalue()


def test_the_summary_shows_a_hostile_answer_inert(tmp_path: Path) -> None:
    """The final answer is the model's text: its control sequences are printed as placeholders."""
    loaded = load(tmp_path, "Echo")
    hostile = "\x1b]52;c;aGVsbG8=\x07\x1b]0;title\x07\x9b2J"
    out, err = io.StringIO(), io.StringIO()
    code = run_headless(loaded.agent, hostile, trace_dir=tmp_path / "runs", out=out, err=err)
    assert code == 0, err.getvalue()
    assert "result: echo: ␛]52;c;aGVsbG8=␇␛]0;title␇\\x9b2J" in out.getvalue()
    assert not any(c in out.getvalue() + err.getvalue() for c in "\x1b\x07\x9b")

"""End to end in a real terminal: `qitos-tui demo` then `qitos-tui replay`, driven through tmux."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from waits import wait_for_text

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


class Terminal:
    """One detached tmux session running a command; send keys, read the screen."""

    def __init__(self, command: list[str], cwd: Path, size: tuple[int, int] = (100, 30)) -> None:
        self.name = f"qitos-e2e-{uuid.uuid4().hex[:8]}"
        line = " ".join(_quote(c) for c in command) + "; echo EXIT=$?; sleep 60"
        subprocess.run(
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                self.name,
                "-x",
                str(size[0]),
                "-y",
                str(size[1]),
                "-c",
                str(cwd),
                line,
            ],
            check=True,
        )

    def screen(self) -> str:
        """The visible screen as text."""
        out = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return out.stdout

    def keys(self, *keys: str) -> None:
        """Type keys (tmux key names)."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def wait_for(self, text: str, timeout: float = 40.0) -> str:
        """Wait until ``text`` is on screen; fail with the screen when it never shows."""
        return wait_for_text(self.screen, text, timeout=timeout)

    def close(self) -> None:
        """Kill the session."""
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


@pytest.fixture
def terminal() -> Iterator[list[Terminal]]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    opened: list[Terminal] = []
    yield opened
    for term in opened:
        term.close()


def test_demo_then_replay_in_a_real_terminal(terminal: list[Terminal], tmp_path: Path) -> None:
    cli = [sys.executable, "-m", "tui.cli"]
    demo = Terminal([*cli, "demo", "--step-delay", "0", "--workspace", str(tmp_path / "ws")], tmp_path)
    terminal.append(demo)
    screen = demo.wait_for("paused by demo.review-writes: write_file calc.py")
    assert "approve deny change inspect" in screen and "● paused" in screen
    demo.keys("r")
    screen = demo.wait_for("● finished")
    assert "publish_skill " in screen
    demo.keys("q")
    demo.wait_for("EXIT=0")
    runs = tmp_path / "runs"
    [run_dir] = list(runs.iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    tokens, steps = str(manifest["summary"]["token_usage"]), manifest["step_count"]

    replay = Terminal([*cli, "replay", str(runs)], tmp_path)
    terminal.append(replay)
    screen = replay.wait_for(run_dir.name)
    screen = replay.wait_for(tokens)  # the run list: status, steps, tokens
    assert "completed" in screen, screen
    replay.keys("Enter")
    screen = replay.wait_for("● finished")
    assert f"step 0 (0–{steps - 1})" in screen and tokens in screen
    replay.keys("Right", "Right", "3")
    replay.wait_for(f"step 2 (0–{steps - 1})")
    screen = replay.wait_for("available")  # the Budget tab
    assert "─ Budget ─" in screen
    replay.keys("/")
    replay.wait_for("Search every event")
    replay.keys("subtract", "Enter")
    replay.wait_for("this is 1 of")
    replay.keys("q")
    replay.wait_for("EXIT=0")


EDIT_SCRIPT = """
import json, sys
path = sys.argv[1]
args = json.load(open(path, encoding="utf-8"))
args["fact"] = "EDITED IN THE EDITOR: " + args["fact"]
json.dump(args, open(path, "w", encoding="utf-8"))
"""


def test_approve_pause_then_c_changes_the_action_in_editor(terminal: list[Terminal], tmp_path: Path) -> None:
    """`demo --approve remember` pauses before the memory write; `c` runs $EDITOR (a script that edits
    the JSON) with the app suspended; the changed fact is what lands on disk and in the trace."""
    script = tmp_path / "edit.py"
    script.write_text(EDIT_SCRIPT, encoding="utf-8")
    editor = f"{sys.executable} {script}"
    command = ["env", f"EDITOR={editor}", sys.executable, "-m", "tui.cli", "demo", "--step-delay", "0"]
    command += ["--workspace", str(tmp_path / "ws"), "--approve", "remember"]
    demo = Terminal(command, tmp_path)
    terminal.append(demo)
    demo.wait_for("paused by qitos.approve: remember ")
    demo.keys("c")
    demo.wait_for("paused by demo.review-writes")
    demo.keys("a")  # the demo's own pause before its file write: approved as it is
    demo.wait_for("‖ 9 remember ")  # the second memory write
    demo.keys("a")
    demo.wait_for("● finished")
    demo.keys("q")
    demo.wait_for("EXIT=0")
    memory = "\n".join(p.read_text(encoding="utf-8") for p in (tmp_path / ".qitos" / "memory").rglob("*.md"))
    assert "EDITED IN THE EDITOR: " in memory
    [run_dir] = list((tmp_path / "runs").iterdir())
    events = [
        json.loads(line) for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    rulings = [e["payload"] for e in events if e["phase"] == "lifecycle_decision"]
    assert [r["verdict"] for r in rulings] == ["changed", "approved", "approved"]
    changed = rulings[0]
    assert changed["policy_id"] == "qitos.approve" and changed["by"] == "person (qitos-tui)"
    original = changed["actions"][0]["args"]["fact"]
    assert changed["changed_actions"][0]["args"]["fact"] == "EDITED IN THE EDITOR: " + original
    call = next(e for e in events if e["phase"] == "tool_call" and e["payload"]["tool"] == "remember")
    assert call["step_id"] == changed["step_id"]
    assert call["payload"]["args"]["fact"].startswith("EDITED IN THE EDITOR: ")


def test_diff_of_two_runs_that_diverge_in_a_real_terminal(terminal: list[Terminal], tmp_path: Path) -> None:
    """`qitos-tui diff A B`: B skips A's step 3; the header names it, n walks the divergences."""
    from tui.synthetic import synthetic_events, write_trace

    a, b = tmp_path / "run_a", tmp_path / "run_b"
    write_trace(a, synthetic_events(8, run_id="run_a", pause_at=None))
    write_trace(b, (e for e in synthetic_events(8, run_id="run_b", pause_at=None) if e.step_id != 3))
    diff = Terminal([sys.executable, "-m", "tui.cli", "diff", str(a), str(b)], tmp_path, size=(140, 40))
    terminal.append(diff)
    diff.wait_for("first divergence at step 3")
    screen = diff.wait_for("step 3 only in run A")
    assert "pairs differ" in screen
    diff.keys("n")  # no later divergence: said, not a crash
    diff.wait_for("no further divergence")
    diff.keys("Up")
    screen = diff.wait_for("A step 2 · B step 2")
    diff.keys("q")
    diff.wait_for("EXIT=0")

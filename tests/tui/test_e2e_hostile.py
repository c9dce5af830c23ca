"""End to end in a real terminal that obeys control sequences: a hostile replay changes nothing.

tmux is set up as a permissive terminal: it takes OSC 52 into its paste buffers (set-clipboard on),
takes OSC 0/2 as the pane title, and lets DCS passthrough by. The hostile run (and hostile memory
and skill stores in its Memory and Skills panes) is replayed and stepped through; afterwards the
pane title and the paste buffers must be as they were, and the screen must still show the app.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile import hostile_memory_root, hostile_run, hostile_skills_db
from waits import wait_for_text

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TITLE = "title-before-replay"
CONFIG = """
set -g set-clipboard on
set -g allow-passthrough on
set -g set-titles on
set -g allow-rename on
set -g history-limit 100
"""


class Tmux:
    """A private tmux server (its own socket and config), one session, one pane."""

    def __init__(self, tmp_path: Path) -> None:
        self.socket = f"qitos-hostile-{uuid.uuid4().hex[:8]}"
        self.config = tmp_path / "tmux.conf"
        self.config.write_text(CONFIG, encoding="utf-8")

    def run(self, *args: str) -> str:
        """A tmux command on this server; its stdout."""
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", str(self.config), *args],
            capture_output=True,
            text=True,
            check=True,
            # The pane's shell inherits the server's environment: a COLUMNS / LINES set in this
            # process (some test tools set them) would fix the app's size at 80x24.
            env={k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")},
        )
        return done.stdout

    def start(self, command: list[str], cwd: Path, size: tuple[int, int]) -> None:
        """A shell that waits, titled TITLE; then ``command`` typed into it (the title is set first)."""
        self.run(
            "new-session", "-d", "-s", "main", "-x", str(size[0]), "-y", str(size[1]), "-c", str(cwd), "sh"
        )
        self.run("select-pane", "-t", "main", "-T", TITLE)
        line = " ".join("'" + c.replace("'", "'\\''") + "'" for c in command) + "; echo EXIT=$?"
        self.run("send-keys", "-t", "main", line, "Enter")

    def screen(self) -> str:
        """The visible screen as text."""
        return self.run("capture-pane", "-p", "-t", "main")

    def keys(self, *keys: str) -> None:
        """Type keys (tmux key names)."""
        self.run("send-keys", "-t", "main", *keys)

    def wait_for(self, text: str, timeout: float = 40.0) -> str:
        """Wait until ``text`` is on screen; fail with the screen when it never shows."""
        return wait_for_text(self.screen, text, timeout=timeout)

    def title(self) -> str:
        """The pane's title as tmux holds it (what OSC 0/2 would change)."""
        return self.run("display-message", "-p", "-t", "main", "#{pane_title}").strip()

    def buffers(self) -> str:
        """tmux's paste buffers (what OSC 52 would fill)."""
        return self.run("list-buffers")

    def close(self) -> None:
        """Kill the server."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    server = Tmux(tmp_path)
    yield server
    server.close()


def test_a_hostile_replay_leaves_title_clipboard_and_screen_alone(tmux: Tmux, tmp_path: Path) -> None:
    run_dir = hostile_run(tmp_path / "run", steps=4)
    memory = hostile_memory_root(tmp_path / "memory")
    skills = hostile_skills_db(tmp_path / "skills.db")
    command = [
        sys.executable,
        "-m",
        "tui.cli",
        "replay",
        str(run_dir),
        "--memory",
        str(memory),
        "--skills",
        str(skills),
    ]
    # The check is only worth something if this tmux really obeys the sequences: prove it first.
    tmux.start(["printf", "\\033]0;probe-title\\007\\033]52;c;cHJvYmU=\\007"], tmp_path, (200, 50))
    tmux.wait_for("EXIT=0")
    assert tmux.title() == "probe-title"
    assert "probe" in tmux.run("show-buffer")
    tmux.run("delete-buffer")
    tmux.run("select-pane", "-t", "main", "-T", TITLE)
    tmux.keys("clear", "Enter")
    assert tmux.title() == TITLE and not tmux.buffers()

    line = " ".join("'" + c.replace("'", "'\\''") + "'" for c in command) + "; echo EXIT=$?"
    tmux.keys(line, "Enter")
    screen = tmux.wait_for("step 0 (0–3)")
    assert "␛]0;run-title␇" in screen  # the run id, shown inert in the header
    for step in range(1, 4):  # every step, every pane on screen at once (200x50)
        tmux.keys("Right")
        tmux.wait_for(f"step {step} (0–3)")
    tmux.keys("Tab", "Tab", "Tab", "Tab", "Tab")  # focus moves through the panes and the browsers
    tmux.wait_for("d Delete  f Filter")  # the fifth reached the memory browser: its keys are in the footer
    assert tmux.title() == TITLE, tmux.title()
    assert not tmux.buffers(), tmux.buffers()
    tmux.wait_for("step 3 (0–3)")  # not wiped (ESC [ 2 J), still in the app (ESC [ ? 1049 l)
    tmux.keys("q")
    tmux.wait_for("EXIT=0")
    assert tmux.title() == TITLE
    assert not tmux.buffers()

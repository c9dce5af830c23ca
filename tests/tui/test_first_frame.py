"""What `qitos-tui replay` loads before its first frame: only what that frame shows.

The launch is a subprocess running the real CLI with a driver that takes the frames without a
terminal (first_frame_driver.py): at the first frame that shows the run, the process's module
names are written down and it ends, so nothing imported after that frame is counted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qitos.trace.events import RunEvent
from tui.synthetic import synthetic_events, write_trace

MARK = "  step 0"  # the header's selected step, drawn with the run's first frame
HERE = Path(__file__).resolve().parent

# Not needed to draw the first frame, each with what it would cost there.
NOT_IN_THE_FIRST_FRAME = {
    "importlib.metadata": "Pygments' entry-point scan for plugin lexers (~30-70 ms)",
    "tui.panes.context": "a pane the first frame does not show",
    "tui.panes.budget": "a pane the first frame does not show",
    "tui.panes.cost_chart": "the Budget pane's chart",
    "tui.panes.compaction": "a pane the first frame does not show",
    "tui.panes.memory": "a pane the first frame does not show",
    "tui.panes.skills": "a pane the first frame does not show",
    "tui.panes.events": "a pane the first frame does not show",
    "tui.screens.dialogs": "the dialogs (opened by keys)",
    "tui.screens.pause_dialogs": "the pause dialogs (a live run's keys)",
    "tui.pending": "a paused run's pending actions (and difflib)",
    "tui.take_text": "y / o (copy, open in $EDITOR)",
    "tui.search": "/ (search) and e (export)",
    "tui.screens.run_list": "the run list (a folder of runs)",
    "tui.screens.diff": "`qitos-tui diff`",
    "tui.browsers": "the disk-backed Memory and Skills browsers",
    "tui.live": "a live run",
    "tui.headless": "--headless",
    "qitos.engine": "the Engine (a replay does not run it)",
    "qitos.models": "the model clients",
    "qitos.kit": "the agents' parsers and tools",
    "rich.syntax": "code highlighting (no code on this first screen)",
    "tui.follow": "following a trace another process still writes",
    "tui.widgets.pause_banner": "the pause line (a run paused now)",
    "qitos.trace.runs": "the run list's summaries (and their dataclasses)",
}


def first_frame_modules(run_dir: Path, tmp_path: Path) -> set[str]:
    """The modules `qitos-tui replay run_dir` has loaded when its first frame shows the run."""
    out = tmp_path / "modules.json"
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
        TEXTUAL_DRIVER="first_frame_driver:FirstFrameDriver",
        FIRST_FRAME_MARK=MARK,
        FIRST_FRAME_OUT=str(out),
        COLUMNS="120",
        LINES="40",
    )
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "replay", str(run_dir)],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and out.is_file(), f"no first frame showing {MARK!r}: {done.stderr}"
    return set(json.loads(out.read_text(encoding="utf-8")))


def loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


def test_the_first_frame_loads_neither_hidden_panes_nor_dialogs_nor_the_engine(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    write_trace(run_dir, synthetic_events(6))
    modules = first_frame_modules(run_dir, tmp_path)
    assert "tui.panes.exchanges" in modules and "tui.screens.run" in modules  # the frame was the run's
    extra = {name: why for name, why in NOT_IN_THE_FIRST_FRAME.items() if loaded(modules, name)}
    assert extra == {}


def first_reply_with(events: Iterator[RunEvent], **payload: Any) -> Iterator[RunEvent]:
    """The events, with ``payload``'s fields set in the first reply (the first frame shows it)."""
    first = True
    for event in events:
        if first and event.kind == "model_response":
            first = False
            event.payload.update(payload)
        yield event


# The first reply writes a Python file: a code block in the first frame.
WRITES_CODE = {
    "tool_calls": [
        {"name": "write_file", "args": {"path": "calc.py", "content": "def add(a, b):\n    return a + b\n"}}
    ]
}
# The first reply in prose (no native tool calls, no format a parser reads): the first frame tries
# every parser on it before it shows it as text.
IN_PROSE = {"text": "I will read calc.py first, then fix the sum.", "tool_calls": []}


def test_code_in_the_first_frame_is_highlighted_without_scanning_for_lexer_plugins(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    write_trace(run_dir, first_reply_with(synthetic_events(6), **WRITES_CODE))
    modules = first_frame_modules(run_dir, tmp_path)
    assert "pygments.lexers.python" in modules  # the block was highlighted as Python
    assert "importlib.metadata" not in modules


def test_a_prose_reply_in_the_first_frame_is_tried_without_the_xml_or_model_modules(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    write_trace(run_dir, first_reply_with(synthetic_events(6), **IN_PROSE))
    modules = first_frame_modules(run_dir, tmp_path)
    assert "qitos.kit.parser.xml_parser" in modules  # the parsers were asked to read the reply
    # ElementTree and expat (~3.5 ms) only for a reply with markup in it; the model clients
    # (~3 ms) are only named in the parsers' annotations.
    assert not {"xml.etree.ElementTree", "pyexpat", "qitos.models"} & modules

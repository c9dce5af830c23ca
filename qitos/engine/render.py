"""A plain console render hook: one line per step phase result, for ``AgentModule.run(render=True)``."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from qitos.engine.hooks import EngineHook
from qitos.trace.events import EventKind, Stage

THEMES: dict[str, dict[str, str]] = {
    "research": {"step": "step", "sep": " | ", "end": "run end"},
    "plain": {"step": "#", "sep": " ", "end": "end"},
}


class ConsoleRenderHook(EngineHook):
    """Writes decisions, tool results and the run end to a text stream as they happen."""

    def __init__(self, theme: str = "research", stream: TextIO | None = None) -> None:
        if theme not in THEMES:
            raise ValueError(f"unknown render theme {theme!r}; known: {sorted(THEMES)}")
        self.theme = THEMES[theme]
        self.stream = stream or sys.stdout

    def on_event(self, event: Any, state: Any = None, record: Any = None, engine: Any = None) -> None:
        """Render decision_ready, tool_result, error and run_end events (the rest is not needed)."""
        t = self.theme
        payload = event.payload
        if event.phase == EventKind.DECIDE and payload.get("stage") == Stage.DECISION_READY:
            actions = ", ".join(a.get("name", "?") for a in payload.get("actions", []) if isinstance(a, dict))
            what = actions or payload.get("final_answer") or payload.get("mode")
            line = f"{t['step']} {event.step_id}{t['sep']}{payload.get('mode')}{t['sep']}{what}"
        elif event.phase == EventKind.TOOL_RESULT:
            status = "ok" if payload.get("ok") else f"error: {payload.get('error')}"
            line = f"{t['step']} {event.step_id}{t['sep']}{payload.get('tool')}{t['sep']}{status}"
        elif event.phase == EventKind.ERROR:
            line = f"{t['step']} {event.step_id}{t['sep']}error{t['sep']}{payload.get('message')}"
        elif event.phase == EventKind.RUN_END:
            line = f"{t['end']}{t['sep']}{payload.get('status')}{t['sep']}{payload.get('stop_reason')}"
        else:
            return
        self.stream.write(line + "\n")
        self.stream.flush()

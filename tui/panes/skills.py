"""Skills pane: the skill versions published or deprecated during the run, up to the selected step."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from tui.panes.base import Pane, kv
from tui.store import StepSummary, short
from tui.text import inert


class SkillsPane(Pane):
    """Publications and deprecations from the run's events, marking those of the selected step."""

    TITLE = "Skills"

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        return (*super().view_key(step), self.store.skill_ops)

    def render_step(self, step: StepSummary) -> RenderableType:
        pos = self.store.step_pos.get(step.step, 0)
        parts: list[RenderableType] = [kv("run", f"{self.store.skill_ops} skill operations", style="bold")]
        found = False
        for s in self.store.steps[: pos + 1]:
            for i in s.skills:
                found = True
                ev = self.store.load(i)
                p = ev.payload
                here = "▶ " if s is step else "  "
                if ev.phase == "skill_publish":
                    text = f"{here}step {s.step}: publish {p.get('name')} v{p.get('version')} [{p.get('namespace', '')}]"
                    line = inert(text, style="green")
                    if p.get("description"):
                        line.append_text(inert(f" — {short(p['description'], 40)}", "dim"))
                else:
                    changed = "deprecated" if p.get("changed") else "already deprecated"
                    line = inert(f"{here}step {s.step}: {changed} {p.get('name')} [{p.get('namespace', '')}]")
                parts.append(line)
        if not found:
            parts.append(Text(f"no skill operation up to step {step.step}", style="dim"))
        return Group(*parts)

"""Skills pane: the skill versions published or deprecated during the run, up to the selected step."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from qitos.trace.events import EventKind
from qitos.trace.store_payloads import SkillDeprecate, SkillPublish
from tui.panes.base import LinePane
from tui.panes.parts import kv
from tui.store import StepSummary, short
from tui.text import inert


class SkillsPane(LinePane):
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
                here = "▶ " if s is step else "  "
                if ev.phase == EventKind.SKILL_PUBLISH:
                    skill = SkillPublish.read(ev.payload)
                    version = "?" if skill.version is None else skill.version
                    text = f"{here}step {s.step}: publish {skill.name} v{version} [{skill.namespace}]"
                    line = inert(text, style=self.tone("good"))
                    if skill.description:
                        line.append_text(inert(f" — {short(skill.description, 40)}", "dim"))
                else:
                    gone = SkillDeprecate.read(ev.payload)
                    changed = "deprecated" if gone.changed else "already deprecated"
                    line = inert(f"{here}step {s.step}: {changed} {gone.name} [{gone.namespace}]")
                parts.append(line)
        if not found:
            parts.append(Text(f"no skill operation up to step {step.step}", style="dim"))
        return Group(*parts)

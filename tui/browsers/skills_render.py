"""How the skills browser draws: the skill and version lists and a version's highlighted source."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import RenderableType
from rich.syntax import Syntax
from rich.text import Text

from qitos.kit.tool.library.base import ToolArtifact
from tui.browsers.virtual_list import VirtualList
from tui.structured import Tone, syntax_theme
from tui.text import inert, inert_str
from tui.widgets.tones import DIM

if TYPE_CHECKING:
    from tui.browsers.skills_browser import SkillsBrowser


class SkillList(VirtualList):
    """One row per skill: published-in-run mark, name, latest version, active or deprecated, tags."""

    MARK_CELLS = 2

    def __init__(self, browser: SkillsBrowser, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.browser = browser

    def row_text(self, index: int, width: int) -> Text:
        skill = self.browser.shown[index]
        name = skill["name"]
        # Spaces end a run rather than start one (see tui.browsers.summary: SVG renderers drop a
        # run's leading space, running "active" into "#demo" in the screenshots).
        text = Text()
        published = any(n == name for n, _ in self.browser.published)
        text.append("★ " if published else "  ", style=self.tone("good"))
        text.append_text(inert(f"{name} "))  # names, tags and descriptions are data
        text.append_text(inert(f"v{skill['latest_version']} ", DIM))
        state_tone = self.tone("good" if skill["active"] else "bad")
        text.append("active " if skill["active"] else "deprecated ", style=state_tone)
        if skill["tags"]:
            text.append_text(inert(" ".join(f"#{t}" for t in skill["tags"]), DIM))
        text.rstrip()
        return text

    def row_classes(self, index: int) -> tuple[str, ...]:
        return () if self.browser.shown[index]["active"] else ("dim",)


class VersionList(VirtualList):
    """One row per version of the selected skill, newest first; ★ published in the run, ◆ diff base."""

    MARK_CELLS = 3  # ★, ◆ and the space after them: the cursor starts at the version

    def __init__(self, browser: SkillsBrowser, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.browser = browser

    def row_text(self, index: int, width: int) -> Text:
        artifact = self.browser.versions[index]
        published = (artifact.name, artifact.version) in self.browser.published
        text = Text()
        text.append("★" if published else " ", style=self.tone("good"))
        text.append("◆ " if artifact.version == self.browser.base_version else "  ", style=self.tone("warn"))
        text.append(f"v{artifact.version:<3} ")
        text.append_text(inert(artifact.updated_at[:19].replace("T", " ") + " ", DIM))
        text.append_text(inert(artifact.description))
        return text


def source_view(artifact: ToolArtifact, language: str, tone: Tone) -> RenderableType:
    """A version's source with line numbers, wrapped to the pane, highlighted in the theme's tones."""
    return Syntax(
        inert_str(artifact.source),  # highlighting keeps a control character a character: neutralise it first
        language,
        line_numbers=True,
        word_wrap=True,
        theme=syntax_theme(tone),
    )


def source_shape(artifact: ToolArtifact, width: int) -> tuple[int, int, bool] | None:
    """(width, lines, ends with a newline) of a version's source view if no line wraps, else None.

    Two sources of the same shape draw into boxes of the same size, so the second needs no layout
    pass; None (a line may wrap, so the height is not just the line count) always lays out.
    """
    source = inert_str(artifact.source)
    lines = source.split("\n")
    # The gutter: the widest line number, a space each side and the rule (rounded up generously).
    room = width - len(str(len(lines))) - 4
    if room <= 0 or any(cell_len(line.expandtabs(8)) > room for line in lines):
        return None
    return (width, len(lines), source.endswith("\n"))


def count(n: int, noun: str) -> str:
    """'1 skill', '3 skills'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"

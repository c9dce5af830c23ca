"""Memory and skill browsers: reusable widgets for the run panes and the standalone apps."""

from __future__ import annotations

from tui.browsers.apps import MemoryBrowserApp, SkillsBrowserApp, make_memory_app, make_skills_app
from tui.browsers.memory_browser import MemoryBrowser
from tui.browsers.skills_browser import SkillsBrowser

__all__ = [
    "MemoryBrowser",
    "MemoryBrowserApp",
    "SkillsBrowser",
    "SkillsBrowserApp",
    "make_memory_app",
    "make_skills_app",
]

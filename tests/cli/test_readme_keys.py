"""The README's keys table names every key of the run screen, pane scrolling and the browsers' keys."""

from __future__ import annotations

import re
from pathlib import Path

from textual.binding import Binding

from tui.browsers.memory_browser import MemoryBrowser
from tui.browsers.skills_browser import SkillsBrowser
from tui.panes.base import LinePane
from tui.panes.events import EventsPane
from tui.screens.run import PANES, RunScreen

README = Path(__file__).resolve().parents[2] / "README.md"
# How the README writes a Textual key name.
SHOWN = {
    "left": "←",
    "right": "→",
    "up": "↑",
    "down": "↓",
    "home": "Home",
    "end": "End",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "slash": "/",
    "question_mark": "?",
    "escape": "Esc",
    "tab": "Tab",
    "shift+tab": "Shift+Tab",
    "enter": "Enter",
    "space": "Space",
}


def keys_section() -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"^## Keys\n(.*?)^## ", text, re.DOTALL | re.MULTILINE)
    assert match, "the README lost its Keys section"
    return match.group(1)


def test_every_run_screen_and_pane_key_is_in_the_readme() -> None:
    section = keys_section()
    missing = []
    for binding in [*RunScreen.BINDINGS, *LinePane.BINDINGS, *EventsPane.BINDINGS]:
        assert isinstance(binding, Binding)
        for key in binding.key.split(","):
            shown = SHOWN.get(key, key)
            if key.isdigit():
                shown = f"`1`…`{len(PANES)}`"
            elif f"`{shown}`" not in section:
                missing.append(key)
                continue
            assert shown in section
    assert missing == [], f"keys missing from the README's keys table: {missing}"


def test_the_browsers_keys_and_units_are_explained() -> None:
    section = keys_section()
    for browser in (MemoryBrowser, SkillsBrowser):
        for binding in browser.BINDINGS:
            assert isinstance(binding, Binding)
            if binding.show:
                assert f"`{binding.key}`" in section, binding.key
    assert "*units*" in section and "characters" in section
    assert "recorded step ids" in section


def test_the_run_list_and_diff_keys_are_in_the_readme() -> None:
    """Every key of the run list (filter, sort, mark, compare, ...) and of the diff screen."""
    from tui.screens.diff import DiffScreen, PairList
    from tui.screens.run_list import RunListScreen

    section = keys_section()
    text = README.read_text(encoding="utf-8")
    missing = []
    for binding in [*RunListScreen.BINDINGS, *DiffScreen.BINDINGS, *PairList.BINDINGS]:
        assert isinstance(binding, Binding)
        for key in binding.key.split(","):
            if f"`{SHOWN.get(key, key)}`" not in section and f"`{SHOWN.get(key, key)}`" not in text:
                missing.append(key)
    assert missing == [], f"keys missing from the README: {missing}"
    assert "`s` sorts" in section and "`c` compares" in section and "`/` filters" in section

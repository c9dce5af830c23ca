"""KeysFooter: a focus move with the same keys on show keeps the footer's keys; a change of the
keys on show (one appears, one is disabled) composes them again, as Textual's Footer does, each
key born as compact as the footer."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button

from tui.widgets.keys_footer import KeysFooter


class KeysApp(App[None]):
    """Two buttons to move the focus between; `p` shows only while live, `r` is enabled only while paused."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("p", "pause", "Pause"),
        Binding("r", "resume", "Resume"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.live = False
        self.paused = False

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield KeysFooter(show_command_palette=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pause":
            return self.live
        if action == "resume":
            return True if self.paused else None  # None: shown, disabled
        return True


def keys(app: App[None]) -> list[Any]:
    """The footer's key widgets, in order."""
    return list(app.query("FooterKey"))


async def test_focus_moves_keep_the_keys_and_new_keys_compose_again() -> None:
    app = KeysApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        before = keys(app)
        assert [k.key for k in before] == ["q", "r"]
        assert before[1].has_class("-disabled")

        for _ in range(3):  # each focus move updates the screen's bindings
            await pilot.press("tab")
            await pilot.pause()
        assert app.focused is not None
        assert keys(app) == before  # the same widgets: nothing composed again

        app.live = True
        app.refresh_bindings()
        await pilot.pause()
        now = keys(app)
        assert [k.key for k in now] == ["q", "p", "r"]

        app.paused = True
        app.refresh_bindings()
        await pilot.pause()
        paused = keys(app)
        assert not paused[2].has_class("-disabled")  # enabled now: composed again

        app.refresh_bindings()  # nothing changed
        await pilot.pause()
        assert keys(app) == paused


async def test_keys_are_born_as_compact_as_the_footer(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a wide (not compact) footer a new key is never compact, not even for its first style
    (FooterKey's default is compact): its compactness is set once, to the footer's."""
    from textual.widgets._footer import FooterKey

    seen: list[bool] = []
    watch = FooterKey._watch_compact

    def spy(key: FooterKey, compact: bool) -> None:
        seen.append(compact)
        watch(key, compact)

    monkeypatch.setattr(FooterKey, "_watch_compact", spy)
    app = KeysApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        footer = app.query_one(KeysFooter)
        footer.compact = False
        await pilot.pause()
        assert not any(key.has_class("-compact") for key in keys(app))
        seen.clear()
        app.live = True  # `p` shows: the keys are composed again
        app.refresh_bindings()
        await pilot.pause()
        assert [k.key for k in keys(app)] == ["q", "p", "r"]
        assert seen and not any(seen)  # each new key's compactness was only ever False
        assert not any(key.has_class("-compact") for key in keys(app))
        footer.compact = True  # and they still follow the footer
        await pilot.pause()
        assert all(key.has_class("-compact") for key in keys(app))

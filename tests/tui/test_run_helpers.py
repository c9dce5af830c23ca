"""The run screen's helpers without Textual: a plain host stands in for the screen they call back.

Tail (keep the newest step selected) and follow state live in the Feeder alone: a key that leaves
the newest step ends the tail, a resume takes it back, and following shows in the host's view."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.message import Message

from tui import screenshots
from tui.messages import FollowUpdate, RunReturned
from tui.screens.feeding import Feeder
from tui.screens.live_control import LiveController
from tui.store import ListSource, RunStore


class Host:
    """What a RunScreen gives its helpers, recorded: the selection, messages, notes and workers."""

    def __init__(self) -> None:
        self.app: Any = object()  # no App: the GC tuning is then an idle one
        self.selected: int | None = None
        self.revision = 0
        self.following: list[bool] = []
        self.messages: list[Message] = []
        self.after_refresh: list[Callable[[], object]] = []
        self.engine_starts: list[bool] = []
        self.notes: list[str] = []
        self.errors: list[tuple[str, str]] = []

    def post_message(self, message: Message) -> bool:
        self.messages.append(message)
        return True

    def set_timer(self, delay: float, callback: Callable[[], object]) -> object:
        return object()  # the flush tick is driven by hand here

    def set_interval(self, interval: float, callback: Callable[[], object]) -> object:
        return object()

    def call_after_refresh(self, callback: Callable[[], object]) -> bool:
        self.after_refresh.append(callback)
        return True

    def show_folded(self, newest: int | None) -> None:
        if newest is not None:
            self.selected = newest
        self.revision += 1

    def show_progress(self, text: str) -> None:
        pass

    def show_following(self, following: bool) -> None:
        self.following.append(following)

    def stop_workers(self, *groups: str) -> None:
        pass

    def refresh_bindings(self) -> None:
        pass

    def notify(self, message: str, **_: object) -> None:
        self.notes.append(message)

    def run_engine(self, resume: bool) -> None:
        self.engine_starts.append(resume)

    def show_note(self, note: str) -> None:
        self.notes.append(note)

    def show_error(self, title: str, detail: str) -> None:
        self.errors.append((title, detail))


def test_the_tail_keeps_the_newest_step_selected_until_a_key_leaves_it_and_a_resume_takes_it_back(
    tmp_path: Path,
) -> None:
    host = Host()
    live = screenshots.demo_live(tmp_path)
    feeder = Feeder(host, RunStore(ListSource()), live=live)  # type: ignore[arg-type]
    control = LiveController(host, live, feeder)  # type: ignore[arg-type]
    control.start()
    assert control.running and not control.answered
    for callback in host.after_refresh:
        callback()
    assert host.engine_starts == [False]  # the screen's worker would now run the Engine:
    returned = control.run(resume=False)  # here it runs on this thread, for real
    assert isinstance(returned, RunReturned)
    control.returned(returned)
    steps = len(feeder.store.steps)
    assert control.answered and steps > 1
    assert host.selected == steps - 1  # the tail: the newest step is selected

    feeder.selected(0)  # a key went to the first step: the tail is off
    feeder.flush_now()
    assert host.selected == steps - 1 and not feeder.tail
    host.selected = 0
    feeder.flush_now()
    assert host.selected == 0  # new state shown, the selection left where the key put it

    assert live.snapshot is not None  # the demo pauses before acting: resuming takes the tail back
    control.resume_with("resumed")
    assert feeder.tail and host.engine_starts == [False, True] and host.notes[-1] == "resumed"
    feeder.flush_now()
    assert host.selected == len(feeder.store.steps) - 1
    live.stop_paused()


def test_following_ends_in_the_feeder_and_the_host_is_told(tmp_path: Path) -> None:
    host = Host()
    feeder = Feeder(host, RunStore(ListSource()), replay=tmp_path)  # type: ignore[arg-type]
    feeder.following = True
    feeder.follow_update(FollowUpdate("finished", done=True))
    assert not feeder.following and host.following == [False]
    assert feeder.follow_result == "finished"
    assert host.selected is None  # a replay that no longer follows does not move the selection

"""The panes after the first are named by module (imported when built) and mounted after the first frame."""

from __future__ import annotations

from pathlib import Path

from tui.app import make_app
from tui.panes.base import Pane
from tui.panes.deferred import DeferredPane
from tui.screens.run import PANES


def test_a_deferred_pane_says_the_title_of_the_class_it_builds() -> None:
    deferred = [factory for factory in PANES if isinstance(factory, DeferredPane)]
    assert len(deferred) == len(PANES) - 1  # all but the first
    for factory in deferred:
        cls = factory.pane_class()
        assert issubclass(cls, Pane) and cls.__name__ == factory.name
        assert cls.TITLE == factory.TITLE


async def test_every_pane_is_mounted_in_order_after_the_first_frame(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(170, 48)) as pilot:
        for _ in range(50):
            if len(app.screen.query(Pane)) == len(PANES):
                break
            await pilot.pause(0.02)
        panes = list(app.screen.query_one("#panes").children)
        assert [p.id for p in panes] == [f"pane-{f.TITLE.lower()}" for f in PANES]
        assert [type(p).__name__ for p in panes[1:]] == [f.name for f in PANES[1:]]  # type: ignore[attr-defined]
        assert all(p.size.width > 0 and p.size.height > 0 for p in panes)  # all laid out at this size

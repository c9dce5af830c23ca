"""``f``: fork a replayed or finished run at the selected step, in a new live RunScreen over this one.

The new run re-runs the agent with the recorded model responses and tool results put back up to
the selected step (no model call, no tool side effect), pauses there, and goes on live when
resumed. The agent comes from the app's ``fork_agent`` factory (the CLI's AGENT.py, or the demo).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.binding import Binding, BindingType

from tui.screens.pause_actions import PauseActionsScreen


class ForkActionScreen(PauseActionsScreen):
    """A PauseActionsScreen that can fork its run at the selected step (``f``)."""

    # Listed by ? (help), not in the footer, which at 80 columns must keep q Quit.
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f", "fork", "Fork at the selected step", show=False)]
    export_dir: Path  # where the fork's exports go: set by RunScreen, the screen this is a base of

    def _fork_source(self) -> Path | None:
        """The run directory a fork re-runs: the replayed one, or a finished live run's trace."""
        if self.live is not None:
            if self.is_live or self.live.writer is None:
                return None
            return Path(self.live.writer.run_dir)
        return self.replay

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``f`` needs an agent to fork with, and a run that is not going on."""
        if action == "fork":
            if getattr(self.app, "fork_agent", None) is None:
                return False
            return True if self._fork_source() is not None and self.store.steps else None
        return super().check_action(action, parameters)

    def action_fork(self) -> None:
        """Fork at the selected step: replay up to it, pause there, go on live when resumed."""
        factory = getattr(self.app, "fork_agent", None)
        source = self._fork_source()
        if factory is None or source is None or not self.store.steps:
            return
        step = self.store.steps[min(self.selected, len(self.store.steps) - 1)].step
        from qitos.engine.replay import Recording, ReplayError, check_fork_step  # not for the first frame

        try:
            recording = Recording.load(source)
            check_fork_step(recording, step)
            agent = factory(recording.task)
        except ReplayError as exc:
            self.notify(str(exc), title="cannot fork", severity="error", markup=False)
            return
        except Exception as exc:  # noqa: BLE001 - a broken agent file is the user's to see
            self.notify(
                f"{type(exc).__name__}: {exc}", title="cannot build the agent", severity="error", markup=False
            )
            return
        from tui.fork import ForkSetup
        from tui.live import LiveRun
        from tui.screens.run import RunScreen
        from tui.store import ListSource, RunStore

        live = LiveRun(
            agent, recording.task, trace_dir=source.parent, configure=ForkSetup(recording, step, pause=True)
        )
        panes = getattr(self.app, "panes", None)
        self.app.push_screen(
            RunScreen(RunStore(ListSource()), live=live, export_dir=self.export_dir, panes=panes)
        )

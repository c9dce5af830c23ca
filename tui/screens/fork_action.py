"""ForkAction (``f``): fork a replayed or finished run at the selected step, in a new live RunScreen
over this one.

The new run re-runs the agent with the recorded model responses and tool results put back up to
the selected step (no model call, no tool side effect), pauses there, and goes on live when
resumed. The agent comes from the app's ``fork_agent`` factory (the CLI's AGENT.py, or the demo).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType

if TYPE_CHECKING:
    from tui.screens.live_control import LiveController
    from tui.screens.pause_actions import DialogHost

# Listed by ? (help), not in the footer, which at 80 columns must keep q Quit.
BINDINGS: list[BindingType] = [Binding("f", "fork", "Fork at the selected step", show=False)]


class ForkAction:
    """Forks its screen's run at a step into a new live RunScreen pushed over it."""

    def __init__(
        self, host: DialogHost, control: LiveController, *, replay: Path | None, export_dir: Path
    ) -> None:
        self.host = host
        self.control = control  # whether the run is still going (a live run forks once it is over)
        self.store = control.store
        self.replay = replay
        self.export_dir = export_dir  # where the fork's exports go

    def _source(self) -> Path | None:
        """The run directory a fork re-runs: the replayed one, or a finished live run's trace."""
        live = self.control.live
        if live is not None:
            if self.control.is_live or live.writer is None:
                return None
            return Path(live.writer.run_dir)
        return self.replay

    def check(self) -> bool | None:
        """``f`` needs an agent to fork with, and a run that is not going on."""
        if getattr(self.host.app, "fork_agent", None) is None:
            return False
        return True if self._source() is not None and self.store.steps else None

    def fork(self, selected: int) -> None:
        """Fork at the step at position ``selected``: replay up to it, pause there, go on live when resumed."""
        app = self.host.app
        factory = getattr(app, "fork_agent", None)
        source = self._source()
        if factory is None or source is None or not self.store.steps:
            return
        step = self.store.steps[min(selected, len(self.store.steps) - 1)].step
        from qitos.engine.replay import Recording, ReplayError, check_fork_step  # not for the first frame

        try:
            recording = Recording.load(source)
            check_fork_step(recording, step)
            agent = factory(recording.task)
        except ReplayError as exc:
            self.host.notify(str(exc), title="cannot fork", severity="error", markup=False)
            return
        except Exception as exc:  # noqa: BLE001 - a broken agent file is the user's to see
            self.host.notify(
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
        panes = getattr(app, "panes", None)
        app.push_screen(RunScreen(RunStore(ListSource()), live=live, export_dir=self.export_dir, panes=panes))

"""The qitos-tui application: composes the screens; `make_app` builds it for the CLI and the tests."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from tui.live import LiveRun
from tui.screens.dialogs import ErrorScreen
from tui.screens.run import RunScreen
from tui.screens.run_list import RunListScreen
from tui.store import ListSource, RunStore


class QitosApp(App[int]):
    """Runs an agent live, or replays a recorded run, in one RunScreen (or a run list first)."""

    CSS_PATH = "app.tcss"
    TITLE = "qitos-tui"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit_app", "Quit")]

    def __init__(
        self,
        *,
        replay: Path | None = None,
        live: LiveRun | None = None,
        error: tuple[str, str] | None = None,
        export_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.replay_path = replay
        self.live = live
        self.error = error
        self.export_dir = export_dir

    def on_mount(self) -> None:
        if self.error is not None:
            self._fatal(*self.error)
        elif self.live is not None:
            self.push_screen(RunScreen(RunStore(ListSource()), live=self.live, export_dir=self.export_dir))
        elif self.replay_path is not None:
            self._open_path(self.replay_path)
        else:
            self._fatal(
                "Nothing to show", "make_app needs a run to replay, an agent to run, or an error to show."
            )

    def _fatal(self, title: str, detail: str) -> None:
        """Show the error panel; closing it ends the app with status 1."""
        self.push_screen(ErrorScreen(title, detail), lambda _: self.exit(1, return_code=1))

    def _open_path(self, path: Path) -> None:
        from qitos.trace.reader import TraceError, is_run_dir, list_runs

        if not path.exists():
            self._fatal("Cannot replay", f"{path}: no such file or directory")
            return
        if is_run_dir(path):
            self.open_run(path, from_list=False)
            return
        try:
            runs = list_runs(path)
        except (TraceError, OSError) as exc:
            self._fatal("Cannot list runs", f"{path}: {exc}")
            return
        if not runs:
            self._fatal("No runs", f"{path} holds no run directories (manifest.json / events.jsonl)")
            return
        self.push_screen(RunListScreen(path, runs, lambda p: self.open_run(p, from_list=True)))

    def open_run(self, run_dir: Path, *, from_list: bool) -> None:
        """Open one run directory in a RunScreen; unreadable ones get the error panel."""
        from qitos.trace.reader import TraceError, TraceReader

        try:
            reader = TraceReader(run_dir)
        except (TraceError, OSError) as exc:
            if from_list:
                self.push_screen(ErrorScreen("Cannot open run", f"{run_dir}: {exc}"))
            else:
                self._fatal("Cannot open run", f"{run_dir}: {exc}")
            return
        store = RunStore(reader, run_id=reader.run_id)
        store.declared_status = reader.status
        model = reader.manifest.get("model_id")
        store.model_id = str(model) if model else ""
        summary = reader.manifest.get("summary")
        tokens = reader.manifest.get("token_usage")
        if tokens is None and isinstance(summary, dict):
            tokens = summary.get("token_usage")
        if isinstance(tokens, int):  # upstream traces carry usage only in the manifest
            store.declared_tokens = tokens
        screen = RunScreen(
            store,
            replay=reader,
            notices=list(reader.notices),
            export_dir=self.export_dir,
            from_list=from_list,
        )
        self.push_screen(screen)

    async def action_quit_app(self) -> None:
        """Quit; a live run asks first."""
        screen = self.screen
        if isinstance(screen, RunScreen):
            await screen.request_quit()
        else:
            self.exit(0)


def make_app(
    *,
    replay: str | Path | None = None,
    live: LiveRun | None = None,
    error: tuple[str, str] | None = None,
    export_dir: str | Path | None = None,
) -> QitosApp:
    """The one way to build the app: the CLI and the tests both call this."""
    return QitosApp(
        replay=Path(replay) if replay is not None else None,
        live=live,
        error=error,
        export_dir=Path(export_dir) if export_dir is not None else None,
    )

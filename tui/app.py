"""The qitos-tui application: composes the screens; `make_app` builds it for the CLI and the tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen

from tui.crash import LastResort
from tui.gc_tuning import FrameFriendlyGC, resume_after_launch
from tui.replay import HeadSource, manifest_tokens, read_manifest
from tui.screens.feeding import FIRST_PAINT_EVENTS
from tui.screens.run import RunScreen
from tui.store import ListSource, RunStore

if TYPE_CHECKING:
    from tui.live import LiveRun
    from tui.panes.base import PaneFactory


class QitosApp(LastResort, App[int]):
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
        follow: bool = False,
        panes: tuple[PaneFactory, ...] | None = None,
        fork_agent: Callable[[str], Any] | None = None,
        diff: tuple[Path, Path] | None = None,
    ) -> None:
        super().__init__()
        self.fork_agent = fork_agent  # builds a fresh agent for `f` (fork here) from the run's task
        self.diff = diff  # two run directories to compare side by side
        self.replay_path = replay
        self.live = live
        self.error = error
        self.export_dir = export_dir
        self.follow = follow  # replay --follow: follow the trace while another process writes it
        self.panes = panes
        # The cyclic collector's tuning, for as long as the app runs (tui.gc_tuning): started on
        # the UI thread at mount, so that only that thread freezes objects.
        self.gc_tuning = FrameFriendlyGC()

    def get_default_screen(self) -> Screen[Any]:
        """The run itself when there is one: no blank screen is drawn before it (first paint)."""
        from qitos.trace.layout import is_run_dir

        if self.error is None and self.diff is not None:
            from tui.screens.diff import DiffScreen

            return DiffScreen(*self.diff)
        if self.error is None and self.live is not None:
            return RunScreen(
                RunStore(ListSource()), live=self.live, export_dir=self.export_dir, panes=self.panes
            )
        if self.error is None and self.replay_path is not None and is_run_dir(self.replay_path):
            return self.run_screen(self.replay_path, from_list=False)
        return super().get_default_screen()

    def on_mount(self) -> None:
        self.gc_tuning.start()
        # The first frame is drawn after this refresh: the launch is over (tui.gc_tuning).
        self.call_after_refresh(resume_after_launch)
        if isinstance(self.screen, RunScreen) or (self.diff is not None and self.error is None):
            return
        if self.error is not None:
            self._fatal(*self.error)
        elif self.replay_path is not None:
            self._open_path(self.replay_path)
        else:
            self._fatal(
                "Nothing to show", "make_app needs a run to replay, an agent to run, or an error to show."
            )

    def on_unmount(self) -> None:
        self.gc_tuning.stop()  # thresholds as they were, and every spared object given back

    def _fatal(self, title: str, detail: str) -> None:
        """Show the error panel; closing it ends the app with the status `--headless` gives the
        same failure (2: bad input), so scripts see one code either way."""
        from tui.headless import EXIT_BAD_INPUT  # it loads the trace writer: not for the first frame
        from tui.screens.dialogs import ErrorScreen

        self.push_screen(
            ErrorScreen(title, detail), lambda _: self.exit(EXIT_BAD_INPUT, return_code=EXIT_BAD_INPUT)
        )

    def _open_path(self, path: Path) -> None:
        from qitos.trace.reader import is_run_dir

        if not path.exists():
            self._fatal("Cannot replay", f"{path}: no such file or directory")
            return
        if is_run_dir(path):
            self.open_run(path, from_list=False)
            return
        if not path.is_dir():
            self._fatal("Cannot list runs", f"{path}: not a folder")
            return
        from tui.screens.run_list import RunListScreen

        def empty(reason: str) -> None:
            self._fatal("No runs" if "holds no run" in reason else "Cannot list runs", reason)

        # The list reads the manifests itself, newest first, so its first rows do not wait for all.
        self.push_screen(
            RunListScreen(path, None, lambda p: self.open_run(p, from_list=True), on_empty=empty)
        )

    def open_run(self, run_dir: Path, *, from_list: bool) -> None:
        """Open one run directory in a RunScreen over the current screen."""
        from qitos.trace.layout import is_run_dir

        if not is_run_dir(run_dir):
            title, detail = (
                "Cannot open run",
                f"{run_dir}: not a run directory (no manifest.json or events.jsonl)",
            )
            if from_list:
                from tui.screens.dialogs import ErrorScreen

                self.push_screen(ErrorScreen(title, detail))
            else:
                self._fatal(title, detail)
            return
        self.push_screen(self.run_screen(run_dir, from_list=from_list))

    def run_screen(self, run_dir: Path, *, from_list: bool) -> RunScreen:
        """A RunScreen replaying ``run_dir``, painting from the head of its trace at once."""
        from qitos.trace.layout import effective_status

        manifest = read_manifest(run_dir)
        run_id = manifest.get("run_id")
        run_id = run_id if isinstance(run_id, str) and run_id else run_dir.name
        store = RunStore(HeadSource(run_dir, limit=FIRST_PAINT_EVENTS, run_id=run_id), run_id=run_id)
        store.declared_status = effective_status(manifest, run_dir)
        model = manifest.get("model_id")
        store.model_id = model if isinstance(model, str) else ""  # a manifest is untrusted: text only
        store.declared_tokens = manifest_tokens(manifest)
        screen = RunScreen(
            store, replay=run_dir, export_dir=self.export_dir, from_list=from_list, panes=self.panes
        )
        screen.follow_writes = self.follow
        return screen

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
    follow: bool = False,
    memory_dir: str | Path | None = None,
    global_dir: str | Path | None = None,
    skills_db: str | Path | None = None,
    namespace: str | None = None,
    fork_agent: Callable[[str], Any] | None = None,
    diff: tuple[str | Path, str | Path] | None = None,
) -> QitosApp:
    """The one way to build the app: the CLI and the tests both call this.

    With ``memory_dir`` / ``skills_db`` the Memory and Skills panes browse those stores live from
    disk (beside what the run's events say); without them they show what the events carry.
    """
    panes = None
    if memory_dir is not None or skills_db is not None:
        from tui.browsers.panes import run_panes

        panes = run_panes(
            memory_dir=memory_dir, global_dir=global_dir, skills_db=skills_db, namespace=namespace
        )
    return QitosApp(
        panes=panes,
        replay=Path(replay) if replay is not None else None,
        live=live,
        error=error,
        export_dir=Path(export_dir) if export_dir is not None else None,
        follow=follow,
        fork_agent=fork_agent,
        diff=(Path(diff[0]), Path(diff[1])) if diff is not None else None,
    )

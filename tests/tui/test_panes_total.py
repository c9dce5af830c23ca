"""Every pane renders every step of any trace (issue 11 items 4–5): payloads read through the typed
payload classes, so a field of the wrong type shows as text or is left out, never raises."""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from rich.console import Console

from qitos.trace.reader import TraceReader
from tui.panes.budget import BudgetPane
from tui.panes.compaction import CompactionPane
from tui.panes.context import ContextPane
from tui.panes.exchanges import ExchangesPane
from tui.panes.memory import MemoryPane
from tui.panes.skills import SkillsPane
from tui.search import search
from tui.store import RunStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "trace"))
from hostile_traces import trace_families, write_trace  # noqa: E402

PANES = (ExchangesPane, ContextPane, CompactionPane, MemoryPane, SkillsPane, BudgetPane)
SCRATCH = "/dev/shm" if Path("/dev/shm").is_dir() else None


def test_every_pane_renders_every_step_of_hostile_traces() -> None:
    """Pane content for each step of generated traces renders; search runs over them too."""
    work = Path(tempfile.mkdtemp(prefix="qitos-panes-total-", dir=SCRATCH))
    console = Console(width=80, file=io.StringIO(), color_system=None)

    @settings(
        max_examples=120,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(family=trace_families())
    def check(family: list[dict[str, bytes | None]]) -> None:
        files = family[-1]  # the longest trace of the family
        write_trace(work / "run", files)
        with TraceReader(work / "run") as reader:
            store = RunStore(reader, run_id=reader.run_id)
            store.apply(reader.events())
            panes = [cls(store) for cls in PANES]
            for step in store.steps:
                for pane in panes:
                    console.print(pane.content(step))
            search(store, "a")

    try:
        check()
    finally:
        shutil.rmtree(work, ignore_errors=True)

"""Screenshots of the browsers on the demo agent's real memory and skill library.

Run: ``python -m tui.browsers.screenshots [--out screenshots]``. Runs the bundled demo agent to the
end in a temporary folder (offline), then edits one of its memory records the way a user would in
an editor, and saves from the real apps (headless):

- ``memory-browser.svg``: the demo's records, marked as recalled at the demo's last recall step,
  the edited one selected with its recalled content beside the current content;
- ``skills-diff.svg``: the demo's ``fix-failing-check`` skill with both versions marked as published
  by the run, and the diff from v1 to v2.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
import tempfile
from pathlib import Path
from typing import Any

from qitos.demo import TASK, build_agent
from qitos.kit.memory.memdir_format import record_filename
from qitos.trace.events import EventKind
from qitos.trace.reader import TraceReader
from tui.browsers.apps import make_memory_app, make_skills_app
from tui.headless import run_headless

SIZE = (120, 32)


def run_demo(base: Path) -> Path:
    """Run the demo agent to the end (resuming its pause) under ``base``; return its run directory."""
    agent = build_agent(workspace=base / "ws", memory_dir=base / "memory", skills_db=base / "skills.db")
    out = io.StringIO()
    code = run_headless(agent, TASK, trace_dir=base / "runs", run_id="demo", out=out, err=out)
    if code != 0:
        raise RuntimeError(f"the demo run failed:\n{out.getvalue()}")
    return base / "runs" / "demo"


def run_payloads(run_dir: Path, phase: EventKind) -> list[tuple[int, dict[str, Any]]]:
    """(step, payload) of every event of one phase in a run."""
    reader = TraceReader(run_dir)
    return [(int(ev.step_id or 0), dict(ev.payload)) for ev in reader.events() if ev.phase == phase]


def edit_like_an_editor(memory_dir: Path, record_id: str, extra: str) -> None:
    """Append a line to a record's text in place, as a user saving it in an editor would."""
    path = memory_dir / "records" / record_filename(record_id)
    with path.open("a", encoding="utf-8") as out:
        out.write(extra)


async def _wait(predicate: Any, what: str) -> None:
    for _ in range(1000):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise RuntimeError(f"timed out waiting for {what}")


async def memory_shot(base: Path, run_dir: Path, out: Path) -> None:
    """The memory browser at the demo's last recall step, the edited record selected."""
    recalls = run_payloads(run_dir, EventKind.MEMORY_RECALL)
    if not recalls:
        raise RuntimeError("the demo run recalled nothing")
    step = recalls[-1][0]
    at_step = [p for s, p in recalls if s == step]
    edited = at_step[0]["record_ids"][0]
    edit_like_an_editor(
        base / "memory", edited, "\n(Edited after the run: also check mean() on empty lists.)\n"
    )
    app = make_memory_app(base / "memory", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(lambda: app.browser.revision >= 1, "the memory scan")
        app.browser.show_recall(step, at_step)
        app.browser.select_record(edited)
        await pilot.pause()
        app.save_screenshot(str(out / "memory-browser.svg"))


async def skills_shot(base: Path, run_dir: Path, out: Path) -> None:
    """The skills browser: versions published by the run marked, the diff v1 → v2."""
    published = [p for _, p in run_payloads(run_dir, EventKind.SKILL_PUBLISH)]
    app = make_skills_app(base / "skills.db", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(lambda: app.browser.revision >= 1 and app.browser.versions, "the skills load")
        app.browser.mark_published(published)
        await pilot.press("tab", "d")
        await pilot.pause()
        app.save_screenshot(str(out / "skills-diff.svg"))


def main(argv: list[str] | None = None) -> int:
    """Write memory-browser.svg and skills-diff.svg into --out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="qitos-shots-") as tmp:
        base = Path(tmp)
        run_dir = run_demo(base)
        asyncio.run(memory_shot(base, run_dir, args.out))
        asyncio.run(skills_shot(base, run_dir, args.out))
    for name in ("memory-browser.svg", "skills-diff.svg"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Focus moves: the UI thread's CPU for one Tab on the run screen, footer and all.

Run: ``python tests/benchmarks/bench_focus.py [--runs N] [--presses N]``. Prints figures; not
collected by pytest.

Every focus move updates the screen's bindings, and Textual's Footer then composes all its keys
again (mounting and styling each) even when the keys on show are the same. Measured in one run,
the variants alternating, each in a fresh app replaying the same 20-step trace headless at 120x40:
ours (KeysFooter, composed again only when its keys change, each key as compact as the footer),
the peer (the same screen with Textual's Footer behaviour) and the floor (a footer never composed
again: what the focus move itself costs). Each press is timed from the key to the app being idle again (UI thread CPU).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script from the repo root or anywhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from textual.widgets import Footer  # noqa: E402

from tui.app import QitosApp  # noqa: E402
from tui.synthetic import synthetic_events, write_trace  # noqa: E402
from tui.widgets.keys_footer import KeysFooter  # noqa: E402

OURS = (KeysFooter.bindings_changed, KeysFooter.compose)
# What KeysFooter's two methods are in each variant.
VARIANTS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "qitos-tui (KeysFooter)": OURS,
    "Textual's Footer (peer)": (Footer.bindings_changed, Footer.compose),
    "footer never recomposed (floor)": (lambda self, screen: None, KeysFooter.compose),
}


async def tab_costs(run_dir: Path, presses: int) -> list[float]:
    """Milliseconds of UI thread CPU for each of ``presses`` Tab presses on the run screen."""
    app = QitosApp(replay=run_dir)
    costs = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await asyncio.sleep(0.3)  # the later panes mounted, the footer composed
        for _ in range(3):  # warm: every pane focused once
            await pilot.press("tab")
            await pilot.pause()
        for _ in range(presses):
            began = time.thread_time()
            await pilot.press("tab")
            await pilot.pause()
            await pilot.pause()  # the footer recomposes after the refresh that followed the key
            costs.append((time.thread_time() - began) * 1000)
    return costs


def main() -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh apps per variant (default 5)")
    parser.add_argument("--presses", type=int, default=20, help="Tab presses per app (default 20)")
    args, _ = parser.parse_known_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "twenty_steps"
        write_trace(run_dir, synthetic_events(20, run_id="twenty_steps", pause_at=None))
        costs: dict[str, list[float]] = {name: [] for name in VARIANTS}
        try:
            for _ in range(args.runs):
                for name, (bindings_changed, compose) in VARIANTS.items():
                    KeysFooter.bindings_changed = bindings_changed  # type: ignore[method-assign]
                    KeysFooter.compose = compose  # type: ignore[method-assign]
                    costs[name].extend(asyncio.run(tab_costs(run_dir, args.presses)))
        finally:
            KeysFooter.bindings_changed, KeysFooter.compose = OURS  # type: ignore[method-assign]
    print(f"focus move (Tab) on the run screen, UI thread CPU, median of {args.runs} x {args.presses}:")
    for name, values in costs.items():
        print(
            f"  {name}: {statistics.median(values):.1f} ms (p90 {statistics.quantiles(values, n=10)[-1]:.1f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

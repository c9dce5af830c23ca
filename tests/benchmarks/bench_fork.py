"""Forking at step 190 of a 200-step recorded run: time until the fork is paused there (median).

Run: ``python tests/benchmarks/bench_fork.py`` (aim: < 1 s to reach the pause). The fork reads the
recorded trace, re-runs the agent for 190 steps with the recorded model responses and tool results
put back (no model call, no tool call), checks each decision against the record, and writes its own
trace. Beside it, in the same run: the floor (reading and parsing the parent's trace, which any
fork must do) and the peer (the original run's 190 steps with its scripted model, traced).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script from the repo root or anywhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from qitos import AgentModule, Decision, StateSchema, ToolRegistry, tool  # noqa: E402
from qitos.engine.replay import Recording, fork_engine  # noqa: E402
from qitos.engine.runtime import RuntimeBudget  # noqa: E402
from qitos.kit.parser import JsonDecisionParser  # noqa: E402
from qitos.models.scripted import ScriptedModel  # noqa: E402
from qitos.trace.reader import TraceReader  # noqa: E402
from qitos.trace.writer import TraceWriter  # noqa: E402

STEPS = 200
AT = 190
RUNS = 5
CALLS = {"model": 0, "tool": 0}


@tool(name="bump")
def bump(by: int) -> int:
    """Return the increment (counted: a fork must not call it before its step)."""
    CALLS["tool"] += 1
    return by


def reply(messages: Any) -> str:
    """The scripted model's answer (counted)."""
    CALLS["model"] += 1
    return json.dumps({"thought": "count", "action": {"name": "bump", "args": {"by": 1}}})


class CountAgent(AgentModule):
    """Asks the model every step and keeps a running total."""

    def init_state(self, task: str, **kwargs: Any) -> StateSchema:
        """A state sized for the benchmark."""
        state = StateSchema(task=task, max_steps=STEPS)
        state.metadata["total"] = 0
        return state

    def prepare(self, state: StateSchema) -> str:
        """A short user turn."""
        return f"total={state.metadata['total']}"

    def reduce(self, state: StateSchema, observation: Any, decision: Decision[Any]) -> StateSchema:
        """Add the tool results."""
        state.metadata["total"] += sum(observation["action_results"])
        return state


def agent() -> CountAgent:
    """A fresh agent."""
    return CountAgent(
        tool_registry=ToolRegistry().register(bump),
        llm=ScriptedModel(reply),
        model_parser=JsonDecisionParser(),
    )


def record(folder: Path, steps: int = STEPS) -> tuple[Path, float]:
    """Record a run of ``steps`` steps; its directory and the seconds it took."""
    writer = TraceWriter(folder, run_id=f"parent{steps}")
    engine = agent().build_engine(trace_writer=writer, budget=RuntimeBudget(max_steps=steps))
    start = time.perf_counter()
    result = engine.run("count")
    elapsed = time.perf_counter() - start
    assert result.step_count == steps, result.stop_reason
    return folder / f"parent{steps}", elapsed


def fork_once(run_dir: Path, folder: Path, n: int) -> float:
    """Seconds from nothing to the fork paused before step AT (trace read, replay, fork trace)."""
    CALLS.update(model=0, tool=0)
    start = time.perf_counter()
    writer = TraceWriter(folder, run_id=f"fork{n}")
    engine = agent().build_engine(trace_writer=writer, budget=RuntimeBudget(max_steps=STEPS))
    fork_engine(engine, Recording.load(run_dir), AT, writer=writer)
    result = engine.run("count")
    elapsed = time.perf_counter() - start
    assert result.status == "paused" and result.snapshot.step_id == AT, result.stop_reason
    assert CALLS == {"model": 0, "tool": 0}, CALLS  # nothing real before the fork step
    writer.close()
    return elapsed


def floor_once(run_dir: Path) -> float:
    """Seconds to read and parse every event of the parent's trace."""
    start = time.perf_counter()
    count = sum(1 for _ in TraceReader(run_dir).events())
    assert count > STEPS
    return time.perf_counter() - start


def main() -> int:
    """Print the medians: fork to the pause, beside the floor and the peer."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run_dir, _ = record(folder)
        fork_once(run_dir, folder, -1)  # warm-up
        forks = [fork_once(run_dir, folder, n) for n in range(RUNS)]
        floors = [floor_once(run_dir) for _ in range(RUNS)]
        peers = [record(folder / f"peer{n}", AT)[1] for n in range(RUNS)]
    fork, floor, peer = (statistics.median(x) for x in (forks, floors, peers))
    print(f"fork at step {AT} of a {STEPS}-step recorded run, median of {RUNS}:")
    print(f"  fork to the pause: {fork * 1000:.0f} ms (aim < 1000 ms); 0 model calls, 0 tool calls")
    print(f"  floor, reading + parsing the parent's trace: {floor * 1000:.0f} ms")
    print(f"  peer, the original {AT} steps live with a scripted model, traced: {peer * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

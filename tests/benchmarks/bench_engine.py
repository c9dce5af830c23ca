"""Engine overhead per step with a scripted model, without and with tracing (medians of several runs).

Run: ``python tests/benchmarks/bench_engine.py`` (aims: < 0.5 ms/step untraced, < 2 ms/step traced,
trace writing < 1 ms/step). The model is the offline ScriptedModel; the tool is trivial; so the time
measured is the Engine's own work per step: request building, events, parsing, tool dispatch,
reduce, diffs, stop checks.

Trace writing counts everything between an event and its line on disk: masking it (the one
redaction pass, in ``Engine._emit``), parsing the masked line back into the event every consumer
gets, and appending the lines. Beside it, measured in the same run on the same events: the floor
(``json.dumps`` + append + flush of each event, no masking, no parse) and the masking pass alone.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script from the repo root or anywhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from qitos import AgentModule, Decision, Engine, StateSchema, ToolRegistry, tool  # noqa: E402
from qitos.engine.runtime import RuntimeBudget  # noqa: E402
from qitos.kit.parser import JsonDecisionParser  # noqa: E402
from qitos.models.scripted import ScriptedModel  # noqa: E402
from qitos.trace.events import RunEvent  # noqa: E402
from qitos.trace.writer import TraceWriter  # noqa: E402

STEPS = 100
RUNS = 7
REPLY = json.dumps({"thought": "count", "action": {"name": "bump", "args": {"by": 1}}})


@dataclass
class BenchState(StateSchema):
    """A counter."""

    total: int = 0
    log: list[str] = field(default_factory=list)


@tool(name="bump")
def bump(by: int) -> int:
    """Return the increment."""
    return by


class BenchAgent(AgentModule):
    """Asks the model every step and adds what the tool returned."""

    def init_state(self, task: str, **kwargs: Any) -> BenchState:
        """A state sized for the benchmark."""
        return BenchState(task=task, max_steps=STEPS)

    def prepare(self, state: BenchState) -> str:
        """A short user turn."""
        return f"total={state.total}"

    def reduce(self, state: BenchState, observation: Any, decision: Decision[Any]) -> BenchState:
        """Add the tool results."""
        state.total += sum(observation["action_results"])
        return state


class Timed:
    """Wraps a callable and adds its wall time (and its thread's CPU time, under ``key + "_cpu"``)
    to shared counters. The CPU time is what the work costs when other processes share the cores."""

    def __init__(self, fn: Any, totals: dict[str, float], key: str) -> None:
        self.fn, self.totals, self.key = fn, totals, key

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.totals[self.key] += time.perf_counter() - start
            self.totals[self.key + "_cpu"] += time.thread_time() - cpu


def one_run(trace_dir: Path | None) -> tuple[float, ...]:
    """(total, request building, model, trace writing, floor, masking, and trace writing and floor
    in CPU time) ms per step of one STEPS-step run."""
    totals = {key: 0.0 for key in ("build", "model", "write", "mask", "write_cpu", "mask_cpu")}
    totals.update(build_cpu=0.0, model_cpu=0.0)
    model = ScriptedModel(lambda messages: REPLY)
    model.complete = Timed(model.complete, totals, "model")  # type: ignore[method-assign]
    agent = BenchAgent(
        tool_registry=ToolRegistry().register(bump), llm=model, model_parser=JsonDecisionParser()
    )
    writer = TraceWriter(trace_dir) if trace_dir is not None else None
    engine = Engine(agent, budget=RuntimeBudget(max_steps=STEPS), trace_writer=writer)
    redactor = engine.redactor_for(writer)
    # Masking an event (and parsing it back) is part of writing it; untraced runs mask too (hooks
    # and the result get masked events), so it is timed in both.
    redactor.mask_event = Timed(redactor.mask_event, totals, "mask")  # type: ignore[method-assign]
    if writer is not None:
        for name in ("write_event", "write_masked", "write_step"):
            setattr(writer, name, Timed(getattr(writer, name), totals, "write"))
    builder = engine.request_builder
    builder.build = Timed(builder.build, totals, "build")  # type: ignore[method-assign]
    start = time.perf_counter()
    result = engine.run("count")
    elapsed = time.perf_counter() - start
    assert result.step_count == STEPS and result.state.total == STEPS, result.stop_reason
    floor, floor_cpu = floor_seconds(result.events, trace_dir) if trace_dir is not None else (0.0, 0.0)
    writing = totals["write"] + totals["mask"]
    writing_cpu = totals["write_cpu"] + totals["mask_cpu"]
    per_step = [
        elapsed,
        totals["build"],
        totals["model"],
        writing,
        floor,
        totals["mask"],
        writing_cpu,
        floor_cpu,
    ]
    return tuple(value * 1000 / STEPS for value in per_step)  # type: ignore[return-value]


def floor_seconds(events: list[RunEvent], folder: Path) -> tuple[float, float]:
    """Wall and CPU seconds to write the same events with no masking: ``json.dumps`` + append +
    flush each."""
    start, cpu = time.perf_counter(), time.thread_time()
    with (folder / "floor.jsonl").open("a", encoding="utf-8") as fh:
        for event in events:
            fh.write(json.dumps(event.to_dict(), ensure_ascii=False) + "\n")
            fh.flush()
    return time.perf_counter() - start, time.thread_time() - cpu


def medians(trace: bool) -> tuple[float, ...]:
    """Median of each :func:`one_run` figure over RUNS runs (after a warm-up)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) if trace else None
        one_run(folder)
        runs = [one_run(folder) for _ in range(RUNS)]
    return tuple(statistics.median(r[i] for r in runs) for i in range(len(runs[0])))


def main() -> int:
    """Print the figures: the engine's own overhead excludes the model call and request building
    (the context layer's RequestView work, measured by bench_request_view.py)."""
    print(f"engine overhead per step, {STEPS}-step runs, median of {RUNS}, scripted model + JSON parser:")
    for label, trace, aim in (("no tracing", False, 0.5), ("tracing   ", True, 2.0)):
        total, build, model, write, floor, mask, write_cpu, floor_cpu = medians(trace)
        own = total - build - model
        writing = f", of which masking events {mask:.3f}"
        print(
            f"  {label}: engine {own:.3f} ms/step (aim < {aim} ms{writing}) | with request building"
            f" {total - model:.3f} | total incl. scripted model {total:.3f}"
        )
        if trace:
            print(
                f"  trace writing: {write:.3f} ms/step, CPU {write_cpu:.3f} (aim < 1 ms; masking +"
                f" parse-back {mask:.3f}) | floor, json.dumps + append + flush of the same events:"
                f" {floor:.3f} ms/step, CPU {floor_cpu:.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

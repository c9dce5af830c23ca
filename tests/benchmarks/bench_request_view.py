"""Benchmark: building a RequestView over 10 / 100 / 1,000 / 10,000 exchanges of about 1 KB.

Run it as a script (pytest does not collect it)::

    python tests/benchmarks/bench_request_view.py [--runs N]

It prints the median build time of several runs per size, the time per exchange, and the growth
ratio between consecutive sizes (10x more exchanges should cost about 10x: linear growth). Three
cases: everything fits; a budget of half the log, so old exchanges are compacted with a receipt;
and the full RequestBuilder step (view, chat messages and the trace payload).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable

from qitos.core.context import ContextBudget, ContextContribution, DeclaredContextBudgetPolicy
from qitos.core.request_view import ExchangeLog, RequestView
from qitos.engine.request_builder import RequestBuilder
from qitos.kit.context.compaction import ClosedExchangeWindowCompactor

SIZES = (10, 100, 1_000, 10_000)
HALF_KB = 512  # user turn + assistant answer = ~1 KB per exchange
CONTRIBUTIONS = [
    ContextContribution("notes.project", "project", "Project notes. " * 20, required=True),
    ContextContribution("notes.style", "project", "Style guide. " * 40, priority=1),
    ContextContribution("memory.project", "memory:project", {"records": [f"fact {i}" for i in range(20)]}),
]
INSTRUCTIONS = [{"role": "system", "content": "You are a careful agent. " * 10}]
TOOLS = [
    {"name": f"tool_{i}", "description": "does a thing", "parameters": {"type": "object"}} for i in range(5)
]


def make_log(n: int) -> ExchangeLog:
    """``n`` exchanges of ~1 KB: ``n - 1`` closed, the newest open (the current turn)."""
    log = ExchangeLog("bench")
    for step in range(n):
        ex = log.open(step_id=step)
        log.append(ex, role="user", content=f"{step:08d} " + "u" * (HALF_KB - 9))
        log.append(ex, role="assistant", content=f"{step:08d} " + "a" * (HALF_KB - 9))
        if step < n - 1:
            log.close(ex)
    return log


def median_ms(fn: Callable[[], object], runs: int) -> float:
    """Median wall time of ``runs`` calls of ``fn`` in milliseconds (one warm-up call first)."""
    fn()
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def case_fits(log: ExchangeLog, n: int) -> Callable[[], object]:
    """Everything fits: no exchange omitted."""
    budget = ContextBudget(max_input_units=n * 2 * HALF_KB + 100_000)
    return lambda: RequestView.from_exchange_log(
        log,
        instructions=INSTRUCTIONS,
        tool_schemas=TOOLS,
        context_budget=budget,
        context_contributions=CONTRIBUTIONS,
    )


def case_compacted(log: ExchangeLog, n: int) -> Callable[[], object]:
    """A budget of half the log: the oldest closed exchanges go, with a matching receipt."""
    budget = ContextBudget(max_input_units=max(n * HALF_KB, 4 * HALF_KB) + 5_000)
    compactor = ClosedExchangeWindowCompactor()

    def build() -> RequestView:
        view = RequestView.from_exchange_log(
            log,
            instructions=INSTRUCTIONS,
            tool_schemas=TOOLS,
            context_budget=budget,
            context_contributions=CONTRIBUTIONS,
            compaction_policy=compactor,
        )
        assert n < 4 or view.compaction_receipts, "the half budget must compact"
        return view

    return build


def case_builder(n: int) -> Callable[[], object]:
    """One RequestBuilder.build over a run of ``n`` exchanges: view, messages and trace payload."""
    builder = RequestBuilder(
        budget_policy=DeclaredContextBudgetPolicy(default_max_input_units=n * 2 * HALF_KB + 100_000)
    )
    builder.start_run("bench")
    log = builder.exchange_log
    for step in range(n - 1):
        ex = log.open(step_id=step)
        log.append(ex, role="user", content=f"{step:08d} " + "u" * (HALF_KB - 9))
        log.append(ex, role="assistant", content=f"{step:08d} " + "a" * (HALF_KB - 9))
        log.close(ex)
    return lambda: builder.build(step_id=n, system_prompt="sys", user_text="u" * HALF_KB, tool_specs=TOOLS)


def main() -> None:
    """Run every case at every size and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per size (median reported)")
    args = parser.parse_args()
    cases = {
        "from_exchange_log, all fit": lambda log, n: case_fits(log, n),
        "from_exchange_log, compacted to half": lambda log, n: case_compacted(log, n),
        "RequestBuilder.build (view+messages+payload)": lambda log, n: case_builder(n),
    }
    for title, make in cases.items():
        print(f"\n{title}  (median of {args.runs} runs)")
        print(f"{'exchanges':>10} {'KB':>8} {'median ms':>10} {'us/exchange':>12} {'growth':>7}")
        previous = None
        for n in SIZES:
            log = make_log(n)
            ms = median_ms(make(log, n), args.runs if n < 10_000 else max(3, args.runs // 2))
            growth = f"{ms / previous:6.1f}x" if previous else "     -"
            print(f"{n:>10,} {n * 2 * HALF_KB / 1024:>8,.0f} {ms:>10.2f} {ms * 1000 / n:>12.2f} {growth:>7}")
            previous = ms
    print("\ntarget: linear growth (~10x per 10x exchanges), under 20 ms at 1,000 exchanges")


if __name__ == "__main__":
    main()

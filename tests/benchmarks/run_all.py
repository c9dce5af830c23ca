"""Run every benchmark in this folder, one after another, and print their figures.

Usage: python tests/benchmarks/run_all.py [--only NAME ...] [-- extra args for every benchmark]

Each ``bench_*.py`` is a standalone script that prints its own figures (medians of several runs);
they are not pytest tests, because timing asserts on a shared, noisy machine prove nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    """Run the selected benchmarks; exit non-zero if any of them failed to run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="benchmark names, e.g. engine trace")
    args, extra = parser.parse_known_args()
    scripts = sorted(HERE.glob("bench_*.py"))
    if args.only:
        wanted = {name.removeprefix("bench_").removesuffix(".py") for name in args.only}
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]
    failed = []
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(script), *[a for a in extra if a != "--"]])
        print(f"--- {script.stem}: exit {code} in {time.perf_counter() - start:.1f} s", flush=True)
        if code != 0:
            failed.append(script.stem)
    if failed:
        print(f"\nbenchmarks that failed to run: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Mutation testing of the contract modules (issue 19): run mutmut, then report per module.

Run from the repo root, after ``pip install -e ".[test,mutation]"``:

    python tests/mutation/report.py --run                      # every contract module (slow: hours)
    python tests/mutation/report.py --run "qitos.core.context*"  # one module's mutants
    python tests/mutation/report.py                            # report on what the last runs found

The modules mutated and the tests run are ``[tool.mutmut]`` in pyproject.toml; mutmut keeps its
work in ``mutants/`` and re-tests only what changed. The report prints, per module, how many
mutants the suite killed, how many survived, and the score: killed / (mutants - equivalent); a
mutant that makes the tests time out (an endless loop) counts as killed. A surviving mutant is
either killed by a new test that names the behaviour it protects, or listed in
``tests/mutation/equivalent.toml`` with the reason it cannot change behaviour. Exit status 1 when a
module scores under ``--goal`` (90 %) or an equivalent entry no longer matches its mutant.
Not part of the default test run.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENT_FILE = Path(__file__).with_name("equivalent.toml")
# A mutant's name: the module's dotted path, then x_<function> or xǁ<Class>ǁ<method>, then its number.
_NAME = re.compile(r"^(?P<module>[\w.]+?)\.x(?:_|ǁ)")


@dataclass(frozen=True)
class Equivalent:
    """A surviving mutant that cannot change behaviour, and why."""

    name: str
    change: str  # text the mutant's added line must contain: a renumbered mutant shows as stale
    why: str


def load_equivalents(path: Path = EQUIVALENT_FILE) -> dict[str, Equivalent]:
    """The equivalent mutants, by name."""
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return {e["name"]: Equivalent(e["name"], e["change"], e["why"]) for e in data.get("mutant", [])}


# mutmut as its console script runs it. Not ``python -m mutmut``: that executes mutmut.__main__
# a second time beside the imported copy, and the trampolines of the stats pass then fail with
# "unsupported operand type(s) for +: 'type' and 'int'" part-way through the tests.
MUTMUT = [sys.executable, "-c", "import sys; from mutmut.__main__ import cli; sys.exit(cli())"]


def mutmut(*args: str) -> str:
    """mutmut's output for ``args`` (it must run from the repo root, where pyproject.toml is)."""
    done = subprocess.run([*MUTMUT, *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"mutmut {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def results() -> dict[str, str]:
    """Every mutant of the last runs and its status (killed, survived, no tests, timeout, ...)."""
    out: dict[str, str] = {}
    for line in mutmut("results", "--all", "true").splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and name:
            out[name] = status
    return out


def added_lines(name: str) -> str:
    """The lines the mutant adds (its diff's + lines).

    Asked of mutmut in this process: ``mutmut show`` costs a second of start-up per mutant, and a
    report checks every equivalent entry of the modules run (hundreds)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant  # the mutation extra; not for --help

    os.chdir(ROOT)  # mutmut finds mutants/ and pyproject.toml from the working directory
    try:
        diff = get_diff_for_mutant(name)
    except FileNotFoundError:
        return ""  # no such mutant any more: the entry is reported as no longer matching
    return "\n".join(
        line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")
    )


def module_of(name: str) -> str:
    """The dotted module a mutant belongs to."""
    match = _NAME.match(name)
    return match.group("module") if match else name.rsplit(".", 1)[0]


def report(goal: float) -> int:
    """Print the per-module table and the problems; 0 when every module meets ``goal``."""
    statuses = results()
    if not any(status != "not checked" for status in statuses.values()):
        print("no mutation results yet: run with --run first")
        return 1
    equivalents = load_equivalents()
    problems: list[str] = []
    for name, entry in equivalents.items():
        status = statuses.get(name)
        if status is None:
            continue  # its module was not run this time
        if status == "killed":
            problems.append(f"{name} is listed as equivalent but a test kills it: remove the entry")
        elif entry.change not in added_lines(name):
            problems.append(f"{name} no longer adds {entry.change!r} (renumbered?): check the entry")
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: list[str] = []
    for name, status in statuses.items():
        if status == "not checked":
            continue  # not run yet (another module's run, or one stopped early)
        if status == "timeout":
            status = "killed"  # the mutant hung the tests (an endless loop): the suite catches it
        counts = by_module[module_of(name)]
        counts[status] += 1
        if name in equivalents and status != "killed":
            counts["equivalent"] += 1
        elif status != "killed":
            survivors.append(f"{name}: {status}")
    print(f"{'module':<44} {'mutants':>7} {'killed':>7} {'equiv':>6} {'left':>5} {'score':>7}")
    failing = 0
    for module in sorted(by_module):
        c = by_module[module]
        total = sum(v for k, v in c.items() if k != "equivalent")
        counted = total - c["equivalent"]
        score = c["killed"] / counted if counted else 1.0
        left = counted - c["killed"]
        flag = "" if score >= goal else "  < goal"
        failing += score < goal
        print(f"{module:<44} {total:>7} {c['killed']:>7} {c['equivalent']:>6} {left:>5} {score:>7.1%}{flag}")
    if survivors:
        print("\nnot killed and not listed as equivalent:")
        for line in sorted(survivors):
            print("  " + line)
    for problem in problems:
        print("problem: " + problem)
    return 1 if failing or problems else 0


def main(argv: list[str] | None = None) -> int:
    """Run mutmut (with --run) and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run mutmut first (else: report the last runs)")
    parser.add_argument("--children", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--goal", type=float, default=0.9, help="least score per module (default 0.9)")
    parser.add_argument("names", nargs="*", help="mutant name globs for --run, e.g. 'qitos.core.context*'")
    args = parser.parse_args(argv)
    if args.run:
        subprocess.run(
            [*MUTMUT, "run", "--max-children", str(args.children), *args.names],
            cwd=ROOT,
        )
    return report(args.goal)


if __name__ == "__main__":
    raise SystemExit(main())

"""The demo's project: a tiny Python package with one bug and a test that catches it."""

from __future__ import annotations

from pathlib import Path

BUGGY_SOURCE = '''"""Small arithmetic helpers used by the invoice tool."""


def add(a, b):
    """Return the sum of a and b."""
    return a - b


def mean(values):
    """Return the arithmetic mean of a non-empty sequence."""
    return sum(values) / len(values)
'''

FIXED_SOURCE = BUGGY_SOURCE.replace("    return a - b\n", "    return a + b\n")

TEST_SOURCE = '''"""Checks for calc.py; run with `python test_calc.py`."""

import calc

assert calc.add(20, 22) == 42, f"add(20, 22) returned {calc.add(20, 22)}, expected 42"
assert calc.mean([1, 2, 3]) == 2
print("all checks passed")
'''

README_SOURCE = """# invoices

Helpers for the invoice tool. `python test_calc.py` must print "all checks passed".
"""

PROJECT_FILES = {
    "calc.py": BUGGY_SOURCE,
    "test_calc.py": TEST_SOURCE,
    "README.md": README_SOURCE,
}


def seed_workspace(root: str | Path) -> Path:
    """Write the demo project into ``root`` (created if needed) and return its path."""
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    for name, text in PROJECT_FILES.items():
        (path / name).write_text(text, encoding="utf-8")
    return path

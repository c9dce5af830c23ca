"""mypy over the modules that pass it: strict for qitos, the default checks for tui (issue 14 item 5).

The lists grow as modules are brought up to them; a module on a list that no longer passes fails
this test with mypy's own messages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

STRICT_QITOS = [
    "qitos/trace/__init__.py",
    "qitos/trace/errors.py",
    "qitos/trace/events.py",
    "qitos/trace/fields.py",
    "qitos/trace/layout.py",
    "qitos/trace/lock.py",
    "qitos/trace/parse.py",
    "qitos/trace/payloads.py",
    "qitos/trace/reader.py",
    "qitos/trace/redact.py",
    "qitos/trace/runs.py",
    "qitos/trace/secret_names.py",
    "qitos/trace/secret_shapes.py",
    "qitos/trace/sink.py",
    "qitos/trace/store_payloads.py",
]

DEFAULT_TUI = [
    "tui/feed.py",
    "tui/follow.py",
    "tui/gc_tuning.py",
    "tui/pacing.py",
    "tui/prefetch.py",
    "tui/replay.py",
    "tui/screens/feeding.py",
    "tui/search.py",
    "tui/store.py",
    "tui/widgets/render_pass.py",
]


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    # The modules' imports are read for their types but not checked themselves (they are not on
    # the lists yet); the cache lives outside the work tree.
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--cache-dir=/tmp/qitos-mypy-cache", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


needs_mypy = pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode != 0,
    reason="mypy is not installed (pip install -e '.[test]')",
)


@needs_mypy
def test_qitos_modules_pass_mypy_strict() -> None:
    result = _mypy("--strict", *STRICT_QITOS)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_mypy
def test_tui_modules_pass_mypy() -> None:
    result = _mypy(*DEFAULT_TUI)
    assert result.returncode == 0, result.stdout + result.stderr

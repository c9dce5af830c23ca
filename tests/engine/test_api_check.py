"""The shared API checker reports no failure for the root part of the documented API."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "check_api.py"
SUBPACKAGES = {"core", "engine", "kit", "models", "trace", "demo"}


def is_root_failure(line: str) -> bool:
    """Whether a checker line is a FAIL about a root symbol (``qitos.X`` with X no subpackage)."""
    parts = line.split()
    if len(parts) < 2 or parts[0] != "FAIL":
        return False
    if parts[1] == "import" and len(parts) > 2 and parts[2].rstrip(":") == "qitos":
        return True
    dotted = parts[1].split(".")
    return dotted[0] == "qitos" and len(dotted) > 1 and dotted[1] not in SUBPACKAGES


def test_root_failure_filter() -> None:
    """The filter keeps root failures and leaves other helpers' lines alone."""
    assert is_root_failure("FAIL  qitos.Engine.__init__ parameters: documented [...]")
    assert is_root_failure("FAIL  qitos.tool root export: missing")
    assert is_root_failure("FAIL  import qitos: ImportError: x")
    assert not is_root_failure("FAIL  qitos.core.context.ContextBudget importable")
    assert not is_root_failure("FAIL  qitos.kit.memory.memdir_memory.MemdirMemory(create) default")
    assert not is_root_failure("571 passed, 0 failed")


def test_check_api_has_no_root_failures() -> None:
    """No FAIL line of check_api.py mentions a root `qitos.<Name>` symbol (others own the rest)."""
    if not CHECKER.is_file():
        pytest.skip("../shared/tools/check_api.py is not present")
    out = subprocess.run([sys.executable, str(CHECKER)], capture_output=True, text=True, timeout=120)
    lines = out.stdout.strip().splitlines()
    assert lines and lines[-1].endswith("failed"), out.stdout + out.stderr
    root = [line for line in lines if is_root_failure(line)]
    assert root == [], "\n".join(root)

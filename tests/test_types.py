"""mypy over the whole of both packages: strict for qitos, the default checks for tui (issue 14 item 5).

CI runs the README's test command, so this is where mypy runs in CI; a module that stops passing
fails these tests with mypy's own messages. Third-party modules without type information are
named in pyproject.toml's [[tool.mypy.overrides]], one by one."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Outside the work tree, one per checkout (two clones never share one), and one per set of flags
# below it, so the two runs do not invalidate each other.
CACHE = Path(tempfile.gettempdir()) / f"qitos-mypy-cache-{hashlib.sha1(str(ROOT).encode()).hexdigest()[:10]}"


def _mypy(cache: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", f"--cache-dir={CACHE / cache}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


needs_mypy = pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode != 0,
    reason="mypy is not installed (pip install -e '.[test]')",
)


@needs_mypy
def test_qitos_passes_mypy_strict() -> None:
    result = _mypy("strict", "--strict", "-p", "qitos")
    assert result.returncode == 0, result.stdout + result.stderr


@needs_mypy
def test_tui_passes_mypy() -> None:
    # qitos is read for its types but reported by the strict test above, not here.
    result = _mypy("default", "--follow-imports=silent", "-p", "tui")
    assert result.returncode == 0, result.stdout + result.stderr


@needs_mypy
def test_a_mixin_used_without_the_engine_is_a_type_error(tmp_path: Path) -> None:
    # The Engine's mixins declare what they expect of `self` (qitos.engine.host.EngineHost): a class
    # that mixes one in without being an Engine cannot call its methods.
    module = tmp_path / "not_an_engine.py"
    module.write_text(
        "from qitos.engine.phases import PhaseMixin\n"
        "from qitos.engine.run_state import RunState\n\n\n"
        "class NotAnEngine(PhaseMixin):\n"
        "    pass\n\n\n"
        "def observe(host: NotAnEngine, run: RunState) -> object:\n"
        "    return host._observe(run)\n"
    )
    result = _mypy("strict", "--strict", str(module))
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'Invalid self argument "NotAnEngine" to attribute function "_observe"' in result.stdout

"""Import hygiene: the framework core never pulls in the UI."""

from __future__ import annotations

import subprocess
import sys


def test_importing_qitos_does_not_import_textual_or_tui() -> None:
    """`import qitos` (and its submodules) leaves textual and tui out of sys.modules."""
    code = (
        "import sys, pkgutil, importlib, qitos\n"
        "for m in pkgutil.walk_packages(qitos.__path__, 'qitos.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n == 'textual' or n.startswith(('textual.', 'tui')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"qitos imported UI modules: {out.stdout.strip()}"

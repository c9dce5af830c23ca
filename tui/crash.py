"""Last resort: an unexpected exception becomes one line on screen and a log file with the details.

Textual's own handler prints a Rich traceback with ``show_locals=True``: the local variables of
every frame, which in a pane are payloads (model replies, tool output, secrets a redactor missed).
Here the full traceback is written, without locals, to a file under the user's state folder
(``$XDG_STATE_HOME/qitos-tui``, else ``~/.local/state/qitos-tui``), and the screen gets one line
naming the exception type, where it was raised and the file. The exception's message is left out
of that line too: it may quote the data being shown.

Textual is not imported here: the CLI uses this before Textual is loaded (it reads TEXTUAL_FPS then).
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

from tui.text import inert_str

APP_FOLDER = "qitos-tui"
_PACKAGES = tuple(str(Path(__file__).resolve().parent.parent / name) + os.sep for name in ("tui", "qitos"))


def crash_dir() -> Path:
    """Where crash logs go: ``$XDG_STATE_HOME/qitos-tui``, else ``~/.local/state/qitos-tui``."""
    state = os.environ.get("XDG_STATE_HOME", "")
    # The XDG spec says a relative path is invalid and must be ignored.
    base = Path(state) if state and os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / APP_FOLDER


def where(error: BaseException) -> str:
    """``file:line in function`` of the innermost frame in qitos-tui's own code (else the innermost)."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "an unknown place"
    ours = [f for f in frames if f.filename.startswith(_PACKAGES)]
    frame = (ours or frames)[-1]
    filename = frame.filename
    for package in _PACKAGES:
        if filename.startswith(package):
            filename = os.path.relpath(filename, Path(package).parent)
            break
    return f"{filename}:{frame.lineno} in {frame.name}"


def _log_text(error: BaseException, context: str) -> str:
    lines = [
        f"qitos-tui crash report, {time.strftime('%Y-%m-%d %H:%M:%S %z')}",
        f"while: {context}",
        f"python {platform.python_version()} on {platform.platform()}",
        f"argv: {sys.argv!r}",
        "",
        # format_exception never prints local variables (only Rich's traceback does).
        *traceback.format_exception(error),
    ]
    return "\n".join(line.rstrip("\n") for line in lines) + "\n"


def _write_in(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    for n in range(100):
        path = folder / f"crash-{stamp}-{os.getpid()}{f'-{n}' if n else ''}.log"
        try:
            # Private to the user (the traceback's messages may quote data), never overwriting.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as out:
            out.write(text)
        return path
    raise FileExistsError(f"no free crash log name in {folder}")


def write_crash_log(error: BaseException, context: str = "running qitos-tui") -> tuple[Path | None, str]:
    """Write the traceback (no locals) to a new log file; returns (its path, "") or (None, why not)."""
    try:
        text = _log_text(error, context)
    except Exception as exc:  # a broken __str__ on the exception, say
        text = (
            f"qitos-tui crash report: {type(error).__name__} (traceback unavailable: {type(exc).__name__})\n"
        )
    reasons = []
    user = getattr(os, "getuid", lambda: "user")()
    for folder in (crash_dir(), Path(tempfile.gettempdir()) / f"{APP_FOLDER}-{user}"):
        try:
            return _write_in(folder, text), ""
        except OSError as exc:
            reasons.append(f"{folder}: {exc.strerror or type(exc).__name__}")
    return None, "; ".join(reasons)


def report_crash(error: BaseException, context: str = "running qitos-tui") -> str:
    """Log ``error`` and return the one line to show for it (never raises)."""
    try:
        path, why_not = write_crash_log(error, context)
        place = where(error)
        details = f"details in {path}" if path is not None else f"no details written ({why_not})"
        line = f"qitos-tui: internal error while {context}: {type(error).__name__} at {place}; {details}"
    except Exception:  # the last resort must not fail in turn
        line = f"qitos-tui: internal error: {type(error).__name__}"
    return inert_str(line).replace("\n", " ")


class LastResort:
    """Mixed into each App: an unhandled exception exits with one line, not a traceback with locals.

    Textual funnels every unhandled exception (a handler, a render, compose, a worker that exits
    on error) into ``App._handle_exception``, which has no public counterpart: this overrides it,
    hence the pin on Textual's major version in pyproject.toml."""

    crash_report: str | None = None
    """The line shown for the exception that ended the app (None while it has not crashed)."""

    def _handle_exception(self, error: Exception) -> None:
        app: Any = self
        if app.crash_report is None:  # the first one; any that follow while closing only add noise
            app.crash_report = report_crash(error, "running the app")
        # What Textual's handler does, less its traceback: exit status 1, the error kept for
        # run_test to raise again in tests, and the app closed now. The line is printed by
        # print_crash_report once the terminal is restored: Textual would crop it to the width.
        app._return_code = 1
        if app._exception is None:
            app._exception = error
            app._exception_event.set()
        app.panic()


def print_crash_report(app: object) -> None:
    """After ``app.run()``: the one line of a crash, if the app crashed (on stderr)."""
    line = getattr(app, "crash_report", None)
    if line:
        print(line, file=sys.stderr, flush=True)

"""No traceback on screen, ever: a crash is one line naming the log file that holds the traceback.

The crashes are forced in real subprocesses (the app under a real pseudo-terminal, a CLI command
with pipes), from a function whose local variable holds a secret: Textual's own handler prints
a traceback with ``show_locals=True``, which would put that secret on the terminal.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tui.crash import crash_dir, report_crash, where

SECRET = "sk-live-LOCALSECRET0123456789abcdef"
LOG_LINE = re.compile(
    r"qitos-tui: internal error while (.+): (\w+) at (\S+:\d+ in \w+); details in (\S+\.log)"
)

# Run in a subprocess: replace one function with `boom`, whose local holds SECRET, then run the CLI.
DRIVER = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    def boom(*args, **kwargs):
        api_key = "{secret}"
        payload = {{"token": api_key, "text": "model reply"}}
        raise RuntimeError("forced failure")

    target, argv = sys.argv[1], sys.argv[2:]
    if target == "pane":
        from tui.synthetic import synthetic_events, write_trace
        from tui.panes.exchanges import ExchangesPane

        write_trace(Path(argv[1]), synthetic_events(3))
        ExchangesPane.render_step = boom  # the first pane on screen at any size
    else:
        import tui.headless

        tui.headless.run_headless = boom
    from tui.cli import main

    sys.exit(main(argv))
    """
).format(secret=SECRET)


def _driver(tmp_path: Path) -> str:
    """The driver as a file (a traceback quotes source lines only from files)."""
    path = tmp_path / "driver.py"
    path.write_text(DRIVER, encoding="utf-8")
    return str(path)


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "xterm-256color"}


def _run_in_pty(argv: list[str], env: dict[str, str], timeout: float = 60.0) -> tuple[bytes, int]:
    """Run ``argv`` on a new pseudo-terminal of 100x30; return every byte it wrote and its status."""
    import fcntl
    import pty
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    out = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                out += data
            elif os.waitpid(pid, os.WNOHANG)[0]:
                return out, 0  # exited without output we could read (cannot happen here)
        else:
            os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"the app did not exit; output: {out[-2000:]!r}")
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return out, os.waitstatus_to_exitcode(status)


def _check_log(path: Path) -> str:
    assert path.is_file(), path
    assert path.stat().st_mode & 0o777 == 0o600  # the messages may quote data: private to the user
    text = path.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text
    assert "RuntimeError: forced failure" in text
    assert 'in boom\n    raise RuntimeError("forced failure")' in text  # where it was raised, with the line
    assert SECRET not in text  # no locals in the log either
    return text


def test_a_crash_inside_a_pane_render_is_one_line_and_a_log(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    out, status = _run_in_pty(
        [sys.executable, _driver(tmp_path), "pane", "replay", str(run_dir)], _env(tmp_path)
    )
    assert status == 1
    assert SECRET.encode() not in out  # not on the screen, not after it
    assert b"Traceback" not in out and b"forced failure" not in out
    # What is left on the terminal once the app has left the alternate screen: exactly one line.
    after = out.rsplit(b"\x1b[?1049l", 1)[-1]
    printed = re.sub(rb"\x1b\[[0-9;?<>]*[A-Za-z]", b"", after).decode()
    lines = [line for line in printed.splitlines() if line.strip()]
    assert len(lines) == 1, printed
    match = LOG_LINE.fullmatch(lines[0].strip())
    assert match, lines[0]
    assert match.group(2) == "RuntimeError"
    assert match.group(3).startswith("tui/panes/")  # the innermost frame in qitos-tui's code
    log = Path(match.group(4))
    assert log.parent == tmp_path / "state" / "qitos-tui"
    assert "in render_lines" in _check_log(log)  # the whole stack, down from Textual's render


def test_a_crash_inside_a_cli_command_is_one_line_and_a_log(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, _driver(tmp_path), "cli", "demo", "--headless", "--workspace", str(tmp_path / "ws")],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1
    assert SECRET not in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    match = LOG_LINE.fullmatch(lines[0])
    assert match, lines[0]
    assert match.group(1) == "running `qitos-tui demo`"
    _check_log(Path(match.group(4)))


def test_the_log_goes_to_the_xdg_state_folder_else_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert crash_dir() == tmp_path / "xdg" / "qitos-tui"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/path")  # invalid by the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert crash_dir() == tmp_path / "home" / ".local" / "state" / "qitos-tui"


def test_an_unwritable_state_folder_falls_back_to_the_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    try:
        raise ValueError("x")
    except ValueError as exc:
        line = report_crash(exc)
    path = Path(line.rsplit("details in ", 1)[1])
    assert path.parent.parent == tmp_path / "tmp"
    assert "ValueError: x" in path.read_text()


def test_the_line_names_the_innermost_frame_of_our_code_and_is_inert(tmp_path: Path) -> None:
    def inner() -> None:
        raise KeyError("\x1b]0;title\x07")

    try:
        inner()
    except KeyError as exc:
        place = where(exc)
    assert place.endswith("in inner") and "test_crash.py" in place
    os.environ["XDG_STATE_HOME"] = str(tmp_path)
    try:
        try:
            raise OSError("\x1b]52;c;aGVsbG8=\x07")
        except OSError as exc:
            line = report_crash(exc, "reading \x1b[2J")
    finally:
        del os.environ["XDG_STATE_HOME"]
    assert "\x1b" not in line and "\x07" not in line and "\n" not in line
    assert "aGVsbG8" not in line  # the message is in the log, never on screen


async def test_run_test_still_raises_the_error_so_tests_see_it(synthetic_run: Path, tmp_path: Path) -> None:
    from tui.app import make_app
    from tui.panes.exchanges import ExchangesPane

    def boom(self: object, step: object) -> object:
        raise RuntimeError("forced failure")

    os.environ["XDG_STATE_HOME"] = str(tmp_path / "state")
    original = ExchangesPane.render_step
    ExchangesPane.render_step = boom  # type: ignore[method-assign]
    app = make_app(replay=synthetic_run)
    try:
        with pytest.raises(RuntimeError, match="forced failure"):
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause()
    finally:
        ExchangesPane.render_step = original  # type: ignore[method-assign]
        del os.environ["XDG_STATE_HOME"]
    assert app.return_code == 1
    assert app.crash_report is not None and "details in" in app.crash_report
    assert list((tmp_path / "state" / "qitos-tui").glob("crash-*.log"))

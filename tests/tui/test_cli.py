"""The qitos-tui command line: help, headless delegation, and clear errors for bad agent files."""

from __future__ import annotations

from pathlib import Path

import pytest
from waits import wait_until

from tui.app import make_app
from tui.cli import main
from tui.screens.dialogs import ErrorScreen


def test_help_names_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert all(word in out for word in ("run", "demo", "replay"))


@pytest.mark.parametrize(
    ("command", "expected"), [("run", "AGENT.py"), ("demo", "--step-delay"), ("replay", "PATH")]
)
def test_each_command_has_help(command: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert expected in capsys.readouterr().out


def test_headless_run_of_a_missing_file_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(tmp_path / "nope.py"), "--headless", "--trace-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 2
    assert "nope.py" in err and "no such file" in err and "Traceback" not in err


def test_headless_run_of_a_broken_agent_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "agent.py"
    bad.write_text("def broken(:\n", encoding="utf-8")
    code = main(["run", str(bad), "--headless", "--trace-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 2 and "SyntaxError" in err and "Traceback" not in err


def test_demo_headless_delegates_and_writes_a_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # the demo keeps its memory and skills under ./.qitos
    code = main(
        ["demo", "--headless", "--workspace", str(tmp_path / "ws"), "--trace-dir", str(tmp_path / "runs")]
    )
    assert code == 0, capsys.readouterr()
    [run_dir] = list((tmp_path / "runs").iterdir())
    assert (run_dir / "events.jsonl").stat().st_size > 0


async def test_load_error_shows_the_error_panel_with_the_cause() -> None:
    app = make_app(error=("Cannot load agent.py", "SyntaxError: invalid syntax (line 1)"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen)
        assert "SyntaxError" in app.screen.detail and app.screen.title_text == "Cannot load agent.py"
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 2  # the same code as --headless for the same failure


def test_a_load_error_names_the_file_once_with_the_same_exit_code_headless_or_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "agent.py"
    bad.write_text("def broken(:\n", encoding="utf-8")
    code = main(["run", str(bad), "--headless", "--trace-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("agent.py") == 1 and err.count("line 1") == 1, err
    assert "failed to import: SyntaxError: " in err
    # Without --headless the same failure goes to the error panel (which exits 2: the test above).
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr("tui.cli._run_app", lambda app: shown.append(app.error) or 0)
    main(["run", str(bad), "--trace-dir", str(tmp_path / "runs")])
    ((title, detail),) = shown
    assert (
        f"{title}: {detail}".count("agent.py") == 1 and "(line 1)" in detail and detail.count("line 1") == 1
    )


def test_headless_says_that_it_does_not_use_step_delay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["demo", "--headless", "--workspace", str(tmp_path / "ws"), "--trace-dir", str(tmp_path / "runs")]
    assert main([*argv, "--step-delay", "2"]) == 0
    assert "--step-delay paces the live view only" in capsys.readouterr().err
    assert main(argv) == 0  # not given: nothing to say
    assert "--step-delay" not in capsys.readouterr().err


def test_the_demo_leaves_no_sqlite_side_files_after_the_app_exits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Live, with the Skills pane reading the library: once the app is gone, only skills.db is left
    (no skills.db-wal / -shm), and it holds both versions."""
    import asyncio
    import sqlite3

    monkeypatch.chdir(tmp_path)
    seen: list[list[str]] = []

    async def drive(app) -> int:  # type: ignore[no-untyped-def]
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(lambda: app.screen.store.display_status == "paused", what="the demo's pause")
            await pilot.press("r")
            await wait_until(lambda: app.screen.store.display_status == "finished", what="the demo's end")
            seen.append(sorted(p.name for p in (tmp_path / ".qitos").iterdir()))
            await pilot.press("q")
            await pilot.pause()
        return 0

    monkeypatch.setattr("tui.cli._run_app", lambda app: asyncio.run(drive(app)))
    assert main(["demo", "--step-delay", "0", "--workspace", str(tmp_path / "ws")]) == 0
    assert "skills.db-wal" in seen[0]  # while the run's library and the browser are open
    assert sorted(p.name for p in (tmp_path / ".qitos").iterdir()) == ["memory", "skills.db"]
    conn = sqlite3.connect(f"file:{tmp_path / '.qitos' / 'skills.db'}?mode=ro&immutable=1", uri=True)
    try:
        assert conn.execute("SELECT count(*) FROM skill_versions").fetchone()[0] == 2
    finally:
        conn.close()

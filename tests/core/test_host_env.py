"""HostEnv: file operations confined to the workspace root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qitos.kit.env import HostEnv, WorkspaceError


def test_file_ops_inside_root(tmp_path: Path) -> None:
    """write/read/list/exists/delete/mkdir work under the root."""
    env = HostEnv(tmp_path / "ws")
    assert env.write_text("a/b.txt", "hello") == 5
    assert env.read_text("a/b.txt") == "hello"
    assert env.list_files() == ["a/b.txt"]
    assert env.exists("a/b.txt") and not env.exists("zz")
    assert env.delete("a/b.txt") is True and env.delete("a/b.txt") is False
    assert env.mkdir("x/y") == "x/y"
    assert env.capabilities() == ["file"]
    obs = env.reset()
    assert obs["workspace_root"] == str((tmp_path / "ws").resolve()) and obs["file_count"] == 0


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "a/../../x", ""])
def test_paths_leaving_the_root_are_refused(tmp_path: Path, path: str) -> None:
    """Relative escapes, absolute paths elsewhere and empty paths raise WorkspaceError."""
    env = HostEnv(tmp_path / "ws")
    with pytest.raises(WorkspaceError):
        env.write_text(path, "x")
    assert not (tmp_path / "outside.txt").exists()


def test_symlink_escape_is_refused(tmp_path: Path) -> None:
    """A symlink inside the root pointing outside cannot be read or written through."""
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    ws = tmp_path / "ws"
    ws.mkdir()
    os.symlink(secret, ws / "link.txt")
    env = HostEnv(ws)
    with pytest.raises(WorkspaceError, match="leaves the workspace root"):
        env.read_text("link.txt")
    with pytest.raises(WorkspaceError):
        env.write_text("link.txt", "overwrite")
    assert secret.read_text() == "s"


def test_step_ops_and_terminal(tmp_path: Path) -> None:
    """step applies ops from dicts; errors come back as results; finish makes it terminal."""
    env = HostEnv(tmp_path)
    assert env.step({"op": "write", "path": "f.txt", "content": "c"})["observation"] == 1
    assert env.step({"op": "read", "path": "f.txt"})["observation"] == "c"
    bad = env.step({"op": "read", "path": "../x"})
    assert bad["error"] and "leaves" in bad["error"] and env.observe()["last_error"] == bad["error"]
    missing = env.step({"op": "read"})
    assert "needs argument 'path'" in missing["error"]
    with pytest.raises(WorkspaceError, match="unknown workspace op"):
        env.step({"op": "format_disk"})
    assert not env.is_terminal()
    assert env.step({"op": "finish", "summary": "ok"})["done"] is True and env.is_terminal()


def test_commands_need_opt_in_and_closed_env_refuses(tmp_path: Path) -> None:
    """run_command is off by default; a closed env refuses operations; create=False needs the root."""
    env = HostEnv(tmp_path)
    with pytest.raises(WorkspaceError, match="disabled"):
        env.run_command("echo hi")
    shell = HostEnv(tmp_path, allow_commands=True)
    assert shell.run_command("echo hi")["stdout"].strip() == "hi" and "process" in shell.capabilities()
    env.close()
    with pytest.raises(WorkspaceError, match="closed"):
        env.read_text("x")
    with pytest.raises(WorkspaceError, match="does not exist"):
        HostEnv(tmp_path / "none", create=False)

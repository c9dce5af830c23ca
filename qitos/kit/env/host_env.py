"""HostEnv: a workspace directory on the host; every file operation is confined to its root."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from qitos.core.env import Env, EnvStepResult
from qitos.core.errors import EnvExecutionError

_OPS = ("read", "write", "list", "exists", "delete", "mkdir", "run", "finish")


class WorkspaceError(EnvExecutionError):
    """A file operation was refused (outside the root, symlink escape, missing file)."""


class HostEnv(Env):
    """A host workspace: file ops under ``root`` (and shell commands when ``allow_commands``)."""

    name = "host_env"
    version = "1.0"
    env_type = "host"

    def __init__(
        self,
        workspace_root: str | os.PathLike[str] = ".",
        *,
        create: bool = True,
        allow_commands: bool = False,
        command_timeout_s: float = 30.0,
        max_listed: int = 200,
    ) -> None:
        # ``workspace_root`` is upstream's parameter name: ``HostEnv(workspace_root=...)`` works as is.
        root = Path(workspace_root)
        if not root.exists():
            if not create:
                raise WorkspaceError.make(f"workspace {str(root)!r} does not exist", phase="env")
            root.mkdir(parents=True)
        if not root.is_dir():
            raise WorkspaceError.make(f"workspace {str(root)!r} is not a directory", phase="env")
        self.root = root.resolve()
        self.allow_commands = allow_commands
        self.command_timeout_s = command_timeout_s
        self.max_listed = max_listed
        self.last_error: str | None = None
        self._terminal = False
        self._closed = False

    # ----------------------------------------------------------------- confinement
    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """The absolute path of ``path`` inside the root; WorkspaceError if it would leave it."""
        self._check_open()
        text = os.fspath(path)
        if not text or "\x00" in text:
            raise WorkspaceError.make(f"invalid path {text!r}", phase="env")
        candidate = Path(text)
        full = candidate if candidate.is_absolute() else self.root / candidate
        # resolve() follows symlinks, so a link pointing outside the root is caught here too.
        resolved = full.resolve()
        if resolved != self.root and not resolved.is_relative_to(self.root):
            raise WorkspaceError.make(f"path {text!r} leaves the workspace root", phase="env", path=text)
        return resolved

    # ----------------------------------------------------------------- file ops
    def read_text(self, path: str) -> str:
        """The text of a file in the workspace."""
        target = self.resolve(path)
        if not target.is_file():
            raise WorkspaceError.make(f"no such file {path!r} in the workspace", phase="env", path=path)
        return target.read_text(encoding="utf-8")

    def write_text(self, path: str, content: str) -> int:
        """Write ``content`` to a workspace file atomically (temp file + rename); returns chars written."""
        if not isinstance(content, str):
            raise WorkspaceError.make(f"content must be a str, got {type(content).__name__}", phase="env")
        target = self.resolve(path)
        if target == self.root or target.is_dir():
            raise WorkspaceError.make(f"{path!r} is a directory", phase="env", path=path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        return len(content)

    def list_files(self, path: str = ".") -> list[str]:
        """Files under ``path`` (relative to the root, sorted, at most ``max_listed``)."""
        base = self.resolve(path)
        if not base.is_dir():
            raise WorkspaceError.make(f"{path!r} is not a directory", phase="env", path=path)
        out = []
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                out.append(str((Path(dirpath) / name).relative_to(self.root)))
                if len(out) >= self.max_listed:
                    return sorted(out)
        return sorted(out)

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists inside the workspace."""
        return self.resolve(path).exists()

    def delete(self, path: str) -> bool:
        """Delete one file; False when it does not exist."""
        target = self.resolve(path)
        if target == self.root or target.is_dir():
            raise WorkspaceError.make(f"refusing to delete directory {path!r}", phase="env", path=path)
        if not target.exists():
            return False
        target.unlink()
        return True

    def mkdir(self, path: str) -> str:
        """Create a directory (and parents) in the workspace."""
        target = self.resolve(path)
        target.mkdir(parents=True, exist_ok=True)
        return str(target.relative_to(self.root))

    def run_command(self, command: str) -> dict[str, Any]:
        """Run a shell command in the root (only with ``allow_commands=True``)."""
        if not self.allow_commands:
            raise WorkspaceError.make(
                "commands are disabled for this workspace (allow_commands=False)", phase="env"
            )
        self._check_open()
        try:
            proc = subprocess.run(
                command,
                shell=True,
                cwd=self.root,
                capture_output=True,
                text=True,
                timeout=self.command_timeout_s,
            )
        except subprocess.TimeoutExpired as exc:
            raise WorkspaceError.make(
                f"command timed out after {self.command_timeout_s}s", phase="env"
            ) from exc
        return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}

    # ----------------------------------------------------------------- Env interface
    def capabilities(self) -> list[str]:
        """``file`` always, ``process`` when commands are allowed."""
        return ["file", "process"] if self.allow_commands else ["file"]

    def runtime_context(self) -> dict[str, Any]:
        """What tools receive: this env (its file ops) and the workspace root."""
        return {"env": self, "workspace_root": str(self.root), "file_ops": self}

    def reset(self, task: Any = None) -> Any:
        """Start a run: clear the terminal flag and the last error."""
        self._check_open()
        self._terminal = False
        self.last_error = None
        return self.observe()

    def observe(self) -> Any:
        """The workspace root, its files and the last error."""
        files = self.list_files()
        return {
            "workspace_root": str(self.root),
            "file_count": len(files),
            "files": files,
            "last_error": self.last_error,
        }

    def step(self, action: Any) -> Any:
        """Apply one file op: an Action or dict with ``name``/``op`` in read, write, list, ... finish."""
        name = getattr(action, "name", None) or (
            action.get("op") or action.get("name") if isinstance(action, dict) else None
        )
        args = getattr(action, "args", None)
        if args is None and isinstance(action, dict):
            args = action.get("args", {k: v for k, v in action.items() if k not in ("op", "name")})
        args = dict(args or {})
        if name not in _OPS:
            raise WorkspaceError.make(f"unknown workspace op {name!r}; known: {list(_OPS)}", phase="ACT")
        try:
            value = self._apply(name, args)
        except KeyError as exc:
            self.last_error = f"op {name!r} needs argument {exc.args[0]!r}"
            return EnvStepResult(done=self._terminal, error=self.last_error, info={"op": name}).to_dict()
        except (WorkspaceError, OSError, TypeError) as exc:
            self.last_error = str(exc)
            return EnvStepResult(
                observation=None, done=self._terminal, error=str(exc), info={"op": name}
            ).to_dict()
        self.last_error = None
        return EnvStepResult(observation=value, done=self._terminal, info={"op": name}).to_dict()

    def is_terminal(self) -> bool:
        """True after a ``finish`` op."""
        return self._terminal

    def close(self) -> None:
        """Refuse further operations (the directory itself is left in place)."""
        self._closed = True

    def _apply(self, name: str, args: dict[str, Any]) -> Any:
        if name == "read":
            return self.read_text(args["path"])
        if name == "write":
            return self.write_text(args["path"], args["content"])
        if name == "list":
            return self.list_files(args.get("path", "."))
        if name == "exists":
            return self.exists(args["path"])
        if name == "delete":
            return self.delete(args["path"])
        if name == "mkdir":
            return self.mkdir(args["path"])
        if name == "run":
            return self.run_command(args["command"])
        self._terminal = True
        return args.get("summary")

    def _check_open(self) -> None:
        if self._closed:
            raise WorkspaceError.make("the workspace env is closed", phase="env")

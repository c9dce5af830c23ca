"""The demo agent's tools: files in its workspace, the test command, memory and the skill library."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from qitos.core.memory import MemoryRecord
from qitos.core.tool import ToolPermission, tool
from qitos.kit.memory.memdir_memory import MemdirMemory
from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary

TEST_TIMEOUT_S = 20.0


class DemoTools:
    """Tools bound to one workspace, one memory and one skill library."""

    def __init__(self, workspace: Path, memory: MemdirMemory, skills: SqliteToolLibrary) -> None:
        self.workspace = workspace.resolve()
        self.memory = memory
        self.skills = skills
        self.step_id = 0  # set by the agent each step, so memories say when they were made

    def _path(self, name: str) -> Path:
        """A workspace file by relative name; anything that escapes the workspace is refused."""
        target = (self.workspace / name).resolve()
        if target != self.workspace and self.workspace not in target.parents:
            raise ValueError(f"{name!r} is outside the workspace")
        return target

    @tool(name="list_files", permissions=ToolPermission(filesystem_read=True))
    def list_files(self) -> str:
        """List the files in the workspace."""
        names = sorted(
            p.relative_to(self.workspace).as_posix() for p in self.workspace.rglob("*") if p.is_file()
        )
        return "\n".join(n for n in names if not n.startswith((".", "__pycache__")))

    @tool(name="read_file", permissions=ToolPermission(filesystem_read=True))
    def read_file(self, path: str) -> str:
        """Return the text of one workspace file."""
        return self._path(path).read_text(encoding="utf-8")

    @tool(name="write_file", permissions=ToolPermission(filesystem_write=True))
    def write_file(self, path: str, content: str) -> str:
        """Replace the text of one workspace file."""
        target = self._path(path)
        target.write_text(content, encoding="utf-8")
        return f"wrote {len(content)} characters to {path}"

    @tool(name="run_tests", timeout_s=TEST_TIMEOUT_S, permissions=ToolPermission(command=True))
    def run_tests(self) -> str:
        """Run the project's checks (python test_calc.py) and report the outcome."""
        proc = subprocess.run(
            [sys.executable, "test_calc.py"],
            cwd=self.workspace,
            capture_output=True,
            text=True,
            timeout=TEST_TIMEOUT_S,
        )
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or [""]
        verdict = "passed" if proc.returncode == 0 else f"failed (exit {proc.returncode})"
        return f"tests {verdict}: {tail[0]}"

    @tool(name="remember")
    def remember(self, fact: str) -> str:
        """Store one fact in durable project memory."""
        # A content-derived id keeps the demo's traces reproducible run after run.
        record_id = hashlib.sha256(f"{self.step_id}:{fact}".encode()).hexdigest()[:32]
        if self.memory.get(record_id) is not None:
            return f"already remembered as {record_id}"
        self.memory.append(MemoryRecord("agent", fact, self.step_id, {"kind": "fact"}, record_id=record_id))
        return f"remembered as {record_id}"

    @tool(name="publish_skill")
    def publish_skill(self, name: str, description: str, procedure: str) -> str:
        """Publish a procedure to the skill library as a new immutable version."""
        # Run again over the same library, the demo finds its procedures already there: a
        # version identical to one published earlier is not published a second time.
        for earlier in self.skills.versions(name):
            if (earlier.source, earlier.description) == (procedure, description):
                return f"already published as {earlier.name} v{earlier.version} (identical)"
        current = self.skills.get(name)
        expected = current.version if current is not None else 0
        stored = self.skills.add_or_update(
            ToolArtifact(name=name, description=description, source=procedure, tags=["demo", "procedure"]),
            expected_version=expected,
        )
        # The database file alone then holds the version: a reader (the TUI's skills browser)
        # keeps SQLite from folding its write-ahead log in when this process exits.
        self.skills.checkpoint()
        return f"published {stored.name} v{stored.version}"

"""A throwaway PostgreSQL server for the tests and benchmarks: initdb + pg_ctl, Unix socket only.

The server lives in a fresh temporary folder, listens on no TCP port, and trusts local
connections (only the socket's owner, and root, can reach a socket in a 0700 folder). As root,
``initdb`` refuses to run, so the commands run as the ``postgres`` OS user through ``runuser``,
with the folder given to that user. Registered as a pytest plugin by tests/conftest.py.
"""

from __future__ import annotations

import itertools
import os
import pwd
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

__all__ = ["PostgresServer", "find_binaries", "postgres_server", "unavailable_reason"]

SUPERUSER = "postgres"
_SCHEMAS = itertools.count(1)


def find_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl: on PATH, else the newest /usr/lib/postgresql/N/bin."""
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(os.path.realpath(initdb)).parent
    found = []
    for folder in Path("/usr/lib/postgresql").glob("*/bin"):
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file() and folder.parent.name.isdigit():
            found.append((int(folder.parent.name), folder))
    return max(found)[1] if found else None


def _run_as() -> list[str] | None:
    """The command prefix that runs the server's programs as a non-root user (empty if not root)."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return None
    runuser = shutil.which("runuser")
    return [runuser, "-u", "postgres", "--"] if runuser else None


def unavailable_reason() -> str | None:
    """Why no server can be started here, or None when one can."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[test]' installs it)"
    if find_binaries() is None:
        return "PostgreSQL server binaries (initdb, pg_ctl) are not installed"
    if _run_as() is None:
        return "running as root, and there is no 'postgres' OS user (or no runuser) to run initdb as"
    return None


class PostgresServer:
    """One initdb'ed cluster started with pg_ctl; ``dsn()`` connects over its Unix socket."""

    def __init__(self, *, durable: bool = False) -> None:
        self.bin = find_binaries()
        self.prefix = _run_as()
        if self.bin is None or self.prefix is None:
            raise RuntimeError(unavailable_reason() or "PostgreSQL is unavailable")
        #: fsync and synchronous_commit on (benchmarks compare with SQLite's synchronous=FULL).
        self.durable = durable
        # Short path under /tmp: a Unix socket path must fit in ~107 bytes.
        self.root = Path(tempfile.mkdtemp(prefix="qpg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.log = self.root / "server.log"
        self.started = False

    def _cmd(self, *args: str) -> None:
        """Run one server program as the server's user; its output goes into the exception on failure."""
        done = subprocess.run(
            [*self.prefix, *args], cwd=self.root, capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed ({done.returncode}): {done.stdout}{done.stderr}")

    def start(self) -> PostgresServer:
        """initdb, then start the server and wait until it accepts connections."""
        self.socket_dir.mkdir()
        if self.prefix:  # root: the server's user owns the folder
            user = pwd.getpwnam("postgres")
            for path in (self.root, self.socket_dir):
                os.chown(path, user.pw_uid, user.pw_gid)
        self._cmd(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-instructions",
        )
        settings = [
            "listen_addresses=''",
            f"unix_socket_directories='{self.socket_dir}'",
            "max_connections=100",
        ]
        if not self.durable:
            settings += ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]
        options = " ".join(f"-c {s}" for s in settings)
        self._cmd(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-o", options, "start"
        )
        self.started = True
        return self

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its folder."""
        if self.started:
            try:
                self._cmd(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
            finally:
                self.started = False
        shutil.rmtree(self.root, ignore_errors=True)

    def dsn(self, dbname: str = "postgres", *, search_path: str | None = None) -> str:
        """A postgresql:// URL for this server's socket (optionally with its own search_path)."""
        url = f"postgresql:///{dbname}?host={quote(str(self.socket_dir), safe='/')}&user={SUPERUSER}"
        if search_path is not None:
            url += "&options=" + quote(f"-csearch_path={search_path}", safe="")
        return url

    def fresh_schema(self) -> str:
        """Create a new empty schema and return a DSN whose tables land in it (one per test)."""
        import psycopg

        name = f"t{os.getpid()}_{next(_SCHEMAS)}"
        assert re.fullmatch(r"\w+", name)
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return self.dsn(search_path=name)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the whole session, stopped at its end; skips where none can run."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    server = PostgresServer()
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    yield server
    server.stop()

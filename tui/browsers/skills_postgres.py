"""The skills browser on a PostgreSQL library (`qitos-tui skills postgresql://…`), live by LISTEN/NOTIFY.

The browser and its panes are the SQLite browser's; this module swaps what is file-specific:
finding the namespaces, opening the library read-only, and following changes. Changes arrive as
notifications sent by the library's trigger inside each publishing transaction, so a new version
is on screen one round trip after its commit, with no polling.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from textual import events, work
from textual.app import ComposeResult
from textual.widgets import Header

from qitos.kit.tool.library.errors import ToolLibraryError
from qitos.kit.tool.library.postgres_store import CHANNEL, PostgresToolLibrary, psycopg
from tui.browsers.apps import SkillsBrowserApp
from tui.browsers.messages import WatchStopped
from tui.browsers.skills_browser import SkillsBrowser
from tui.browsers.skills_model import SkillLibrary, SkillsOpenError
from tui.browsers.skills_render import SkillList
from tui.widgets.keys_footer import KeysFooter

__all__ = [
    "PostgresSkillsBrowser",
    "PostgresSkillsBrowserApp",
    "display_url",
    "notifications",
    "open_pg_library",
    "resolve_pg_namespace",
]

#: How long the browser waits for the server before saying it cannot be reached.
CONNECT_TIMEOUT_S = 5.0


class LiveUpdatesError(Exception):
    """Following the library stopped; the message says why in words a user can act on."""


def display_url(dsn: str) -> str:
    """The connection URL as shown to a person: any password replaced by ***."""
    try:
        parts = urlsplit(dsn)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, host = netloc.rsplit("@", 1)
            if ":" in userinfo:
                netloc = userinfo.split(":", 1)[0] + ":***@" + host
        query = [
            (k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ]
        # Built by hand: urlunsplit drops the "//" of an empty host (a Unix-socket URL).
        shown = f"{parts.scheme}://{netloc}{parts.path}"
        return shown + ("?" + urlencode(query, safe="/*") if query else "")
    except ValueError:
        return "postgresql://…"  # not even a URL: show nothing of it


def _database_name(dsn: str) -> str:
    """The database named by the URL, for short messages ("postgres" when it names none)."""
    try:
        return urlsplit(dsn).path.lstrip("/") or "postgres"
    except ValueError:
        return "postgres"


def _require_driver() -> None:
    if psycopg is None:
        raise SkillsOpenError("PostgreSQL support is not installed: pip install 'qitos-tui[postgres]'")


def resolve_pg_namespace(dsn: str, namespace: str | None) -> str | list[str]:
    """The namespace to browse: the given one, else the only one; several: the list to choose from."""
    _require_driver()
    where = display_url(dsn)
    try:
        names = PostgresToolLibrary.list_namespaces(dsn, connect_timeout=CONNECT_TIMEOUT_S)
    except ToolLibraryError as exc:
        raise SkillsOpenError(f"cannot read skills at {where} ({exc})") from exc
    if namespace is not None:
        if namespace not in names:
            known = ", ".join(names) if names else "none"
            raise SkillsOpenError(f"namespace {namespace!r} holds no skills at {where} (namespaces: {known})")
        return namespace
    if not names:
        raise SkillsOpenError(f"{where} holds no skills yet")
    return names[0] if len(names) == 1 else names


def open_pg_library(dsn: str, namespace: str) -> PostgresToolLibrary:
    """Open the library read-only in one namespace, with every failure as a SkillsOpenError."""
    _require_driver()
    try:
        return PostgresToolLibrary.open_readonly(dsn, namespace=namespace, connect_timeout=CONNECT_TIMEOUT_S)
    except ToolLibraryError as exc:
        raise SkillsOpenError(f"cannot open {display_url(dsn)}: {exc}") from exc


def _payload(text: str) -> dict[str, Any] | None:
    """A notification's payload as a dict, or None when it is not one (anyone may NOTIFY a channel)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


async def notifications(dsn: str, stop: asyncio.Event) -> AsyncGenerator[dict[str, Any] | None, None]:
    """Yield None once listening (a read from then on misses nothing), then each change's payload,
    until ``stop`` is set; LiveUpdatesError when the server cannot be reached or the link breaks."""
    _require_driver()
    try:
        conn = await psycopg.AsyncConnection.connect(
            dsn, autocommit=True, connect_timeout=round(CONNECT_TIMEOUT_S)
        )
    except psycopg.Error:
        raise LiveUpdatesError("live updates unavailable: the server cannot be reached") from None
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await conn.execute(f"LISTEN {CHANNEL}")
        yield None
        stream = conn.notifies()
        while True:
            pending = asyncio.ensure_future(anext(stream))
            await asyncio.wait({pending, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if not pending.done():
                pending.cancel()
                return
            payload = _payload(pending.result().payload)
            if payload is not None:
                yield payload
    except psycopg.Error:
        raise LiveUpdatesError("live updates stopped: the connection to the server was lost") from None
    finally:
        stopper.cancel()
        await conn.close()


class PostgresSkillsBrowser(SkillsBrowser):
    """The skills browser on one namespace of a PostgreSQL library, following it live."""

    def __init__(
        self,
        dsn: str,
        *,
        namespace: str | None = None,
        watch_files: bool = True,
        autofocus: bool = True,
        id: str | None = None,
    ) -> None:
        # The base names the source by ``db_path.name`` in its messages: the database's name.
        super().__init__(
            Path(_database_name(dsn)),
            namespace=namespace,
            watch_files=watch_files,
            autofocus=autofocus,
            id=id,
        )
        self.dsn = dsn
        #: The listening connection broke: reconnect before the next read.
        self._link_lost = False
        #: Change notifications received so far, for this namespace or not.
        self.changes_seen = 0

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # not the file-based mount of the base class
        if self.autofocus:
            self.query_one(SkillList).focus()
        self._connect()

    @work(exclusive=True, group="skills-connect", exit_on_error=False, description="connect to PostgreSQL")
    async def _connect(self) -> None:
        """Resolve the namespace off the event loop (a remote server may take a while to answer)."""
        try:
            resolved = await asyncio.to_thread(resolve_pg_namespace, self.dsn, self.namespace)
        except SkillsOpenError as exc:
            self._fail(str(exc))
            if self.watch_files and str(exc).endswith("holds no skills yet"):
                self._wait_for_skills()  # a fleet that has not published yet: open at its first skill
            return
        self._resolved(resolved)

    @work(exclusive=True, group="skills-wait", exit_on_error=False, description="waiting for skills")
    async def _wait_for_skills(self) -> None:
        """Listen until the namespace can be resolved, then open it as on mount."""
        try:
            async with aclosing(notifications(self.dsn, self._stop)) as changes:
                async for _change in changes:
                    try:
                        resolved = await asyncio.to_thread(resolve_pg_namespace, self.dsn, self.namespace)
                    except SkillsOpenError:
                        continue
                    self.error = None
                    self._resolved(resolved)
                    return
        except LiveUpdatesError as exc:
            self.post_message(WatchStopped(str(exc)))

    def _open(self, namespace: str) -> None:
        self._open_in_thread(namespace)

    @work(exclusive=True, group="skills-open", exit_on_error=False, description="open the skill library")
    async def _open_in_thread(self, namespace: str) -> None:
        try:
            library = await asyncio.to_thread(open_pg_library, self.dsn, namespace)
        except SkillsOpenError as exc:
            self._fail(str(exc))
            return
        with self._open_lock:
            self.library, self.namespace = library, namespace
        if self.watch_files:
            self._watch()  # takes the first reading once it listens
        else:
            self.reload()

    def action_reload(self) -> None:
        """Read the library again now; if live updates had stopped, listen again first."""
        if self.watch_files and not self.live and self.library is not None:
            self._watch()  # reads once it listens
        else:
            self.reload()

    def _current_library(self) -> SkillLibrary | None:
        """The open library, reconnected if the server dropped its connection."""
        with self._open_lock:
            library = self.library
            if library is None or self.namespace is None:
                return None
            conn = getattr(library, "_conn", None)
            if self._link_lost or conn is None or conn.broken or conn.closed:
                self._link_lost = False
                fresh = open_pg_library(self.dsn, self.namespace)
                library.close()
                self.library = library = fresh
            return library

    @work(exclusive=True, group="skills-watch", exit_on_error=False, description="follow the skill library")
    async def _watch(self) -> None:
        schema = getattr(self.library, "schema", None)
        try:
            async with aclosing(notifications(self.dsn, self._stop)) as changes:
                async for change in changes:
                    if change is None:
                        self._armed()
                    elif change.get("namespace") == self.namespace and change.get("schema") in (None, schema):
                        self._load(self._selected_name, time.perf_counter())
                    # Counted after any read it started: the only way a test can see that a change
                    # arrived and was ignored (a change elsewhere must cost no read).
                    self.changes_seen += 1
        except LiveUpdatesError as exc:
            # The reading connection went the same way, most likely: the next read reconnects.
            self._link_lost = True
            self.post_message(WatchStopped(str(exc)))
            return
        if not self._stop.is_set():
            self.post_message(WatchStopped("live updates stopped"))


class PostgresSkillsBrowserApp(SkillsBrowserApp):
    """A PostgreSQL skill library browsed on its own (read-only)."""

    def __init__(self, dsn: str, *, namespace: str | None = None, watch: bool = True) -> None:
        super().__init__(Path(_database_name(dsn)), namespace=namespace, watch=watch)
        self.dsn = dsn
        self.sub_title = display_url(dsn)

    def compose(self) -> ComposeResult:
        yield Header(icon="≡")
        yield PostgresSkillsBrowser(self.dsn, namespace=self.namespace, watch_files=self.watch, id="skills")
        yield KeysFooter()

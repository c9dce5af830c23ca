"""What the skills browser shows, computed without the UI: opening a database, diffs, publish marks."""

from __future__ import annotations

import difflib
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from rich.style import Style
from rich.text import Text

from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.errors import ToolLibraryError
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary
from tui.structured import Tone
from tui.text import inert

if TYPE_CHECKING:
    from qitos.kit.tool.library.postgres_store import PostgresToolLibrary

#: The libraries the browser reads: a SQLite file, or a PostgreSQL namespace (skills_postgres).
SkillLibrary: TypeAlias = "SqliteToolLibrary | PostgresToolLibrary"

__all__ = [
    "SkillsOpenError",
    "diff_text",
    "guess_language",
    "open_library",
    "published_marks",
    "read_versions",
    "resolve_namespace",
]


class SkillsOpenError(Exception):
    """The skill database cannot be browsed; the message says why in words a user can act on."""


def resolve_namespace(db_path: Path, namespace: str | None) -> str | list[str]:
    """The namespace to browse: the given one, else the only one; several: the list to choose from."""
    if not db_path.exists():
        raise SkillsOpenError(f"skill database not found: {db_path} (the browser never creates one)")
    if not db_path.is_file():
        raise SkillsOpenError(f"not a file: {db_path}")
    try:
        names = SqliteToolLibrary.list_namespaces(db_path)
    except ToolLibraryError as exc:
        raise SkillsOpenError(f"{db_path.name} is not a readable skill database ({exc})") from exc
    if namespace is not None:
        if namespace not in names:
            known = ", ".join(names) if names else "none"
            raise SkillsOpenError(
                f"namespace {namespace!r} holds no skills in {db_path.name} (namespaces: {known})"
            )
        return namespace
    if not names:
        raise SkillsOpenError(f"{db_path.name} holds no skills yet")
    return names[0] if len(names) == 1 else names


def open_library(db_path: Path, namespace: str) -> SqliteToolLibrary:
    """Open the database read-only in one namespace, with every failure as a SkillsOpenError."""
    try:
        return SqliteToolLibrary.open_readonly(db_path, namespace=namespace)
    except ToolLibraryError as exc:
        raise SkillsOpenError(f"cannot open {db_path.name}: {exc}") from exc
    except sqlite3.Error as exc:  # open_readonly probes the schema before its error translation applies
        raise SkillsOpenError(f"{db_path.name} is not a readable skill database ({exc})") from exc


def read_versions(library: SkillLibrary, name: str) -> list[ToolArtifact]:
    """Every version of one skill, newest first: one indexed query, never the whole catalogue."""
    return list(reversed(library.versions(name)))


def guess_language(artifact: ToolArtifact) -> str:
    """The lexer for a version's source: declared in metadata, else Python-looking code, else Markdown."""
    declared = artifact.metadata.get("language") if isinstance(artifact.metadata, dict) else None
    if isinstance(declared, str) and declared.strip():
        return declared.strip().lower()
    head = artifact.source.lstrip()
    if head.startswith(("def ", "import ", "from ", "class ", "async def ", "#!/usr/bin/env python", "@")):
        return "python"
    return "markdown"


def diff_text(old: ToolArtifact, new: ToolArtifact, tone: Tone, *, context: int = 3) -> Text:
    """A unified diff from ``old`` to ``new`` (their sources), coloured with ``tone``."""
    lines = difflib.unified_diff(
        old.source.splitlines(),
        new.source.splitlines(),
        fromfile=f"{old.name} v{old.version}",
        tofile=f"{new.name} v{new.version}",
        n=context,
        lineterm="",
    )
    out = Text()
    empty = True
    for line in lines:
        empty = False
        if line.startswith(("+++", "---")):
            style = Style(bold=True)
        elif line.startswith("@@"):
            style = tone("info")
        elif line.startswith("+"):
            style = tone("good")
        elif line.startswith("-"):
            style = tone("bad")
        else:
            style = Style()
        out.append_text(inert(line + "\n", style))  # sources and names are untrusted
    if empty:
        out.append(f"v{old.version} and v{new.version} have the same source", style=Style(dim=True))
    return out


def published_marks(events: Iterable[Mapping[str, Any]], namespace: str | None) -> set[tuple[str, int]]:
    """(name, version) of every ``skill_publish`` payload in ``namespace`` (payloads without one count)."""
    marks: set[tuple[str, int]] = set()
    for payload in events:
        if not isinstance(payload, Mapping):
            continue
        name, version = payload.get("name"), payload.get("version")
        ns = payload.get("namespace")
        if not isinstance(name, str) or isinstance(version, bool) or not isinstance(version, int):
            continue
        if namespace is None or ns in (None, namespace):
            marks.add((name, version))
    return marks

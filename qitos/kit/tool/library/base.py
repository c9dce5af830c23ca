"""Skill artifacts and the replaceable library contract, with an in-memory implementation.

A :class:`ToolArtifact` holds a procedure document or executable source; a library stores and
versions it but never runs it. Selection, verification, trust and execution stay with the agent.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from qitos.kit.tool.library.errors import ToolLibraryError
from qitos.kit.tool.library.validation import (
    validate_artifact,
    validate_expected_version,
    validate_limit,
    validate_name,
    validate_namespace,
    validate_query_text,
)
from qitos.trace import sink
from qitos.trace.events import EventKind

__all__ = ["BaseToolLibrary", "InMemoryToolLibrary", "ToolArtifact", "catalog_entry", "rank_artifacts"]

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class ToolArtifact:
    """One stored skill version: a procedure document or program source, never executed here."""

    name: str
    description: str
    source: str
    summary: str | None = None
    tags: list[str] = field(default_factory=list)
    version: int = 1
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    updated_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    metadata: dict[str, Any] = field(default_factory=dict)
    active: bool = True


class BaseToolLibrary(ABC):
    """The replaceable skill-library contract: publish, load by name, search."""

    @abstractmethod
    def add_or_update(self, artifact: ToolArtifact) -> ToolArtifact:
        """Publish ``artifact`` as the next version of its name; return the stored version."""

    @abstractmethod
    def get(self, name: str) -> ToolArtifact | None:
        """The latest version of ``name`` with its complete body, or None."""

    @abstractmethod
    def search(self, query: str, top_k: int = 5) -> list[ToolArtifact]:
        """Up to ``top_k`` active artifacts ranked by relevance to ``query``."""

    def close(self) -> None:
        """Release owned resources (nothing by default)."""
        return None

    def __enter__(self) -> BaseToolLibrary:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def catalog_entry(artifact: ToolArtifact) -> dict[str, Any]:
    """The catalog projection of an artifact: identity and description, never source or metadata."""
    return {
        "name": artifact.name,
        "version": artifact.version,
        "description": artifact.description,
        "summary": artifact.summary,
        "tags": list(artifact.tags),
        "active": artifact.active,
        "updated_at": artifact.updated_at,
    }


def query_terms(query: str) -> list[str]:
    """The lowercase word terms of a query (punctuation and operators are not syntax here)."""
    return [t.casefold() for t in _WORD.findall(query)]


def rank_artifacts(artifacts: Iterable[ToolArtifact], query: str, top_k: int) -> list[ToolArtifact]:
    """Rank by weighted term matches (name > description > summary/tags > source); ties by name."""
    terms = query_terms(query)
    if not terms:
        return []
    scored: list[tuple[float, str, ToolArtifact]] = []
    for artifact in artifacts:
        fields = (
            (5.0, artifact.name),
            (3.0, artifact.description),
            (2.0, artifact.summary or ""),
            (2.0, " ".join(artifact.tags)),
            (0.5, artifact.source),
        )
        score = 0.0
        for weight, text in fields:
            words = query_terms(text)
            if not words:
                continue
            for term in terms:
                hits = sum(1 for w in words if w.startswith(term))
                score += weight * hits / (len(words) ** 0.5)
        if score > 0:
            scored.append((score, artifact.name, artifact))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [item[2] for item in scored[:top_k]]


def emit_publish(artifact: ToolArtifact, *, namespace: str) -> bool:
    """Record a ``skill_publish`` event in the active run (no-op outside a run)."""
    payload = {
        "name": artifact.name,
        "version": artifact.version,
        "namespace": namespace,
        "description": artifact.description,
    }
    return sink.emit(EventKind.SKILL_PUBLISH, payload)


def emit_deprecate(name: str, *, namespace: str, changed: bool) -> bool:
    """Record a ``skill_deprecate`` event saying whether the flag changed."""
    return sink.emit(EventKind.SKILL_DEPRECATE, {"name": name, "namespace": namespace, "changed": changed})


class InMemoryToolLibrary(BaseToolLibrary):
    """Versioned skills kept in process memory, with the same semantics as the SQLite library."""

    def __init__(self, *, namespace: str = "default", clock: Callable[[], str] | None = None) -> None:
        self.namespace = validate_namespace(namespace)
        self.clock: Callable[[], str] = clock or (lambda: datetime.now(UTC).isoformat())
        self._versions: dict[str, list[ToolArtifact]] = {}
        self._active: dict[str, bool] = {}
        self._lock = threading.Lock()

    def add_or_update(self, artifact: ToolArtifact, *, expected_version: int | None = None) -> ToolArtifact:
        """Publish an immutable new version; a stale ``expected_version`` raises version_conflict."""
        validate_artifact(artifact)
        expected = validate_expected_version(expected_version)
        # Deep copy through JSON: the stored version must not change when the caller's dict does.
        metadata = json.loads(json.dumps(artifact.metadata))
        with self._lock:
            history = self._versions.get(artifact.name, [])
            latest = history[-1].version if history else 0
            if expected is not None and expected != latest:
                raise ToolLibraryError("version_conflict")
            stored = replace(
                artifact,
                tags=list(artifact.tags),
                metadata=metadata,
                version=latest + 1,
                created_at=history[0].created_at if history else artifact.created_at,
                updated_at=self.clock(),
            )
            self._versions.setdefault(artifact.name, []).append(stored)
            self._active[artifact.name] = artifact.active
            view = self._view(stored)
        emit_publish(view, namespace=self.namespace)
        return view

    def get(self, name: str) -> ToolArtifact | None:
        """The latest version of ``name`` (active flag current), or None."""
        validate_name(name)
        with self._lock:
            history = self._versions.get(name)
            return self._view(history[-1]) if history else None

    def get_version(self, name: str, version: int) -> ToolArtifact | None:
        """One exact version of ``name``, or None."""
        validate_name(name)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ToolLibraryError("invalid_version")
        with self._lock:
            history = self._versions.get(name, [])
            return self._view(history[version - 1]) if version <= len(history) else None

    def versions(self, name: str) -> list[ToolArtifact]:
        """Every version of ``name``, oldest first (empty if unknown)."""
        validate_name(name)
        with self._lock:
            return [self._view(a) for a in self._versions.get(name, [])]

    def skills(self, *, include_inactive: bool = True) -> list[dict[str, Any]]:
        """Every skill for browsing, by name: name, latest_version, active, tags, description, ..."""
        with self._lock:
            latest = [self._view(h[-1]) for _, h in sorted(self._versions.items())]
        return [
            {
                "name": a.name,
                "latest_version": a.version,
                "active": a.active,
                "tags": list(a.tags),
                "description": a.description,
                "summary": a.summary,
                "created_at": a.created_at,
                "updated_at": a.updated_at,
            }
            for a in latest
            if include_inactive or a.active
        ]

    def search(self, query: str, top_k: int = 5) -> list[ToolArtifact]:
        """Active artifacts ranked by weighted term matches."""
        validate_query_text(query)
        validate_limit(top_k)
        with self._lock:
            latest = [self._view(h[-1]) for name, h in self._versions.items() if self._active.get(name)]
        return rank_artifacts(latest, query, top_k)

    def catalog(self, query: str = "", *, limit: int = 20) -> list[dict[str, Any]]:
        """Identities and descriptions of active skills (all by name, or ranked by ``query``)."""
        validate_query_text(query)
        validate_limit(limit)
        if query.strip():
            return [catalog_entry(a) for a in self.search(query, top_k=limit)]
        with self._lock:
            names = sorted(n for n in self._versions if self._active.get(n))
            return [catalog_entry(self._view(self._versions[n][-1])) for n in names[:limit]]

    def deprecate(self, name: str) -> bool:
        """Mark ``name`` inactive; True if that changed anything."""
        validate_name(name)
        with self._lock:
            changed = bool(self._active.get(name))
            if changed:
                self._active[name] = False
        emit_deprecate(name, namespace=self.namespace, changed=changed)
        return changed

    def _view(self, stored: ToolArtifact) -> ToolArtifact:
        """A caller-owned copy with the skill's current active flag."""
        return replace(
            stored,
            tags=list(stored.tags),
            metadata=copy.deepcopy(stored.metadata),
            active=self._active.get(stored.name, stored.active),
        )

"""Row shapes shared by the SQL libraries: JSON encoding of an artifact and rows back to artifacts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from qitos.kit.tool.library.base import ToolArtifact

__all__ = [
    "SKILL_COLUMNS",
    "VERSION_COLUMNS",
    "artifact_from_row",
    "catalog_from_skill",
    "encode_json",
    "prefixed",
    "skill_from_row",
]

#: The stored columns of one version, in the order ``artifact_from_row`` reads them.
VERSION_COLUMNS = (
    "name",
    "version",
    "description",
    "summary",
    "source",
    "tags_json",
    "metadata_json",
    "created_at",
    "updated_at",
)
#: The columns of a browsing row (skills joined to their latest version), in ``skill_from_row`` order.
SKILL_COLUMNS = (
    "s.name, s.latest_version, s.active, v.tags_json, v.description, v.summary, s.created_at, s.updated_at"
)


def prefixed(alias: str) -> str:
    """The version columns qualified by a table alias, in VERSION_COLUMNS order."""
    return ", ".join(f"{alias}.{col}" for col in VERSION_COLUMNS)


def encode_json(artifact: ToolArtifact) -> tuple[str, str]:
    """The tags and metadata of a validated artifact as the JSON text stored beside it."""
    tags_json = json.dumps(artifact.tags, ensure_ascii=False)
    metadata_json = json.dumps(artifact.metadata, ensure_ascii=False, sort_keys=True, allow_nan=False)
    return tags_json, metadata_json


def artifact_from_row(row: Sequence[Any]) -> ToolArtifact:
    """Build an artifact from a (version columns..., active) row."""
    name, version, description, summary, source, tags_json, metadata_json, created_at, updated_at, active = (
        row
    )
    return ToolArtifact(
        name=name,
        description=description,
        source=source,
        summary=summary,
        tags=json.loads(tags_json),
        version=version,
        created_at=created_at,
        updated_at=updated_at,
        metadata=json.loads(metadata_json),
        active=bool(active),
    )


def skill_from_row(row: Sequence[Any]) -> dict[str, Any]:
    """A browsing row (SKILL_COLUMNS order) as the dict ``skills()`` returns."""
    return {
        "name": row[0],
        "latest_version": row[1],
        "active": bool(row[2]),
        "tags": json.loads(row[3]),
        "description": row[4],
        "summary": row[5],
        "created_at": row[6],
        "updated_at": row[7],
    }


def catalog_from_skill(skill: dict[str, Any]) -> dict[str, Any]:
    """The catalog projection of a ``skills()`` row: identity and description, no source or metadata."""
    return {
        "name": skill["name"],
        "version": skill["latest_version"],
        "description": skill["description"],
        "summary": skill["summary"],
        "tags": skill["tags"],
        "active": skill["active"],
        "updated_at": skill["updated_at"],
    }

"""The SQL libraries' row shapes to the letter: the JSON text stored beside an artifact, the column
list a query selects, and the artifact and browsing dicts read back from rows.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a caller relies on (stored JSON that keeps non-ASCII text, a catalog without source or
metadata, an active flag read back as a bool), not the mutant.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.rows import (
    SKILL_COLUMNS,
    VERSION_COLUMNS,
    artifact_from_row,
    catalog_from_skill,
    encode_json,
    prefixed,
    skill_from_row,
)

STAMP = "2026-01-02T03:04:05+00:00"
LATER = "2026-01-03T00:00:00+00:00"


def test_the_version_columns_are_qualified_in_order() -> None:
    assert prefixed("v") == (
        "v.name, v.version, v.description, v.summary, v.source, v.tags_json, v.metadata_json, "
        "v.created_at, v.updated_at"
    )
    assert prefixed("old").split(", ") == [f"old.{col}" for col in VERSION_COLUMNS]


def test_stored_json_keeps_text_as_written_and_sorts_metadata_keys() -> None:
    """Non-ASCII text is stored as itself, and equal metadata is always stored as the same text."""
    artifact = ToolArtifact(
        name="audit", description="d", source="s", tags=["résumé", "日本"], metadata={"b": 1, "a": "é"}
    )
    assert encode_json(artifact) == ('["résumé", "日本"]', '{"a": "é", "b": 1}')


def test_stored_json_never_holds_a_non_finite_number() -> None:
    """NaN is not JSON: a reader in another language could not load it."""
    artifact = ToolArtifact(name="audit", description="d", source="s", metadata={"n": float("nan")})
    with pytest.raises(ValueError):
        encode_json(artifact)


def version_row(active: object) -> tuple[object, ...]:
    """A row in VERSION_COLUMNS order, then the skill's active flag as SQL stores it."""
    return ("audit", 3, "Check evidence", "short", "steps", '["a", "b"]', '{"k": [1]}', STAMP, LATER, active)


@pytest.mark.parametrize(("stored", "active"), [(1, True), (0, False), (True, True)])
def test_a_version_row_reads_back_as_the_artifact(stored: object, active: bool) -> None:
    artifact = artifact_from_row(version_row(stored))
    assert artifact == ToolArtifact(
        name="audit",
        description="Check evidence",
        source="steps",
        summary="short",
        tags=["a", "b"],
        version=3,
        created_at=STAMP,
        updated_at=LATER,
        metadata={"k": [1]},
        active=active,
    )
    assert artifact.active is active


def test_an_artifact_survives_a_round_trip_through_sqlite() -> None:
    """What encode_json stores, artifact_from_row reads back unchanged, through a real database."""
    original = ToolArtifact(
        name="audit", description="d", source="s", summary=None, tags=["ü"], version=2,
        created_at=STAMP, updated_at=LATER, metadata={"z": None, "a": [1.5, "x"]}, active=False,
    )  # fmt: skip
    tags_json, metadata_json = encode_json(original)
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE v ({', '.join(VERSION_COLUMNS)}, active)")
    db.execute(
        "INSERT INTO v VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (original.name, original.version, original.description, original.summary, original.source,
         tags_json, metadata_json, original.created_at, original.updated_at, int(original.active)),
    )  # fmt: skip
    row = db.execute(f"SELECT {prefixed('v')}, v.active FROM v").fetchone()
    assert artifact_from_row(row) == original


def skill_row(active: object) -> tuple[object, ...]:
    """A browsing row in SKILL_COLUMNS order."""
    return ("audit", 4, active, '["t"]', "Check evidence", None, STAMP, LATER)


def test_the_browsing_columns_match_the_row_reader() -> None:
    assert SKILL_COLUMNS.split(", ") == [
        "s.name", "s.latest_version", "s.active", "v.tags_json", "v.description", "v.summary",
        "s.created_at", "s.updated_at",
    ]  # fmt: skip


@pytest.mark.parametrize(("stored", "active"), [(1, True), (0, False)])
def test_a_browsing_row_reads_back_as_a_skill(stored: object, active: bool) -> None:
    skill = skill_from_row(skill_row(stored))
    assert skill == {
        "name": "audit",
        "latest_version": 4,
        "active": active,
        "tags": ["t"],
        "description": "Check evidence",
        "summary": None,
        "created_at": STAMP,
        "updated_at": LATER,
    }
    assert skill["active"] is active


def test_the_catalog_shows_identity_and_description_without_source_or_metadata() -> None:
    skill = skill_from_row(skill_row(1))
    assert catalog_from_skill(skill) == {
        "name": "audit",
        "version": 4,
        "description": "Check evidence",
        "summary": None,
        "tags": ["t"],
        "active": True,
        "updated_at": LATER,
    }
    assert json.dumps(catalog_from_skill(skill), sort_keys=True)  # plain JSON data, ready to show

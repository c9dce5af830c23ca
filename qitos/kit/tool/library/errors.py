"""ToolLibraryError: a library failure named by a stable code, whose message never echoes data."""

from __future__ import annotations

__all__ = ["ERROR_MESSAGES", "ToolLibraryError"]

# Fixed messages: a failure must not leak what a caller tried to store (it may be a secret).
ERROR_MESSAGES: dict[str, str] = {
    "invalid_namespace": "namespace must be 1-128 characters from [A-Za-z0-9_.:-]",
    "invalid_name": "artifact name must be 1-128 characters from [A-Za-z0-9_.:-]",
    "invalid_description": "artifact description must be a non-empty string",
    "invalid_source": "artifact source must be a string",
    "invalid_summary": "artifact summary must be a string or None",
    "invalid_tags": "artifact tags must be a list of non-empty single-line strings",
    "invalid_version": "version must be a positive int",
    "invalid_expected_version": "expected_version must be None or an int >= 0",
    "invalid_timestamp": "created_at/updated_at must be ISO-8601 timestamps",
    "invalid_active": "active must be a bool",
    "invalid_text": "text fields must be valid Unicode (no lone surrogates, no NUL)",
    "invalid_metadata": "metadata must be plain JSON data (dict with str keys; str/int/float/bool/None/list/dict)",
    "metadata_credential": "metadata must not hold credentials (secret-like keys or token-like values)",
    "invalid_query": "query must be a string",
    "invalid_limit": "limit/top_k must be a positive int",
    "invalid_artifact": "expected a ToolArtifact",
    "version_conflict": "stale write: the latest version is not the expected_version",
    "closed": "the library is closed",
    "storage_busy": "the database stayed locked by another writer; retry later",
    "storage_error": "the database could not be read or written",
    "storage_missing": "the skill database does not exist (no file, or no library tables)",
    "storage_unreachable": "the database server could not be reached or refused the connection",
    "schema_unsupported": "the library's schema version is newer than this code knows; upgrade qitos",
}


class ToolLibraryError(Exception):
    """Non-echoing library failure, identified by a stable code."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(f"{code}: {ERROR_MESSAGES.get(code, 'tool library failure')}")

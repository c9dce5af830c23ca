"""Validation of skill artifacts: invalid data is rejected with a stable code, never repaired."""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

from qitos.kit.tool.library.errors import ToolLibraryError

__all__ = ["NAME_RE", "check_metadata", "check_schema_version", "validate_artifact", "validate_namespace"]

NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}")
MAX_METADATA_DEPTH = 32
# Words that make a metadata key name a credential; keys are split into words first so that e.g.
# "max_tokens" or "secretary" stay allowed while "access_token" or "apiKey" are refused.
_SECRET_WORDS = frozenset(
    {
        "token",
        "password",
        "passwd",
        "secret",
        "apikey",
        "credential",
        "credentials",
        "authorization",
        "bearer",
        "cookie",
        "passphrase",
    }
)
_SECRET_PAIRS = frozenset({("api", "key"), ("private", "key"), ("access", "key"), ("secret", "key")})
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Values shaped like live credentials, whatever the key is called.
_SECRET_VALUE = re.compile(
    r"^(?:bearer\s+\S+|sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,})", re.IGNORECASE
)


def validate_namespace(namespace: object) -> str:
    """Return a well-formed namespace or raise ToolLibraryError('invalid_namespace')."""
    if not isinstance(namespace, str) or not NAME_RE.fullmatch(namespace):
        raise ToolLibraryError("invalid_namespace")
    return namespace


def validate_name(name: object) -> str:
    """Return a well-formed artifact name or raise ToolLibraryError('invalid_name')."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise ToolLibraryError("invalid_name")
    return name


def _check_text(value: str) -> None:
    # NUL is refused by every backend alike: PostgreSQL text cannot hold it, CPython refuses it in
    # source, and no procedure document needs it; one rule keeps the libraries interchangeable.
    if "\x00" in value:
        raise ToolLibraryError("invalid_text")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolLibraryError("invalid_text") from None


def _check_timestamp(value: object) -> None:
    if not isinstance(value, str):
        raise ToolLibraryError("invalid_timestamp")
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise ToolLibraryError("invalid_timestamp") from None


def _key_is_secret(key: str) -> bool:
    words = [w.lower() for part in re.split(r"[^A-Za-z0-9]+", key) for w in _CAMEL.findall(part)]
    if any(w in _SECRET_WORDS for w in words):
        return True
    return any(pair in _SECRET_PAIRS for pair in zip(words, words[1:], strict=False))


def check_metadata(value: Any, depth: int = 0) -> None:
    """Raise unless ``value`` is plain JSON data holding no credential-like keys or values."""
    if depth > MAX_METADATA_DEPTH:
        raise ToolLibraryError("invalid_metadata")
    if value is None or isinstance(value, bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ToolLibraryError("invalid_metadata")
        return
    if isinstance(value, str):
        _check_text(value)
        if _SECRET_VALUE.match(value.strip()):
            raise ToolLibraryError("metadata_credential")
        return
    if type(value) is list:
        for item in value:
            check_metadata(item, depth + 1)
        return
    if type(value) is dict:
        for key, item in value.items():
            if not isinstance(key, str):
                raise ToolLibraryError("invalid_metadata")
            _check_text(key)
            if _key_is_secret(key):
                raise ToolLibraryError("metadata_credential")
            check_metadata(item, depth + 1)
        return
    # Clients, callables, tuples, sets, bytes, custom objects: not data, and never coerced.
    raise ToolLibraryError("invalid_metadata")


def validate_artifact(artifact: Any) -> None:
    """Check every field of a ToolArtifact; raise ToolLibraryError with the first failing code."""
    from qitos.kit.tool.library.base import ToolArtifact

    if not isinstance(artifact, ToolArtifact):
        raise ToolLibraryError("invalid_artifact")
    validate_name(artifact.name)
    if not isinstance(artifact.description, str) or not artifact.description.strip():
        raise ToolLibraryError("invalid_description")
    _check_text(artifact.description)
    if not isinstance(artifact.source, str):
        raise ToolLibraryError("invalid_source")
    _check_text(artifact.source)
    if artifact.summary is not None:
        if not isinstance(artifact.summary, str):
            raise ToolLibraryError("invalid_summary")
        _check_text(artifact.summary)
    if type(artifact.tags) is not list or not all(
        isinstance(t, str) and t.strip() and "\n" not in t for t in artifact.tags
    ):
        raise ToolLibraryError("invalid_tags")
    for tag in artifact.tags:
        _check_text(tag)
    if isinstance(artifact.version, bool) or not isinstance(artifact.version, int) or artifact.version < 1:
        raise ToolLibraryError("invalid_version")
    _check_timestamp(artifact.created_at)
    _check_timestamp(artifact.updated_at)
    if type(artifact.metadata) is not dict:
        raise ToolLibraryError("invalid_metadata")
    check_metadata(artifact.metadata)
    if not isinstance(artifact.active, bool):
        raise ToolLibraryError("invalid_active")


def validate_expected_version(expected_version: object) -> int | None:
    """None (unconditional) or an int >= 0 (0 means: the name must not exist yet)."""
    if expected_version is None:
        return None
    if isinstance(expected_version, bool) or not isinstance(expected_version, int) or expected_version < 0:
        raise ToolLibraryError("invalid_expected_version")
    return expected_version


def validate_limit(limit: object) -> int:
    """A positive result limit, or ToolLibraryError('invalid_limit')."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ToolLibraryError("invalid_limit")
    return limit


def validate_query_text(query: object) -> str:
    """A search/catalog query string, or ToolLibraryError('invalid_query')."""
    if not isinstance(query, str):
        raise ToolLibraryError("invalid_query")
    _check_text(query)
    return query


def check_schema_version(stored: object, known: int) -> int:
    """The stored schema version as an int, or ToolLibraryError('schema_unsupported') when it is not
    one this code can read (newer than ``known``, or not a version number at all)."""
    text = str(stored).strip() if isinstance(stored, str | int) and not isinstance(stored, bool) else ""
    if not text.isdigit() or not 1 <= int(text) <= known:
        raise ToolLibraryError("schema_unsupported")
    return int(text)

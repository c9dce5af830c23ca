"""Invalid skill data is rejected with a stable code, never repaired, and never echoed."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.errors import ERROR_MESSAGES, ToolLibraryError

SECRET = "sk-abcdefghijklmnopqrstuvwx1234"


def art(**kw: object) -> ToolArtifact:
    """A valid artifact with overridable fields."""
    fields: dict[str, object] = {"name": "audit", "description": "Check evidence", "source": "steps"}
    fields.update(kw)
    return ToolArtifact(**fields)  # type: ignore[arg-type]


BAD = [
    (dict(name="../etc"), "invalid_name"),
    (dict(name=""), "invalid_name"),
    (dict(name="a b"), "invalid_name"),
    (dict(description="  "), "invalid_description"),
    (dict(description=None), "invalid_description"),
    (dict(source=b"bytes"), "invalid_source"),
    (dict(summary=3), "invalid_summary"),
    (dict(tags="viz"), "invalid_tags"),
    (dict(tags=["ok", ""]), "invalid_tags"),
    (dict(tags=["a\nb"]), "invalid_tags"),
    (dict(version=0), "invalid_version"),
    (dict(version=True), "invalid_version"),
    (dict(created_at="yesterday"), "invalid_timestamp"),
    (dict(active="yes"), "invalid_active"),
    (dict(source="\ud800"), "invalid_text"),
    (dict(source="before\x00after"), "invalid_text"),
    (dict(description="nul\x00"), "invalid_text"),
    (dict(metadata={"note": "a\x00b"}), "invalid_text"),
    (dict(metadata=[]), "invalid_metadata"),
    (dict(metadata={"client": threading.Lock()}), "invalid_metadata"),
    (dict(metadata={"check": print}), "invalid_metadata"),
    (dict(metadata={"check": lambda: 1}), "invalid_metadata"),
    (dict(metadata={"t": (1, 2)}), "invalid_metadata"),
    (dict(metadata={"s": {1, 2}}), "invalid_metadata"),
    (dict(metadata={1: "x"}), "invalid_metadata"),
    (dict(metadata={"n": float("nan")}), "invalid_metadata"),
    (dict(metadata={"b": b"raw"}), "invalid_metadata"),
    (dict(metadata={"api_key": "abc"}), "metadata_credential"),
    (dict(metadata={"apiKey": "abc"}), "metadata_credential"),
    (dict(metadata={"nested": [{"access_token": "abc"}]}), "metadata_credential"),
    (dict(metadata={"Password": "hunter2"}), "metadata_credential"),
    (dict(metadata={"client_secret": "x"}), "metadata_credential"),
    (dict(metadata={"private-key": "x"}), "metadata_credential"),
    (dict(metadata={"header": "Bearer abc.def"}), "metadata_credential"),
    (dict(metadata={"note": SECRET}), "metadata_credential"),
]


@pytest.mark.parametrize(("fields", "code"), BAD)
def test_invalid_artifacts_are_rejected(lib: Any, fields: dict, code: str) -> None:
    """Each invalid field raises its stable code in every library kind, stores nothing, echoes no data."""
    with pytest.raises(ToolLibraryError) as err:
        lib.add_or_update(art(**fields))
    assert err.value.code == code
    assert str(err.value) == f"{code}: {ERROR_MESSAGES[code]}"
    assert SECRET not in str(err.value) and "hunter2" not in str(err.value)
    assert lib.get("audit") is None


def test_plain_json_metadata_is_accepted(lib: Any) -> None:
    """Provenance, checker digests and ArtifactRef-like declarations are stored as given."""
    meta = {
        "provenance": {"run_id": "r1", "step": 3},
        "checker_digest": "sha256:" + "0" * 64,
        "artifact_refs": [{"artifact_id": "a1", "kind": "file"}],
        "max_tokens": 100,
        "secretary": "Ann",
        "score": 0.5,
        "ok": None,
    }
    lib.add_or_update(art(metadata=meta))
    assert lib.get("audit").metadata == meta


def test_non_artifact_and_bad_arguments(lib: Any) -> None:
    """Non-artifacts, bad queries, bad top_k and bad versions have codes too, in every library kind."""
    cases = [
        (lambda: lib.add_or_update({"name": "x"}), "invalid_artifact"),  # type: ignore[arg-type]
        (lambda: lib.search(3), "invalid_query"),  # type: ignore[arg-type]
        (lambda: lib.search("x", top_k=0), "invalid_limit"),
        (lambda: lib.get_version("audit", 0), "invalid_version"),
        (lambda: lib.get("../x"), "invalid_name"),
        (lambda: lib.deprecate(""), "invalid_name"),
    ]
    for call, code in cases:
        with pytest.raises(ToolLibraryError) as err:
            call()
        assert err.value.code == code


def test_error_has_stable_code_and_fixed_message() -> None:
    """ToolLibraryError(code) keeps the code and uses the fixed message for it."""
    err = ToolLibraryError("version_conflict")
    assert err.code == "version_conflict" and "stale write" in str(err)
    assert ToolLibraryError("something_new").code == "something_new"

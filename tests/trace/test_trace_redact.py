"""No secret reaches a trace: environment secrets, credential shapes and secret-named keys are masked."""

from __future__ import annotations

from pathlib import Path

import pytest

from qitos.trace.events import RunEvent
from qitos.trace.redact import MASK, Redactor, is_secret_env_name
from qitos.trace.writer import TraceWriter

API_KEY = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
DB_PASSWORD = "hunter2-correct-horse"


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("GH_TOKEN", True),
        ("DB_PASSWORD", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("GOOGLE_APPLICATION_CREDENTIALS", True),
        ("OPENAIKEY", True),
        ("DATABASEPASSWORD", True),
        ("HOME", False),
        ("KEYBOARD_LAYOUT", False),
        ("TOKENIZERS_PARALLELISM", False),
        ("PATH", False),
    ],
)
def test_secret_env_names(name: str, secret: bool) -> None:
    assert is_secret_env_name(name) is secret


def test_env_secret_values_are_masked_anywhere_in_strings() -> None:
    r = Redactor(env={"MY_SERVICE_TOKEN": "tok_abcdefgh12345", "HOME": "/home/someone", "SHORT_KEY": "ab"})
    data = {
        "cmd": "curl -H 'X: tok_abcdefgh12345' https://x",
        "nested": [{"deep": ("prefix tok_abcdefgh12345suffix",)}],
        "home": "/home/someone/file",
        "short": "ab cd",
    }
    out = r.redact(data)
    assert out["cmd"] == f"curl -H 'X: {MASK}' https://x"
    assert out["nested"][0]["deep"] == [f"prefix {MASK}suffix"]
    assert out["home"] == "/home/someone/file"  # HOME is not a secret
    assert out["short"] == "ab cd"  # too short to be masked
    assert data["cmd"].endswith("https://x") and "tok_abcdefgh12345" in data["cmd"]  # input untouched


def test_credential_patterns_and_secret_keys() -> None:
    r = Redactor(env={})
    out = r.redact(
        {
            "headers": {"Authorization": "Bearer abc.def-123456789", "Accept": "json"},
            "note": f"key is {API_KEY} ok",
            "log": "sent Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
            "password": "pw",
            "api-key": 12345,
            "token_usage": 3591,
            "max_tokens": 64,
            "token": None,
        }
    )
    assert out["headers"] == {"Authorization": MASK, "Accept": "json"}
    assert out["note"] == f"key is {MASK} ok"
    assert out["log"] == f"sent Authorization: {MASK}"
    assert out["password"] == MASK and out["api-key"] == MASK
    assert out["token_usage"] == 3591 and out["max_tokens"] == 64  # not secrets
    assert out["token"] is None  # nothing to hide


def test_objects_are_redacted_through_their_text() -> None:
    class Config:
        def __repr__(self) -> str:
            return f"Config(key={API_KEY!r})"

    assert Redactor(env={}).redact({"cfg": Config()}) == {"cfg": f"Config(key='{MASK}')"}


def test_no_secret_reaches_any_trace_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("APP_DB_PASSWORD", DB_PASSWORD)
    w = TraceWriter(tmp_path, run_id="secret_run")
    w.write_event(
        RunEvent(
            "secret_run",
            0,
            "tool_call",
            payload={"call_id": "c1", "tool": "http_get", "args": {"url": "https://x", "auth": API_KEY}},
        )
    )
    w.write_event(
        RunEvent(
            "secret_run",
            0,
            "model_request",
            payload={"messages": [{"role": "user", "content": f"connect with {DB_PASSWORD} please"}]},
        )
    )
    w.write_event(RunEvent("secret_run", 0, "error", ok=False, error=f"401 for key {API_KEY}"))
    w.write_step({"step_id": 0, "actions": [{"name": "login", "args": {"password": DB_PASSWORD}}]})
    w.update_manifest(model_id="m", config={"api_key": API_KEY, "base_url": "http://127.0.0.1"})
    w.finalize(status="completed", summary={"final_result": f"done using {API_KEY}"})
    everything = b"".join(p.read_bytes() for p in w.run_dir.iterdir() if p.is_file())
    assert API_KEY.encode() not in everything
    assert DB_PASSWORD.encode() not in everything
    assert b"connect with [REDACTED] please" in everything
    assert b"https://x" in everything  # the rest of the argument is kept


def test_json_line_masks_like_redact_and_stays_valid_json() -> None:
    """The writer's one-pass path masks the same secrets as ``redact`` and still parses as JSON."""
    import json

    quoted = 'pa"ss\\wo\nrd-0123456789'  # JSON escapes this secret's quote, backslash and newline
    redactor = Redactor({"DB_PASSWORD": quoted, "OPENAI_API_KEY": "sk-envkey-ABCDEFGHIJKLMNOP"})
    data = {
        "text": f"use {quoted} and sk-envkey-ABCDEFGHIJKLMNOP then Bearer abc.def.ghi-jkl",
        "nested": [{"api_key": "plain-value-123"}, {"headers": {"Authorization": "anything"}}],
        "tuple": ("ghp_" + "a" * 24, 3),
        "object": type("Creds", (), {"__str__": lambda self: "AKIA" + "B" * 16})(),
        "safe": "task-abcdefghijklmnopqrstu and a bearer of good news",
    }
    line = redactor.to_json_line(data)
    parsed = json.loads(line)
    assert json.loads(json.dumps(redactor.redact(data), default=str)) == parsed
    for secret in (quoted, "sk-envkey", "abc.def.ghi", "plain-value", "anything", "ghp_", "AKIA"):
        assert secret not in line and secret not in json.dumps(parsed)
    assert parsed["safe"] == data["safe"]
    assert parsed["nested"][0]["api_key"] == MASK and parsed["tuple"][1] == 3


def test_line_with_nothing_to_mask_is_returned_as_is() -> None:
    """A line with no secret is not rebuilt: the masking pass hands back the very same string."""
    redactor = Redactor({})
    line = '{"a": [1, {"b": "c"}], "usage": {"prompt_tokens": 5, "max_tokens": 9}}'
    assert redactor.mask_line(line) is line

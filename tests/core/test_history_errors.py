"""HistoryPolicy selection, the in-process WindowHistory, and the typed runtime errors."""

from __future__ import annotations

import pytest

from qitos import (
    HistoryMessage,
    HistoryPolicy,
    ModelExecutionError,
    ParseExecutionError,
    QitosRuntimeError,
    RuntimeErrorInfo,
    StateExecutionError,
    SystemExecutionError,
    ToolExecutionError,
)
from qitos.core.errors import ErrorCategory
from qitos.kit.history import WindowHistory


def _msgs() -> list[HistoryMessage]:
    return [
        HistoryMessage(role, f"{role}{i}" * 10, i) for i in range(6) for role in ("user", "assistant", "tool")
    ]


def test_policy_defaults_and_selection() -> None:
    """Defaults as documented; roles, step window, message cap and token cap applied."""
    policy = HistoryPolicy()
    assert (policy.roles, policy.max_messages, policy.step_window, policy.max_tokens) == (
        ["user", "assistant"],
        24,
        None,
        None,
    )
    assert all(m.role != "tool" for m in policy.select(_msgs()))
    windowed = HistoryPolicy(step_window=2).select(_msgs(), current_step=5)
    assert {m.step_id for m in windowed} == {4, 5}
    assert len(HistoryPolicy(max_messages=3).select(_msgs())) == 3
    capped = HistoryPolicy(max_tokens=30).select(_msgs())
    assert (
        len(capped) == 1 and capped[0].role == "assistant" and sum(len(m.content) // 4 for m in capped) <= 30
    )
    with pytest.raises(ValueError, match="max_messages"):
        HistoryPolicy(max_messages=-1)


def test_window_history() -> None:
    """append keeps the window; retrieve/summarize/evict/reset."""
    h = WindowHistory(window_size=3)
    for m in _msgs()[:4]:
        h.append(m)
    assert [m.role for m in h.retrieve()] == ["assistant", "tool", "user"]
    assert [m.role for m in h.retrieve({"roles": ["tool"]})] == ["tool"]
    assert len(h.retrieve({"max_items": 2})) == 2
    assert h.summarize(1).startswith("[1] user:")
    assert h.evict() == 0
    h.reset()
    assert h.retrieve() == []
    with pytest.raises(TypeError, match="HistoryMessage"):
        h.append("text")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("cls", "category", "recoverable"),
    [
        (ModelExecutionError, "model", True),
        (ParseExecutionError, "parse", True),
        (ToolExecutionError, "tool", True),
        (StateExecutionError, "state", False),
        (SystemExecutionError, "system", False),
    ],
)
def test_typed_errors_carry_category(cls: type[QitosRuntimeError], category: str, recoverable: bool) -> None:
    """Each subclass's make() fills category and recoverability; info round trips to dict."""
    err = cls.make("boom", phase="DECIDE", step_id=3, detail=1)
    assert isinstance(err, QitosRuntimeError) and str(err) == "boom"
    assert err.info.category == ErrorCategory(category) and err.info.recoverable is recoverable
    assert err.info.to_dict() == {
        "category": category,
        "message": "boom",
        "phase": "DECIDE",
        "recoverable": recoverable,
        "details": {"detail": 1},
    }


def test_error_from_info_and_bad_argument() -> None:
    """The documented constructor takes a RuntimeErrorInfo; other objects are a TypeError."""
    info = RuntimeErrorInfo(category=ErrorCategory.ENV, message="m", phase="p", step_id=1)
    assert QitosRuntimeError(info).info is info and info.recoverable is False and info.details == {}
    with pytest.raises(TypeError, match="RuntimeErrorInfo"):
        QitosRuntimeError(42)  # type: ignore[arg-type]

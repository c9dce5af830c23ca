"""Ready-made History adapters (``from qitos.kit.history import WindowHistory``, as upstream spells it)."""

from __future__ import annotations

from qitos.core.history import History, HistoryMessage
from qitos.kit.history.window_history import WindowHistory


def window_history(window_size: int = 24) -> WindowHistory:
    """A WindowHistory keeping the newest ``window_size`` messages."""
    return WindowHistory(window_size=window_size)


__all__ = ["History", "HistoryMessage", "WindowHistory", "window_history"]

"""Ready-made Memory adapters (``from qitos.kit.memory import WindowMemory``, as upstream spells it).

The small in-process memories are imported here; the file-backed ones are loaded on first use.
"""

from __future__ import annotations

from qitos._exports import lazy_exports
from qitos.core.memory import Memory, MemoryRecord

# Imported before the factory functions below, whose names are the same as these modules': the
# functions must be what ``qitos.kit.memory.window_memory`` names (as upstream), so no later first
# import of the module may overwrite them.
from qitos.kit.memory.markdown_file_memory import MarkdownFileMemory
from qitos.kit.memory.summary_memory import SummaryMemory
from qitos.kit.memory.vector_memory import VectorMemory
from qitos.kit.memory.window_memory import WindowMemory

_EXPORTS: dict[str, str] = {
    "MemdirMemory": "qitos.kit.memory.memdir_memory",
    "MemorySourceAdapter": "qitos.kit.memory.adapter",
}

__all__ = [
    "MarkdownFileMemory",
    "MemdirMemory",
    "Memory",
    "MemoryRecord",
    "MemorySourceAdapter",
    "SummaryMemory",
    "VectorMemory",
    "WindowMemory",
    "markdown_file_memory",
    "summary_memory",
    "vector_memory",
    "window_memory",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


def window_memory(window_size: int = 20) -> WindowMemory:
    """A WindowMemory recalling the newest ``window_size`` records."""
    return WindowMemory(window_size=window_size)


def summary_memory(keep_last: int = 10) -> SummaryMemory:
    """A SummaryMemory keeping the newest ``keep_last`` records verbatim."""
    return SummaryMemory(keep_last=keep_last)


def vector_memory(top_k: int = 5) -> VectorMemory:
    """A VectorMemory returning the ``top_k`` most similar records."""
    return VectorMemory(top_k=top_k)


def markdown_file_memory(path: str = "memory.md", max_in_memory: int = 200) -> MarkdownFileMemory:
    """A MarkdownFileMemory logging to ``path``."""
    return MarkdownFileMemory(path=path, max_in_memory=max_in_memory)

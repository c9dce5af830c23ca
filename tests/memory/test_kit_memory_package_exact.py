"""Exact behaviour of ``qitos.kit.memory``'s factory functions (upstream's lower-case spellings):
each builds its memory with the documented default or the value given, and the lazy exports load."""

from __future__ import annotations

from pathlib import Path

import qitos.kit.memory as kit_memory
from qitos.kit.memory import (
    MarkdownFileMemory,
    SummaryMemory,
    VectorMemory,
    WindowMemory,
    markdown_file_memory,
    summary_memory,
    vector_memory,
    window_memory,
)


def test_window_memory_factory_defaults_to_twenty_records() -> None:
    memory = window_memory()
    assert isinstance(memory, WindowMemory) and memory.window_size == 20


def test_window_memory_factory_passes_the_size() -> None:
    assert window_memory(3).window_size == 3


def test_summary_memory_factory_defaults_to_keeping_ten() -> None:
    memory = summary_memory()
    assert isinstance(memory, SummaryMemory) and memory.keep_last == 10


def test_summary_memory_factory_passes_keep_last() -> None:
    assert summary_memory(4).keep_last == 4


def test_vector_memory_factory_defaults_to_five_results() -> None:
    memory = vector_memory()
    assert isinstance(memory, VectorMemory) and memory.top_k == 5


def test_vector_memory_factory_passes_top_k() -> None:
    assert vector_memory(2).top_k == 2


def test_markdown_file_memory_factory_defaults_to_memory_md_and_two_hundred() -> None:
    memory = markdown_file_memory()
    assert isinstance(memory, MarkdownFileMemory)
    assert (memory.path, memory.max_in_memory) == (Path("memory.md"), 200)


def test_markdown_file_memory_factory_passes_path_and_bound(tmp_path: Path) -> None:
    memory = markdown_file_memory(str(tmp_path / "log.md"), max_in_memory=7)
    assert (memory.path, memory.max_in_memory) == (tmp_path / "log.md", 7)


def test_lazy_exports_load_their_classes() -> None:
    from qitos.kit.memory.adapter import MemorySourceAdapter
    from qitos.kit.memory.memdir_memory import MemdirMemory

    assert kit_memory.MemdirMemory is MemdirMemory
    assert kit_memory.MemorySourceAdapter is MemorySourceAdapter

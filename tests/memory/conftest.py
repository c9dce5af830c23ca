"""Fixtures for memory tests: an initialised Memdir root and a captured run-event sink."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qitos.kit.memory.memdir_memory import MemdirMemory
from qitos.trace import sink


@pytest.fixture
def memdir(tmp_path: Path) -> MemdirMemory:
    """A freshly initialised Memdir under a temp dir."""
    return MemdirMemory(str(tmp_path / "mem"), create=True)


@pytest.fixture
def events() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Run events emitted through qitos.trace.sink while the test runs, as (kind, payload)."""
    captured: list[tuple[str, dict[str, Any]]] = []

    def emitter(kind: str, payload: dict[str, Any], *, ok: bool = True, error: str | None = None) -> None:
        captured.append((kind, payload))

    with sink.bind(emitter):
        yield captured

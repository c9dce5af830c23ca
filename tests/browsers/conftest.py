"""Fixtures for the browser tests: Memdir roots and skill databases built with fixed ids and clocks."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_builders import build_global_root, build_memory_root, build_skills_db


@pytest.fixture
def memory_root(tmp_path: Path) -> Path:
    """A memory root with five records (fixed ids, clock), a malformed file and a symlink."""
    return build_memory_root(tmp_path / "mem")


@pytest.fixture
def global_root(tmp_path: Path) -> Path:
    """A global memory root with two records."""
    return build_global_root(tmp_path / "global")


@pytest.fixture
def skills_db(tmp_path: Path) -> Path:
    """A skill database (namespace "demo") with three skills, one revised twice, one deprecated."""
    return build_skills_db(tmp_path / "skills.db")

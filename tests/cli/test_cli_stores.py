"""The CLI's store options: where the Memory and Skills panes and browsers find their stores."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from qitos.kit.memory.memdir_memory import MemdirMemory
from tui.cli import DEMO_MEMORY_DIR, DEMO_SKILLS_DB, _parser, _store_options


def test_demo_points_the_panes_at_its_own_stores() -> None:
    """`demo` defaults to the .qitos stores the demo agent writes."""
    args = _parser().parse_args(["demo"])
    assert (args.memory, args.skills) == (DEMO_MEMORY_DIR, DEMO_SKILLS_DB)
    assert _store_options(args)["memory_dir"] == DEMO_MEMORY_DIR


def test_replay_takes_store_flags_and_follow() -> None:
    """`replay` takes --memory/--skills/--namespace/--global-memory beside --follow."""
    args = _parser().parse_args(
        [
            "replay",
            "runs",
            "--follow",
            "--memory",
            "m",
            "--skills",
            "s.db",
            "--namespace",
            "ns",
            "--global-memory",
            "g",
        ]
    )
    assert args.follow is True
    assert _store_options(args) == {
        "memory_dir": "m",
        "global_dir": "g",
        "skills_db": "s.db",
        "namespace": "ns",
    }
    bare = _parser().parse_args(["replay", "runs"])
    assert _store_options(bare) == {
        "memory_dir": None,
        "global_dir": None,
        "skills_db": None,
        "namespace": None,
    }


def test_run_uses_the_agents_memdir_root_unless_told_otherwise(tmp_path: Path) -> None:
    """`run` shows the agent's own Memdir root; an explicit --memory wins."""
    memory = MemdirMemory(str(tmp_path / "mem"), create=True)
    agent = SimpleNamespace(memory=memory)
    args = _parser().parse_args(["run", "agent.py"])
    assert Path(_store_options(args, agent)["memory_dir"]) == (tmp_path / "mem").resolve()
    args = _parser().parse_args(["run", "agent.py", "--memory", "other"])
    assert _store_options(args, agent)["memory_dir"] == "other"
    assert (
        _store_options(_parser().parse_args(["run", "agent.py"]), SimpleNamespace(memory=None))["memory_dir"]
        is None
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["memory", "DIR", "--global", "G"], ("DIR", "G")),
        (["skills", "DB", "--namespace", "ns"], ("DB", "ns")),
    ],
)
def test_browser_commands_parse(argv: list[str], expected: tuple[str, str]) -> None:
    """`memory DIR [--global DIR]` and `skills DB [--namespace NS]`."""
    args = _parser().parse_args(argv)
    got = (args.memory_dir, args.global_dir) if argv[0] == "memory" else (args.db, args.namespace)
    assert got == expected

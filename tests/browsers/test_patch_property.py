"""Property: the per-file patch of any sequence of record changes agrees with a full load."""

from __future__ import annotations

import tempfile
from pathlib import Path

from browser_builders import build_memory_root
from browser_writer import edit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_memory import MemdirMemory
from tui.browsers.memory_files import load_table, reread

IDS = ["a", "b", "c", "d"]
OPS = st.lists(
    st.tuples(
        st.sampled_from(["add", "edit", "unlink", "corrupt"]),
        st.sampled_from(IDS),
        st.text("xyz \n", max_size=12),
    ),
    min_size=1,
    max_size=8,
)


def _apply(memory: MemdirMemory, op: str, record_id: str, text: str) -> None:
    """One change made behind the browser's back, as another process or an editor would."""
    path = memory.records_dir / record_filename(record_id)
    if op == "add" and not path.exists():
        memory.append(MemoryRecord(role="user", content=text, step_id=1, record_id=record_id))
    elif op == "edit" and path.exists():
        try:
            edit(memory.root, record_id, text)
        except ValueError:
            path.write_text(
                f"---\nrecord_id: {record_id}\nrole: user\nstep_id: 2\n---\n{text}", encoding="utf-8"
            )
    elif op == "unlink":
        path.unlink(missing_ok=True)
    elif op == "corrupt":
        path.write_text("not a record", encoding="utf-8")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_patch_agrees_with_full_scan(ops: list[tuple[str, str, str]]) -> None:
    """After every change, the table patched with the changed file equals a fresh load, row for row."""
    with tempfile.TemporaryDirectory() as tmp:
        root = build_memory_root(Path(tmp) / "m", records=[("a", "user", 1, "first")]).resolve()
        memory = MemdirMemory(str(root))
        table = load_table(root, None)
        for op, record_id, text in ops:
            _apply(memory, op, record_id, text)
            changes, rescan = reread([str(memory.records_dir / record_filename(record_id))], root, None)
            assert not rescan
            for file_key, row in changes:
                if row is None:
                    table.remove(file_key)
                else:
                    table.put(row)
            full = load_table(root, None)
            assert table.rows() == full.rows()
            assert (table.local, table.rejected) == (full.local, full.rejected)

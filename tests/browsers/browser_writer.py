"""Another process that changes a memory root or a skill database (run by the live tests and benchmarks).

Usage::

    python browser_writer.py edit ROOT RECORD_ID TEXT       # rewrite a record's body in place, like an editor
    python browser_writer.py add ROOT RECORD_ID TEXT        # append a record through MemdirMemory
    python browser_writer.py delete ROOT RECORD_ID          # delete a record through MemdirMemory
    python browser_writer.py unlink ROOT RECORD_ID          # remove a record file behind the memory's back
    python browser_writer.py publish DB NAMESPACE NAME SOURCE   # publish the next version of a skill
    python browser_writer.py save ROOT RECORD_ID TEXT STYLE # save a body as an editor does (SAVE_STYLES)
    python browser_writer.py serve ROOT [STYLE]             # edit rec-bench on each stdin line; print the time
    python browser_writer.py serve-skills DB NAMESPACE NAME # publish a version per stdin line; print the time
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_memory import MemdirMemory
from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary


def edit(root: Path, record_id: str, text: str) -> None:
    """Replace the body of a record file, keeping its header, with one write (as an editor saves)."""
    path = root / "records" / record_filename(record_id)
    data = path.read_text(encoding="utf-8")
    end = data.index("\n---\n", 3) + 5
    with path.open("r+", encoding="utf-8") as out:
        out.seek(0)
        out.write(data[:end] + text)
        out.truncate()


SAVE_STYLES = ("in-place", "rename-beside", "rename-elsewhere", "vim")


def save(root: Path, record_id: str, text: str, style: str, n: int = 0) -> None:
    """Replace a record's body the way an editor saves it (``style`` one of SAVE_STYLES)."""
    if style == "in-place":
        edit(root, record_id, text)
        return
    path = root / "records" / record_filename(record_id)
    data = path.read_text(encoding="utf-8")
    new = data[: data.index("\n---\n", 3) + 5] + text
    if style == "rename-beside":
        # Any temp name beside the file: a different editor's habit on each save.
        names = (f"{path.name}.tmp{n}", f".goutputstream-{n:06X}", f"tmp{n}x9", f"{path.stem}.{n}.md.new")
        temp = path.with_name(names[n % len(names)])
        temp.write_text(new, encoding="utf-8")
        os.replace(temp, path)
    elif style == "rename-elsewhere":
        temp = root.parent / f".{root.name}-save-{n}"
        temp.write_text(new, encoding="utf-8")
        os.replace(temp, path)
    elif style == "vim":
        # vim's default: probe the folder with "4913", keep a swap file open, move the original to
        # a `~` backup, write the new file, drop the backup.
        probe = path.with_name("4913")
        probe.write_text("", encoding="utf-8")
        probe.unlink()
        swap = path.with_name(f".{path.name}.swp")
        swap.write_bytes(b"b0VIM 9.0" + bytes(100))
        backup = path.with_name(path.name + "~")
        os.replace(path, backup)
        path.write_text(new, encoding="utf-8")
        backup.unlink()
        swap.unlink()
    else:
        raise ValueError(f"unknown save style {style!r}")


def main(argv: list[str]) -> int:
    """Run one command; exit status 2 on a usage error."""
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    command, target = argv[0], Path(argv[1])
    if command == "edit":
        edit(target, argv[2], argv[3])
    elif command == "add":
        MemdirMemory(str(target)).append(
            MemoryRecord(role="tool", content=argv[3], step_id=7, record_id=argv[2])
        )
    elif command == "delete":
        if not MemdirMemory(str(target)).delete(argv[2]):
            print(f"{argv[2]} was absent", file=sys.stderr)
            return 1
    elif command == "unlink":
        (target / "records" / record_filename(argv[2])).unlink()
    elif command == "publish":
        with SqliteToolLibrary(target, namespace=argv[2]) as library:
            stored = library.add_or_update(
                ToolArtifact(name=argv[3], description="published by another process", source=argv[4])
            )
        print(stored.version)
    elif command == "save":
        save(target, argv[2], argv[3], argv[4])
    elif command == "serve":
        # One process for many samples: a line on stdin triggers an edit; the monotonic time is printed
        # (CLOCK_MONOTONIC is system-wide on Linux, so the benchmark can compare it with its own).
        style = argv[2] if len(argv) > 2 else "in-place"
        for n, _line in enumerate(sys.stdin):
            stamp = time.monotonic()
            save(target, "rec-bench", f"sample {n}", style, n)
            print(stamp, flush=True)
    elif command == "serve-skills":
        with SqliteToolLibrary(target, namespace=argv[2]) as library:
            for n, _line in enumerate(sys.stdin):
                stamp = time.monotonic()
                artifact = ToolArtifact(name=argv[3], description="benchmark", source=f"# sample {n}\n")
                stored = library.add_or_update(artifact)
                print(stamp, stored.version, flush=True)
    else:
        print(f"unknown command {command!r}\n{__doc__}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

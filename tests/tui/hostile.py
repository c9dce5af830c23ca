"""A hostile corpus (markup, action links, terminal control sequences, BiDi overrides, NUL, ...) and
crafted inputs carrying it: a run directory, a folder of runs, a Memdir root and a skill database.

What every screen must do with it: show it as text. ``unsafe`` names what must never reach a rendered
segment (and so the terminal); the markup must show literally.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from contextlib import closing
from pathlib import Path
from typing import Any

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_memory import MemdirMemory
from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary
from tui.synthetic import synthetic_events

MARKUP = "[bold red]BOLD[/] [@click=app.quit]Q[/]"
HOSTILE: list[str] = [
    MARKUP,
    "[link=https://evil.example/]link[/link] [@click=app.bell]bell[/] [on red]bg[/]",
    "clip\x1b]52;c;aGVsbG8=\x07end",  # OSC 52: set the clipboard
    "title\x1b]0;pwned-title\x07end",  # OSC 0: set the window title
    "title2\x1b]2;pwned-title-2\x1b\\end",  # OSC 2 ended by ST
    "osc8\x1b]8;;https://evil.example/\x1b\\here\x1b]8;;\x1b\\end",  # OSC 8 hyperlink
    "wipe\x1b[2J\x1b[H\x1b[31mred\x1b[0m\x1b[?1049l",  # CSI: clear, home, colour, leave alt screen
    "ask\x1b[6n\x1b]10;?\x07\x1b[c",  # queries: the terminal would type its answer into the app
    "reset\x1bc\x1b[?1000h\x1b[5i",  # RIS, mouse mode, printer
    "c1\x9b2J\x9d0;c1-title\x9c end",  # C1 CSI, OSC, ST
    "c1more\x84\x85\x8d\x90q\x9c\x9e\x9f\x80\x9a end",
    "dcs\x1bP+q544e\x1b\\ apc\x1b_x\x1b\\ pm\x1b^x\x1b\\ sos\x1bXx\x1b\\ end",
    "tmux\x1bPtmux;\x1b\x1b]52;c;aGVsbG8=\x07\x1b\\end",  # tmux passthrough of OSC 52
    "bidi user\u202etxt.exe\u202c \u2066iso\u2069 \u2067r\u2068f\u2069 \u202a\u202b\u202d \u200f\u200e\u061c end",
    "nul\x00bel\x07bs\x08del\x7fvt\x0bff\x0cso\x0esi\x0fesc\x1b end",
    "cr-overwrite safe\rEVIL",
    "multi line\nsecond \x1b]0;line-title\x07\tand tab",
]
SURROGATE = "lone surrogate \ud800 end"  # only where JSON carries it (\ud800): files cannot hold it

BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def unsafe(text: str) -> set[str]:
    """The characters of ``text`` that must never reach the terminal as themselves."""
    return {
        c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in BIDI or 0xD800 <= ord(c) <= 0xDFFF
    }


def pick(value: str, salt: str = "", *, surrogates: bool = True) -> str:
    """A corpus entry chosen by ``value`` (the same value always gets the same one: ids still match)."""
    corpus = [*HOSTILE, SURROGATE] if surrogates else HOSTILE
    return corpus[zlib.crc32((salt + value).encode("utf-8", "surrogatepass")) % len(corpus)]


KEEP = frozenset({"stage", "boundary", "role"})  # values the fold dispatches on


def poison(value: Any, *, surrogates: bool = True) -> Any:
    """``value`` with a corpus entry in front of every string (and a hostile key in every object)."""
    if isinstance(value, str):
        return pick(value, surrogates=surrogates) + value
    if isinstance(value, list):
        return [poison(v, surrogates=surrogates) for v in value]
    if isinstance(value, dict):
        out = {k: (v if k in KEEP else poison(v, surrogates=surrogates)) for k, v in value.items()}
        if out and all(isinstance(v, int) and not isinstance(v, bool) for v in out.values()):
            # usage figures, budget categories: their keys are shown
            out[pick(str(sorted(out)), "key", surrogates=surrogates)] = 7
        return out
    return value


RUN_ID = "run \x1b]0;run-title\x07 [bold]id[/] \u202eexe"
MODEL_ID = "model \x1b]52;c;aGVsbG8=\x07 [@click=app.quit]m[/]"


def hostile_run(run_dir: Path, steps: int = 5, *, surrogates: bool = True) -> Path:
    """A finished run whose every string (ids, text, tool output, reasons, names) carries the corpus,
    plus an event of an unknown kind whose name is hostile (the step list shows kinds)."""
    run_dir.mkdir(parents=True)
    lines = []
    for event in synthetic_events(steps, run_id=RUN_ID, pause_at=2, model_id=MODEL_ID):
        data = event.to_dict()
        data["payload"] = poison(data["payload"], surrogates=surrogates)
        if data.get("error"):
            data["error"] = poison(data["error"], surrogates=surrogates)
        lines.append(data)
    lines.insert(
        3,
        {
            "run_id": RUN_ID,
            "step_id": 0,
            "phase": "x\x1b]0;phase\x07[b]",
            "ok": False,
            "payload": {"text": HOSTILE[2]},
            "error": HOSTILE[6],
            "ts": "2026-01-01T00:00:00+00:00",
        },
    )
    # ensure_ascii: the lone surrogate travels as \ud800, as another writer could have put it.
    (run_dir / "events.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines), encoding="utf-8")
    (run_dir / "steps.jsonl").write_text(
        "".join(json.dumps({"step_id": s}) + "\n" for s in range(steps)), encoding="utf-8"
    )
    manifest = {
        "run_id": RUN_ID,
        "schema_version": "v1",
        "status": "completed",
        "updated_at": "2026-01-01T00:00:00+00:00",
        "event_count": len(lines),
        "step_count": steps,
        "summary": {"stop_reason": MARKUP, "steps": steps},
        "model_id": MODEL_ID,
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run_dir


def hostile_runs_folder(folder: Path) -> Path:
    """A folder of runs whose manifests hold the corpus in every field the run list shows."""
    for k, text in enumerate(HOSTILE):
        run_dir = folder / f"run_{k:02d}"
        run_dir.mkdir(parents=True)
        manifest = {
            "run_id": f"{text} id{k}",
            "status": HOSTILE[(k + 1) % len(HOSTILE)],
            "updated_at": f"2026-01-01T00:{k:02d}:00{HOSTILE[(k + 2) % len(HOSTILE)]}",
            "summary": {"stop_reason": MARKUP if k == 0 else text, "steps": 3, "token_usage": 10},
            "model_id": MARKUP if k == 1 else HOSTILE[(k + 3) % len(HOSTILE)],
        }
        (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        (run_dir / "events.jsonl").write_text("", encoding="utf-8")
    return folder


HOSTILE_FILE = "[bold red]rejected [@click=app.quit]Q \x1b]0;file-title\x07 \u202eevil.md"  # no "/" in a name


def hostile_memory_root(root: Path) -> Path:
    """A Memdir root whose records' text and metadata carry the corpus, plus a stray file with a
    hostile name (listed as rejected, named in the delete refusal)."""
    memory = MemdirMemory(str(root), create=True)
    ticks = iter(range(10**6))
    memory.clock = lambda: f"2026-01-01T00:00:{next(ticks) % 60:02d}+00:00"
    for k, text in enumerate(HOSTILE):
        memory.append(
            MemoryRecord(
                role="note",
                content=f"{text}\nsecond line {text}",
                step_id=k,
                record_id=f"rec-{k:03d}",
                metadata={"source": text},
            )
        )
    (root / "records" / HOSTILE_FILE).write_text(HOSTILE[4], encoding="utf-8")
    return root


_NUL_MARK = "<nul-planted-later>"


def hostile_skills_db(path: Path, *, namespaces: tuple[str, ...] = ("demo",)) -> Path:
    """A skill database whose descriptions, sources and tags carry the corpus (two versions each).

    The library refuses NUL in text, so NUL is planted afterwards with plain SQL, as a file written by
    someone else could hold it.
    """
    for namespace in namespaces:
        with SqliteToolLibrary(path, namespace=namespace) as library:
            for k, raw in enumerate(HOSTILE):
                text = raw.replace("\x00", _NUL_MARK)
                for version in (1, 2):
                    library.add_or_update(
                        ToolArtifact(
                            name=f"skill-{k:02d}",
                            description=f"{text} v{version}",
                            source=f"def skill():\n    return {text!r}  # {text}\n# v{version} {text}\n",
                            tags=["t", text.replace("\n", " ")[:20]],
                            created_at="2026-01-01T00:00:00+00:00",
                            updated_at=f"2026-01-01T00:00:0{version}+00:00",
                        )
                    )
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("DROP TRIGGER IF EXISTS skill_versions_immutable")
        for column in ("description", "source"):
            db.execute(f"UPDATE skill_versions SET {column} = replace({column}, ?, char(0))", (_NUL_MARK,))
    return path

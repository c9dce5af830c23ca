"""The pending actions of a paused run shown in full: long strings as text, a file write as a diff.

Arguments come from the model (untrusted): every piece becomes inert text. A write (``path`` plus
``content``/``text`` string arguments) to a file that exists in the workspace is shown as a unified
diff against that file, so a person sees what would change before approving it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from tui.text import inert
from tui.widgets.tones import BOLD, ITALIC, PLAIN

if TYPE_CHECKING:
    from qitos.core.agent_module import AgentModule
    from qitos.engine.engine import Engine
    from tui.structured import Tone

CONTENT_KEYS = ("content", "text", "new_content", "data")
MAX_DIFF_BYTES = 1_000_000  # a bigger file is not read into a dialog


def workspace_roots(agent: AgentModule[Any, Any, Any], engine: Engine[Any, Any, Any] | None) -> list[Path]:
    """Folders a relative path in a tool call may be relative to: the env's root, the tools' own
    workspace, then the current folder."""
    roots: list[Path] = []
    env = getattr(engine, "env", None)
    for candidate in (getattr(env, "root", None), getattr(env, "workspace_root", None)):
        if candidate:
            roots.append(Path(str(candidate)))
    registry = agent.tool_registry
    tools = [registry.get(name) for name in registry.list_tools()] if registry is not None else []
    for found in tools:
        owner = getattr(getattr(found, "fn", None), "__self__", None)
        for attr in ("workspace", "root"):
            value = getattr(owner, attr, None)
            if isinstance(value, str | Path) and Path(value) not in roots:
                roots.append(Path(value))
    roots.append(Path.cwd())
    return roots


def find_file(path: str, roots: Iterable[Path]) -> Path | None:
    """The existing regular file ``path`` names (absolute, or under one of ``roots``)."""
    candidate = Path(path)
    options = [candidate] if candidate.is_absolute() else [root / candidate for root in roots]
    for option in options:
        try:
            if option.is_file() and option.stat().st_size <= MAX_DIFF_BYTES:
                return option
        except OSError:
            continue
    return None


def file_write(args: Any) -> tuple[str, str] | None:
    """``(path, new content)`` when the arguments describe writing a whole file."""
    if not isinstance(args, dict) or not isinstance(args.get("path"), str):
        return None
    for key in CONTENT_KEYS:
        if isinstance(args.get(key), str):
            return args["path"], args[key]
    return None


def write_diff(path: str, content: str, roots: Iterable[Path]) -> str | None:
    """The unified diff a write would make to an existing file (None when there is no such file)."""
    found = find_file(path, roots)
    if found is None:
        return None
    try:
        old = found.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), content.splitlines(keepends=True), f"{path} (now)", f"{path} (after)"
    )
    return "".join(lines) or "(no change: the file already holds this content)\n"


def pending_text(actions: list[dict[str, Any]], roots: Iterable[Path] = (), tone: Tone | None = None) -> Text:
    """Every pending action in full, as inert text, a diff coloured with ``tone`` (a widget's
    tones; None: no colour, for text read outside a widget)."""
    roots = list(roots)
    added = tone("good") if tone is not None else PLAIN
    removed = tone("bad") if tone is not None else PLAIN
    out = Text()
    for number, action in enumerate(actions):
        name = action.get("name") if isinstance(action, dict) else None
        args = action.get("args") if isinstance(action, dict) else action
        out.append_text(inert(f"#{number} {name}\n", BOLD))
        write = file_write(args)
        diff = write_diff(write[0], write[1], roots) if write is not None else None
        for key, value in args.items() if isinstance(args, dict) else [("(args)", args)]:
            if diff is not None and write is not None and value is write[1] and key != "path":
                out.append_text(inert(f"  {key}: diff against the workspace file\n", ITALIC))
                for line in diff.splitlines(keepends=True):
                    style = added if line.startswith("+") else removed if line.startswith("-") else PLAIN
                    out.append_text(inert("    " + line, style))
                if not diff.endswith("\n"):
                    out.append("\n")
            elif isinstance(value, str) and ("\n" in value or len(value) > 60):
                # Shown as the text it is, not as escaped JSON.
                out.append_text(inert(f"  {key}:\n", ITALIC))
                for line in value.splitlines(keepends=True) or [""]:
                    out.append_text(inert("    " + line))
                if not value.endswith("\n"):
                    out.append("\n")
            else:
                shown = json.dumps(value, ensure_ascii=False, default=repr)
                out.append_text(inert(f"  {key}: {shown}\n"))
    return out


def args_document(actions: list[dict[str, Any]]) -> str:
    """The JSON a person edits to change the pending action(s): one object, or a list of them."""
    args = [a.get("args", {}) if isinstance(a, dict) else {} for a in actions]
    return json.dumps(args[0] if len(args) == 1 else args, indent=2, ensure_ascii=False, default=repr) + "\n"


def parse_document(text: str, count: int) -> tuple[dict[int, Any] | None, str | None]:
    """The changed arguments by action index from an edited document, or the reason it is unusable."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        return None, f"not valid JSON: {exc}"
    if count == 1:
        return {0: value}, None
    if not isinstance(value, list) or len(value) != count:
        return None, f"expected a JSON list of {count} argument objects, one per pending action"
    return dict(enumerate(value)), None

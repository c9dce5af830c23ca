"""Taking a pane's text out of the app: `y` copies it (OSC 52), `o` opens it in $EDITOR.

The text is what the pane shows, as plain text: the panes build their content from inert text, so
no control character of a trace reaches the clipboard or the file, and nothing in it is markup.
Copying happens only when the user presses the key; Textual sends the text to the terminal as
base64 in an OSC 52 sequence (the terminal may ignore it: some do unless configured to allow it).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import ConsoleRenderable
from textual.app import App
from textual.widget import Widget
from textual.widgets import Static

from tui.panes.base import Pane
from tui.panes.events import HEADER, EventsPane
from tui.text import inert_str

__all__ = [
    "CLIPBOARD_LIMIT",
    "ROW_LIMIT",
    "copy_pane",
    "edit_text",
    "editor_command",
    "open_pane",
    "pane_text",
]

CLIPBOARD_LIMIT = (
    1_000_000  # characters: beyond this, terminals drop an OSC 52 sequence (xterm's cap is lower)
)
ROW_LIMIT = 20_000  # rows of a long list (the Events timeline) taken out; each is read back from the trace


def _rows(widget: Any, width: int) -> Iterator[str]:
    for index in range(min(widget.count, ROW_LIMIT)):
        yield widget.row_text(index, width).plain.rstrip()


def pane_text(pane: Pane) -> tuple[str, str]:
    """The pane's text as plain lines, and a note on what was left out ("" when nothing was)."""
    # Imported here: the browsers' package is big, and only a pane embedding one needs it.
    from tui.browsers.plain import plain_text
    from tui.browsers.virtual_list import VirtualList

    width = max(40, pane.content_region.width - 2)  # less the scroll gutter a line pane draws
    if isinstance(pane, EventsPane):
        rows = pane.rows
        taken = min(len(rows), ROW_LIMIT)
        lines = [HEADER, *(pane.row_text(rows[k])[0].rstrip() for k in range(taken))]
        note = f" (the first {taken:,} of {len(rows):,} events)" if taken < len(rows) else ""
        return "\n".join(lines) + "\n", note
    # Built for the selected step rather than read from what was last drawn: a pane whose tab was
    # only just picked has not been drawn yet.
    step = pane.step
    parts = [plain_text(pane.content(step) if step is not None else "no events yet", width)]
    # A pane that embeds a browser shows it through child widgets, not through its own lines.
    for child in pane.query("*"):
        if isinstance(child, VirtualList) and child.count:
            parts.append("\n".join(_rows(child, width)) + "\n")
        elif isinstance(child, Static) and child.display:
            parts.append(_static_text(child, width))
    text = "".join(part if part.endswith("\n") else part + "\n" for part in parts if part.strip())
    note = ""
    if any(isinstance(c, VirtualList) and c.count > ROW_LIMIT for c in pane.query("*")):
        note = f" (the first {ROW_LIMIT:,} rows of each list)"
    return inert_str(text), note


def _static_text(widget: Static, width: int) -> str:
    from tui.browsers.plain import plain_text

    content = widget.content
    if isinstance(content, str):
        return content  # shown as it is (a str given to a Static is its own text)
    plain = getattr(content, "plain", None)  # Text, Content
    if isinstance(plain, str):
        return plain
    return plain_text(content, width) if isinstance(content, ConsoleRenderable) else str(content)


def focused_pane(screen: Any) -> Pane | None:
    """The pane holding the focus (a browser's list inside a pane counts), else the pane shown."""
    widget: Widget | None = screen.focused
    while widget is not None and not isinstance(widget, Pane):
        widget = widget.parent if isinstance(widget.parent, Widget) else None
    if widget is not None:
        return widget
    active = getattr(screen, "active_pane", 0)
    return next((p for p in screen.query(Pane) if p.index == active), None)


def _size(text: str) -> str:
    lines = text.count("\n")
    return f"{len(text):,} characters, {lines:,} {'line' if lines == 1 else 'lines'}"


def copy_pane(app: App[Any], pane: Pane) -> None:
    """Copy the pane's text to the clipboard (OSC 52) and say so, or say why not."""
    text, note = pane_text(pane)
    if not text.strip():
        app.notify(f"the {pane.TITLE} pane shows no text to copy", severity="warning", markup=False)
        return
    if len(text) > CLIPBOARD_LIMIT:
        app.notify(
            f"the {pane.TITLE} pane's text is too long for the clipboard ({_size(text)}); "
            "o opens it in $EDITOR instead",
            severity="warning",
            markup=False,
        )
        return
    app.copy_to_clipboard(text)
    app.notify(
        f"copied the {pane.TITLE} pane's text{note} ({_size(text)}) to the clipboard "
        "(OSC 52: the terminal must allow it)",
        markup=False,
    )


def editor_command() -> str | None:
    """The user's editor: $VISUAL, else $EDITOR, else None."""
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or None


def edit_text(
    app: App[Any], editor: str, text: str, *, prefix: str, suffix: str, on_failure: str = ""
) -> str | None:
    """Run ``editor`` on a temporary file holding ``text`` while the app is suspended; the file's
    text afterwards, or None (and a message saying why, ``on_failure`` after it) when the editor
    could not run or failed."""
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        try:
            with app.suspend():
                code = subprocess.call([*shlex.split(editor), str(path)])
        except Exception as exc:  # noqa: BLE001 - no terminal to suspend, no such editor, bad quoting
            app.notify(f"could not run {editor!r}: {exc}", severity="error", markup=False)
            return None
        if code != 0:
            app.notify(f"{editor!r} exited with status {code}{on_failure}", severity="warning", markup=False)
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    finally:
        path.unlink(missing_ok=True)


def open_pane(app: App[Any], pane: Pane) -> None:
    """Open the pane's text in $EDITOR (the app suspends meanwhile); what is edited is thrown away."""
    editor = editor_command()
    if editor is None:
        app.notify(
            "set $EDITOR (or $VISUAL) to open the pane's text in an editor; y copies it instead",
            severity="warning",
            markup=False,
        )
        return
    text, _ = pane_text(pane)
    prefix = f"qitos-{pane.TITLE.lower()}-"
    if edit_text(app, editor, text, prefix=prefix, suffix=".txt") is not None:
        app.notify(
            f"closed {editor!r}: the {pane.TITLE} pane is unchanged (its text is a copy)", markup=False
        )

"""Untrusted text made inert: control characters shown as placeholders, markup never parsed.

Everything qitos-tui shows comes from places nobody here controls (model replies, tool output,
memory files, skill sources, manifests from another machine). A terminal obeys the bytes it is
sent: ``ESC ] 52`` replaces the clipboard, ``ESC ] 0`` retitles the window, ``ESC [ 2 J`` wipes the
screen, a BiDi override reorders what follows it. Rich strips only BEL, BS, VT, FF and CR, and
Textual's ``Label("...")``, ``notify("...")`` and DataTable string cells parse markup, so a
``[@click=app.quit]`` in a manifest becomes a live action link. Every widget that shows data turns
it into a ``Text`` here (or, where it draws raw segments, into a string with ``inert_str``).
"""

from __future__ import annotations

import os
import re
from typing import Final

from rich.style import Style, StyleType
from rich.text import Span, Text

PLACEHOLDER_STYLE: Final = Style(reverse=True)
"""How a neutralised character is drawn: reversed, so it stands out from a literal ``␛`` in data."""


def _placeholders() -> dict[str, str]:
    table: dict[str, str] = {}
    # C0 controls as Unicode control pictures (one cell each: columns stay aligned), DEL as ␡.
    for code in range(0x20):
        if chr(code) not in "\n\t":
            table[chr(code)] = chr(0x2400 + code)
    table["\x7f"] = "\u2421"
    # C1 controls (0x80-0x9f; 0x9b is a one-byte CSI, 0x9d a one-byte OSC) have no pictures.
    for code in range(0x80, 0xA0):
        table[chr(code)] = f"\\x{code:02x}"
    # BiDi embeddings, overrides, isolates and marks: they reorder the text around them
    # ("Trojan Source"), so they are shown, never applied.
    for code in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)):
        table[chr(code)] = f"<U+{code:04X}>"
    return table


PLACEHOLDERS: Final[dict[str, str]] = _placeholders()
"""Each unsafe character and what is shown in its place."""

_UNSAFE: Final = re.compile(
    "[" + "".join(re.escape(c) for c in PLACEHOLDERS) + "\ud800-\udfff]"
)  # lone surrogates (valid in JSON "\ud800") cannot be encoded for the terminal: shown as U+FFFD


def _placeholder(match: re.Match[str]) -> str:
    return PLACEHOLDERS.get(match.group(), "\ufffd")


def inert_str(value: object) -> str:
    """``value`` as a string with every unsafe character replaced by a visible placeholder.

    For places that draw raw segments (a virtual list's row); elsewhere use ``inert``."""
    text = value if isinstance(value, str) else str(value)
    # Fast path: no control, format or surrogate character at all (the common case; isprintable
    # is one C loop). Newlines and tabs make it False, so multi-line text takes the regex.
    if text.isprintable():
        return text
    if "\r" in text:
        text = text.replace("\r\n", "\n")  # Windows line ends are line ends, not a placeholder per line
    return _UNSAFE.sub(_placeholder, text)


NEWLINE_MARK: Final = "⏎"
"""What a newline becomes where only one line is drawn (a list row): a raw newline would move the
terminal's cursor to the next row of the screen."""


def inert_line(value: object) -> str:
    """``value`` as one inert line (newlines shown as ⏎, tabs as spaces), for a raw one-row segment."""
    text = inert_str(value)
    if "\n" in text or "\t" in text:
        text = text.replace("\n", NEWLINE_MARK).replace("\t", " ")
    return text


def one_line(text: Text) -> Text:
    """``text`` (already inert) on one line: newlines shown as a marked ⏎, tabs expanded."""
    plain = text.plain
    if "\t" in plain:
        text = text.copy()
        text.expand_tabs(4)
        plain = text.plain
    if "\n" not in plain:
        return text
    mark = Text(NEWLINE_MARK, style=PLACEHOLDER_STYLE)
    return mark.join(text.split("\n", allow_blank=True))


def inert(value: object, style: StyleType = "") -> Text:
    """``value`` (any object; untrusted) as a Text shown literally: never markup, never a control.

    Placeholders are drawn reversed so that they read as "a character was neutralised here"."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return Text(text, style=style)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    parts: list[str] = []
    spans: list[Span] = []
    at = 0  # position in the output
    last = 0  # position in the input
    get = PLACEHOLDERS.get
    for match in _UNSAFE.finditer(text):
        start = match.start()
        if start > last:
            parts.append(text[last:start])
            at += start - last
        shown = get(match.group(), "\ufffd")
        parts.append(shown)
        spans.append(Span(at, at + len(shown), PLACEHOLDER_STYLE))
        at += len(shown)
        last = match.end()
    parts.append(text[last:])
    # Spans given at construction: stylize() per placeholder costs several times more.
    return Text("".join(parts), style=style, spans=spans)


_LONG_HEX: Final = re.compile(r"[0-9a-fA-F]{16,}")  # a hash or digest: its ends tell it apart


def short_id(value: str, run_id: str = "") -> str:
    """``value`` (an id, or text holding ids) in its short form for showing in context: without the
    run id it repeats (``run:req-0006`` is ``req-0006``), hashes as their ends (``3a8504…3869``).

    Raw views and exports show the whole value; this is for panes where the context says the rest."""
    if run_id and value.startswith(run_id + ":"):
        value = value[len(run_id) + 1 :]
    if run_id and f" {run_id}:" in value:
        value = value.replace(f" {run_id}:", " ")
    return _LONG_HEX.sub(lambda match: f"{match[0][:6]}…{match[0][-4:]}", value)


PAUSE_MARK: Final = "‖"
"""The paused mark: U+2016, in the common terminal fonts (⏸, U+23F8, is missing from most)."""
PAUSE_MARK_ASCII: Final = "|"


def locale_is_utf8() -> bool:
    """Whether the locale (LC_ALL, then LC_CTYPE, then LANG: the first one set) says UTF-8.

    Python itself treats a C locale as UTF-8 (PEP 538), so the environment is read, not the
    streams' encodings. With none of them set the terminal is taken to be UTF-8, as Textual does
    for its borders."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = os.environ.get(name)
        if value:
            charset = value.partition(".")[2].partition("@")[0].lower().replace("-", "")
            return charset == "utf8"
    return True


def pause_mark() -> str:
    """The paused mark for this terminal: ``‖``, or ``|`` where the locale is not UTF-8."""
    return PAUSE_MARK if locale_is_utf8() else PAUSE_MARK_ASCII

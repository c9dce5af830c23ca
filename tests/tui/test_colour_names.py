"""Colours come from the theme only (issue 14 item 3): no colour named in the tui package's Python
or CSS outside tui/widgets/tones.py, so hard-coded colours cannot come back into a pane, a browser,
the header or a dialog unnoticed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from rich.errors import StyleSyntaxError
from rich.style import Style

TUI = Path(__file__).resolve().parents[2] / "tui"
TONES_MODULE = TUI / "widgets" / "tones.py"
# "default" is the terminal's own colour (no colour chosen), as Syntax's background_color uses it.
NOT_A_COLOUR = {"default"}
# A CSS declaration that gives a colour by name, hex or rgb() instead of a $theme variable.
CSS_COLOUR = re.compile(
    r"\b(?:color|background|border(?:-[a-z]+)*|outline(?:-[a-z]+)*|tint|scrollbar-[a-z-]+)\s*:"
    r"(?P<value>[^;}\n]*)"
)
NAMED = re.compile(
    r"(?<![$\w-])(?:#[0-9a-fA-F]{3,8}\b|rgba?\(|hsla?\(|ansi_\w+|(?:red|green|blue|yellow|cyan|magenta|white|black|grey|gray|orange|purple|pink)\b)"
)


def _colour_styles(source: str) -> list[tuple[int, str]]:
    """(line, string) of every string literal that is a Rich style naming a colour."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        value = node.value.strip()
        if not value or value in NOT_A_COLOUR:
            continue
        try:
            style = Style.parse(value)
        except StyleSyntaxError:
            continue  # prose, markup-free text, CSS: not a style
        if style.color is not None or style.bgcolor is not None:
            found.append((node.lineno, node.value))
    return found


def _css_colours(text: str) -> list[tuple[int, str]]:
    """(line, declaration) of every CSS declaration naming a colour instead of a $variable."""
    found = []
    for match in CSS_COLOUR.finditer(text):
        if NAMED.search(match.group("value")):
            found.append((text.count("\n", 0, match.start()) + 1, match.group(0).strip()))
    return found


def _sources() -> list[Path]:
    return sorted(p for p in [*TUI.rglob("*.py"), *TUI.rglob("*.tcss")] if p != TONES_MODULE)


def test_no_colour_is_named_outside_the_tones_module() -> None:
    """Every Python string and CSS rule in tui/ takes its colours from the theme."""
    offenders = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        found = _css_colours(text) + (_colour_styles(text) if path.suffix == ".py" else [])
        offenders += [f"{path.relative_to(TUI.parent)}:{line}: {what!r}" for line, what in found]
    assert offenders == []


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ('text.append("x", style="bold red")', True),
        ('Text("x", style="green")', True),
        ('inert(v, "on #ff0000")', True),
        ('Text("x", style="dim")', False),
        ('Syntax(code, "python", background_color="default")', False),
        ('"""The red line: a docstring that talks about green."""', False),
    ],
)
def test_the_style_check_catches_colour_names_and_only_them(source: str, caught: bool) -> None:
    """The check itself: a colour in a style string is caught; weights, "default" and prose are not."""
    assert bool(_colour_styles(source)) is caught


@pytest.mark.parametrize(
    ("css", "caught"),
    [
        ("Pane { color: red; }", True),
        ("Pane { background: #202020; }", True),
        ("Pane { border: round rgb(10, 20, 30); }", True),
        ("Pane { color: $text-error; background: $error 20%; }", False),
        ("Pane { border: round $border-blurred; }", False),
        ("Pane { text-style: bold; }", False),
    ],
)
def test_the_css_check_catches_colour_names_and_only_them(css: str, caught: bool) -> None:
    """The check itself: a named, hex or rgb() colour in a CSS rule is caught; $variables are not."""
    assert bool(_css_colours(css)) is caught

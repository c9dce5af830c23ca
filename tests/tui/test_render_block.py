"""render_block: the one-line fast path draws exactly what Rich's full rendering draws."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console, Group
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from tui.panes.base import render_block


def cells(lines: list[list[Segment]]) -> list[list[tuple[str, Style]]]:
    """What the lines show: each character with its style (how the segments are cut aside)."""
    return [[(ch, seg.style or Style()) for seg in line for ch in seg.text] for line in lines]


CONSOLE = Console(file=io.StringIO(), width=200, color_system="truecolor", legacy_windows=False)
STYLES = st.sampled_from(["", "bold", "dim", "italic red", "bold reverse", "green on blue", "underline"])
WORDS = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF), max_size=30)


@st.composite
def texts(draw: st.DrawFn) -> Text:
    """A Text of a few differently styled pieces, sometimes with a newline, a tab or wide chars."""
    text = Text(style=draw(STYLES), justify=draw(st.sampled_from([None, "left", "right", "center"])))
    for _ in range(draw(st.integers(1, 4))):
        text.append(draw(WORDS) + draw(st.sampled_from(["", " ", "\t", "\n", "界"])), style=draw(STYLES))
    return text


@st.composite
def groups(draw: st.DrawFn) -> Group:
    """Texts (and groups of them) in a Group, as the panes build their content."""
    parts = draw(st.lists(st.one_of(texts(), texts().map(lambda t: Group(t))), min_size=0, max_size=4))
    return Group(*parts)


@settings(max_examples=200, deadline=None)
@given(group=groups(), width=st.integers(1, 60))
def test_groups_of_lines_render_as_rich_renders_them(group: Group, width: int) -> None:
    options = CONSOLE.options.update(width=width, min_width=width, max_width=width, height=None)
    base = Style(color="white", bgcolor="black")
    expected = CONSOLE.render_lines(group, options, style=base, pad=True)
    assert cells(render_block(CONSOLE, group, options, base)) == cells(expected)


@settings(max_examples=300, deadline=None)
@given(
    text=texts(),
    width=st.integers(1, 80),
    base=st.sampled_from([Style(), Style(color="white", bgcolor="black")]),
)
def test_fast_path_equals_rich_rendering(text: Text, width: int, base: Style) -> None:
    options = CONSOLE.options.update(width=width, min_width=width, max_width=width, height=None)
    expected = CONSOLE.render_lines(text, options, style=base, pad=True)
    assert cells(render_block(CONSOLE, text, options, base)) == cells(expected)


def test_other_renderables_and_long_text_take_the_full_path() -> None:
    options = CONSOLE.options.update(width=10, min_width=10, max_width=10, height=None)
    long = Text("a line that is far wider than ten cells")
    assert len(render_block(CONSOLE, long, options, Style())) > 1  # wrapped
    group = Group(Text("one"), Text("two"))
    assert render_block(CONSOLE, group, options, Style()) == CONSOLE.render_lines(
        group, options, style=Style(), pad=True
    )

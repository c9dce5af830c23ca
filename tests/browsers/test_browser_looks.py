"""How the standalone browsers look (issue 18's glitches, issue 14's theme colours): no frame edge
down the sides, summary lines no renderer can run together, ids whole and unwrapped in detail,
every colour from the theme (dark and light, a switch redraws), NO_COLOR honoured."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_builders import build_memory_root, memory_ready, memory_recalled, skills_ready
from svg_text import runs_starting_with_a_space, screen_lines
from textual.color import Color

from tui.browsers import make_memory_app, make_skills_app
from tui.browsers.skills_render import SkillList
from tui.widgets.tones import TONES

SIZES = [(80, 24), (160, 48)]
IDS = ["80x24", "160x48"]
LIGHT = "textual-light"
BORDER_GLYPHS = set("│┃╭╮╰╯┏┓┗┛▏▕")
# Record ids as Memdir makes them (digests): 32 hex digits, and the path that holds one.
DIGESTS = [
    ("3a85045169721c9b02f364fd30433869", "assistant", 4, "calc.add subtracted its arguments."),
    ("e6b1b302845c9ce6cde76a2146f86627", "assistant", 9, "calc.add fixed to return a + b."),
]
RECALL = {
    "record_ids": [DIGESTS[0][0]],
    "records": [{"record_id": DIGESTS[0][0], "role": "assistant", "content": "calc.add subtracted a and b."}],
}


_memory_recalled = memory_recalled(4, RECALL)


def _light(ready):  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        pilot.app.theme = LIGHT
        await ready(pilot)
        await pilot.pause()

    return before


@pytest.fixture
def digest_root(tmp_path: Path) -> Path:
    """A memory root whose records have digest ids (as an agent's Memdir memory writes them)."""
    return build_memory_root(tmp_path / "digests", records=DIGESTS)


# ---- the skills browser: header and edges (issue 18) ------------------------------------------
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_skills_browser_header_and_edges(snap_compare, skills_db: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The summary reads "namespace demo · 3 skills, 2 active"; no frame edge down either side."""
    app = make_skills_app(skills_db, watch=False)
    assert snap_compare(app, terminal_size=size, run_before=skills_ready)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_skills_summary_and_rows_draw_whole_in_an_svg(skills_db: Path, size: tuple[int, int]) -> None:
    """No run of the summary, a list row or a heading starts with a space (a renderer drops it
    and runs "demo" into "· 3 skills"), and no border glyph stands in the first or last column.
    (Indented source code starts with spaces by nature: the code side is not checked.)"""
    app = make_skills_app(skills_db, watch=False)
    async with app.run_test(size=size) as pilot:
        await skills_ready(pilot)
        svg = app.export_screenshot()
        code_side = app.query_one("#skills-right").region.x
    lines = screen_lines(svg)
    assert lines[1].strip() == "namespace demo · 3 skills, 2 active"
    assert runs_starting_with_a_space(svg, 1) == []
    for row in range(2, size[1] - 1):  # under the summary, above the footer
        assert runs_starting_with_a_space(svg, row, before=code_side) == [], lines[row]
        line = lines[row].ljust(size[0])
        assert line[0] not in BORDER_GLYPHS and line[size[0] - 1] not in BORDER_GLYPHS, line


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_skills_diff_in_a_light_theme(snap_compare, skills_db: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """v2's diff from v1 in textual-light: added, removed and hunk lines in the light theme's tones."""
    app = make_skills_app(skills_db, watch=False)
    assert snap_compare(app, press=["tab", "down", "d"], terminal_size=size, run_before=_light(skills_ready))


# ---- the memory browser: ids whole in detail, never wrapped (issue 18) ------------------------
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_memory_browser_digest_ids(snap_compare, digest_root: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """A record with a digest id selected: the id and its file's path whole, each on its own line."""
    app = make_memory_app(digest_root, watch=False)
    assert snap_compare(app, press=["down"], terminal_size=size, run_before=_memory_recalled)


@pytest.mark.parametrize("width", [52, 80, 160])
async def test_memory_detail_shows_ids_whole_on_lines_of_their_own(digest_root: Path, width: int) -> None:
    """At any width an id fits, the detail holds the record id and its path each whole on one
    line (never folded into the next line); the facts after them wrap on their own."""
    app = make_memory_app(digest_root, watch=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await memory_ready(pilot)
        await pilot.press("down")
        await pilot.pause()
        record_id = app.browser.selected_row.record_id
        path = app.browser.selected_row.path
        shown = app.browser.detail_text(width - 4).splitlines()
        svg_lines = screen_lines(app.export_screenshot())
    assert shown[0].strip() == record_id and path in [line.strip() for line in shown]
    assert any(line.strip() == record_id for line in svg_lines)  # on screen too, in one piece


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_memory_browser_in_a_light_theme(snap_compare, digest_root: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The memory browser in textual-light: a recalled record changed on disk since, side by side."""
    app = make_memory_app(digest_root, watch=False)
    assert snap_compare(app, press=["down"], terminal_size=size, run_before=_light(_memory_recalled))


# ---- colours from the theme (issue 14 item 3) -------------------------------------------------
def _tone_colour(app, tone: str) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    return Color.parse(app.get_css_variables()[TONES[tone].removeprefix("$")]).rgb


def _colours(renderable) -> set[tuple[int, int, int]]:  # type: ignore[no-untyped-def]
    from rich.console import Console

    console = Console(width=120, color_system="truecolor")
    return {
        seg.style.color.get_truecolor()[:3]
        for seg in console.render(renderable)
        if seg.style is not None and seg.style.color is not None
    }


async def test_a_theme_switch_redraws_the_browsers_in_the_new_themes_tones(
    skills_db: Path, digest_root: Path
) -> None:
    """The skills diff (added: good, removed: bad) and the memory detail (changed since: warn)
    take each theme's colours, and the previous theme's are gone after a switch."""
    skills = make_skills_app(skills_db, watch=False)
    async with skills.run_test(size=(120, 32)) as pilot:
        await skills_ready(pilot)
        await pilot.press("tab", "down", "d")
        await pilot.pause()
        seen: dict[str, set[tuple[int, int, int]]] = {}
        for theme in ("textual-dark", LIGHT, "nord", "textual-dark"):
            skills.theme = theme
            await pilot.pause()
            await pilot.pause()
            colours = seen[theme] = _colours(skills.browser.code)
            assert _tone_colour(skills, "good") in colours and _tone_colour(skills, "bad") in colours, theme
        assert _tone_colour(skills, "good") not in seen[LIGHT]  # the dark theme's green is gone in light
    memory = make_memory_app(digest_root, watch=False)
    async with memory.run_test(size=(120, 32)) as pilot:
        await _memory_recalled(pilot)
        await pilot.press("down")
        await pilot.pause()
        for theme in ("textual-dark", LIGHT):
            memory.theme = theme
            await pilot.pause()
            await pilot.pause()
            assert _tone_colour(memory, "warn") in _colours(memory.browser.detail), theme


def _greys_only(svg: str) -> set[str]:
    """The colours of an SVG screenshot that are not greys (text colours and cell backgrounds)."""
    colours = {
        *re.findall(r"-r\d+ \{ fill: (#[0-9a-fA-F]{6})", svg),
        *re.findall(r'<rect fill="(#[0-9a-fA-F]{6})"', svg),
    }
    assert len(colours) > 1  # the screen was drawn, in more than one grey
    spread = {
        c: max(int(c[i : i + 2], 16) for i in (1, 3, 5)) - min(int(c[i : i + 2], 16) for i in (1, 3, 5))
        for c in colours
    }
    return {c for c, s in spread.items() if s > 8}


async def test_no_color_leaves_the_browsers_only_greys(
    monkeypatch: pytest.MonkeyPatch, skills_db: Path, digest_root: Path
) -> None:
    """NO_COLOR: the skills diff and the memory browser's recall marks and notes draw in greys."""
    monkeypatch.setenv("NO_COLOR", "1")
    skills = make_skills_app(skills_db, watch=False)
    async with skills.run_test(size=(120, 32)) as pilot:
        await skills_ready(pilot)
        await pilot.press("tab", "down", "d")
        await pilot.pause()
        assert skills.no_color
        assert _greys_only(skills.export_screenshot()) == set()
    memory = make_memory_app(digest_root, watch=False)
    async with memory.run_test(size=(120, 32)) as pilot:
        await _memory_recalled(pilot)
        await pilot.press("down")
        await pilot.pause()
        assert _greys_only(memory.export_screenshot()) == set()


@pytest.mark.parametrize("theme", ["textual-dark", LIGHT])
async def test_the_cursor_row_is_drawn_in_the_cursors_colour(skills_db: Path, theme: str) -> None:
    """Under the cursor a row's tones give way to the cursor's colour ("active" in the good tone
    was unreadable on the accent); the marks before it keep theirs."""
    app = make_skills_app(skills_db, watch=False)
    async with app.run_test(size=(120, 32)) as pilot:
        app.theme = theme
        await skills_ready(pilot)
        listing = app.query_one(SkillList)
        strip = listing.render_row(listing.cursor, listing.size.width)
        under = strip.crop(SkillList.MARK_CELLS, listing.size.width)
        colours = {seg.style.color for seg in under if seg.text.strip() and seg.style is not None}
        cursor = listing.get_component_rich_style("virtual-list--cursor")
        assert "active" in strip.text and colours == {(listing.rich_style + cursor).color}

"""Untrusted text is always text: the hostile corpus through every screen, checked in what is drawn.

Each check walks the segments Textual composes for the whole screen (what its driver turns into
terminal bytes): no control, C1, BiDi or surrogate character in any of them, no link or click
action made from data, and the corpus's markup shown literally.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from hostile import (
    HOSTILE,
    HOSTILE_FILE,
    MARKUP,
    SURROGATE,
    hostile_memory_root,
    hostile_run,
    hostile_runs_folder,
    hostile_skills_db,
    unsafe,
)
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from tui.app import make_app
from tui.text import NEWLINE_MARK, PLACEHOLDERS, inert, inert_line, inert_str, one_line

sys.path.insert(0, str(Path(__file__).parents[1] / "browsers"))
from browser_builders import wait_until  # noqa: E402

from tui.browsers import make_memory_app, make_skills_app  # noqa: E402
from tui.browsers.dialogs import DeleteRecordDialog, NamespaceDialog  # noqa: E402

# Click actions the corpus tries to smuggle in ([@click=app.quit], [@click=app.bell]).
SMUGGLED_ACTIONS = re.compile(r"app\.(quit|bell)\b")


def screen_text(app: Any, where: str) -> str:
    """The current screen as text, after checking every segment drawn on it."""
    problems: list[str] = []
    lines: list[str] = []
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        line: list[str] = []
        for segment in strip:
            text, style = segment.text, segment.style
            bad = unsafe(text)
            if bad:
                problems.append(f"row {y}: {sorted(map(hex, map(ord, bad)))} in {text!r}")
            if style is not None:
                if style.link:
                    problems.append(f"row {y}: a link to {style.link!r} on {text!r}")
                click = str(style.meta.get("@click", ""))
                if SMUGGLED_ACTIONS.search(click):
                    problems.append(f"row {y}: a click action {click!r} on {text!r}")
            line.append(text)
        lines.append("".join(line))
    assert not problems, f"{where}: " + "\n".join(problems[:10])
    return "\n".join(lines)


# ---- the function itself ------------------------------------------------------------------------


@pytest.mark.parametrize("text", [*HOSTILE, SURROGATE])
def test_inert_neutralises_every_corpus_entry(text: str) -> None:
    shown = inert(text, "bold")
    assert isinstance(shown, Text)
    assert not unsafe(shown.plain.replace("\n", "").replace("\t", ""))
    assert shown.plain == inert_str(text)
    assert shown.plain.count("\n") == text.replace("\r\n", "\n").count("\n")  # lines stay lines
    for char in unsafe(text) - {"\n", "\t"}:
        assert PLACEHOLDERS.get(char, "\ufffd") in shown.plain
    # Every placeholder is marked (reversed) so it cannot pass for a literal character in data.
    marked = [shown.plain[s.start : s.end] for s in shown.spans]
    assert all(m in PLACEHOLDERS.values() or m == "\ufffd" for m in marked)
    assert len(marked) == sum(1 for c in text.replace("\r\n", "\n") if c in unsafe(c) - {"\n", "\t"})


def test_markup_is_never_parsed_and_windows_line_ends_are_line_ends() -> None:
    assert inert(MARKUP).plain == MARKUP and not inert(MARKUP).spans
    assert inert("a\r\nb").plain == "a\nb"
    assert inert("safe\rEVIL").plain == "safe␍EVIL"
    assert inert_str("\x1b]52;c;aGVsbG8=\x07") == "␛]52;c;aGVsbG8=␇"
    assert inert_str("\x9b2J") == "\\x9b2J"
    assert inert_str("a\u202eb") == "a<U+202E>b"
    assert inert(12).plain == "12" and inert(None).plain == "None"


def test_one_line_forms_for_list_rows() -> None:
    """A list row is drawn as one line: a newline would move the terminal's cursor to the next row."""
    assert inert_line("a\nb\tc\x1b") == f"a{NEWLINE_MARK}b c␛"
    row = one_line(inert("first\nsecond\x07\tend", "bold"))
    assert row.plain == f"first{NEWLINE_MARK}second␇ end"  # the tab expanded to its stop (column 8)
    assert row.spans  # the marks keep their reverse style, the text its own
    plain = inert("no break")
    assert one_line(plain) is plain  # nothing to do: no copy


@given(st.text())
def test_any_text_comes_out_safe_and_safe_text_unchanged(text: str) -> None:
    shown = inert_str(text)
    assert not unsafe(shown.replace("\n", "").replace("\t", ""))
    if not unsafe(text.replace("\n", "").replace("\t", "")):
        assert shown == text  # nothing to neutralise: shown exactly as it is


# ---- every screen -------------------------------------------------------------------------------


async def _every_step(pilot: Any, where: str) -> str:
    """Step from the first to the last step, checking the screen at each; the last screen's text."""
    screen = pilot.app.screen
    await pilot.press("home")
    text = ""
    for pos in range(len(screen.store.steps)):
        await pilot.pause()
        text = screen_text(pilot.app, f"{where}, step {pos}")
        await pilot.press("right")
    return text


async def test_replay_of_a_hostile_run_small_terminal(
    tmp_path: Path, shown_whole: Callable[..., Awaitable[None]]
) -> None:
    """80x24: every pane (one at a time, in tabs) at every step, raw JSON and expanded too; the
    header, the status bar (an agent pause with a hostile reason), the step list (a hostile kind)."""
    run_dir = hostile_run(tmp_path / "run")
    app = make_app(replay=run_dir, export_dir=tmp_path / "exports")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await shown_whole(pilot)
        text = screen_text(app, "first screen")
        # The header leads with the manifest's status (at 80 columns the run id is cut): literally.
        assert "title2␛]2;pwned-title-2␛\\end" in text
        for pane in range(1, 7):
            await pilot.press(str(pane))
            await _every_step(pilot, f"pane {pane}")
        await pilot.press("1", "v")
        await _every_step(pilot, "raw JSON")
        await pilot.press("v", "x")
        await _every_step(pilot, "expanded")
        await pilot.press("g", "9", "9", "enter")  # no step 99: an error notification
        await pilot.pause()
        assert "no step 99" in screen_text(app, "go-to notice")
        await pilot.press("question_mark")
        await pilot.pause()
        screen_text(app, "help")


async def test_export_notice_names_a_hostile_folder_literally(
    tmp_path: Path, shown_whole: Callable[..., Awaitable[None]]
) -> None:
    run_dir = hostile_run(tmp_path / "run", surrogates=False)  # JSON export cannot hold a lone surrogate
    export_dir = tmp_path / "exports [bold]x[/b] [@click=app.quit]Q \x1b]0;export-title\x07"
    app = make_app(replay=run_dir, export_dir=export_dir)
    async with app.run_test(size=(200, 30), notifications=True) as pilot:
        await shown_whole(pilot)
        await pilot.press("end", "e")
        await pilot.pause()
        text = screen_text(app, "export notice")
        assert "exported to" in text  # the notification (the status bar says it too)
        assert (
            text.count("exports [bold]x[/b] [@click=app.quit]Q") == 2 and text.count("␛]0;export-title␇") == 2
        )
        assert list(export_dir.glob("*.json"))


async def test_replay_of_a_hostile_run_wide_with_disk_browsers(
    tmp_path: Path, shown_whole: Callable[..., Awaitable[None]]
) -> None:
    """200x50: every pane on screen at once, the Memory and Skills panes browsing hostile stores."""
    run_dir = hostile_run(tmp_path / "run")
    app = make_app(
        replay=run_dir,
        memory_dir=hostile_memory_root(tmp_path / "memory"),
        skills_db=hostile_skills_db(tmp_path / "skills.db"),
    )
    async with app.run_test(size=(200, 50)) as pilot:
        await shown_whole(pilot)
        # The browsers read their stores in the background: wait until each has read once.
        from tui.browsers.memory_browser import MemoryBrowser
        from tui.browsers.skills_browser import SkillsBrowser

        memory, skills = app.screen.query_one(MemoryBrowser), app.screen.query_one(SkillsBrowser)
        await wait_until(lambda: memory.loads >= 1 and skills.revision >= 1, what="both browsers' first read")
        await pilot.pause()
        text = await _every_step(pilot, "wide")
        assert "model ␛]52;c;aGVsbG8=␇ [@click=app.quit]m[/]" in text  # the header's model, literally
        assert "<U+202E>" in text


async def test_run_list_over_hostile_manifests(tmp_path: Path) -> None:
    """Every cell of the run list (run id, status, stop reason, model, updated) and its title."""
    folder = hostile_runs_folder(tmp_path / "runs [b]x [@click=app.quit]Q \x1b]0;folder-title\x07")
    app = make_app(replay=folder)
    async with app.run_test(size=(400, 40)) as pilot:
        await pilot.pause()
        text = screen_text(app, "run list")
        assert text.count(MARKUP) >= 3  # a run id, a stop reason and a model name, literally
        assert "runs [b]x [@click=app.quit]Q ␛]0;folder-title␇" in text
        for _ in HOSTILE:
            await pilot.press("down")
            screen_text(app, "run list cursor")


async def test_error_panel_with_hostile_title_and_detail() -> None:
    app = make_app(error=(HOSTILE[2] + MARKUP, "\n".join(HOSTILE)))
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        text = screen_text(app, "error panel")
        assert MARKUP in text and "␛]52;c;aGVsbG8=␇" in text


async def test_memory_browser_on_a_hostile_root(tmp_path: Path) -> None:
    """Records' text and metadata, a rejected file's name (list, detail, the refusal's notification),
    and the delete dialog of a record."""
    app = make_memory_app(hostile_memory_root(tmp_path / "memory"), watch=False)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_until(lambda: app.browser.revision >= 1, what="the first scan")
        await pilot.pause()
        for k in range(len(app.browser.rows)):
            screen_text(app, f"memory row {k}")
            await pilot.press("down")
        await pilot.press("end")  # the rejected file
        await pilot.pause()
        assert "rejected [@click=app.quit]Q ␛]0;file-title␇" in screen_text(app, "rejected row")
        await pilot.press("d")  # refused, naming the file in a notification
        await pilot.pause()
        text = screen_text(app, "refusal notice")
        assert text.count("[bold red]rejected [@click=app.quit]Q") >= 2  # the detail and the notice
        await pilot.press("home", "d")
        await pilot.pause()
        assert isinstance(app.screen, DeleteRecordDialog)
        assert "␛" in screen_text(app, "delete dialog")
        await pilot.press("n")
    assert HOSTILE_FILE  # the file was never deleted nor followed; it is only shown


async def test_skills_browser_on_a_hostile_database(tmp_path: Path) -> None:
    """The namespace dialog, skill and version rows, the source and the diff."""
    db = hostile_skills_db(tmp_path / "skills.db", namespaces=("demo", "other"))
    app = make_skills_app(db, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, NamespaceDialog)
        screen_text(app, "namespace dialog")
        await pilot.press("enter")
        await wait_until(lambda: app.browser.revision >= 1 and app.browser.versions, what="the first load")
        for k in range(len(HOSTILE)):
            await pilot.pause()
            text = screen_text(app, f"skill {k} source")
            if k == 0:
                assert MARKUP in text  # the source (skill-00 holds the markup), literally
            await pilot.press("d")
            await pilot.pause()
            screen_text(app, f"skill {k} diff")
            await pilot.press("d", "down")

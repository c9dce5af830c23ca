"""Model replies a parser understands, read structured; the one-line form of an action; code blocks."""

from __future__ import annotations

import json
from collections.abc import Callable

from rich.style import Style

from qitos.trace.payloads import Message
from tui import screenshots
from tui.app import make_app
from tui.live import LiveRun
from tui.panes.exchanges import ExchangesPane, message_text
from tui.structured import action_line, code_text, lexer_name, understood

WRITE = {"name": "write_file", "args": {"path": "calc.py", "content": "def add(a, b):\n    return a + b\n"}}


def test_a_json_decision_is_read_with_its_thought_and_arguments() -> None:
    reply = understood(json.dumps({"thought": "fix add", "action": WRITE}))
    assert reply is not None and reply.parser == "JsonDecisionParser"
    assert reply.thought == "fix add" and reply.actions == (("write_file", WRITE["args"]),)


def test_react_text_and_a_final_answer_are_read() -> None:
    reply = understood('Thought: look first\nAction: read_file(path="calc.py")')
    assert reply is not None and reply.parser == "ReActTextParser"
    assert reply.thought == "look first" and reply.actions == (("read_file", {"path": "calc.py"}),)
    final = understood('{"final": "done", "thought": "all green"}')
    assert final is not None and final.final_answer == "done" and final.actions == ()


def test_native_tool_calls_come_first() -> None:
    reply = understood("let me look", [{"name": "list_files", "args": {}}])
    assert reply is not None and reply.parser == "tool calls"
    assert reply.thought == "let me look" and reply.actions == (("list_files", {}),)


def test_prose_and_broken_json_are_not_understood() -> None:
    assert understood("I think the bug is in add().") is None
    assert understood('{"thought": "x", "action": {"name": ') is None
    assert understood("") is None


def test_the_one_line_form_counts_lines_and_cuts_long_values() -> None:
    assert action_line(WRITE) == "write_file path=calc.py content=<2 lines>"
    assert action_line({"name": "remember", "args": {"fact": "x" * 50}}) == "remember fact=<50 chars>"
    assert action_line({"name": "f", "args": {"n": [1, 2]}}) == "f n=[1, 2]"


def test_the_one_line_form_is_inert() -> None:
    line = action_line({"name": "evil\x1b]52;c;aGk=\x07", "args": {"k\x1b[2J": "v\u202e"}})
    assert "\x1b" not in line and "\x07" not in line and "\u202e" not in line
    assert "␛" in line and "<U+202E>" in line


def test_code_is_highlighted_by_the_named_files_extension_in_the_tones_colours() -> None:
    assert lexer_name({"path": "calc.py"}) == "python"
    assert lexer_name({"path": "notes"}) is None and lexer_name({"content": "x"}) is None
    keyword = Style(color="red")
    text = code_text(
        "def add():\n    return 1\n", "python", lambda name: keyword if name == "info" else Style()
    )
    assert text.plain == "def add():\n    return 1"
    assert any(text.plain[s.start : s.end] == "def" and s.style == keyword for s in text.spans)
    assert not text.no_wrap  # long lines wrap in the pane


def test_code_stays_inert() -> None:
    text = code_text("x = 1\x1b[2J\n", "python", lambda name: Style())
    assert "\x1b" not in text.plain and "␛" in text.plain
    assert any(s.style == Style(reverse=True) for s in text.spans)  # the placeholder stands out


async def test_the_exchanges_pane_shows_the_demos_write_structured_and_v_the_raw_json(
    demo_live: Callable[..., LiveRun],
) -> None:
    """Paused before the demo's write: the pane shows the action and its code as code; `v` the JSON."""
    app = make_app(live=demo_live())
    async with app.run_test(size=(160, 48)) as pilot:
        await screenshots.settle(pilot)
        pane = app.screen.query_one(ExchangesPane)
        shown = pane.plain(120)
        assert "→ write_file" in shown and "path     calc.py" in shown
        assert '    """Small arithmetic helpers used by the invoice tool."""' in shown
        assert '\\"\\"\\"' not in shown  # no escaped JSON
        await pilot.press("v", "x")  # raw, expanded (a raw event is folded like any long text)
        await screenshots.settle(pilot)
        raw = pane.plain(400)
        assert '\\"\\"\\"Small arithmetic' in raw and "→ write_file" not in raw
        await pilot.press("q", "y")


def test_an_earlier_reply_in_a_request_reads_as_its_thought_and_action() -> None:
    content = json.dumps(
        {"thought": "look first", "action": {"name": "read_file", "args": {"path": "calc.py"}}}
    )
    assert message_text(Message("assistant", content)) == "look first\n→ read_file path=calc.py"
    assert message_text(Message("user", content)) == content  # only the model's replies are parsed
    assert message_text(Message("assistant", "plain words")) == "plain words"

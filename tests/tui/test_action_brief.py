"""A tool call in brief: its name and most telling argument, for step rows and the pause banner."""

from __future__ import annotations

from tui.action_brief import OTHER_CHARS, VALUE_CHARS, action_brief, actions_brief, telling_argument
from tui.store import RunStore
from tui.synthetic import synthetic_events


def test_a_path_query_or_command_tells_most_whatever_its_place() -> None:
    assert action_brief({"name": "write_file", "args": {"content": "x\ny\n", "path": "calc.py"}}) == (
        "write_file calc.py"
    )
    assert action_brief({"name": "search", "args": {"limit": 5, "query": "invoice total"}}) == (
        "search invoice total"
    )
    assert (
        action_brief({"name": "shell", "args": {"timeout": 30, "command": "pytest -q"}}) == "shell pytest -q"
    )


def test_else_the_first_argument_that_reads_on_one_line() -> None:
    # A multi-line text is skipped for the next argument; numbers read as JSON.
    assert telling_argument({"body": "line one\nline two", "count": 3}) == "3"
    assert telling_argument({"fact": "calc.add subtracted its arguments; fixed"}) == (
        "calc.add subtracted its arguments; fixed"[: OTHER_CHARS - 1] + "…"
    )
    assert action_brief({"name": "list_files", "args": {}}) == "list_files"
    assert action_brief({"name": "run_tests"}) == "run_tests"
    assert action_brief({"name": "note", "args": {"items": [1, 2], "blob": {"a": 1}}}) == "note"


def test_long_values_and_names_are_cut_on_one_line() -> None:
    brief = action_brief({"name": "n" * 100, "args": {"path": "/very/" + "deep/" * 40 + "file.py"}})
    name, _, argument = brief.partition(" ")
    assert len(name) == 40 and name.endswith("…")
    assert len(argument) == VALUE_CHARS and argument.endswith("…")
    # Whitespace runs (tabs, a trailing newline) are one space: the brief is one line.
    assert telling_argument({"path": "a\tb.py\n"}) == "a b.py"


def test_anything_that_is_not_a_call_is_short_text() -> None:
    assert action_brief("just text") == "just text"
    assert action_brief({"args": {"path": "x"}}) == "{'args': {'path': 'x'}}"
    assert action_brief({"name": 7, "args": "a.py"}) == "7 a.py"
    assert action_brief({"name": "", "args": None}) == "?"


def test_several_actions_are_the_first_and_a_count() -> None:
    calls = [{"name": "read_file", "args": {"path": f"f{i}.py"}} for i in range(3)]
    assert actions_brief(calls) == "read_file f0.py +2 more"
    assert actions_brief(calls[:1]) == "read_file f0.py"
    assert actions_brief([]) == ""


def test_the_fold_keeps_each_steps_action_in_brief() -> None:
    store = RunStore()
    store.apply(synthetic_events(6))
    assert [s.action for s in store.steps] == [
        "read_file calc.py",
        "run_tests calc.py",
        "write_file calc.py",
        "read_file calc.py",
        "run_tests calc.py",
        "answer: Done: the test passes.",
    ]

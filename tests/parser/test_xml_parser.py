"""XmlDecisionParser: upstream's XML decision format, read totally (failures are parse errors)."""

from __future__ import annotations

import pytest

from qitos.core.errors import ParseExecutionError
from qitos.kit.parser import XmlDecisionParser, get_parser


def test_act_with_named_args() -> None:
    text = '<decision mode="act"><think>add them</think><action name="add"><arg name="a">40</arg><arg name="b">2</arg></action></decision>'
    decision = XmlDecisionParser().parse(text)
    assert decision.mode == "act"
    assert decision.rationale == "add them"
    assert decision.actions[0].name == "add"
    assert decision.actions[0].args == {"a": 40, "b": 2}


def test_action_body_call_and_fragments_without_one_root() -> None:
    decision = XmlDecisionParser().parse("<think>t</think>\n<action>read(path='a.txt')</action>")
    assert decision.actions[0].name == "read"
    assert decision.actions[0].args == {"path": "a.txt"}


def test_final_and_wait_modes() -> None:
    final = XmlDecisionParser().parse("<decision><final_answer>42</final_answer></decision>")
    assert (final.mode, final.final_answer) == ("final", "42")
    wait = XmlDecisionParser().parse('<decision mode="wait"><thought>later</thought></decision>')
    assert (wait.mode, wait.rationale) == ("wait", "later")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I will read calc.py first, then fix the sum.",
        "<decision><think>only thinking</think></decision>",
        '<decision mode="final"><think>x</think></decision>',
        '<decision mode="explode"/>',
        "<a><b></a>",
        '<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>',
    ],
)
def test_bad_output_is_a_recoverable_parse_error(text: str) -> None:
    with pytest.raises(ParseExecutionError) as err:
        XmlDecisionParser().parse(text)
    assert err.value.info.recoverable


def test_unknown_tool_is_refused_when_names_are_known() -> None:
    parser = get_parser("xml", tool_names={"add"})
    with pytest.raises(ParseExecutionError, match="unknown tool 'rm'"):
        parser.parse('<action name="rm"><arg name="path">/</arg></action>')


def test_prose_without_markup_is_refused_as_holding_no_element() -> None:
    with pytest.raises(ParseExecutionError) as err:
        XmlDecisionParser().parse("Done: the test passes & the sum is right.")
    assert "holds no XML element" in str(err.value)

"""qitos.core.exchange_log to the letter: ids, append-only refusals with exact messages, the item's
JSON projection, and digests that change exactly when the projection does.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a user relies on (a stable id, a message saying what was refused, a digest a trace keeps).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from qitos.core.context import ContextError, canonical_json
from qitos.core.exchange_log import Exchange, ExchangeItem, ExchangeLog, non_empty_text


def raises(fn: Any, message: str) -> None:
    """``fn()`` raises a ContextError whose message is exactly ``message``."""
    with pytest.raises(ContextError) as info:
        fn()
    assert str(info.value) == message


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- non_empty_text ----------------------------------------------------------------------------------


def test_non_empty_text_returns_the_text_and_refuses_blanks_and_non_strings() -> None:
    assert non_empty_text(" x ", "name") == " x "
    raises(lambda: non_empty_text("\t", "kind"), "kind must be a non-empty string, got '\\t'")
    raises(lambda: non_empty_text(None, "log_id"), "log_id must be a non-empty string, got None")
    raises(lambda: non_empty_text(3, "n"), "n must be a non-empty string, got 3")


# -- ids and snapshots ---------------------------------------------------------------------------------


def test_exchange_ids_count_from_one_with_six_digits() -> None:
    log = ExchangeLog()
    assert log.log_id == "exchange-log"
    assert log.last_exchange_id is None and len(log) == 0
    ids = [log.open(step_id=s) for s in (0, 0, 3)]
    assert ids == ["ex-000001", "ex-000002", "ex-000003"]
    assert len(log) == 3 and log.last_exchange_id == "ex-000003"
    assert log.summaries() == [("ex-000001", 0, False), ("ex-000002", 0, False), ("ex-000003", 3, False)]


@pytest.mark.parametrize("step", [-1, True, 1.0, "1", None])
def test_an_exchange_needs_a_non_negative_int_step(step: Any) -> None:
    raises(lambda: ExchangeLog().open(step_id=step), f"step_id must be a non-negative int, got {step!r}")


def test_a_blank_log_id_is_refused() -> None:
    raises(lambda: ExchangeLog(""), "log_id must be a non-empty string, got ''")


def test_item_ids_number_the_items_of_their_exchange_from_zero() -> None:
    log = ExchangeLog("L")
    ex = log.open(step_id=1)
    first = log.append(ex, role="user", content="hi")
    second = log.append(ex, role="assistant", content="yo", kind="answer")
    assert first == ExchangeItem("ex-000001/0", ex, "user", "hi", "message", ())
    assert second.item_id == "ex-000001/1" and second.kind == "answer"
    assert log.get(ex) == Exchange(ex, 1, (first, second), False)
    assert log.exchanges == (Exchange(ex, 1, (first, second), False),)


def test_an_unknown_exchange_is_named_with_its_log() -> None:
    log = ExchangeLog("L")
    raises(lambda: log.get("ex-9"), "exchange 'ex-9' is not in log 'L'")
    raises(lambda: log.close("ex-9"), "exchange 'ex-9' is not in log 'L'")
    raises(lambda: log.is_closed("ex-9"), "exchange 'ex-9' is not in log 'L'")
    raises(lambda: log.append("ex-9", role="user", content=""), "exchange 'ex-9' is not in log 'L'")


# -- append-only -----------------------------------------------------------------------------------


def test_a_closed_exchange_refuses_new_items_and_closing_again_is_harmless() -> None:
    log = ExchangeLog()
    ex = log.open(step_id=0)
    assert not log.is_closed(ex)
    log.close(ex)
    log.close(ex)
    assert log.is_closed(ex) and log.get(ex).closed
    raises(
        lambda: log.append(ex, role="user", content="late"),
        "exchange 'ex-000001' is closed; the log is append-only",
    )
    assert log.get(ex).items == ()


def test_append_refuses_bad_roles_contents_and_kinds_by_name() -> None:
    log = ExchangeLog()
    ex = log.open(step_id=0)
    raises(
        lambda: log.append(ex, role="system", content="x"),
        "item role must be one of ['assistant', 'user'], got 'system'",
    )
    raises(lambda: log.append(ex, role="user", content=42), "item content must be a string, got int")
    raises(
        lambda: log.append(ex, role="user", content="x", kind=""), "kind must be a non-empty string, got ''"
    )
    raises(
        lambda: log.append(ex, role="assistant", content="", tool_calls=[{"args": {}}]),
        "tool call name must be a non-empty string, got None",
    )
    raises(
        lambda: log.append(ex, role="assistant", content="", tool_calls=[{"name": "t", "args": {"a": {1}}}]),
        "tool call args.a holds a set, which is not JSON data",
    )
    assert log.get(ex).items == ()  # nothing refused was kept


def test_an_empty_content_is_a_valid_item() -> None:
    log = ExchangeLog()
    ex = log.open(step_id=0)
    assert log.append(ex, role="assistant", content="").content == ""


# -- the item projection -----------------------------------------------------------------------------


def test_an_item_without_tool_calls_projects_to_five_keys() -> None:
    item = ExchangeItem("ex-000001/0", "ex-000001", "user", "hi")
    assert item.to_dict() == {
        "item_id": "ex-000001/0",
        "exchange_id": "ex-000001",
        "role": "user",
        "kind": "message",
        "content": "hi",
    }


def test_tool_calls_keep_their_names_and_canonical_args() -> None:
    log = ExchangeLog()
    ex = log.open(step_id=0)
    item = log.append(
        ex,
        role="assistant",
        content="",
        tool_calls=[{"name": "read", "args": {"b": 1, "a": "é"}}, {"name": "list"}],
    )
    assert item.tool_calls == (("read", '{"a":"é","b":1}'), ("list", "{}"))
    assert item.to_dict()["tool_calls"] == [
        {"name": "read", "args": {"a": "é", "b": 1}},
        {"name": "list", "args": {}},
    ]


# -- digests -----------------------------------------------------------------------------------------


def exchange_digest(exchange_id: str, step_id: int, closed: bool, items: list[ExchangeItem]) -> str:
    """The documented exchange digest, computed by hand."""
    header = canonical_json({"exchange_id": exchange_id, "step_id": step_id, "closed": closed})
    return sha("\n".join([header, *(canonical_json(i.to_dict()) for i in items)]))


def test_the_log_digest_is_the_hash_of_its_header_and_exchange_digests() -> None:
    log = ExchangeLog("L")
    empty_header = canonical_json({"log_id": "L", "schema": "qitos.exchange_log/v1"})
    assert log.digest() == sha(empty_header)
    ex = log.open(step_id=2)
    item = log.append(ex, role="user", content="hi")
    open_digest = exchange_digest(ex, 2, False, [item])
    assert log.digest() == sha("\n".join([empty_header, open_digest]))
    log.close(ex)
    closed_digest = exchange_digest(ex, 2, True, [item])
    assert closed_digest != open_digest
    assert log.digest() == sha("\n".join([empty_header, closed_digest]))
    second = log.open(step_id=3)
    assert log.digest() == sha(
        "\n".join([empty_header, closed_digest, exchange_digest(second, 3, False, [])])
    )


def test_an_open_exchange_digest_follows_each_append() -> None:
    log = ExchangeLog("L")
    ex = log.open(step_id=0)
    before = log.digest()
    log.append(ex, role="user", content="a")
    after_one = log.digest()
    log.append(ex, role="user", content="b")
    assert len({before, after_one, log.digest()}) == 3


def test_logs_with_other_ids_digest_differently() -> None:
    assert ExchangeLog("a").digest() != ExchangeLog("b").digest()

"""qitos.trace.redact to the letter: which literal secrets are masked (the length boundary, non-ASCII
ones), how masks meet, how data JSON cannot hold is written, and the slow path a JSON-breaking mask
takes.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a user relies on (a secret of the documented length is masked, a set is written in a
stable order, a dict key None reads "null"), not the mutant.
"""

from __future__ import annotations

import json
from typing import Any

from qitos.trace.redact import MASK, Redactor

EIGHT = "k3y-8chr"  # exactly the shortest literal secret masked
SEVEN = "k3y-7ch"
# A mask holding a quote: no line masked with it is JSON, so every masked line takes the slow path
# (value by value) and must still come out as valid JSON with no secret in it.
QUOTED_MASK = '<"hidden">'


def nest(container: type, levels: int) -> Any:
    """``levels`` containers of one kind nested in each other (a list ``[[...]]`` or a dict ``{"d": ...}``)."""
    value: Any = container()
    for _ in range(levels - 1):
        value = [value] if container is list else {"d": value}
    return value


def depth_of(value: Any) -> int:
    """How many containers are nested in ``value`` (0 for a scalar)."""
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


def innermost(value: Any) -> Any:
    """The value at the bottom of a one-way nesting made by :func:`nest`."""
    while isinstance(value, list | dict) and value:
        value = value[0] if isinstance(value, list) else value["d"]
    return value


# -- which literal secrets are masked -------------------------------------------------------------


def test_an_env_secret_of_eight_characters_is_masked_and_one_of_seven_is_not() -> None:
    redactor = Redactor(env={"SERVICE_TOKEN": EIGHT, "OTHER_TOKEN": SEVEN})
    assert redactor.secret_count == 1
    assert redactor.redact_text(f"a {EIGHT} b {SEVEN} c") == f"a {MASK} b {SEVEN} c"


def test_extra_secrets_follow_the_same_length_rule_and_empty_ones_are_ignored() -> None:
    redactor = Redactor(env={}, extra_secrets=["", "short", SEVEN, EIGHT])
    assert redactor.secret_count == 1
    assert redactor.redact_text(f"short {SEVEN} {EIGHT}") == f"short {SEVEN} {MASK}"


def test_a_non_ascii_secret_is_masked_as_the_trace_line_spells_it() -> None:
    # Trace lines keep non-ASCII text as it is (no \\u escapes): the secret must be looked up so.
    secret = "pässwört-geheim"
    redactor = Redactor(env={"DB_PASSWORD": secret})
    assert redactor.to_json_line({"note": f"login {secret} now"}) == f'{{"note": "login {MASK} now"}}'


def test_secret_names_are_found_in_any_case_beside_letters_that_lower_case_to_two() -> None:
    # "İ".lower() is two characters: the lower-cased copy the names are looked up in must still
    # line up with the text, or the mask lands beside the value.
    redactor = Redactor(env={})
    assert redactor.redact_text("İzmir API_KEY=abcdef123456 and İ") == f"İzmir API_KEY={MASK} and İ"
    line = redactor.to_json_line({"note": "İİİİ", "Password": "hunter2hunter2"})
    assert line == f'{{"note": "İİİİ", "Password": "{MASK}"}}'


def test_redact_text_gives_plain_text_back_and_masks_a_secret_in_it() -> None:
    redactor = Redactor(env={"SERVICE_TOKEN": EIGHT})
    assert redactor.redact_text("nothing to hide: ünïcode") == "nothing to hide: ünïcode"
    assert redactor.redact_text(f"RuntimeError: refused {EIGHT}") == f"RuntimeError: refused {MASK}"


# -- how masks meet ---------------------------------------------------------------------------------


def test_two_secrets_written_back_to_back_leave_one_mask_each() -> None:
    redactor = Redactor(env={}, extra_secrets=["AAAAAAAA1", "BBBBBBBB2"])
    assert redactor.redact_text("xAAAAAAAA1BBBBBBBB2y") == f"x{MASK}{MASK}y"


def test_every_occurrence_of_a_secret_is_masked_wherever_it_starts() -> None:
    redactor = Redactor(env={"SERVICE_TOKEN": "aaaaaaaa"})
    assert redactor.redact_text("aaaaaaaa x aaaaaaaa y aaaaaaaa") == f"{MASK} x {MASK} y {MASK}"
    assert redactor.redact_text("xaaaaaaaaay") == f"x{MASK}y"  # found again one letter on
    assert redactor.mask_line("aaaaaaaa is the key") == f"{MASK} is the key"  # at the very start


def test_a_secret_after_a_backslash_is_masked_and_an_escape_letter_is_not_cut() -> None:
    # In the JSON line a backslash is written as two: the secret after it is still a secret.
    redactor = Redactor(env={"SERVICE_TOKEN": EIGHT, "OTHER_TOKEN": "nabcdefgh"})
    assert redactor.redact_text(f"dir\\{EIGHT}") == f"dir\\{MASK}"
    # A newline before "abcdefgh" is written \\n in the line: that n is the escape's, not the secret's.
    assert redactor.redact_text("a\nabcdefgh") == "a\nabcdefgh"


def test_overlapping_secrets_leave_one_mask() -> None:
    redactor = Redactor(env={}, extra_secrets=["abcdefgh12", "gh12345678"])
    assert redactor.redact_text("<abcdefgh12345678>") == f"<{MASK}>"


def test_a_secret_number_field_starting_with_an_env_secret_is_masked_whole_as_a_string() -> None:
    # The field's mask (a JSON string in place of the number) and the literal's (inside the number)
    # start at the same place: the outer one wins, so the line stays JSON and is masked in one pass,
    # which keeps an empty list under a secret name (it holds nothing).
    redactor = Redactor(env={"PIN_SECRET": "12345678"})
    line = redactor.to_json_line({"password": 123456789012, "api_key": [], "n": 7})
    assert line == f'{{"password": "{MASK}", "api_key": [], "n": 7}}'


# -- data JSON cannot hold --------------------------------------------------------------------------


def test_bytes_are_written_as_their_utf8_text_with_bad_bytes_replaced() -> None:
    line = Redactor(env={}).to_json_line({"b": b"caf\xc3\xa9 \xff", "ba": bytearray(b"ok")})
    assert line == '{"b": "café \ufffd", "ba": "ok"}'


def test_a_set_is_written_as_a_list_in_a_stable_order_whatever_its_members() -> None:
    # Members are ordered by their repr: mixed types cannot be compared, and a set's own order
    # changes from run to run (string hashing), which would make traces differ needlessly.
    redactor = Redactor(env={})
    assert redactor.to_json_line({"s": frozenset({2, "x", 10})}) == '{"s": ["x", 10, 2]}'
    assert redactor.to_json_line({"s": {"b", "a"}}) == '{"s": ["a", "b"]}'


def test_keys_json_cannot_hold_become_their_text_and_the_others_keep_their_json_spelling() -> None:
    line = Redactor(env={}).to_json_line({(1, 2): "t", None: "n", True: "c", 2: "d", 1.5: "f"})
    assert line == '{"(1, 2)": "t", "null": "n", "true": "c", "2": "d", "1.5": "f"}'


def test_a_cycle_through_a_dict_is_written_as_text_where_it_closes() -> None:
    loop: dict[str, Any] = {"name": "loop"}
    loop["self"] = loop
    assert json.loads(Redactor(env={}).to_json_line({"x": loop})) == {
        "x": {"name": "loop", "self": "<cycle: dict>"}
    }


def test_containers_are_kept_200_deep_and_cut_below_that() -> None:
    # Nesting is only bounded when the encoder had to give up (here: a tuple key beside it). The
    # outer dict is level 1, so the 200th container is the first one cut.
    redactor = Redactor(env={})
    for kind, name in ((list, "list"), (dict, "dict")):
        kept = json.loads(redactor.to_json_line({(0,): 0, "v": nest(kind, 199)}))["v"]
        assert depth_of(kept) == 199 and innermost(kept) == kind()
        cut = json.loads(redactor.to_json_line({(0,): 0, "v": nest(kind, 200)}))["v"]
        assert depth_of(cut) == 199
        assert innermost(cut) == f"<nested deeper than 200: {name}>"


# -- a mask that is not JSON text: masked value by value ------------------------------------------


def test_a_mask_holding_a_quote_still_gives_valid_json_with_no_secret() -> None:
    secret = "pässwört-geheim"
    redactor = Redactor(env={"DB_PASSWORD": secret}, mask=QUOTED_MASK)
    line = redactor.to_json_line({"note": f"a {secret} b", "items": ["plain", f"x{secret}"], "n": 1})
    assert secret not in line
    # A string that held a secret is masked whole: the mask cannot be put inside it as JSON.
    assert json.loads(line) == {"note": QUOTED_MASK, "items": ["plain", QUOTED_MASK], "n": 1}


def test_the_slow_path_keeps_non_ascii_text_and_masks_a_non_ascii_secret_in_a_list() -> None:
    secret = "clé-secrète-42"
    redactor = Redactor(env={"APP_SECRET": secret}, mask=QUOTED_MASK)
    line = redactor.to_json_line({"password": "pw", "notes": ["déjà vu", secret]})
    assert json.loads(line) == {"password": QUOTED_MASK, "notes": ["déjà vu", QUOTED_MASK]}
    assert "déjà vu" in line  # written as it is, not as \\u escapes


def test_the_slow_path_leaves_empty_and_boolean_secret_fields_alone() -> None:
    # As the one-pass mask does: null, "", true and false under a secret name hide nothing.
    redactor = Redactor(env={}, mask=QUOTED_MASK)
    data = {"password": "pw", "api_key": "", "token": True, "secret": False, "auth": None}
    assert json.loads(redactor.to_json_line(data)) == {**data, "password": QUOTED_MASK}

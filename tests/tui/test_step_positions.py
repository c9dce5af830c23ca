"""The fold's compact per-step structures answer exactly as the plain ones they replace."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.step_positions import StepPositions
from tui.store import StepSummary

keys = st.integers(min_value=-3, max_value=12) | st.sampled_from(
    [True, False, 2.0, 2.5, float("nan"), "3", None]
)


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(
    ids=st.lists(st.integers(min_value=-3, max_value=12) | st.integers(), max_size=30), asked=st.lists(keys)
)
def test_step_positions_answer_as_a_dict_does(ids: list[int], asked: list[object]) -> None:
    plain: dict[int, int] = {}
    compact = StepPositions()
    for step_id in ids:  # as the fold adds them: a new id takes the next position
        if step_id not in plain:
            plain[step_id] = len(plain)
            compact.add(step_id, plain[step_id])
    assert dict(compact) == plain and len(compact) == len(plain) and list(compact) == list(plain)
    for key in [*asked, *ids]:
        assert compact.get(key) == plain.get(key)  # type: ignore[call-overload]
        assert compact.get(key, -1) == plain.get(key, -1)  # type: ignore[call-overload]
        assert (key in compact) == (key in plain)


def test_the_usual_numbering_keeps_no_table_and_a_break_in_it_does() -> None:
    positions = StepPositions()
    for step_id in range(1000):
        positions.add(step_id, step_id)
    assert positions._sparse == {} and positions[999] == 999 and positions.get(1000) is None
    positions.add(5000, 1000)
    positions.add(1000, 1001)  # after the break, even an id that would have fitted goes in the table
    assert positions._sparse == {5000: 1000, 1000: 1001} and positions[1000] == 1001


def test_a_step_keeps_its_rare_fields_apart_and_only_when_they_are_set() -> None:
    step = StepSummary(3, 10, 12)
    step.retries += 0  # the fold adds "no retries" for every plain tool result
    step.errors += ()
    assert step.extras is None and step.error is None and step.raw == ()
    step.errors += (11,)
    step.error = "tool: boom"
    assert step.extras is not None and step.errors == (11,) and step.error == "tool: boom"
    assert step.retries == 0 and step.pauses == () and step.skills == ()
    assert step == StepSummary(3, 10, 12, extras=step.extras) != StepSummary(3, 10, 12)

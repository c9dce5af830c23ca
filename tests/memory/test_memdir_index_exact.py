"""Exact tests of the MEMORY.md index: the bullet a record becomes, the caps to the character, the
tail that counts what is left out, and the book that keeps the index without a scan."""

from __future__ import annotations

from collections.abc import Callable

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_index import INDEX_HEAD, IndexBook, index_line, render_index_text

HEAD = len(INDEX_HEAD)


def _line(tag: str) -> str:
    """An index line of a fixed shape (what the renderer is given)."""
    return f"- [user @ step 0](records/{tag}.md) `{tag}` {tag}\n"


def _tail(omitted: int) -> str:
    """The line that says how many records the index leaves out."""
    return f"\n_{omitted} older record(s) not listed._\n"


def _snippet(content: str) -> str:
    """The snippet index_line gives for ``content``."""
    line = index_line(MemoryRecord("user", content, 0, record_id="r"), "f.md")
    prefix = "- [user @ step 0](records/f.md) `r` "
    assert line.startswith(prefix) and line.endswith("\n")
    return line[len(prefix) : -1]


# ----- the bullet -------------------------------------------------------------------------------


def test_an_index_line_names_role_step_path_id_and_snippet() -> None:
    record = MemoryRecord("assistant", "the fact", 7, record_id="r-9")
    assert index_line(record, "abc.md") == "- [assistant @ step 7](records/abc.md) `r-9` the fact\n"


def test_a_snippet_is_one_line_without_surrounding_whitespace() -> None:
    assert _snippet("  \n first\r\nsecond \n ") == "first  second"


def test_a_snippet_shows_a_hundred_characters_and_marks_what_goes_on() -> None:
    assert _snippet("a" * 100) == "a" * 100
    assert _snippet("a" * 101) == "a" * 100 + "…"
    assert _snippet("a" * 100 + "   \n") == "a" * 100  # only whitespace follows: nothing is cut
    assert _snippet("a" * 100 + " b") == "a" * 100 + "…"  # a word follows past the space
    assert _snippet("a" * 98 + " b") == "a" * 98 + " b"


def test_a_cut_snippet_drops_the_space_before_its_ellipsis() -> None:
    assert _snippet("a" * 99 + " bc") == "a" * 99 + "…"


def test_brackets_in_a_snippet_become_parentheses_so_the_link_stays_whole() -> None:
    assert _snippet("see [x](y) and ]") == "see (x)(y) and )"


def test_json_content_is_snippeted_as_text() -> None:
    line = index_line(MemoryRecord("tool", {"k": 1}, 0, record_id="r"), "f.md")
    assert line.endswith(" {'k': 1}\n")


# ----- rendering within the caps ----------------------------------------------------------------


def test_the_index_lists_at_most_max_entries_lines_and_counts_the_rest() -> None:
    lines = [_line(f"r{i}") for i in range(5)]
    text = render_index_text(lines, 5, max_entries=3, max_chars=10_000)
    assert text == INDEX_HEAD + "".join(lines[:3]) + _tail(2)


def test_an_index_of_every_record_has_no_tail() -> None:
    lines = [_line(f"r{i}") for i in range(3)]
    assert render_index_text(lines, 3, max_entries=3, max_chars=10_000) == INDEX_HEAD + "".join(lines)


def test_lines_filling_the_char_cap_exactly_are_all_listed() -> None:
    lines = [_line(f"r{i}") for i in range(2)]
    exact = HEAD + len(lines[0]) + len(lines[1])
    assert render_index_text(lines, 2, max_entries=10, max_chars=exact) == INDEX_HEAD + "".join(lines)
    # One character less: the second line no longer fits; the tail counting it does.
    assert render_index_text(lines, 2, max_entries=10, max_chars=exact - 1) == INDEX_HEAD + lines[0] + _tail(
        1
    )


def test_the_tail_takes_the_place_of_the_oldest_lines_that_leave_it_no_room() -> None:
    lines = [_line(f"r{i}") for i in range(4)]
    # Room for three lines, but three lines leave no room for the tail: two lines and the tail fit.
    cap = HEAD + 3 * len(lines[0])
    assert len(lines[0]) >= len(_tail(2))
    text = render_index_text(lines, 4, max_entries=10, max_chars=cap)
    assert text == INDEX_HEAD + "".join(lines[:2]) + _tail(2)


def test_a_tail_that_fits_exactly_is_kept() -> None:
    lines = [_line("r0"), _line("r1")]
    cap = HEAD + len(lines[0]) + len(_tail(1))
    assert render_index_text(lines, 2, max_entries=1, max_chars=cap) == INDEX_HEAD + lines[0] + _tail(1)


def test_a_tail_that_cannot_fit_even_alone_is_left_out() -> None:
    lines = [_line("r0")]
    assert render_index_text(lines, 1, max_entries=0, max_chars=HEAD + 3) == INDEX_HEAD


def test_a_cap_below_the_head_gives_an_empty_index() -> None:
    assert render_index_text([], 0, max_entries=5, max_chars=HEAD - 1) == ""
    assert render_index_text([], 0, max_entries=5, max_chars=HEAD) == INDEX_HEAD


def test_the_lines_are_read_lazily_and_only_as_far_as_the_caps() -> None:
    pulled: list[int] = []

    def lines() -> object:
        for i in range(1000):
            pulled.append(i)
            yield _line(f"r{i}")

    render_index_text(lines(), 1000, max_entries=2, max_chars=10_000)  # type: ignore[arg-type]
    assert pulled == [0, 1, 2]


# ----- the book ---------------------------------------------------------------------------------


def _loader(lines: dict[str, str], asked: list[str]) -> Callable[[str], str | None]:
    """A load_line reading lines from ``lines`` (None: the file is gone) and noting each name asked."""

    def load(name: str) -> str | None:
        asked.append(name)
        return lines.get(name)

    return load


def _book_text(
    names_newest_first: list[str], total: int, *, max_entries: int, max_chars: int = 10_000
) -> str:
    """What render_index_text gives for these records."""
    return render_index_text(
        [_line(n) for n in names_newest_first], total, max_entries=max_entries, max_chars=max_chars
    )


def test_a_book_renders_its_records_newest_first_like_a_rescan() -> None:
    book = IndexBook(_loader({}, []))
    for seq, name in enumerate(["a", "b", "c"], start=1):
        book.put((seq, name), _line(name))
    assert len(book) == 3
    assert book.render(max_entries=2, max_chars=10_000) == _book_text(["c", "b"], 3, max_entries=2)


def test_appends_after_a_render_push_on_the_front_and_trim_the_oldest() -> None:
    book = IndexBook(_loader({}, []))
    book.put((1, "a"), _line("a"))
    book.render(max_entries=2, max_chars=10_000)
    book.put((2, "b"), _line("b"))
    book.put((3, "c"), _line("c"))
    assert book.render(max_entries=2, max_chars=10_000) == _book_text(["c", "b"], 3, max_entries=2)
    book.put((4, "d"), _line("d"))
    assert book.render(max_entries=2, max_chars=10_000) == _book_text(["d", "c"], 4, max_entries=2)


def test_pushed_lines_are_trimmed_to_the_char_cap_exactly() -> None:
    book = IndexBook(_loader({}, []))
    cap = HEAD + 2 * len(_line("a"))  # two lines, no room for a tail
    book.put((1, "a"), _line("a"))
    assert book.render(max_entries=10, max_chars=cap) == INDEX_HEAD + _line("a")
    book.put((2, "b"), _line("b"))
    assert book.render(max_entries=10, max_chars=cap) == INDEX_HEAD + _line("b") + _line("a")
    book.put((3, "c"), _line("c"))
    assert book.render(max_entries=10, max_chars=cap) == _book_text(
        ["c", "b", "a"], 3, max_entries=10, max_chars=cap
    )


def test_a_first_render_stops_at_the_line_that_overflows_the_char_cap() -> None:
    book = IndexBook(_loader({}, []))
    for seq, name in enumerate(["a", "b", "c"], start=1):
        book.put((seq, name), _line(name))
    cap = HEAD + 2 * len(_line("a"))
    assert book.render(max_entries=10, max_chars=cap) == _book_text(
        ["c", "b", "a"], 3, max_entries=10, max_chars=cap
    )
    exact = HEAD + 3 * len(_line("a"))
    fresh = IndexBook(_loader({}, []))
    for seq, name in enumerate(["a", "b", "c"], start=1):
        fresh.put((seq, name), _line(name))
    assert fresh.render(max_entries=10, max_chars=exact) == INDEX_HEAD + _line("c") + _line("b") + _line("a")


def test_an_out_of_order_key_is_placed_by_its_order() -> None:
    book = IndexBook(_loader({}, []))
    book.put((5, "late"), _line("late"))
    book.render(max_entries=5, max_chars=10_000)
    book.put((2, "early"), _line("early"))
    book.put((9, "newest"), _line("newest"))
    book.put((7, "middle"), _line("middle"))
    assert book.render(max_entries=5, max_chars=10_000) == _book_text(
        ["newest", "middle", "late", "early"], 4, max_entries=5
    )


def test_re_putting_a_record_moves_it_to_the_front_once() -> None:
    book = IndexBook(_loader({}, []))
    book.put((1, "a"), _line("a"))
    book.put((2, "b"), _line("b"))
    book.render(max_entries=5, max_chars=10_000)
    book.put((3, "a"), _line("a"))
    assert len(book) == 2
    assert book.render(max_entries=5, max_chars=10_000) == _book_text(["a", "b"], 2, max_entries=5)


def test_removing_reports_whether_the_book_held_the_record() -> None:
    book = IndexBook(_loader({}, []))
    book.put((1, "a"), _line("a"))
    book.put((2, "b"), _line("b"))
    book.render(max_entries=5, max_chars=10_000)
    assert book.remove("absent") is False
    assert book.remove("b") is True
    assert book.remove("b") is False
    assert len(book) == 1
    assert book.render(max_entries=5, max_chars=10_000) == _book_text(["a"], 1, max_entries=5)


def test_a_reset_starts_over_from_the_entries_given_in_any_order() -> None:
    asked: list[str] = []
    book = IndexBook(_loader({"old": _line("old")}, asked))
    book.put((1, "x"), _line("x"))
    book.render(max_entries=5, max_chars=10_000)
    book.reset([((30, "new"), _line("new")), ((10, "old"), None), ((20, "mid"), _line("mid"))])
    assert len(book) == 3
    assert book.render(max_entries=5, max_chars=10_000) == _book_text(["new", "mid", "old"], 3, max_entries=5)
    assert asked == ["old"]  # only the line the reset did not give is read back


def test_a_line_read_back_is_remembered() -> None:
    asked: list[str] = []
    book = IndexBook(_loader({"a": _line("a")}, asked))
    book.reset([((1, "a"), None), ((2, "b"), _line("b"))])
    book.render(max_entries=5, max_chars=10_000)
    book.remove("b")
    assert book.render(max_entries=5, max_chars=10_000) == _book_text(["a"], 1, max_entries=5)
    assert asked == ["a"]


def test_a_record_found_gone_on_the_way_is_dropped_and_the_older_ones_still_listed() -> None:
    asked: list[str] = []
    book = IndexBook(_loader({"a": _line("a"), "c": _line("c")}, asked))
    book.reset([((1, "a"), None), ((2, "gone"), None), ((3, "c"), None)])
    assert book.render(max_entries=5, max_chars=10_000) == _book_text(["c", "a"], 2, max_entries=5)
    assert asked == ["c", "gone", "a"]
    assert len(book) == 2


def _filled_book(count: int, asked: list[str]) -> IndexBook:
    """A book of ``count`` records r0..r(count-1), each line given, that re-reads from a full store."""
    store = {f"r{i}": _line(f"r{i}") for i in range(count)}
    book = IndexBook(_loader(store, asked))
    book.reset([((i, f"r{i}"), store[f"r{i}"]) for i in range(count)])
    return book


def test_past_twice_the_entries_and_64_the_book_drops_the_lines_out_of_view() -> None:
    asked: list[str] = []
    book = _filled_book(2 * 1 + 64 + 1, asked)  # one line over the bound, with max_entries=1
    book.render(max_entries=1, max_chars=10_000)
    book.remove("r66")
    book.render(max_entries=1, max_chars=10_000)
    assert asked == ["r65"]  # dropped at the first render, so read back when it came into view


def test_at_twice_the_entries_and_64_the_book_keeps_every_line() -> None:
    asked: list[str] = []
    book = _filled_book(2 * 3 + 64, asked)
    book.render(max_entries=3, max_chars=10_000)
    for name in ("r69", "r68", "r67"):
        book.remove(name)
    book.render(max_entries=3, max_chars=10_000)
    assert asked == []


def test_a_book_showing_no_lines_keeps_none_past_the_bound() -> None:
    asked: list[str] = []
    book = _filled_book(65, asked)
    assert book.render(max_entries=0, max_chars=10_000) == INDEX_HEAD + _tail(65)
    book.remove("r0")  # the next render walks the records again
    book.render(max_entries=1, max_chars=10_000)
    assert asked == ["r64"]  # even the newest line was dropped: none was in view


def test_the_lines_kept_after_a_drop_are_the_newest_shown() -> None:
    asked: list[str] = []
    book = _filled_book(2 * 3 + 64 + 1, asked)
    book.render(max_entries=3, max_chars=10_000)
    for name in ("r70", "r69", "r68"):
        book.remove(name)
    assert book.render(max_entries=3, max_chars=10_000) == _book_text(
        ["r67", "r66", "r65"], 68, max_entries=3
    )
    assert asked == ["r67", "r66", "r65"]


def test_the_tail_pushes_out_as_many_lines_as_it_needs() -> None:
    lines = [f"{'x' * 8}{i}\n" for i in range(6)]  # ten characters each: shorter than the tail
    cap = HEAD + 4 * len(lines[0])
    # Four lines fit, but the tail needs the room of four: none is left beside it.
    assert render_index_text(lines, 6, max_entries=10, max_chars=cap) == INDEX_HEAD + _tail(6)


def test_the_newest_lines_survive_a_drop_and_are_never_read_back() -> None:
    asked: list[str] = []
    book = _filled_book(2 * 3 + 64 + 1, asked)
    book.render(max_entries=3, max_chars=10_000)
    book.remove("r0")  # the next render walks the records again
    assert book.render(max_entries=3, max_chars=10_000) == _book_text(
        ["r70", "r69", "r68"], 70, max_entries=3
    )
    assert asked == []


def test_a_removed_records_line_is_forgotten_with_it() -> None:
    asked: list[str] = []
    book = _filled_book(2 * 1 + 64, asked)  # at the bound: nothing is dropped yet
    book.render(max_entries=1, max_chars=10_000)
    book.remove("r0")
    book.put((100, "new"), _line("new"))
    book.render(max_entries=1, max_chars=10_000)  # still 66 lines held: no drop
    book.remove("new")
    book.remove("r65")
    book.render(max_entries=1, max_chars=10_000)
    assert asked == []

"""Exact VectorMemory behaviour: the bucket embedding's values, ranking by dot product with ties to
the older record, top_k's bounds and default, the no-text fallback, embedders of uneven length,
summarize, evict, reset (records and vectors together) and its events."""

from __future__ import annotations

from typing import Any

import pytest

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.vector_memory import VectorMemory, bucket_embedding


def letter_counts(text: str) -> list[float]:
    """A readable embedder: how many x's and y's the text holds."""
    return [float(text.count("x")), float(text.count("y"))]


def stored(texts: list[str], **kw: Any) -> VectorMemory:
    memory = VectorMemory(**kw)
    for step, text in enumerate(texts):
        memory.append(MemoryRecord("user", text, step))
    return memory


def contents(records: list[MemoryRecord]) -> list[Any]:
    return [r.content for r in records]


def test_bucket_embedding_adds_each_character_code_mod_31_over_31_to_its_bucket() -> None:
    assert bucket_embedding("ab") == [4 / 31, 5 / 31] + [0.0] * 14


def test_bucket_embedding_wraps_after_sixteen_characters() -> None:
    vector = bucket_embedding("a" * 17)
    assert len(vector) == 16
    assert vector[0] == pytest.approx(8 / 31) and vector[1] == pytest.approx(4 / 31)


def test_bucket_embedding_of_empty_text_is_sixteen_zeros() -> None:
    assert bucket_embedding("") == [0.0] * 16


def test_default_embedder_is_the_bucket_embedding() -> None:
    assert VectorMemory().embedder is bucket_embedding


@pytest.mark.parametrize("top_k", [0, -1, True, 2.0])
def test_top_k_must_be_an_int_of_at_least_one(top_k: Any) -> None:
    with pytest.raises(ValueError) as caught:
        VectorMemory(top_k=top_k)
    assert str(caught.value) == f"VectorMemory.top_k must be an int >= 1, got {top_k!r}"


def test_top_k_of_one_is_allowed() -> None:
    assert contents(stored(["a", "b"], top_k=1).retrieve()) == ["b"]


def test_ranking_is_by_dot_product_best_first() -> None:
    memory = stored(["y", "xx", "x", "xxx y"], embedder=letter_counts, top_k=4)
    assert contents(memory.retrieve({"text": "x"})) == ["xxx y", "xx", "x", "y"]


def test_equal_scores_keep_the_older_record_first() -> None:
    memory = stored(["x y", "y x", "x"], embedder=letter_counts, top_k=3)
    assert contents(memory.retrieve({"text": "xy"})) == ["x y", "y x", "x"]


def test_query_top_k_caps_the_ranked_results() -> None:
    memory = stored(["x", "xx", "xxx"], embedder=letter_counts, top_k=3)
    assert contents(memory.retrieve({"text": "x", "top_k": 1})) == ["xxx"]


@pytest.mark.parametrize("count", [0, -1])
def test_query_top_k_of_zero_or_less_recalls_nothing(count: int) -> None:
    memory = stored(["x", "xx"], embedder=letter_counts)
    assert memory.retrieve({"text": "x", "top_k": count}) == []
    assert memory.retrieve({"top_k": count}) == []


def test_default_top_k_is_five() -> None:
    memory = stored([f"t{i}" for i in range(7)])
    assert contents(memory.retrieve()) == [f"t{i}" for i in range(2, 7)]
    assert len(memory.retrieve({"text": "t"})) == 5


@pytest.mark.parametrize("text", ["", 5, None])
def test_without_text_the_newest_top_k_come_back(text: Any) -> None:
    memory = stored(["x", "xx", "xxx"], embedder=letter_counts, top_k=2)
    assert contents(memory.retrieve({"text": text})) == ["xx", "xxx"]


def test_top_k_must_be_an_int_in_the_query() -> None:
    with pytest.raises(ValueError, match="'top_k' must be an int"):
        stored(["x"]).retrieve({"top_k": "1"})


def test_vectors_of_uneven_length_are_compared_over_the_shorter() -> None:
    # An embedder may give vectors of different lengths; the score uses the common leading part.
    memory = stored(["x", "xx y"], embedder=lambda text: [float(len(text))] * len(text), top_k=2)
    assert contents(memory.retrieve({"text": "q"})) == ["xx y", "x"]


def test_content_data_is_embedded_as_its_json_text() -> None:
    seen: list[str] = []

    def recording(text: str) -> list[float]:
        seen.append(text)
        return [1.0]

    memory = VectorMemory(embedder=recording)
    memory.append(MemoryRecord("tool", {"k": 1}, 0))
    assert seen == ['{"k": 1}']


def test_summarize_lists_the_newest_contents_cut_at_120_characters() -> None:
    memory = stored([f"t{i}" for i in range(6)] + ["c" * 130])
    assert memory.summarize() == "\n".join(["t2", "t3", "t4", "t5", "c" * 120])
    assert memory.summarize(max_items=1) == "c" * 120


@pytest.mark.parametrize("count", [0, -1])
def test_summarize_of_no_items_is_empty(count: int) -> None:
    assert stored(["a", "b"]).summarize(max_items=count) == ""


def test_evict_keeps_every_record_searchable() -> None:
    memory = stored(["x", "xx"], embedder=letter_counts)
    assert memory.evict() == 0
    assert contents(memory.retrieve({"text": "x"})) == ["xx", "x"]


def test_reset_forgets_the_vectors_with_the_records() -> None:
    memory = stored(["xxx", "y"], embedder=letter_counts, top_k=2)
    memory.reset("run-2")
    memory.append(MemoryRecord("user", "yy", 0))
    memory.append(MemoryRecord("user", "x", 1))
    assert contents(memory.retrieve({"text": "x"})) == ["x", "yy"]
    assert contents(memory.retrieve({"text": "y"})) == ["yy", "x"]


def test_append_refuses_non_records_and_keeps_nothing() -> None:
    memory = VectorMemory()
    with pytest.raises(TypeError, match="append expects a MemoryRecord, got str"):
        memory.append("x")  # type: ignore[arg-type]
    assert memory.retrieve() == []


def test_events_carry_the_vector_namespace_the_chars_and_the_given_query(events: list) -> None:
    memory = VectorMemory(embedder=letter_counts)
    memory.append(MemoryRecord("user", "xyz", 4, record_id="v1"))
    memory.retrieve({"text": "x"})
    assert events == [
        (
            "memory_append",
            {"record_id": "v1", "role": "user", "step_id": 4, "namespace": "vector", "chars": 3},
        ),
        (
            "memory_recall",
            {
                "namespace": "vector",
                "query": {"text": "x"},
                "record_ids": ["v1"],
                "records": [{"record_id": "v1", "role": "user", "content": "xyz"}],
            },
        ),
    ]


def test_namespace_can_be_named(events: list) -> None:
    memory = VectorMemory(namespace="similar")
    memory.append(MemoryRecord("user", "x", 0))
    memory.retrieve()
    assert [payload["namespace"] for _, payload in events] == ["similar", "similar"]

"""Exact behaviour of the library base: the weight of each field in ranking (name 5, description 3,
summary 2, tags 2, source 0.5, each over the square root of the field's word count), ties by
name, the catalog projection, the publish/deprecate events, and the in-memory library's defaults,
clock, copies and version checks."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from qitos.kit.tool.library.base import (
    BaseToolLibrary,
    InMemoryToolLibrary,
    ToolArtifact,
    catalog_entry,
    query_terms,
    rank_artifacts,
)
from qitos.kit.tool.library.errors import ToolLibraryError


def skill(name: str, description: str = "plain", **kw: Any) -> ToolArtifact:
    """An artifact whose fields say nothing about the query term 'zeta' unless the test sets them."""
    fields: dict[str, Any] = {"source": "body"}
    fields.update(kw)
    return ToolArtifact(name=name, description=description, **fields)


def ranked(query: str, *artifacts: ToolArtifact, top_k: int = 10) -> list[str]:
    return [a.name for a in rank_artifacts(artifacts, query, top_k)]


def test_query_terms_are_casefolded_words_without_punctuation() -> None:
    assert query_terms("Straße, CHART-audit!") == ["strasse", "chart", "audit"]


def test_a_query_of_no_words_ranks_nothing() -> None:
    assert ranked("-- !!", skill("zeta")) == []


def test_artifacts_matching_nothing_are_left_out() -> None:
    assert ranked("zeta", skill("alpha"), skill("zeta")) == ["zeta"]


def test_a_source_only_match_is_found() -> None:
    # 0.5 for one matching word of a one-word source: small, but a match.
    assert ranked("zeta", skill("alpha", source="zeta")) == ["alpha"]


def test_name_weight_five_loses_to_three_description_hits() -> None:
    # name "zeta": 5 / sqrt(1) = 5; description "zeta zeta zeta": 3 * 3 / sqrt(3) = 5.196
    assert ranked("zeta", skill("zeta"), skill("b", description="zeta zeta zeta")) == ["b", "zeta"]


def test_description_weight_three_loses_to_a_name_of_two_words() -> None:
    # name "zeta x": 5 / sqrt(2) = 3.54; description "zeta": 3
    assert ranked("zeta", skill("b", description="zeta"), skill("zeta x")) == ["zeta x", "b"]


def test_a_long_field_weighs_less_per_hit() -> None:
    # name "zeta": 5; description "zeta a b c": 3 / sqrt(4) = 1.5
    assert ranked("zeta", skill("b", description="zeta a b c"), skill("zeta")) == ["zeta", "b"]


def test_summary_weight_two_loses_to_a_description_of_two_words() -> None:
    # description "zeta x": 3 / sqrt(2) = 2.12; summary "zeta": 2
    assert ranked("zeta", skill("a", summary="zeta"), skill("b", description="zeta x")) == ["b", "a"]


def test_tag_weight_two_loses_to_a_description_of_two_words() -> None:
    # description "zeta x": 2.12; tags ["zeta"]: 2
    assert ranked("zeta", skill("a", tags=["zeta"]), skill("b", description="zeta x")) == ["b", "a"]


def test_source_weight_half_loses_to_a_summary_of_four_words() -> None:
    # summary "zeta x x x": 2 / sqrt(4) = 1; source "zeta": 0.5
    assert ranked("zeta", skill("a", source="zeta"), skill("b", summary="zeta x x x")) == ["b", "a"]


def test_matches_in_several_fields_add_up() -> None:
    # "a": name 5 + description 3 = 8; "b": name 5 / sqrt(1) and nothing else
    both = skill("a zeta", description="zeta")
    assert ranked("zeta", skill("zeta"), both) == ["a zeta", "zeta"]


def test_each_query_term_adds_its_hits() -> None:
    # "two" matches both terms in its description (3 + 3) / sqrt(2); "one" one term, 3 / sqrt(1)
    assert ranked("zeta eta", skill("one", description="zeta"), skill("two", description="zeta eta")) == [
        "two",
        "one",
    ]


def test_terms_match_word_prefixes_only() -> None:
    assert ranked("zet", skill("a", description="zeta")) == ["a"]
    assert ranked("eta", skill("a", description="zeta")) == []


def test_a_missing_summary_adds_no_words() -> None:
    assert ranked("xx", skill("a")) == []


def test_a_tag_after_the_first_is_matched_alone() -> None:
    assert ranked("zeta", skill("a", tags=["other", "zeta"])) == ["a"]


def test_tags_and_source_count_when_the_summary_is_empty() -> None:
    assert ranked("zeta", skill("a", summary=None, tags=["zeta"])) == ["a"]
    assert ranked("zeta", skill("b", summary="", source="zeta")) == ["b"]


def test_equal_scores_rank_by_name() -> None:
    assert ranked("zeta", skill("b", description="zeta"), skill("a", description="zeta")) == ["a", "b"]


def test_ranking_is_best_first_whatever_the_input_order() -> None:
    weak = skill("weak", source="zeta")
    strong = skill("zeta")
    middle = skill("middle", description="zeta")
    assert ranked("zeta", weak, middle, strong) == ["zeta", "middle", "weak"]


def test_top_k_keeps_the_best() -> None:
    assert ranked("zeta", skill("weak", source="zeta"), skill("zeta"), top_k=1) == ["zeta"]


def test_catalog_entry_is_the_identity_and_description_only() -> None:
    artifact = skill("a", "desc", summary="sum", tags=["t"], version=3, active=False, updated_at="U")
    entry = catalog_entry(artifact)
    assert entry == {
        "name": "a",
        "version": 3,
        "description": "desc",
        "summary": "sum",
        "tags": ["t"],
        "active": False,
        "updated_at": "U",
    }
    entry["tags"].append("x")
    assert artifact.tags == ["t"]


def test_base_library_closes_on_leaving_a_with_block() -> None:
    class Closing(InMemoryToolLibrary):
        closed = 0

        def close(self) -> None:
            self.closed += 1

    library = Closing()
    with library as entered:
        assert entered is library
    assert library.closed == 1
    assert BaseToolLibrary.close(library) is None


def test_default_namespace_is_default(events: list) -> None:
    library = InMemoryToolLibrary()
    library.add_or_update(skill("a"))
    library.deprecate("a")
    assert [payload["namespace"] for _, payload in events] == ["default", "default"]


def test_publish_event_is_name_version_namespace_and_description(events: list) -> None:
    InMemoryToolLibrary(namespace="ns").add_or_update(skill("a", "what it does"))
    assert events == [
        ("skill_publish", {"name": "a", "version": 1, "namespace": "ns", "description": "what it does"})
    ]


def test_deprecate_event_says_whether_the_flag_changed(events: list) -> None:
    library = InMemoryToolLibrary(namespace="ns")
    library.add_or_update(skill("a"))
    events.clear()
    library.deprecate("a")
    assert events == [("skill_deprecate", {"name": "a", "namespace": "ns", "changed": True})]


def test_a_given_clock_stamps_updated_at() -> None:
    library = InMemoryToolLibrary(clock=lambda: "2030-01-01T00:00:00+00:00")
    assert library.add_or_update(skill("a")).updated_at == "2030-01-01T00:00:00+00:00"


def test_the_default_clock_stamps_utc_iso_time() -> None:
    stamp = InMemoryToolLibrary().add_or_update(skill("a")).updated_at
    assert datetime.fromisoformat(stamp).utcoffset() == timedelta(0)


def test_publishing_an_inactive_artifact_stores_it_inactive() -> None:
    library = InMemoryToolLibrary()
    assert library.add_or_update(skill("zeta", active=False)).active is False
    assert library.get("zeta").active is False
    assert library.search("zeta") == [] and library.catalog() == []


def test_the_stored_tags_do_not_follow_the_callers_list() -> None:
    library = InMemoryToolLibrary()
    artifact = skill("a", tags=["one"])
    library.add_or_update(artifact)
    artifact.tags.append("two")
    assert library.get("a").tags == ["one"]


def test_get_version_of_an_unknown_name_is_none() -> None:
    assert InMemoryToolLibrary().get_version("missing", 1) is None


def test_get_version_reads_the_latest_exact_version() -> None:
    library = InMemoryToolLibrary()
    library.add_or_update(skill("a", source="one"))
    library.add_or_update(skill("a", source="two"))
    assert library.get_version("a", 2).source == "two"
    assert library.get_version("a", 1).source == "one"


@pytest.mark.parametrize("version", [0, -1, True, "1", 1.0])
def test_get_version_refuses_versions_that_are_not_positive_ints(version: Any) -> None:
    library = InMemoryToolLibrary()
    library.add_or_update(skill("a"))
    with pytest.raises(ToolLibraryError) as caught:
        library.get_version("a", version)
    assert caught.value.code == "invalid_version"


def test_search_returns_five_by_default() -> None:
    library = InMemoryToolLibrary()
    for index in range(7):
        library.add_or_update(skill(f"zeta-{index}"))
    assert len(library.search("zeta")) == 5


def test_catalog_lists_twenty_by_default() -> None:
    library = InMemoryToolLibrary()
    for index in range(22):
        library.add_or_update(skill(f"s{index:02d}"))
    assert [c["name"] for c in library.catalog()] == [f"s{index:02d}" for index in range(20)]


def test_catalog_with_a_query_ranks_within_the_limit() -> None:
    library = InMemoryToolLibrary()
    library.add_or_update(skill("weak", source="zeta"))
    library.add_or_update(skill("zeta"))
    assert [c["name"] for c in library.catalog("zeta", limit=1)] == ["zeta"]
    assert [c["name"] for c in library.catalog("zeta")] == ["zeta", "weak"]


def test_catalog_reads_the_latest_version() -> None:
    library = InMemoryToolLibrary()
    library.add_or_update(skill("a", "first"))
    library.add_or_update(skill("a", "second"))
    assert [(c["version"], c["description"]) for c in library.catalog()] == [(2, "second")]

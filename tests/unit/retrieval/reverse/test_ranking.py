"""Ranking a reverse lookup's hits: max-per-drug grouping, the caps and the optional rerank."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.reverse.ranking import DrugGroup, group_by_drug, rank_drugs

from tests.unit.retrieval.reverse.shards import item


def test_a_drug_scores_its_best_part_never_a_sum_or_count() -> None:
    # Given a drug with many middling parts and a drug with one strong part
    many = [item("nhieu_phan", i, 1.6) for i in range(6)]
    one = [item("mot_phan", 0, 1.9)]
    groups = group_by_drug([*many, *one])
    # Then the strong part wins; the many parts neither add up nor count
    assert [(g.drug_id, g.score) for g in groups] == [("mot_phan", 1.9), ("nhieu_phan", 1.6)]
    assert [i.score for i in groups[1].items] == [1.6] * 6


def test_caps_are_eight_drugs_by_two_parts() -> None:
    hits = [item(f"thuoc_{d:02d}", p, 2.5 - d / 100 - p / 1000) for d in range(12) for p in range(3)]
    ranked = rank_drugs("x", hits, EvidencePolicy())
    assert [g.drug_id for g in ranked.groups] == [f"thuoc_{d:02d}" for d in range(8)]
    assert all([i.part_index for i in g.items] == [0, 1] for g in ranked.groups)
    wide = rank_drugs(
        "x", hits, EvidencePolicy(indication_candidate_limit=10, indication_evidence_per_drug=3)
    )
    assert len(wide.groups) == 10 and all(len(g.items) == 3 for g in wide.groups)


def test_rerank_reorders_groups_and_fails_open() -> None:
    hits = [item("a", 0, 2.0), item("b", 0, 1.5), item("c", 0, 1.2)]

    def reverse_order(_: str, groups: Sequence[DrugGroup]) -> list[DrugGroup]:
        return [*reversed(groups), DrugGroup("invented", "X", 9.0, ())]  # an unknown drug is ignored

    ranked = rank_drugs("x", hits, EvidencePolicy(), rerank=reverse_order)
    assert [g.drug_id for g in ranked.groups] == ["c", "b", "a"] and ranked.reranked
    # the max score stays the drug's score: a reranker orders, it does not rescore

    def down(_: str, __: Sequence[DrugGroup]) -> list[DrugGroup]:
        raise TimeoutError("rerank service timed out")

    failed = rank_drugs("x", hits, EvidencePolicy(), rerank=down)
    assert [g.drug_id for g in failed.groups] == ["a", "b", "c"] and not failed.reranked
    assert failed.system_error == "rerank_unavailable"

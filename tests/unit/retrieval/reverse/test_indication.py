"""The condition -> drugs route over a real Edge shard: what a keyword answer lists as naming the
condition, below it, apart (incidental) and beyond the cap, and the bundle it returns."""

from __future__ import annotations

from pathlib import Path

from duocthu.models.frame import ConditionQuery, QueryFrame, indication_of
from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.reverse.indication import retrieve_by_indication
from duocthu.retrieval.reverse.keyword import find_by_indication
from duocthu.store.edge import EdgeStore

from tests.unit.retrieval.reverse.shards import chunk, drugs, shard


def test_drugs_beyond_the_cap_are_named_never_dropped(tmp_path: Path) -> None:
    with shard(tmp_path, [chunk(f"thuoc_{d}", 0, f"Tăng huyết áp nhóm {d}.") for d in range(5)]) as edge:
        bundle = retrieve_by_indication(edge, "tăng huyết áp", EvidencePolicy(indication_candidate_limit=2))
        shown = [d.drug_id for d in bundle.ranked_drugs]
        unlisted = [d.drug_id for d in bundle.unlisted_drugs]
        assert len(shown) == 2 and sorted(shown + unlisted) == [f"thuoc_{d}" for d in range(5)]
        assert all(not d.evidence_ids for d in bundle.unlisted_drugs)  # named, not quoted
        assert {e.drug_id for e in bundle.evidence} == set(shown)


def test_a_symptom_named_only_inside_another_disease_lists_the_drug_apart(tmp_path: Path) -> None:
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Hạ sốt, giảm đau nhẹ đến vừa."),
            chunk("thuoc_b", 0, "Sốt thương hàn do Salmonella typhi."),  # another disease
            chunk("thuoc_c", 0, "Giảm khó chịu do sốt ở trẻ em."),  # after a cause lead
            chunk("thuoc_e", 0, "Cắt cơn co giật do sốt cao ở trẻ em."),  # a seizure, not a fever to treat
        ],
    ) as edge:
        bundle = retrieve_by_indication(edge, "sốt")
        # the cause lead may introduce the drug's use: listed, below; another disease ("sốt thương
        # hàn", "co giật do sốt", data/distinct_terms.tsv) is apart
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a", "thuoc_c"]
        assert sorted(d.drug_id for d in bundle.incidental_drugs) == ["thuoc_b", "thuoc_e"]
        assert "thuoc_b" not in {e.drug_id for e in bundle.evidence}
    only = [
        chunk("thuoc_b", 0, "Sốt thương hàn do Salmonella typhi."),
        chunk("thuoc_d", 0, "Phối hợp trong sốt giảm bạch cầu trung tính."),
    ]
    with shard(tmp_path / "only", only) as edge:
        # nothing else names it: quoted, still apart, and beyond the cap never "also names it"
        bundle = retrieve_by_indication(edge, "sốt", EvidencePolicy(indication_candidate_limit=1))
        assert (bundle.decision, bundle.ranked_drugs, bundle.unlisted_drugs) == ("ANSWERABLE", (), ())
        assert sorted(d.drug_id for d in bundle.incidental_drugs) == ["thuoc_b", "thuoc_d"]


def test_a_term_that_holds_a_findings_words_but_is_not_it_never_names_it(tmp_path: Path) -> None:
    adr = "tac_dung_khong_mong_muon"
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Phù do suy tim sung huyết, xơ gan."),
            chunk("thuoc_b", 0, "Dùng khi các thuốc khác không phù hợp."),  # an ordinary word
            chunk("thuoc_c", 0, "Dự phòng phù hoàng điểm dạng nang sau mổ."),  # another condition
            chunk("thuoc_d", 0, "Dự phòng đột quỵ thiếu máu não và cơn thiếu máu cục bộ thoáng qua."),
            chunk("thuoc_e", 0, "Thiếu máu tan máu tự miễn."),
            chunk("thuoc_b", 1, "Hiếm gặp: phù mạch, mày đay.", adr),
            chunk("thuoc_f", 1, "Thường gặp: phù ngoại vi.", adr),
            chunk("thuoc_g", 1, "Ít gặp: thiếu máu cơ tim.", adr),
        ],
    ) as edge:
        bundle = retrieve_by_indication(edge, "phù")
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a"]
        assert [d.drug_id for d in bundle.incidental_drugs] == ["thuoc_c"]  # listed apart, never "phù hợp"
        bundle = retrieve_by_indication(edge, "thiếu máu")
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_e"]  # haemolytic anaemia is anaemia
        assert [d.drug_id for d in bundle.incidental_drugs] == ["thuoc_d"]  # ischaemia is not
        # in the other sections such a mention does not count at all
        assert drugs(find_by_indication(edge, "phù", section_key=adr)) == ["thuoc_f"]
        assert drugs(find_by_indication(edge, "thiếu máu", section_key=adr)) == []
        # asked about themselves, the longer conditions are found
        assert drugs(find_by_indication(edge, "phù mạch", section_key=adr)) == ["thuoc_b"]
        assert drugs(find_by_indication(edge, "thiếu máu cơ tim", section_key=adr)) == ["thuoc_g"]


def test_a_finding_named_as_a_risk_the_patient_runs_is_never_the_use(tmp_path: Path) -> None:
    with shard(
        tmp_path,
        [
            chunk("thuoc_a", 0, "Dự phòng chảy máu tái phát do loét dạ dày tá tràng."),
            chunk("thuoc_b", 0, "Rung nhĩ, không dùng được kháng vitamin K và có nguy cơ chảy máu thấp."),
            chunk("thuoc_c", 0, "Trẻ em cần hạ sốt (tránh nguy cơ hội chứng Reye)."),
            chunk("thuoc_d", 0, "Giảm nguy cơ đột quỵ ở người tăng huyết áp có phì đại thất trái."),
            chunk("thuoc_e", 0, "Có nhiều yếu tố nguy cơ (tăng huyết áp, hút thuốc lá)."),
            chunk("thuoc_f", 0, "Đái tháo đường typ 2; hợp với người thừa cân vì ít gây hạ glucose huyết."),
            chunk("thuoc_g", 0, "Điều trị hạ glucose huyết do insulin."),
        ],
    ) as edge:
        # what a drug causes is never what it treats
        low = retrieve_by_indication(edge, "hạ glucose huyết")
        assert [d.drug_id for d in low.ranked_drugs] == ["thuoc_g"]
        assert [d.drug_id for d in low.incidental_drugs] == ["thuoc_f"]
        bundle = retrieve_by_indication(edge, "chảy máu")
        assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a"]
        assert [d.drug_id for d in bundle.incidental_drugs] == ["thuoc_b"]
        reye = retrieve_by_indication(edge, "hội chứng Reye")
        assert [d.drug_id for d in reye.incidental_drugs] == ["thuoc_c"]
        # "giảm nguy cơ" makes it the use after all
        stroke = retrieve_by_indication(edge, "đột quỵ")
        assert [d.drug_id for d in stroke.ranked_drugs] == ["thuoc_d"] and stroke.ranked_drugs[0].score > 1
        # the longer "yếu tố nguy cơ" decides: a risk factor is a risk, never the use (a statin is
        # no antihypertensive); "ở người tăng huyết áp" is the patient's state, listed and ranked low
        factors = retrieve_by_indication(edge, "tăng huyết áp")
        assert [d.drug_id for d in factors.incidental_drugs] == ["thuoc_e"]
        assert [d.drug_id for d in factors.ranked_drugs] == ["thuoc_d"] and factors.ranked_drugs[0].score < 1


def test_the_bundle_carries_ranked_drugs_and_their_evidence(store: EdgeStore) -> None:
    bundle = retrieve_by_indication(store, "loét dạ dày", EvidencePolicy(indication_evidence_per_drug=1))
    assert (bundle.decision, bundle.reason, bundle.ordering) == (
        "ANSWERABLE",
        "grounded_evidence_available",
        "keyword",
    )
    assert [d.drug_id for d in bundle.ranked_drugs] == ["thuoc_a"]
    assert bundle.ranked_drugs[0].evidence_ids == tuple(e.id for e in bundle.evidence)
    assert [e.part_index for e in bundle.evidence] == [0]
    assert retrieve_by_indication(store, None).reason == "needs_clarification"


def test_indication_comes_from_the_frame() -> None:
    frame = QueryFrame(turn_type="condition_to_drug", condition=ConditionQuery(text="cao huyết áp"))
    assert indication_of(frame) == "cao huyết áp"
    normalized = ConditionQuery(text="cao huyết áp", normalized="tăng huyết áp")
    assert indication_of(frame.model_copy(update={"condition": normalized})) == "tăng huyết áp"
    assert indication_of(frame.model_copy(update={"indication": "suy tim"})) == "suy tim"
    assert indication_of(QueryFrame(turn_type="condition_to_drug")) is None

"""How directly a chỉ định part names the asked condition: read from its sentence and the cues of
data/indication_directness.tsv, never from the search score."""

from __future__ import annotations

import pytest
from duocthu.models.evidence import EvidenceItem
from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.reverse.directness import part_directness
from duocthu.retrieval.reverse.ranking import rank_drugs, ranked_bundle

from tests.unit.retrieval.reverse.shards import item


@pytest.mark.parametrize(
    ("text", "asked", "expected"),
    [
        # what the drug is for, a combination it may also be given in notwithstanding
        ("Tăng huyết áp: X được chỉ định điều trị tăng huyết áp, dùng đơn độc hoặc phối hợp.",
         "tăng huyết áp",
         "direct"),
        ("Giảm đau mức độ nhẹ đến vừa: đau đầu, đau răng, đau cơ.", "đau đầu", "direct"),
        # a second-line use, the cue after the condition, the heading read with its clause
        ("Tăng huyết áp kháng trị, khi huyết áp chưa kiểm soát được.", "tăng huyết áp", "indirect"),
        ("Suy tim mạn: X được dùng khi không dung nạp thuốc ức chế enzym chuyển.", "suy tim", "indirect"),
        # an add-on: the cue before the condition
        ("Phối hợp với hai kháng sinh trong điều trị viêm loét dạ dày tá tràng.", "viêm loét dạ dày tá tràng",
         "indirect"),
        # "đơn độc hoặc phối hợp" holds the cue's words but is none
        ("Dùng đơn độc hoặc phối hợp trong điều trị động kinh.", "động kinh", "direct"),
        # the first mention's sentence decides, not a later one's
        ("Điều trị suy tim. Dùng thêm trong suy tim nặng.", "suy tim", "direct"),
        # after a cause lead: the patient's state
        ("Phù do suy tim sung huyết.", "suy tim", "state"),
    ],
)  # fmt: skip
def test_the_sentence_naming_the_condition_says_how_directly(text: str, asked: str, expected: str) -> None:
    assert part_directness(text, asked) == expected


def test_a_part_that_does_not_name_it_is_not_read() -> None:
    assert part_directness("Nhiễm khuẩn đường hô hấp.", "tăng huyết áp") is None


def _part(drug_id: str, score: float, text: str) -> EvidenceItem:
    return item(drug_id, 0, score).model_copy(update={"text": text})


def test_a_direct_drug_comes_before_a_better_scored_indirect_one_and_the_cap_applies_after() -> None:
    # Given a second-line drug with the best score and two drugs whose chỉ định is for it
    hits = [
        _part("khang_tri", 2.4, "Tăng huyết áp kháng trị, khi đã dùng đủ ba thuốc."),
        _part("truc_tiep", 2.2, "Tăng huyết áp: được chỉ định điều trị tăng huyết áp."),
        _part("trong_danh_sach", 1.3, "Điều trị tăng huyết áp nhẹ và vừa."),
    ]
    # When the answer is capped at two drugs
    ranked = rank_drugs("tăng huyết áp", hits, EvidencePolicy(indication_candidate_limit=2))
    # Then the direct ones are shown, by score, and the second-line one is named beyond the cap
    assert [g.drug_id for g in ranked.groups] == ["truc_tiep", "trong_danh_sach"]
    bundle = ranked_bundle(ranked, "keyword", hits)
    assert [d.drug_id for d in bundle.unlisted_drugs] == ["khang_tri"]


def test_the_drugs_beyond_the_cap_are_named_in_the_same_order() -> None:
    hits = [
        _part("dau", 2.5, "Tăng huyết áp: điều trị tăng huyết áp."),
        _part("phoi_hop", 2.4, "Phối hợp với thuốc khác trong tăng huyết áp."),
        _part("sau", 1.1, "Điều trị tăng huyết áp nhẹ."),
    ]
    ranked = rank_drugs("tăng huyết áp", hits, EvidencePolicy(indication_candidate_limit=1))
    bundle = ranked_bundle(ranked, "keyword", hits)
    assert [d.drug_id for d in bundle.unlisted_drugs] == ["sau", "phoi_hop"]

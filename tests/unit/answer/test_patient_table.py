"""The compact patient reply: a table first (drug, the chỉ định line, each facet's status, pages),
the alternative a section names, then one sentence per part about this patient."""

from __future__ import annotations

from duocthu.answer.indication_lines import indication_line
from duocthu.answer.patient_table import PatientTable, facet_word
from duocthu.models.evidence import (
    CandidateAssessment,
    EvidenceBundle,
    EvidenceItem,
    FacetAssessment,
    NamedAlternative,
    RankedDrug,
    SourceRef,
)
from duocthu.models.frame import ConditionQuery, QueryFrame


def item(drug: str, section: str, text: str, page: int) -> EvidenceItem:
    ref = SourceRef(book="Dược thư", edition="3", section_heading=section, page_start=page, page_end=page)
    return EvidenceItem(
        id=f"{drug}-{section}", drug_id=drug, display_name=drug.title(), section_key=section, part_index=0,
        chunk_kind="prose", score=1.0, text=text, source_refs=(ref,),
    )  # fmt: skip


ASPIRIN_CI = item("aspirin", "chong_chi_dinh", "Quá mẫn. Phối hợp với thuốc chống đông đường uống.", 116)
EVIDENCE = (
    item("aspirin", "chi_dinh", "Giảm đau mức độ nhẹ đến vừa (đau đầu, đau răng) ở người lớn.", 115),
    ASPIRIN_CI,
    item("para", "chi_dinh", "Điều trị đau đầu.", 104),
    item("warfarin", "tuong_tac_thuoc", "Nếu cần giảm đau ưu tiên para.", 420),
)
BUNDLE = EvidenceBundle(
    decision="ANSWERABLE",
    reason="grounded_evidence_available",
    evidence=EVIDENCE,
    ranked_drugs=(
        RankedDrug(drug_id="aspirin", display_name="Aspirin", score=2, evidence_ids=("aspirin-chi_dinh",)),
        RankedDrug(drug_id="para", display_name="Para", score=1, evidence_ids=("para-chi_dinh",)),
    ),
    candidate_statuses=(
        CandidateAssessment(
            drug_id="aspirin",
            status="CONTRAINDICATED",
            evidence_ids=(ASPIRIN_CI.id,),
            facets=(
                FacetAssessment(
                    facet="interaction",
                    status="CONTRAINDICATED",
                    evidence_ids=(ASPIRIN_CI.id,),
                    quotes=("Phối hợp với thuốc chống đông đường uống.",),
                ),
            ),
        ),
        CandidateAssessment(
            drug_id="para",
            status="INSUFFICIENT_EVIDENCE",
            facets=(
                FacetAssessment(facet="interaction", status="INSUFFICIENT_EVIDENCE"),
                FacetAssessment(facet="pregnancy", status="INSUFFICIENT_EVIDENCE", section_absent=True),
            ),
        ),
    ),
    named_alternatives=(
        NamedAlternative(
            evidence_id="warfarin-tuong_tac_thuoc",
            source_drug_id="warfarin",
            drug_id="para",
            text="Nếu cần giảm đau ưu tiên para.",
        ),
    ),
)
FRAME = QueryFrame(
    turn_type="symptom_to_drug", condition=ConditionQuery(text="đau đầu", normalized="đau đầu")
)
TABLE = PatientTable({"aspirin": "Aspirin", "para": "Para", "warfarin": "Warfarin"})


def test_the_table_comes_first_one_row_per_checked_drug() -> None:
    lines = TABLE.lines(FRAME, BUNDLE)
    assert lines[0] == "Thuốc | Chỉ định (trích) | Thuốc đang dùng | Mang thai | tr."
    indication = "“Giảm đau mức độ nhẹ đến vừa (đau đầu, đau răng) ở người lớn”"
    assert lines[1] == f"Aspirin | {indication} | CHỐNG CHỈ ĐỊNH | – | 115, 116"
    # nothing found is "the section says nothing"; a missing section is said to be missing
    assert lines[2] == "Para | “Điều trị đau đầu” | mục không nêu | không có mục | 104"


def test_the_alternative_is_quoted_and_each_finding_once_with_its_page() -> None:
    text = "\n".join(TABLE.lines(FRAME, BUNDLE))
    assert "(Warfarin, mục “Tương tác thuốc”, tr. 420): “Nếu cần giảm đau ưu tiên para.”" in text
    assert "【Aspirin】\n- Chống chỉ định (tr. 116): “Phối hợp với thuốc chống đông đường uống.”" in text
    assert "an toàn" not in text
    assert TABLE.quick_replies(BUNDLE) == ["Chống chỉ định của Aspirin", "Chống chỉ định của Para"]


def test_a_long_indication_is_clipped_around_the_condition() -> None:
    long = item(
        "x", "chi_dinh", "Điều trị " + "các bệnh khác, " * 12 + "và đau đầu do căng thẳng ở người lớn.", 1
    )
    line = indication_line([long], "đau đầu")
    assert line.startswith("“…") and "đau đầu" in line and len(line) <= 96
    assert facet_word(None) == "–"


def test_sentences_beyond_the_budget_are_named_never_dropped_in_silence() -> None:
    para_ci = item("para", "chong_chi_dinh", "Suy gan nặng. " + "Một câu rất dài về gan. " * 30, 105)
    para = CandidateAssessment(
        drug_id="para",
        status="CONTRAINDICATED",
        facets=(
            FacetAssessment(
                facet="warnings",
                status="CONTRAINDICATED",
                evidence_ids=(para_ci.id,),
                quotes=("Một câu rất dài về gan. " * 30,),
            ),
        ),
    )
    bundle = BUNDLE.model_copy(
        update={"evidence": (*EVIDENCE, para_ci), "candidate_statuses": (*BUNDLE.candidate_statuses, para)}
    )
    lines = TABLE.quotes(bundle, {e.id: e for e in bundle.evidence}, budget=700)
    # the first (most severe, first listed) sentence goes in; the one beyond is named with its page
    assert any(line.startswith("- Chống chỉ định (tr. 116)") for line in lines)
    assert (
        lines[-1]
        == "Các đoạn khác về người bệnh (mở toàn mục bằng nút bên dưới): Para: Chống chỉ định (tr. 105)."
    )


def test_a_facet_stating_no_change_shows_the_formularys_words_never_safe() -> None:
    stated = FacetAssessment(
        facet="dosage", status="NO_CHANGE_STATED", quotes=("Người suy thận: không cần điều chỉnh liều.",)
    )
    assert facet_word(stated) == "Dược thư ghi: “không cần điều chỉnh liều”"
    assert "an toàn" not in facet_word(stated)

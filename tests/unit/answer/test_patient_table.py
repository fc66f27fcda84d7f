"""The compact patient reply: a table first (drug, the chỉ định line, each facet's status, pages),
the alternative a section names, then one sentence per part about this patient."""

from __future__ import annotations

from duocthu.answer.indication_lines import CLOSING, REPLY_TARGET, indication_line
from duocthu.answer.patient_table import MIN_CLIPPED, UNLISTED_REPLY, PatientTable, facet_word
from duocthu.answer.wording import ReplyWording
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
        == "Các đoạn khác về người bệnh (mở toàn mục: nút bên dưới): Para: Chống chỉ định (tr. 105)."
    )


def test_a_facet_stating_no_change_shows_the_formularys_words_never_safe() -> None:
    stated = FacetAssessment(
        facet="dosage", status="NO_CHANGE_STATED", quotes=("Người suy thận: không cần điều chỉnh liều.",)
    )
    assert facet_word(stated) == "Dược thư ghi: “không cần điều chỉnh liều”"
    assert "an toàn" not in facet_word(stated)


# -- every part of the reply within the one budget ------------------------------------------------

LONG_ALTERNATIVE = (
    "Các thuốc chống viêm không steroid như " + "thuốc A, thuốc B, thuốc C, " * 8 + "làm tăng nguy cơ chảy "
    "máu tiêu hóa và có thể làm tăng INR; nên tránh, nếu cần giảm đau ưu tiên para liều thấp ngắn ngày, "
    "và " + "theo dõi INR sát, " * 6 + "báo thầy thuốc khi có dấu hiệu chảy máu."
)


def with_long_alternative() -> EvidenceBundle:
    alternative = BUNDLE.named_alternatives[0].model_copy(update={"text": LONG_ALTERNATIVE})
    return BUNDLE.model_copy(update={"named_alternatives": (alternative,)})


def test_a_long_alternative_is_clipped_around_the_drug_it_names_the_rest_a_quick_reply_away() -> None:
    bundle = with_long_alternative()
    line = next(line for line in TABLE.lines(FRAME, bundle) if line.startswith("Lựa chọn"))
    assert "ưu tiên para liều thấp" in line and "…" in line
    assert len(line) < len(LONG_ALTERNATIVE)
    assert "Tương tác thuốc của Warfarin" in TABLE.quick_replies(bundle)
    # a sentence short enough is quoted whole, and no extra quick reply is offered
    assert "Tương tác thuốc của Warfarin" not in TABLE.quick_replies(BUNDLE)


def many_cautions(count: int) -> EvidenceBundle:
    """BUNDLE with `count` more drugs, each with a long caution sentence about the patient."""
    extra_items, extra_statuses, extra_ranked = [], [], []
    for n in range(count):
        drug = f"drug{n}"
        caution = item(drug, "than_trong", "Thận trọng ở người đang dùng warfarin. " * 6, 200 + n)
        extra_items += [item(drug, "chi_dinh", "Điều trị đau đầu ở người lớn.", 100 + n), caution]
        extra_ranked.append(
            RankedDrug(drug_id=drug, display_name=drug, score=0.5, evidence_ids=(f"{drug}-chi_dinh",))
        )
        quote = "Thận trọng ở người đang dùng warfarin. " * 6
        extra_statuses.append(
            CandidateAssessment(
                drug_id=drug,
                status="CAUTION",
                evidence_ids=(caution.id,),
                facets=(
                    FacetAssessment(
                        facet="interaction",
                        status="CAUTION",
                        evidence_ids=(caution.id,),
                        quotes=(quote.strip(),),
                    ),
                ),
            )
        )
    # the contraindicated drug last in the table: its sentence must still lead the quotes
    return with_long_alternative().model_copy(
        update={
            "evidence": (*EVIDENCE, *extra_items),
            "ranked_drugs": (*extra_ranked, *BUNDLE.ranked_drugs),
            "candidate_statuses": (*extra_statuses, *BUNDLE.candidate_statuses),
        }
    )


def test_a_long_head_never_pushes_the_reply_over_the_target_and_the_contraindication_stays() -> None:
    bundle = many_cautions(6)
    for used in (600, 1000, 1400):  # the longest head of a dev case is about 1,100 characters
        lines = TABLE.lines(FRAME, bundle, used=used)
        assert used + sum(len(line) + 1 for line in lines) + CLOSING <= REPLY_TARGET
        quotes = lines[lines.index("Trích dẫn về người bệnh này:") :]
        # the contraindication's sentence comes first, whatever the table's order
        aspirin = "- Chống chỉ định (tr. 116): “Phối hợp với thuốc chống đông đường uống.”"
        assert quotes[1:3] == ["【Aspirin】", aspirin]
        # every checked drug keeps its row, and what is not quoted is named by drug and section
        assert sum(" | " in line for line in lines) == 1 + len(bundle.candidate_statuses)
        assert lines[-1].startswith("Các đoạn khác về người bệnh")
        assert "drug5: Thận trọng (tr. 205)" in lines[-1]
        # a section with no button of its own is opened by asking for it
        assert "hoặc hỏi, ví dụ, “Thận trọng của drug" in lines[-1]


def test_when_no_sentence_fits_the_most_severe_is_clipped_never_dropped() -> None:
    lines = TABLE.quotes(many_cautions(2), {e.id: e for e in many_cautions(2).evidence}, budget=0)
    clipped = lines[3]
    assert clipped.startswith("- Chống chỉ định (tr. 116): “Phối hợp") and len(clipped) <= MIN_CLIPPED
    assert lines[-1].startswith("Các đoạn khác về người bệnh")


def test_the_drugs_found_beyond_a_patient_table_are_counted_after_the_first_few() -> None:
    beyond = tuple(RankedDrug(drug_id=f"t{n}", display_name=f"Thuốc {n}", score=0.1) for n in range(9))
    bundle = BUNDLE.model_copy(update={"unlisted_drugs": beyond})
    question = UNLISTED_REPLY.format(condition="đau đầu")
    line = next(line for line in ReplyWording.which_drugs(bundle, FRAME) if "thuốc khác" in line)
    assert line.startswith("Mục “Chỉ định” của 9 thuốc khác cũng nêu tình trạng này")
    assert line.endswith(f": Thuốc 0, Thuốc 1, Thuốc 2 và 6 thuốc khác (nút “{question}” liệt kê đủ).")
    assert question in TABLE.quick_replies(bundle, FRAME)
    # the list still never reads as complete, and a which-drug reply (no patient) names them all
    assert any("có thể không có ở đây" in line for line in ReplyWording.which_drugs(bundle, FRAME))
    assert "Thuốc 8." in " ".join(ReplyWording.which_drugs(bundle))
    assert question not in TABLE.quick_replies(BUNDLE, FRAME)


def test_a_sentence_naming_several_alternatives_is_quoted_once_with_every_drug() -> None:
    first = with_long_alternative().named_alternatives[0]
    bundle = with_long_alternative().model_copy(
        update={"named_alternatives": (first, first.model_copy(update={"drug_id": "aspirin"}))}
    )
    lines = [line for line in TABLE.lines(FRAME, bundle) if line.startswith("Lựa chọn")]
    assert len(lines) == 1 and lines[0].endswith("— Para, Aspirin đã được đối chiếu trong bảng.")


def test_the_line_naming_unquoted_parts_names_each_section_once_when_it_would_not_fit() -> None:
    from duocthu.answer.patient_table import _beyond_line

    named = [
        ("Captopril", "Thận trọng (tr. 357)"),
        ("Captopril", "Thận trọng (tr. 358)"),
        ("Losartan", "Liều (tr. 9)"),
    ]
    full = _beyond_line(named)
    assert "Captopril: Thận trọng (tr. 357), Thận trọng (tr. 358); Losartan: Liều (tr. 9)." in full
    assert _beyond_line(named, room=len(full)) == full
    short = _beyond_line(named, room=len(full) - 1)
    assert short.endswith("Captopril: Thận trọng; Losartan: Liều.") and len(short) < len(full)
    # shorter still: each drug with the number of its sections, every drug still named
    least = _beyond_line(named, room=len(short) - 1)
    assert least.endswith("Captopril (1 mục); Losartan (1 mục).") and len(least) < len(short)


def test_a_contraindicated_drug_has_no_dose_quoted() -> None:
    dose = item("aspirin", "lieu_luong_va_cach_dung", "Trẻ em: 10 mg/kg mỗi lần.", 121)
    barred = BUNDLE.candidate_statuses[0]
    with_dose = barred.model_copy(
        update={
            "facets": (
                *barred.facets,
                FacetAssessment(
                    facet="dosage",
                    status="CAUTION",
                    evidence_ids=(dose.id,),
                    quotes=("Trẻ em: 10 mg/kg mỗi lần.",),
                ),
            )
        }
    )
    bundle = BUNDLE.model_copy(
        update={
            "evidence": (*EVIDENCE, dose),
            "candidate_statuses": (with_dose, *BUNDLE.candidate_statuses[1:]),
        }
    )
    text = "\n".join(TABLE.lines(FRAME, bundle))
    assert "Phối hợp với thuốc chống đông đường uống." in text and "10 mg/kg" not in text

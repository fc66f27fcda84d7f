"""The answering line first: the sentences of the asked section that answer its focus, or one line
that the section does not say and what the section that does say says."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.answer.lines import answer_lines, lines_text, ranked_lines
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, RankedLine, SourceRef
from duocthu.models.frame import PatientContext, QueryFrame
from duocthu.models.plan import Ask
from duocthu.models.reading import TurnReading
from duocthu.retrieval.decision import decide

DOSE = "lieu_luong_va_cach_dung"


def item(section: str, part: int, text: str, drug: str = "thuoc") -> EvidenceItem:
    ref = SourceRef(book="Dược thư", edition="3", section_heading="x", page_start=7, page_end=7)
    return EvidenceItem(
        id=f"{drug}-{section}-{part}", drug_id=drug, display_name="Thuốc", section_key=section,
        part_index=part, chunk_kind="prose", score=1.0, text=text, source_refs=(ref,),
    )  # fmt: skip


SECTION = [
    item(DOSE, 0, "Người lớn: 500 mg mỗi lần, tối đa 4 g/ngày. Uống sau ăn."),
    item(
        DOSE,
        1,
        "Trẻ em: 10 mg/kg mỗi lần, không quá 60 mg/kg/ngày.\n11 – 15 kg | 160 mg\n16 – 21 kg | 240 mg",
    ),
    item(DOSE, 2, "Suy thận nặng: kéo dài khoảng cách giữa các liều."),
]
OTHER = {
    "chong_chi_dinh": [item("chong_chi_dinh", 0, "Quá mẫn với thuốc.")],
    "than_trong": [item("than_trong", 0, "Thận trọng ở người suy gan nhẹ. Người cao tuổi cần theo dõi.")],
}


def section_of(drug: str, section: str) -> Sequence[EvidenceItem]:
    return OTHER.get(section, [])


def ask_of(question: QueryFrame) -> Ask:
    """The ask the plan gives a one-drug section question: its section, with answering lines."""
    return Ask(kind="section", drugs=question.drugs, section_key=question.attribute, answering_lines=True)


def frame(**kw: object) -> QueryFrame:
    return QueryFrame.model_validate(
        {"turn_type": "drug_attribute", "drugs": ["thuoc"], "attribute": DOSE, **kw}
    )


BUNDLE: EvidenceBundle = decide(SECTION)


def test_a_maximum_question_gets_the_sentence_that_states_it_first() -> None:
    found = answer_lines(
        frame(), TurnReading(text="tối đa?", asks_maximum=True), BUNDLE, section_of, ask_of(frame())
    )
    assert found is not None and not found.not_said
    assert [line.text for line in found.lines][:1] == ["Người lớn: 500 mg mỗi lần, tối đa 4 g/ngày."]
    text = lines_text(found, "Thuốc")
    assert text[0] == "Câu trả lời trong mục “Liều lượng và cách dùng” của Thuốc (tối đa):"
    assert text[1].endswith("(tr. 7)")  # the section is named in the line before, the book once per reply


def test_the_state_asked_decides_which_maximum_answers() -> None:
    child = frame(population="tre_em")
    found = answer_lines(child, TurnReading(text="", asks_maximum=True), BUNDLE, section_of, ask_of(child))
    assert found is not None
    assert [line.text for line in found.lines] == ["Trẻ em: 10 mg/kg mỗi lần, không quá 60 mg/kg/ngày."]


def test_a_weight_gets_its_band_line() -> None:
    found = answer_lines(
        frame(weight_kg=12), TurnReading(text=""), BUNDLE, section_of, ask_of(frame(weight_kg=12))
    )
    assert found is not None and [line.text for line in found.lines] == ["11 – 15 kg | 160 mg"]


def test_a_weight_told_beside_a_maximum_outside_the_dose_section_reads_the_maximum() -> None:
    caution = frame(attribute="than_trong", weight_kg=70)
    cautions = decide([item("than_trong", 0, "Người suy gan: tối đa 2 g mỗi ngày.")])
    reading = TurnReading(text="tối đa?", asks_maximum=True)
    found = answer_lines(caution, reading, cautions, section_of, ask_of(caution))
    assert found is not None and [line.text for line in found.lines] == [
        "Người suy gan: tối đa 2 g mỗi ngày."
    ]


def test_a_focus_line_stating_another_route_than_the_questions_is_not_the_answer() -> None:
    infusion = item(DOSE, 3, "Truyền tĩnh mạch: trẻ nặng 10 – 33 kg dùng 15 mg/kg, tối đa 60 mg/kg/ngày.")
    bundle = decide([*SECTION, infusion])
    oral = frame(weight_kg=12, route="uong")
    found = answer_lines(oral, TurnReading(text=""), bundle, section_of, ask_of(oral))
    assert found is not None and [line.text for line in found.lines] == ["11 – 15 kg | 160 mg"]
    unasked = frame(weight_kg=12)  # no route asked: every band line answers
    found = answer_lines(unasked, TurnReading(text=""), bundle, section_of, ask_of(unasked))
    assert found is not None and len(found.lines) == 2


def test_a_section_that_does_not_say_is_said_so_and_the_one_that_does_is_quoted() -> None:
    hepatic = frame(population="suy_gan", patient_context=PatientContext(hepatic_function="suy gan"))
    found = answer_lines(hepatic, TurnReading(text=""), BUNDLE, section_of, ask_of(hepatic))
    assert found is not None and found.not_said and found.other_section_key == "than_trong"
    assert [line.text for line in found.lines] == ["Thận trọng ở người suy gan nhẹ."]
    # the line that says it leads; that the asked section does not follows it
    assert lines_text(found, "Thuốc")[:3] == [
        "Mục “Thận trọng” của Thuốc nêu (suy gan):",
        "- “Thận trọng ở người suy gan nhẹ.” (tr. 7)",
        "Mục “Liều lượng và cách dùng” của Thuốc không có câu nào nêu “suy gan”.",
    ]


def test_nothing_anywhere_is_never_called_safe_and_no_focus_is_no_lines() -> None:
    pregnant = frame(population="phu_nu_co_thai")
    found = answer_lines(pregnant, TurnReading(text=""), BUNDLE, section_of, ask_of(pregnant))
    assert found is not None and found.not_said and not found.lines and found.other_section_key is None
    assert "KHÔNG có nghĩa là an toàn" in lines_text(found, "Thuốc")[1]
    assert answer_lines(frame(), TurnReading(text="liều?"), BUNDLE, section_of, ask_of(frame())) is None


def test_a_nursing_patients_own_section_says_what_the_others_do_not() -> None:
    nursing = frame(population="phu_nu_cho_con_bu", patient_context=PatientContext(breastfeeding=True))
    own = [item("thoi_ky_cho_con_bu", 0, "Có thể dùng ngắn ngày trong thời kỳ cho con bú.")]

    def read(drug: str, section: str) -> Sequence[EvidenceItem]:
        return own if section == "thoi_ky_cho_con_bu" else section_of(drug, section)

    found = answer_lines(nursing, TurnReading(text=""), BUNDLE, read, ask_of(nursing))
    assert found is not None and found.not_said and found.other_section_key == "thoi_ky_cho_con_bu"
    assert [line.text for line in found.lines] == ["Có thể dùng ngắn ngày trong thời kỳ cho con bú."]


def test_a_population_section_question_quotes_the_contraindication_about_them_first() -> None:
    own = "Chưa rõ thuốc có vào sữa mẹ không. Không nên dùng khi cho con bú."
    feeding = [item("thoi_ky_cho_con_bu", 0, own)]
    barred = {"chong_chi_dinh": [item("chong_chi_dinh", 0, "Quá mẫn. Không dùng cho phụ nữ cho con bú.")]}
    nursing = frame(population="phu_nu_cho_con_bu", attribute="thoi_ky_cho_con_bu")
    found = answer_lines(
        nursing, TurnReading(text=""), decide(feeding), lambda d, s: barred.get(s, []), ask_of(nursing)
    )
    assert found is not None and not found.not_said
    # the advice that goes on from a sentence is quoted with it, once
    assert [(line.section_key, line.text) for line in found.lines] == [
        ("chong_chi_dinh", "Không dùng cho phụ nữ cho con bú."),
        ("thoi_ky_cho_con_bu", "Chưa rõ thuốc có vào sữa mẹ không. Không nên dùng khi cho con bú."),
    ]
    text = lines_text(found, "Thuốc")
    assert text[0] == "Mục “Chống chỉ định” của Thuốc nêu (phụ nữ cho con bú):"
    assert text[2] == "Mục “Thời kỳ cho con bú” nêu:" and text[-1] == "Toàn văn mục được trích dưới đây."
    # nothing in Chống chỉ định about them: the section's own lines only, as before
    alone = answer_lines(nursing, TurnReading(text=""), decide(feeding), section_of, ask_of(nursing))
    assert alone is not None and {line.section_key for line in alone.lines} == {"thoi_ky_cho_con_bu"}
    assert lines_text(alone, "Thuốc")[0].startswith("Câu trả lời trong mục “Thời kỳ cho con bú”")


def test_a_line_stating_another_route_than_the_questions_goes_after() -> None:
    ref = SourceRef(book="Dược thư", edition="3", section_heading="x", page_start=7, page_end=7)

    def line(index: int, text: str) -> RankedLine:
        return RankedLine(
            text=text, drug_id="thuoc", display_name="Thuốc", section_key=DOSE, part_id="p",
            part_index=0, line_index=index, score=10.0 - index, source_refs=(ref,),
        )  # fmt: skip

    lines = [line(0, "Truyền tĩnh mạch: trẻ nặng 10 – 33 kg dùng 15 mg/kg."), line(1, "11 – 15 kg | 160 mg")]
    oral = ranked_lines(lines, DOSE, "uong")
    assert oral is not None and [x.text for x in oral.lines] == [lines[1].text, lines[0].text]
    unasked = ranked_lines(lines, DOSE)  # no route asked: the ranking as it is
    assert unasked is not None and unasked.lines[0].text == lines[0].text


def test_a_sentence_one_clause_of_which_is_about_the_patient_is_theirs() -> None:
    # another clause naming a stage the patient is past does not take the sentence from them
    own = "Không khuyến cáo dùng trong 3 tháng đầu và chống chỉ định trong 3 tháng giữa và 3 tháng cuối."
    stop = "Ngay khi phát hiện có thai, phải ngừng thuốc; thuốc cũng không được khuyến cáo trong 3 tháng đầu."
    early = "Trong 3 tháng đầu của thai kỳ chỉ dùng khi thật cần."
    pregnancy = [item("thoi_ky_mang_thai", 0, own)]
    barred = {"chong_chi_dinh": [item("chong_chi_dinh", 0, f"{stop} {early}")]}
    pregnant = frame(
        population="phu_nu_co_thai",
        attribute="thoi_ky_mang_thai",
        patient_context=PatientContext(pregnancy=True, pregnancy_stage="20 tuần"),
    )
    found = answer_lines(
        pregnant, TurnReading(text=""), decide(pregnancy), lambda d, s: barred.get(s, []), ask_of(pregnant)
    )
    assert found is not None
    quoted = [line.text for line in found.lines]
    assert stop in quoted and early not in quoted

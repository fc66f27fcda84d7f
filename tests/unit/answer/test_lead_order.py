"""Which lines lead a section reply: the focus lines or the question's best lines."""

from __future__ import annotations

from pathlib import Path

from duocthu.answer.lines import AnswerLine, AnswerLines
from duocthu.answer.replies.sections import ordered_leads
from duocthu.tools.evals.answers import run_turns
from duocthu.tools.evals.outsiders import first_quoted_line


def _line(text: str, section: str) -> AnswerLine:
    return AnswerLine(text=text, drug_id="x", section_key=section, evidence_id="p", citation="tr. 1")


DOSE_FOCUS = AnswerLines(
    drug_id="x", section_key="lieu_luong_va_cach_dung", focus=("suy thận",),
    lines=(_line("Suy thận: khởi đầu 50 mg/ngày.", "lieu_luong_va_cach_dung"),),
)  # fmt: skip


def _ranked(*lines: AnswerLine) -> AnswerLines:
    return AnswerLines(drug_id="x", section_key=lines[0].section_key, focus=(), lines=lines, ranked=True)


def test_a_contraindication_the_question_found_leads_the_focus_lines_of_a_dose() -> None:
    barred = _ranked(_line("Tuyệt đối không dùng lại khi đã có phản ứng nặng.", "chong_chi_dinh"))
    leads = ordered_leads(DOSE_FOCUS, barred)
    assert [x.ranked for x in leads] == [True, False]  # the dose lines still follow


def test_the_focus_lines_lead_when_the_best_line_is_not_a_contraindication() -> None:
    other = _ranked(_line("Thận trọng ở người cao tuổi.", "than_trong"))
    leads = ordered_leads(DOSE_FOCUS, other)
    assert [x.ranked for x in leads] == [False, True]  # the best line follows, never dropped


def test_the_best_lines_follow_a_focus_the_ranking_does_not_reach() -> None:
    # a child's reactions read by the focus; the question's words ask about the tremor the child
    # has: the ranking reaches no focus line, so what it found is another thing asked and follows
    child = AnswerLines(
        drug_id="x", section_key="tac_dung_khong_mong_muon", focus=("trẻ em",),
        lines=(_line("Ở trẻ em có thể thấy tăng động.", "tac_dung_khong_mong_muon"),),
    )  # fmt: skip
    tremor = _line("Thường gặp: run đầu chi (nhất là run tay), nhịp tim nhanh.", "tac_dung_khong_mong_muon")
    leads = ordered_leads(child, _ranked(tremor))
    assert [x.ranked for x in leads] == [False, True] and leads[1].lines == (tremor,)
    # a ranking that reaches a focus line puts it first: the focus answers, alone
    assert [x.ranked for x in ordered_leads(child, _ranked(child.lines[0], tremor))] == [False]


def test_a_line_the_ranking_leads_with_is_not_quoted_again_in_the_focus() -> None:
    both = _ranked(_line("Không dùng khi suy thận nặng.", "chong_chi_dinh"), DOSE_FOCUS.lines[0])
    assert ordered_leads(DOSE_FOCUS, both) == [both]


def test_a_line_naming_a_condition_of_the_patients_the_focus_missed_leads() -> None:
    # the focus read a state carried from earlier (a child); the patient also has a past TB
    child = AnswerLines(
        drug_id="x", section_key="than_trong", focus=("trẻ em",),
        lines=(_line("Ở trẻ em, thuốc có thể làm chậm tăng trưởng.", "than_trong"),),
    )  # fmt: skip
    tb = _ranked(_line("Thận trọng với người có tiền sử lao, đái tháo đường.", "than_trong"))
    assert [x.ranked for x in ordered_leads(child, tb, ("lao",))] == [True, False]
    # no condition told: the focus leads, the best line after it
    assert [x.ranked for x in ordered_leads(child, tb)] == [False, True]


def test_a_message_asking_several_questions_gets_the_other_sections_lines_after_the_focus() -> None:
    # "liều tối đa bao nhiêu? và chụp CT cản quang thì sao": the focus answers the dose; the
    # ranking's line of another section answers the other question and follows, never dropped
    contrast = _line("Khi cần chụp X-quang có tiêm thuốc cản quang chứa iod, ngừng thuốc.", "than_trong")
    ranked = _ranked(DOSE_FOCUS.lines[0], contrast)
    leads = ordered_leads(DOSE_FOCUS, ranked, several=True)
    assert [x.ranked for x in leads] == [False, True] and leads[1].lines == (contrast,)
    # one question: the focus alone
    assert [x.ranked for x in ordered_leads(DOSE_FOCUS, ranked)] == [False]


def test_a_message_asking_several_questions_gets_the_other_questions_line_of_the_same_section() -> None:
    # "liều uống suy thận? và đang uống thuốc kháng acid thì uống cách bao lâu": the spacing line
    # stands in the dose section too; the section may leave a long reply, the line must not
    spacing = _line("Uống ít nhất 2 giờ trước hoặc 4–6 giờ sau thuốc kháng acid.", "lieu_luong_va_cach_dung")
    ranked = _ranked(DOSE_FOCUS.lines[0], spacing)
    leads = ordered_leads(DOSE_FOCUS, ranked, several=True)
    assert [x.ranked for x in leads] == [False, True] and leads[1].lines == (spacing,)


def test_a_question_asking_what_to_use_instead_gets_its_line_after_the_section_reading() -> None:
    # how the ADR section names the finding answers "does it cause it"; "đổi sang gì" is answered
    # by the ranking's line on what to switch to, which the reading does not quote
    reading = AnswerLines(
        drug_id="x", section_key="tac_dung_khong_mong_muon", focus=("ho",),
        read_sections=("tac_dung_khong_mong_muon",),
        lines=(_line("Thường gặp: ho khan.", "tac_dung_khong_mong_muon"),),
    )  # fmt: skip
    switch = _line(
        "Ho khan khó chịu: ngừng thuốc và chuyển sang thuốc nhóm khác.", "huong_dan_cach_xu_tri_adr"
    )
    ranked = _ranked(reading.lines[0], switch)
    leads = ordered_leads(reading, ranked, beyond=True)
    assert [x.ranked for x in leads] == [False, True] and leads[1].lines == (switch,)
    assert ordered_leads(reading, ranked) == [reading]  # only whether it causes it: the reading alone


def test_a_name_without_a_monograph_that_the_lines_name_is_said_after_them(tmp_path: Path) -> None:
    asked = (
        "Bà 70t gút, dự phòng colchicin 0,5mg mỗi ngày, ClCr 60. Hôm nay được kê clarithromycin vì "
        "viêm phổi. Còn dùng colchicin được nữa không?"
    )
    reply = run_turns([asked], tmp_path)[0].answer
    # the answering line names it, so it cannot read as covering another drug: it leads, the
    # notice that the name has no monograph follows
    first = first_quoted_line(reply)
    assert first.startswith("- “") and "clarithromycin" in first
    assert "“clarithromycin” không có chuyên luận" in reply


def test_lines_read_across_the_book_that_name_a_drug_without_a_monograph_lead_the_notice(
    tmp_path: Path,
) -> None:
    reply = run_turns(["Những thuốc ức chế men chuyển nào phải ngừng trước sacubitril/valsartan?"], tmp_path)
    answer = reply[0].answer
    first = first_quoted_line(answer)
    assert first.startswith("- “") and "valsartan" in first
    assert answer.index("“valsartan” không có chuyên luận riêng") > answer.index(first)


def test_a_pairs_reply_says_how_it_read_a_shorthand_after_the_pairs(tmp_path: Path) -> None:
    asked = "BN VKDT dùng MTX 15mg/tuần, nay được kê amoxicilin và omeprazol. Ba thuốc này tương tác gì?"
    answer = run_turns([asked], tmp_path)[0].answer
    assert answer.startswith("Theo mục “Tương tác thuốc”")
    assert answer.index("Tôi hiểu “mtx” là Methotrexat.") > answer.index("• Methotrexat – Amoxicilin")


def test_a_marker_the_patient_carries_brings_the_contraindication_naming_it_first(tmp_path: Path) -> None:
    asked = "Nam 30t động kinh cục bộ, xét nghiệm HLA-B*1502 dương tính. Cho Tegretol được không?"
    first = first_quoted_line(run_turns([asked], tmp_path)[0].answer)
    assert "Người mang alen HLA-B*1502 không được bắt đầu" in first


def test_a_dose_line_stating_an_amount_leads_focus_lines_stating_none() -> None:
    # an elderly patient's dose for a named infection: the dose for it, then the note for their age
    age = AnswerLines(
        drug_id="x", section_key="lieu_luong_va_cach_dung", focus=("người cao tuổi",),
        lines=(_line("Người cao tuổi cần theo dõi chức năng gan.", "lieu_luong_va_cach_dung"),),
    )  # fmt: skip
    dose = _ranked(
        _line("Viêm đại tràng thể nhẹ: 500 mg, 3 lần/ngày trong 10 ngày.", "lieu_luong_va_cach_dung")
    )
    assert [x.ranked for x in ordered_leads(age, dose)] == [True, False]
    # focus lines that state amounts of their own (a renal band's dose) keep leading
    assert [x.ranked for x in ordered_leads(DOSE_FOCUS, dose)] == [False, True]


def test_a_focus_line_holding_the_line_the_ranking_leads_with_is_not_quoted_after_it() -> None:
    # the ranking quotes one sentence; the focus quoted the paragraph around it
    sentence = "Không dùng khi suy thận nặng."
    focus = AnswerLines(
        drug_id="x", section_key="lieu_luong_va_cach_dung", focus=("suy thận",),
        lines=(_line(f"Suy thận: khởi đầu thấp. {sentence}", "lieu_luong_va_cach_dung"),),
    )  # fmt: skip
    barred = _ranked(_line(sentence, "chong_chi_dinh"))
    assert ordered_leads(focus, barred) == [barred]

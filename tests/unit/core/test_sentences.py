"""The one sentence splitter never cuts inside a sentence: genus names, abbreviations, decimals; and
which paragraph lead-in heads a sentence that has none of its own."""

from __future__ import annotations

from duocthu.core.sentences import sentence_leads, split_sentences


def test_a_genus_an_abbreviation_and_a_decimal_do_not_end_a_sentence() -> None:
    text = (
        "Viêm bể thận do E. coli nhạy cảm. Thương hàn do chủng S. Typhi. "
        "Tụ cầu S. aureus kháng thuốc, v.v. và khác. Liều 2.5 mg/kg."
    )
    assert split_sentences(text) == (
        "Viêm bể thận do E. coli nhạy cảm.",
        "Thương hàn do chủng S. Typhi.",
        "Tụ cầu S. aureus kháng thuốc, v.v. và khác.",
        "Liều 2.5 mg/kg.",
    )


def test_a_single_letter_before_a_capital_and_a_lower_case_start_do_end_one() -> None:
    text = "Trẻ sơ sinh nên được tiêm vitamin K. Khi dùng thuốc. eGFR ≥ 60: liều thường.\nDòng mới"
    assert split_sentences("Liên cầu nhóm A. Với viêm tai.") == ("Liên cầu nhóm A.", "Với viêm tai.")
    assert split_sentences(text) == (
        "Trẻ sơ sinh nên được tiêm vitamin K.",
        "Khi dùng thuốc.",
        "eGFR ≥ 60: liều thường.",
        "Dòng mới",
    )


def test_a_paragraph_opening_with_its_only_lead_in_heads_each_later_sentence() -> None:
    text = (
        "Người lớn: 200 mg mỗi ngày. Giảm liều khi cần.\n\n"
        "Trẻ em: Chỉ dùng theo chỉ định. Đường uống 10 mg/kg/ngày. Đường tĩnh mạch 5 mg/kg."
    )
    assert sentence_leads(text) == ("", "Người lớn", "", "Trẻ em", "Trẻ em")


def test_a_paragraph_of_several_lead_ins_is_a_list_each_heading_its_own_sentence() -> None:
    text = "Người cao tuổi: không cần chỉnh liều. Suy gan: thận trọng. Khi dùng cùng clarithromycin, 20 mg."
    assert sentence_leads(text) == ("", "", "")

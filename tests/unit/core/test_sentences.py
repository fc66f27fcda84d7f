"""The one sentence splitter never cuts inside a sentence: genus names, abbreviations, decimals."""

from __future__ import annotations

from duocthu.core.sentences import split_sentences


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

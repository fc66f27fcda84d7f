"""A name the catalogue lacks is said "not found" in the book only when it is neither a real drug
(the ATC table's: it has no monograph, and another drug's sections may name it) nor a word the
quoted text writes (an organism, a test)."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns


def test_a_word_the_quoted_sections_write_is_never_said_not_found(tmp_path: Path) -> None:
    reply = run_turns(
        ["Thai 20 tuần, xét nghiệm dịch cổ tử cung Chlamydia (+). Zithromax dùng được cho bầu k, liều?"],
        tmp_path,
    )[0].answer
    assert "Chlamydia" in reply and "Không tìm thấy “Chlamydia”" not in reply


def test_a_real_drug_without_a_monograph_is_said_to_have_none_never_not_found(tmp_path: Path) -> None:
    reply = run_turns(
        ["Bà 72t tiêu chảy, toxin C. difficile (+), bv chưa có vancomycin. Flagyl liều thế nào?"], tmp_path
    )[0].answer
    assert "“vancomycin” không có chuyên luận riêng" in reply
    assert "tìm thấy “vancomycin”" not in reply.casefold()

import pytest
from duocthu.core.sections import (
    INTRO_SECTIONS,
    SECTION_HEADINGS,
    SECTION_KEY_HINTS,
    SECTION_KEYS,
    SECTION_ORDER,
    resolve_section,
)

from tests.conftest import KIT, kit_rows

# The book's closing trade-names section (issue 24): read from the PDF, after the kit's 19 keys.
BOOK_ONLY = {"ten_thuong_mai": "Tên thương mại"}


def test_vocabulary_matches_the_kit() -> None:
    rows = kit_rows(KIT / "data" / "section-keys.tsv")
    assert list(SECTION_KEYS) == [r["section_key"] for r in rows] + list(BOOK_ONLY)
    assert {r["section_key"]: r["heading"] for r in rows} | BOOK_ONLY == SECTION_HEADINGS
    assert {r["section_key"] for r in rows if r["in_overview"] == "yes"} == INTRO_SECTIONS
    assert SECTION_ORDER["ten_chung_quoc_te"] == 0 and SECTION_ORDER["thong_tin_qui_che"] == 18
    assert set(SECTION_KEY_HINTS) == set(SECTION_KEYS)
    assert "CAUTION" in SECTION_KEY_HINTS["than_trong"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Chống chỉ định của amoxicilin là gì?", "chong_chi_dinh"),
        ("Chỉ định của amoxicilin là gì?", "chi_dinh"),
        ("chong chi dinh cua ibuprofen", "chong_chi_dinh"),
        ("chi dinh cua ibuprofen", "chi_dinh"),
        ("Quá liều paracetamol xử trí thế nào?", "qua_lieu_va_xu_tri"),
        ("Liều paracetamol cho trẻ 12 kg?", "lieu_luong_va_cach_dung"),
        ("qua lieu paracetamol", "qua_lieu_va_xu_tri"),
        ("Ibuprofen cần thận trọng gì?", "than_trong"),
        ("Phụ nữ có thai dùng omeprazol được không?", "thoi_ky_mang_thai"),
        ("Đang cho con bú có dùng được không", "thoi_ky_cho_con_bu"),
        ("Tác dụng phụ của enalapril", "tac_dung_khong_mong_muon"),
        ("Bảo quản amoxicilin thế nào", "do_on_dinh_va_bao_quan"),
        ("Warfarin tương tác với thuốc nào", "tuong_tac_thuoc"),
        ("Tegretol đau dây V khởi đầu sao", "lieu_luong_va_cach_dung"),  # the book's word for a first dose
    ],
)
def test_longest_phrase_wins(question: str, expected: str) -> None:
    assert resolve_section(question) == expected


@pytest.mark.parametrize("question", ["paracetamol", "xin chào", "thuốc này tốt không", ""])
def test_no_match_is_none(question: str) -> None:
    assert resolve_section(question) is None


def test_marks_decide_and_ambiguity_is_no_match() -> None:
    # "liệu" is not "liều" (different marks); "chông chỉ định" could be read either way.
    assert resolve_section("liệu pháp này") is None
    assert resolve_section("chông chỉ định của aspirin") is None

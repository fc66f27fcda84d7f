"""Which section a question's words ask for (`understanding.cue_readings.strongest_section`)."""

from __future__ import annotations

import pytest
from duocthu.understanding.cue_readings import section_matches, strongest_section
from duocthu.understanding.cues import scan_cues
from duocthu.understanding.lexicon import formulary_wording


def resolve_attribute(text: str) -> str | None:
    """The section the words of `text` ask for, as a turn's tags read it (in the formulary's words)."""
    text = formulary_wording(text)
    cues = scan_cues(text)
    return strongest_section(cues, section_matches(text, True, cues))


@pytest.mark.parametrize(
    ("text", "section"),
    [
        # the product name, of any length, sits inside the question form
        ("Khi sử dụng Biginol, bạn nên uống thuốc như thế nào?", "lieu_luong_va_cach_dung"),
        ("Dùng Calcium Corbiere Extra theo cách nào?", "lieu_luong_va_cach_dung"),
        ("Trong những trường hợp nào thuốc Ngưu Hoàng được sử dụng?", "chi_dinh"),
        ("Khi nào tôi không được sử dụng BoniDiabet?", "chong_chi_dinh"),
        # "không được dùng" is not "được dùng": a negated part does not count
        ("Mắc bệnh gì thì không được dùng Amoxicilin?", "chong_chi_dinh"),
        # a contiguous phrase naming a section always wins over a gapped form
        ("Khi dùng quá liều Cialis, quá trình dùng thuốc diễn ra như thế nào?", "qua_lieu_va_xu_tri"),
        ("uong thuoc Biginol nhu the nao", "lieu_luong_va_cach_dung"),  # typed without marks
    ],
)
def test_gapped_section_cues(text: str, section: str) -> None:
    assert resolve_attribute(text) == section


@pytest.mark.parametrize(
    ("text", "section"),
    [
        # paraphrases written for the second ViMedAQA pass, never taken from its rows
        ("Ai nên dùng loratadin?", "chi_dinh"),
        ("Paracetamol có chữa được đau đầu không?", "chi_dinh"),
        ("Colchicin điều trị triệu chứng gì?", "chi_dinh"),
        ("Sau khi mở nắp, thuốc nhỏ mắt ciprofloxacin dùng được trong bao lâu?", "do_on_dinh_va_bao_quan"),
        ("Viên amoxicilin bị đổi màu có dùng được không?", "do_on_dinh_va_bao_quan"),
        ("Mỗi lần uống bao nhiêu viên paracetamol?", "lieu_luong_va_cach_dung"),
        ("Có được nhai viên esomeprazol không?", "lieu_luong_va_cach_dung"),
        ("Omeprazol có bán không cần đơn không?", "thong_tin_qui_che"),
        ("Dùng diclofenac có bị đau dạ dày không?", "tac_dung_khong_mong_muon"),
        ("Có nên ngừng prednisolon đột ngột không?", "than_trong"),
        ("Có cần ngừng clopidogrel trước khi phẫu thuật không?", "than_trong"),
        ("Diazepam có làm giảm sự tỉnh táo không?", "than_trong"),
        ("Nếu gặp tác dụng phụ khi dùng metformin thì nên làm gì?", "huong_dan_cach_xu_tri_adr"),
        ("Khi dùng warfarin nên kiêng ăn gì?", "tuong_tac_thuoc"),
        # a phrase cut out of a condition's name is no section: "đường dùng" in "tiểu đường dùng"
        ("Bệnh nhân tiểu đường dùng enalapril cần lưu ý điều gì?", "than_trong"),
        ("Metformin đường dùng là gì?", "lieu_luong_va_cach_dung"),
        ("Khi phát hiện trẻ uống nhầm paracetamol, cần làm gì?", "qua_lieu_va_xu_tri"),
        # a use question under a negation asks when the drug must not be used
        ("Ibuprofen không được dùng trong những trường hợp nào?", "chong_chi_dinh"),
        ("Methotrexat không được chỉ định cho ai?", "chong_chi_dinh"),
        ("Domperidon không được khuyến cáo sử dụng trong những trường hợp nào?", "chong_chi_dinh"),
        ("Domperidon được khuyến cáo sử dụng trong những trường hợp nào?", "chi_dinh"),
        ("ibuprofen khong duoc dung trong truong hop nao", "chong_chi_dinh"),  # typed without marks
        ("uong atorvastatin luc nao", "lieu_luong_va_cach_dung"),
        ("Plavix ngưng trước mổ bao lâu?", "than_trong"),
        ("Ventolin xịt mấy nhát?", "lieu_luong_va_cach_dung"),
        ("Zithromax uống mấy ngày?", "lieu_luong_va_cach_dung"),
        # what an allergy names is no section: a decision, left open
        ("Người có tiền sử quá mẫn với thành phần của thuốc có dùng được cefuroxim không?", None),
    ],
)
def test_question_forms_of_real_users(text: str, section: str | None) -> None:
    assert resolve_attribute(text) == section


@pytest.mark.parametrize(
    ("text", "section"),
    [
        # a generic caution or avoidance form yields to the topic the question names
        ("Lý do không nên sử dụng atenolol ở phụ nữ đang cho con bú?", "thoi_ky_cho_con_bu"),
        ("Cần lưu ý gì khi bảo quản omeprazol?", "do_on_dinh_va_bao_quan"),
        # "bao lâu" asks how long of the topic named: alcohol's (the interaction), else the dose's
        ("Đang uống metronidazol, bao lâu sau mới được uống bia?", "tuong_tac_thuoc"),
        ("Amoxicilin viêm họng uống trong bao lâu?", "lieu_luong_va_cach_dung"),
        # ... and counts when nothing names a topic
        ("Cần lưu ý gì khi dùng omeprazol?", "than_trong"),
        ("Ai không nên dùng ibuprofen?", "chong_chi_dinh"),
        # a section named outright is never a generic form
        ("Chống chỉ định của ibuprofen ở phụ nữ cho con bú?", "chong_chi_dinh"),
    ],
)
def test_generic_caution_forms_yield_to_a_named_topic(text: str, section: str) -> None:
    assert resolve_attribute(text) == section

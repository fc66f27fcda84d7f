"""A dose line opening with the indication it doses (`retrieval/scopes.py`): ranked for a question
about another indication (or none) it answers for another patient and is weighed down."""

from __future__ import annotations

from duocthu.catalog.artifact import Catalog
from duocthu.core.text import folded_words
from duocthu.retrieval.answering import answering_lines
from duocthu.retrieval.scopes import NOTHING_ASKED, AskedFor, asked_for, conditions_in
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore


def _asked(question: str) -> AskedFor:
    pairs = frozenset(zip(folded_words(question), folded_words(question)[1:], strict=False))
    return AskedFor(conditions_in(question), pairs)


def test_a_lead_in_naming_a_condition_not_asked_doses_another() -> None:
    line = "Ho gà: trẻ dưới 6 tháng tuổi 10 mg/kg/ngày trong 5 ngày."
    assert NOTHING_ASKED.doses_another(line)
    assert not _asked("liều cho trẻ bị ho gà").doses_another(line)
    # a lead-in of a population or a route names no indication: it doses whoever it names
    assert not NOTHING_ASKED.doses_another("Người lớn và trẻ từ 12 tuổi: 10 mg mỗi lần.")
    # nor is a colon deep in a long sentence a lead-in
    long = " ".join(["thuốc"] * 20) + " ho gà: 10 mg."
    assert not NOTHING_ASKED.doses_another(long)


def test_a_condition_matches_one_whose_words_hold_its_words() -> None:
    line = "Đợt cấp hen phế quản: 40–50 mg/ngày trong ít nhất 5 ngày."
    assert not _asked("liều đợt cấp hen người lớn").doses_another(line)
    assert _asked("liều trong viêm khớp dạng thấp").doses_another(line)


def test_a_lead_in_the_question_quotes_is_asked_whatever_it_is_for() -> None:
    line = "Đường trực tràng – co giật cấp, co giật do sốt: người cao tuổi 10 mg."
    assert not _asked("đường trực tràng cho ông liều bao nhiêu").doses_another(line)
    assert _asked("uống cho ông liều bao nhiêu").doses_another(line)


def test_the_drugs_indications_file_the_books_word_under_the_clinicians(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    # diazepam's chỉ định files "trạng thái động kinh" under "Co giật"
    asked = asked_for(store, "diazepam", "cơn co giật kéo dài người lớn tiêm tĩnh mạch liều?")
    assert not asked.doses_another("Tiêm tĩnh mạch – trạng thái động kinh: Người lớn 10 mg.")
    assert asked_for(store, "diazepam", "mất ngủ liều?").doses_another(
        "Tiêm tĩnh mạch – trạng thái động kinh: 10 mg."
    )


def test_a_dose_question_naming_no_indication_gets_the_general_line_first(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    dose = ("lieu_luong_va_cach_dung",)
    question = "Motilium uống trước hay sau ăn, 1 ngày tối đa mấy viên 10mg?"
    lines = answering_lines(store, [("domperidon", ("domperidon", "Motilium"))], question, dose)
    assert lines and "Parkinson" not in lines[0].text
    assert any("Người lớn và thanh thiếu niên từ 12 tuổi" in line.text for line in lines)
    # asked for that indication, its line leads
    asked = "Motilium giảm buồn nôn do thuốc chủ vận dopamin trong bệnh Parkinson liều tối đa?"
    lines = answering_lines(store, [("domperidon", ("domperidon", "Motilium"))], asked, dose)
    assert lines and "Parkinson" in lines[0].text

"""The answering lines of an ask about one named drug, ranked over its whole monograph."""

from __future__ import annotations

from duocthu.catalog.artifact import Catalog
from duocthu.retrieval.answering import BOOK_LINES, PER_DRUG, answering_lines, book_lines
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore


def test_the_line_that_answers_leads_whatever_section_it_is_in(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    question = "Lasix ống tiêm pha với glucose 5% để truyền được ko hay phải NaCl?"
    lines = answering_lines(store, [("furosemid", ("furosemid", "Lasix"))], question, ("tuong_tac_thuoc",))
    assert lines[0].section_key == "tuong_ky"
    assert "không nên dùng dung dịch glucose để pha" in lines[0].text


def test_a_line_sharing_only_common_words_is_not_found(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    assert answering_lines(store, [("paracetamol", ("paracetamol",))], "viết email gửi trưởng khoa") == ()
    assert answering_lines(store, [("paracetamol", ("paracetamol",))], "paracetamol") == ()


def test_the_book_is_read_for_a_which_drug_question_a_few_lines_a_drug(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    lines = book_lines(store, "thuốc nào dùng trong phác đồ diệt H. pylori")
    drugs = [line.drug_id for line in lines]
    assert lines and {"amoxicilin", "metronidazol"} <= set(drugs)
    assert all(drugs.count(d) <= PER_DRUG for d in drugs) and len(lines) <= BOOK_LINES
    assert book_lines(store, "thuốc nào") == ()  # one word read across the book is no question

"""A line is quoted with the sentence that goes on from it (`retrieval.continuations`)."""

from __future__ import annotations

from duocthu.catalog.artifact import Catalog
from duocthu.retrieval.continuations import continued, goes_on_from, points_back, with_continuations
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore


def test_a_sentence_telling_what_to_do_or_pointing_back_goes_on() -> None:
    assert goes_on_from("Nên kiểm tra điện giải và điện tâm đồ khi có yếu tố nguy cơ.")
    assert goes_on_from("Cần theo dõi INR chặt chẽ.")
    assert goes_on_from("Alen này gặp với tần suất cao ở người gốc Đông Nam Á.")
    # a statement of its own, and "do" (because) unmarked, go on from nothing
    assert not goes_on_from("Thuốc hấp thu tốt qua đường uống.")
    assert not goes_on_from("Tăng nồng độ do ức chế chuyển hóa.")


def test_the_next_sentence_is_joined_only_when_it_goes_on() -> None:
    sentences = ["Hạ kali máu làm tăng độc tính.", "Cần theo dõi kali huyết.", "Thuốc thải qua thận."]
    assert continued(sentences[0], sentences) == "Hạ kali máu làm tăng độc tính. Cần theo dõi kali huyết."
    assert continued(sentences[1], sentences) == sentences[1]


def test_a_ranked_line_carries_the_advice_after_it(sample_index: tuple[EdgeStore, Catalog, Settings]) -> None:
    store, _, _ = sample_index
    lines = store.search_lines(["han", "magnesi", "mau", "qt"], drug_id="azithromycin", limit=20)
    line = next(x for x in lines if x.section_key == "than_trong" and "hạ magnesi máu" in x.text)
    (joined,) = with_continuations(store, [line])
    assert joined.text.endswith("Nên kiểm tra điện giải và điện tâm đồ khi có yếu tố nguy cơ.")
    assert joined.text.startswith(line.text)


def test_a_dose_line_naming_a_regimen_goes_on_to_the_amounts() -> None:
    named = "Cơn đau cấp (người lớn): Ưu tiên phác đồ ngắn ngày."
    given = "Uống 500 mg mỗi 8 giờ trong 3 ngày."
    listed = "Đặt trực tràng: 10 mg/kg mỗi lần."
    assert continued(named, [named, given], dose=True) == f"{named} {given}"
    assert continued(named, [named, given]) == named  # outside a dose section: no regimen named
    assert continued(named, [named, listed], dose=True) == named  # the next item of a list
    stated = "Người lớn: 250 mg mỗi ngày."
    assert continued(stated, [stated, given], dose=True) == stated  # it states its own amount


def test_a_sentence_pointing_back_is_quoted_after_the_one_it_points_to() -> None:
    assert points_back("Alen này gặp với tần suất cao ở người gốc Đông Nam Á.")
    assert points_back("Trong bệnh này, chỉ cần một liều cũng có thể khởi phát cơn cấp.")
    assert points_back("Các thuốc nói trên làm tăng nồng độ.")
    # "trên" before a number is a band, not a reference
    assert not points_back("Người suy thận Clcr trên 30 ml/phút: liều thông thường.")
    assert not points_back("Thuốc hấp thu tốt qua đường uống.")
    said = [
        "Không dùng cho người bệnh nhược cơ.",
        "Trong bệnh này, một liều có thể gây cơn cấp.",
        "Uống xa bữa ăn.",
    ]
    assert continued(said[1], said) == f"{said[0]} {said[1]}"
    assert continued(said[1], said, before=False) == said[1]  # that sentence is quoted on its own
    assert continued(said[2], said) == said[2]


def test_a_ranked_line_pointing_back_names_what_it_is_about(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    lines = store.search_lines(["nhuoc", "co", "lieu"], drug_id="ciprofloxacin", limit=20)
    line = next(x for x in lines if x.text.startswith("Trong bệnh này"))
    (joined,) = with_continuations(store, [line])
    assert "nhược cơ" in joined.text.split("Trong bệnh này")[0]  # the disease it is about, before it
    assert joined.text.endswith(line.text)
    antecedent = joined.text.removesuffix(line.text).strip()
    before = line.model_copy(update={"text": antecedent, "line_index": line.line_index - 1})
    # quoted as a line of its own, it is not quoted twice
    assert with_continuations(store, [before, line])[1].text == line.text


def test_lines_quoted_apart_read_in_the_books_order(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    lines = store.search_lines(["nhuoc", "co", "lieu"], drug_id="ciprofloxacin", limit=20)
    pointing = next(x for x in lines if x.text.startswith("Trong bệnh này"))
    antecedent = next(
        x for x in lines if (x.part_id, x.line_index) == (pointing.part_id, pointing.line_index - 1)
    )
    ranked_backwards = with_continuations(store, [pointing, antecedent])
    assert [x.line_index for x in ranked_backwards] == [antecedent.line_index, pointing.line_index]

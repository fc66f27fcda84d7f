"""A line is quoted with the sentence that goes on from it (`retrieval.continuations`)."""

from __future__ import annotations

from duocthu.catalog.artifact import Catalog
from duocthu.retrieval.continuations import continued, goes_on_from, with_continuations
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

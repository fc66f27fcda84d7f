"""A follow-up or a later clause that describes a patient by age, weight or state and asks whether
they may use the drug is the decision for that patient (the sections deciding it first), never
the section asked before of no one in particular (`merge.asked_for_this_patient`,
`several_asks`). On the sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.tools.evals.answers import run_turns
from duocthu.understanding.pipeline import understand_offline


def test_a_follow_up_describing_a_patient_asks_whether_they_may_use_it(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline(
        "BN ĐTĐ typ 2 có eGFR 25 thì còn dùng tiếp được không", resolver, ("metformin liều tối đa bao nhiêu",)
    )
    assert frame.drugs == ("metformin",) and frame.attribute is None


def test_a_follow_up_asking_a_dose_keeps_the_dose(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline(
        "BN eGFR 25 thì liều bao nhiêu?", resolver, ("metformin liều tối đa bao nhiêu",)
    )
    assert frame.attribute == "lieu_luong_va_cach_dung"


def test_a_clause_about_a_child_beside_an_adults_dose_is_asked_apart(tmp_path: Path) -> None:
    message = "Loperamid ng lớn liều đầu, max 24h? Em bé 18 tháng tiêu chảy dùng được ko?"
    answer = run_turns([message], tmp_path)[0].answer
    first, second = answer.split("▸ Câu hỏi 2", 1)
    assert "liều đầu 4 mg, sau đó 2 mg" in first and "không vượt quá 16 mg trong 24 giờ" in first
    assert "Trẻ em dưới 2 tuổi" in second

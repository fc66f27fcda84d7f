"""A yes-or-no question naming no drug after turns telling the medicines a patient takes asks
those medicines together (`merge.medicines_of_the_case`)."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver

from tests.unit.understanding.turns import conversation


def test_the_medicines_told_are_asked_together(resolver: CatalogDrugResolver) -> None:
    frame = conversation(
        resolver,
        "BN nam 50t van tim, đang Sintrom, INR tuần trước 3,2",
        "Sốt đau đầu, ở nhà tự uống aspirin 500mg x3 viên/ngày 2 hôm nay",
        "Có nguy hiểm gì không?",
    )
    assert frame.turn_type == "interaction" and frame.drugs == ("acenocoumarol", "acid_acetylsalicylic")


def test_a_name_the_catalogue_lacks_is_sought_beside_the_medicine_taken(
    resolver: CatalogDrugResolver,
) -> None:
    frame = conversation(
        resolver,
        "Ông 70t, ĐTĐ, đang Diamicron",
        "Tuần này BS răng hàm mặt cho Daktarin gel bôi miệng (miconazol) vì nấm miệng",
        "có vấn đề gì không?",
    )
    assert frame.turn_type == "interaction" and frame.drugs == ("gliclazid",)
    assert "miconazol" in frame.unknown_drugs


def test_one_medicine_and_a_new_fact_stays_that_drugs_question(resolver: CatalogDrugResolver) -> None:
    frame = conversation(
        resolver,
        "Bà cụ 88 tuổi mất ngủ nhiều, BS kê Seduxen 5mg tối",
        "Con gái bà nói bà đã được chẩn đoán ngừng thở khi ngủ, ngáy to",
        "Vậy vẫn cho uống tối nay được không ạ?",
    )
    assert frame.turn_type == "drug_attribute" and frame.drugs == ("diazepam",)
    assert "ngừng thở khi ngủ" in frame.patient_context.comorbidities


def test_a_dose_asked_after_a_drug_beside_a_medicine_taken_is_the_new_drugs(
    resolver: CatalogDrugResolver,
) -> None:
    frame = conversation(
        resolver,
        "BN nam 60t chạy thận nhân tạo, THA",
        "Đang dùng amlodipin 5mg",
        "Giờ bị viêm phổi, cho ciprofloxacin được không?",
        "liều sao?",
    )
    assert frame.attribute == "lieu_luong_va_cach_dung" and frame.drugs == ("ciprofloxacin",)

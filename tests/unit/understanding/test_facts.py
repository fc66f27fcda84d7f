"""The patient facts a turn states and the conditions it names (`understanding.facts`)."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.understanding.facts import extract_facts
from duocthu.understanding.pipeline import understand_offline


def test_population_from_age() -> None:
    assert extract_facts("Bệnh nhân 80 tuổi dùng digoxin").population == "nguoi_cao_tuoi"
    assert extract_facts("Bệnh nhân 30 tuổi").population == "nguoi_lon"


def test_routes_and_pregnancy() -> None:
    assert extract_facts("paracetamol đặt trực tràng").route == "dat_truc_trang"
    assert extract_facts("Salbutamol dạng hít").route == "hit"
    assert extract_facts("Bé 5kg, paracetamol siro liều bao nhiêu?").route == "uong"  # a form names its route
    facts = extract_facts("Phụ nữ có thai đang cho con bú")
    assert facts.pregnancy and facts.breastfeeding and facts.population == "phu_nu_co_thai"


def test_a_reduced_clearance_stated_as_a_number_is_kidney_impairment() -> None:
    assert extract_facts("ClCr 25?").population == "suy_than"
    assert (
        extract_facts("độ thanh thải creatinin 40 ml/phút chỉnh liều aciclovir thế nào").population
        == "suy_than"
    )
    assert extract_facts("eGFR 90 dùng metformin được không").population is None  # normal function
    assert extract_facts("eGFR 90 dùng metformin được không").renal_function == "egfr 90"


def test_patient_context(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline(
        "Bệnh nhân suy thận nặng đang dùng warfarin, dùng ibuprofen được không?", resolver
    )
    # whether this patient may take ibuprofen: one ask, its pairs with warfarin read beside it
    assert frame.turn_type == "drug_attribute" and frame.drugs == ("ibuprofen",)
    assert frame.population == "suy_than" and frame.patient_context.renal_function == "suy thận nặng"
    assert frame.patient_context.current_medications == ("warfarin",)
    frame = understand_offline("Tôi dị ứng penicilin, dùng amoxicilin được không?", resolver)
    assert frame.patient_context.allergies == ("penicilin",) and frame.unknown_drugs == ()
    frame = understand_offline("Người bị hen dùng ibuprofen có sao không?", resolver)
    assert frame.patient_context.comorbidities == ("hen",) and frame.attribute == "chong_chi_dinh"
    assert not frame.section_overview  # a decision for this patient, not a survey of the section


def test_medicines_joined_by_va_are_all_current(resolver: CatalogDrugResolver) -> None:
    message = "Bệnh nhân 70 tuổi đang dùng warfarin và amiodaron, bị viêm phổi, dùng kháng sinh gì?"
    frame = understand_offline(message, resolver)
    assert frame.patient_context.current_medications == ("warfarin", "amiodaron")
    assert (frame.turn_type, frame.drugs) == ("condition_to_drug", ())
    assert frame.condition is not None and frame.condition.normalized == "viêm phổi"


@pytest.mark.parametrize(
    ("message", "finding"),
    [
        # "chảy máu" alone would list the drugs that cause nosebleeds for a question about the gut
        ("Thuốc nào gây chảy máu tiêu hóa?", "xuất huyết tiêu hóa"),
        ("thuoc nao gay chay mau duong tieu hoa", "xuất huyết tiêu hóa"),
        # other word orders of the formulary's findings: each had found no drug
        ("Thuốc nào gây kéo dài QT?", "khoảng QT kéo dài"),
        ("Thuốc nào gây độc cho thận?", "độc tính trên thận"),
    ],
)
def test_a_finding_is_read_whole_in_the_words_users_write(
    message: str, finding: str, resolver: CatalogDrugResolver
) -> None:
    frame = understand_offline(message, resolver)
    assert frame.condition is not None and frame.condition.normalized == finding


@pytest.mark.parametrize(
    ("text", "age_text"),
    [
        # an infant's months told without "tuổi", after a word for the child
        ("Bé 6 tháng nặng 7 kg bị sốt dùng thuốc gì?", "6 tháng tuổi"),
        ("con tôi 9 tháng bị sốt", "9 tháng tuổi"),
        ("bé được 6 tháng", "6 tháng tuổi"),
        ("bé 3 tháng tuổi", "3 tháng tuổi"),
        # a duration, never an age
        ("con bị ho 2 tháng nay", None),
        ("uống thuốc 6 tháng rồi", None),
    ],
)
def test_an_infants_months_without_tuoi_are_its_age(text: str, age_text: str | None) -> None:
    assert extract_facts(text).age_text == age_text


def test_g6pd_deficiency_is_a_patient_condition_not_the_complaint() -> None:
    facts = extract_facts("Bệnh nhân thiếu men G6PD bị đau đầu dùng thuốc gì?")
    assert facts.stated_conditions == ("thiếu men G6PD",)
    assert "thiếu men G6PD" in facts.patient_context().comorbidities


def test_the_pregnancy_stage_and_a_clearance_told_later_are_kept() -> None:
    assert extract_facts("Bà bầu 7 tháng bị đau đầu").pregnancy_stage == "bầu 7 tháng"
    assert extract_facts("Phụ nữ mang thai 3 tháng cuối bị đau khớp").pregnancy_stage == "3 tháng cuối"
    assert extract_facts("Tôi đang mang thai tuần 10, bị đau đầu").pregnancy_stage == "tuần 10"
    assert extract_facts("Tôi đang có thai, bị đau đầu").pregnancy_stage is None
    # the ward's "34w" is weeks, written as the book reads them
    assert extract_facts("thai 34w đau lưng quá, xin Voltaren được ko?").pregnancy_stage == "34 tuần"
    renal = extract_facts("Bệnh nhân suy thận, độ thanh thải creatinin 20 ml/phút, đau đầu").renal_function
    assert renal is not None and renal.endswith("20")
    assert extract_facts("Bệnh nhân xơ gan Child-Pugh C bị đau đầu").hepatic_function == "xơ gan child pugh c"


def test_a_finding_of_an_investigation_is_a_condition_the_patient_has() -> None:
    # "phát hiện", "nội soi": what was found is the patient's, as after "bị"
    assert (
        "loét tá tràng"
        in extract_facts("vào cấp cứu vì nôn ra máu, nội soi loét tá tràng đang chảy máu").comorbidities
    )
    assert "rung nhĩ" in extract_facts("nay phát hiện rung nhĩ, tim mạch cho warfarin").comorbidities


def test_a_child_named_beside_an_adults_stated_age_is_someone_else() -> None:
    # the nursling, the patient's child, "người trẻ" compared with: the patient is the adult
    assert extract_facts("Chị 28t đang cho bé lớn bú, muốn uống thuốc").population == "nguoi_lon"
    older = extract_facts("Ông tôi 78 tuổi, có cần uống ít hơn người trẻ không?")
    assert older.population == "nguoi_cao_tuoi"
    # a band of ages is no stated age: "dưới 18 tuổi" still names children
    assert extract_facts("Trẻ <18t dùng được không?").population == "tre_em"


def test_the_child_whose_mother_the_turn_speaks_of_is_not_the_patient() -> None:
    assert extract_facts("Mẹ bé đang cho bú, thuốc nào phải tránh?").population == "phu_nu_cho_con_bu"
    assert extract_facts("mẹ của cháu đang cho bú, uống gì được").population == "phu_nu_cho_con_bu"
    assert extract_facts("bé 2 tuổi sốt, mẹ cho uống gì").population == "tre_em"


def test_an_allergen_ends_before_the_words_of_when_it_happened() -> None:
    facts = extract_facts("Cậu 22t, tiền sử sốc phản vệ với penicilin năm 2019. Viêm họng dùng gì?")
    assert facts.patient_context().allergies == ("penicilin",)

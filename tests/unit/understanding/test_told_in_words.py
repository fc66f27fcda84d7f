"""Patient facts told in words no table holds (`understanding.told_in_words`): a diagnosis after a
lead saying the patient has it, and a reaction after the medicine that caused it however it is
named; both the patient's history, never the question nor a drug asked."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.understanding.facts import extract_facts
from duocthu.understanding.pipeline import understand_offline

from tests.unit.understanding.turns import conversation


def test_a_diagnosis_the_vocabulary_lacks_is_read_in_the_patients_words() -> None:
    assert (
        "ngừng thở khi ngủ" in extract_facts("Bà đã được chẩn đoán ngừng thở khi ngủ, ngáy to").comorbidities
    )
    assert "nhược cơ" in extract_facts("BN bị nhược cơ, dùng diazepam được không?").comorbidities
    # in a which-drug question an unnamed condition is the complaint to treat, never the patient's
    assert extract_facts("anh ấy bị nhiễm giun kim, dùng thuốc gì?").comorbidities == ()
    # asked, denied or a question word: no diagnosis ("có bị ảnh hưởng?" asks whether it happens)
    # and in the question a message closes with, "bị" asks what happens ("… thì bị giảm tác dụng?")
    for told in (
        "hiệu quả tránh thai có bị ảnh hưởng?",
        "BN không bị nhược cơ",
        "BN bị gì vậy?",
        "Avalo dùng chung với những chất nào thì bị giảm tác dụng?",
    ):
        assert extract_facts(told).stated_conditions == ()


def test_a_reaction_to_a_medicine_the_catalogue_lacks_is_history_not_a_drug(
    resolver: CatalogDrugResolver,
) -> None:
    frame = understand_offline(
        "BN tiêm penicillin ở trạm xá bị sốc phản vệ năm 2015, giờ dùng Zinnat được không?", resolver
    )
    assert frame.drugs == ("cefuroxim",) and frame.unknown_drugs == ()
    assert frame.patient_context.adverse_reactions == ("sốc phản vệ (penicillin)",)
    assert frame.patient_context.current_medications == () and frame.patient_context.comorbidities == ()


def test_a_reaction_told_as_past_in_a_turn_that_asks_nothing_is_history(
    resolver: CatalogDrugResolver,
) -> None:
    frame = conversation(
        resolver,
        "BN 55t THA, năm ngoái dùng enalapril bị phù môi phù lưỡi phải nhập viện",
        "HA hôm nay 170/100. Dùng captopril ngậm được không?",
    )
    assert frame.drugs == ("captopril",) and frame.patient_context.current_medications == ()
    assert any("(enalapril)" in r for r in frame.patient_context.adverse_reactions)


def test_a_list_of_medicines_after_a_colon_is_read_with_names_the_catalogue_lacks(
    resolver: CatalogDrugResolver,
) -> None:
    told = "Thuốc đang dùng: enalapril 5mg x2, bisoprolol 2,5mg, metformin 500mg x2. XN: creatinin 130 µmol/l"
    frame = understand_offline(f"{told}. BS dặn thêm Verospiron. Có bắt đầu luôn được không?", resolver)
    assert set(frame.patient_context.current_medications) == {"enalapril", "metformin", "bisoprolol"}
    assert "µmol" not in " ".join(frame.unknown_drugs)  # a unit after its number is no product name
    # a stent is no medicine: a foreign word in a list is one only with its strength
    stent = understand_offline(
        "Đang uống clopidogrel và aspirin sau đặt stent. Có nên dùng omeprazol không?", resolver
    )
    assert "stent" not in stent.patient_context.current_medications


def test_an_allergen_or_a_past_reaction_in_a_which_drug_question_is_never_the_drug_asked(
    resolver: CatalogDrugResolver,
) -> None:
    # which drug for this patient: the one they reacted to is a fact about them, the condition to
    # treat is the conversation's, never the reaction
    for told in ("bé dị ứng amoxicilin.", "lần trước uống Clamoxyl bị phù mặt khó thở."):
        frame = conversation(
            resolver, "bé gái 18kg, 4 tuổi, viêm tai giữa cấp", f"{told} Thế thì dùng thuốc nào?"
        )
        assert frame.drugs == () and frame.turn_type == "condition_to_drug"
        assert frame.condition is not None and frame.condition.normalized == "viêm tai giữa"
        context = frame.patient_context
        assert context.allergies == ("amoxicilin",) or any(
            "(Clamoxyl)" in r for r in context.adverse_reactions
        )


def test_a_drug_told_as_prescribed_in_a_turn_that_asks_nothing_is_taken(
    resolver: CatalogDrugResolver,
) -> None:
    frame = conversation(
        resolver,
        "Bà cụ 72t rung nhĩ, đang Coumadin, INR ổn định",
        "Tuần này BS tim mạch thêm Cordarone để kiểm soát nhịp.",
        "Vậy warfarin có phải chỉnh liều ko?",
    )
    assert frame.drugs == ("warfarin",)
    assert "Cordarone" in frame.patient_context.current_medications
    # a complaint after "thêm" is no medicine
    told = conversation(
        resolver, "BN đang dùng ibuprofen, mấy hôm nay thêm đau bụng.", "Ibuprofen dùng tiếp được ko?"
    )
    assert told.patient_context.current_medications == ("ibuprofen",)

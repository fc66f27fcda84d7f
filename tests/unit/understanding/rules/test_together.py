"""Medicines taken together (`rules.together`): beside the patient's medicines, joined to another
or to a class, one drug of a pair swapped; through the offline pipeline."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.understanding.pipeline import understand_offline

from tests.unit.understanding.turns import conversation


def test_a_medicine_taken_beside_another_asks_for_interactions(resolver: CatalogDrugResolver) -> None:
    # a class or an unnamed medicine the patient takes, or two names joined by "cùng"
    for question in (
        "Người đang dùng thuốc chống đông có nên uống thêm ibuprofen không?",
        "Tôi đang uống thuốc khác thì có bôi Benzyl benzoate cùng lúc được không?",
        "Người đang uống ketoconazol cần lưu ý gì khi dùng thêm Alsiful S.R?",
        "Dùng Bequantene cùng succinylcholin có ảnh hưởng gì không?",
        # "với" joins a class only when the cue tables name one right after it
        "Uống methotrexat với thuốc chống viêm không steroid được không?",
        "Warfarin dùng chung với NSAID được không?",
        # two medicines side by side, whatever the section its words name ("+" is "cùng")
        "digoxin đi với Lasix ở người già cần chú ý gì",
        "Bệnh nhân uống Tegretol + thuốc tránh thai, hiệu quả tránh thai có bị ảnh hưởng?",
    ):
        frame = understand_offline(question, resolver)
        assert (frame.turn_type, frame.attribute) == ("interaction", "tuong_tac_thuoc"), question
    dose = understand_offline("Dùng ibuprofen với liều bao nhiêu?", resolver)
    assert (dose.turn_type, dose.attribute) == ("drug_attribute", "lieu_luong_va_cach_dung")
    spaced = understand_offline("Nên uống ciprofloxacin cách thuốc kháng acid bao lâu?", resolver)
    assert (spaced.drugs, spaced.unknown_drugs, spaced.attribute) == (
        ("ciprofloxacin",),
        (),
        "tuong_tac_thuoc",
    )
    # medicines the patient takes, told before a which-drug question, are no pair asked about
    told = understand_offline("Ông uống digoxin với furosemid, giờ bị táo bón thì dùng gì?", resolver)
    assert told.turn_type != "interaction"
    # the patient's own medicine asked about is not a second one; a section asked outright stays
    own = understand_offline("Tôi đang uống Aescin, cần lưu ý gì?", resolver)
    assert (own.turn_type, own.attribute) == ("drug_attribute", "than_trong")
    dose = understand_offline(
        "Đang dùng thuốc huyết áp thì liều paracetamol cho người lớn là bao nhiêu?", resolver
    )
    assert dose.attribute == "lieu_luong_va_cach_dung"


def test_a_reaction_with_an_unlisted_product_or_a_class_beside(resolver: CatalogDrugResolver) -> None:
    reaction = understand_offline("Uống Belaf có thể bị tiêu chảy hay buồn nôn không?", resolver)
    assert (reaction.unknown_drugs, reaction.attribute) == (("Belaf",), "tac_dung_khong_mong_muon")
    joined = understand_offline(
        "Dùng Biginol cùng thuốc ức chế MAO có thể gây ra vấn đề gì về huyết áp?", resolver
    )
    assert joined.attribute == "tuong_tac_thuoc"
    changed = understand_offline(
        "Phụ nữ đang uống thuốc tránh thai thì liều Aescin có cần thay đổi không?", resolver
    )
    assert changed.attribute == "tuong_tac_thuoc"
    # "cùng thuốc gì": which drugs, the one drug's interaction section
    which = understand_offline("Spironolacton không nên dùng cùng thuốc gì để tránh tăng kali?", resolver)
    assert (which.turn_type, which.attribute) == ("drug_attribute", "tuong_tac_thuoc")
    # drowsiness ("ngủ gà") is a person's, not a chicken's
    driving = understand_offline(
        "Người lái xe cần lưu ý gì khi dùng Baclofen vì thuốc có thể gây ngủ gà?", resolver
    )
    assert (driving.turn_type, driving.attribute) == ("drug_attribute", "than_trong")


def test_the_patients_medicines_stay_with_the_conversation(resolver: CatalogDrugResolver) -> None:
    # what the medicine is taken for is the patient's history, not a complaint to find a drug for
    said = conversation(resolver, "toi dang uong methotrexat tri viem khop")
    assert said.needs_clarify and said.patient_context.current_medications == ("methotrexat",)
    then = conversation(
        resolver, "toi dang uong methotrexat tri viem khop", "dau rang qua uong ibuprofen dc k"
    )
    assert (then.turn_type, set(then.drugs)) == ("interaction", {"ibuprofen", "methotrexat"})
    # a clinician's "phối hợp" asks the same
    added = conversation(resolver, "BN đang dùng spironolacton 50mg/ngày", "Phối hợp captopril được không?")
    assert (added.turn_type, set(added.drugs)) == ("interaction", {"captopril", "spironolacton"})
    # a complaint told next is a which-drug question for that patient, never about the medicine
    complaint = conversation(
        resolver, "Ông tôi đang uống thuốc chống đông Sintrom", "Ông bị đau khớp gối mấy hôm nay"
    )
    assert (complaint.turn_type, complaint.drugs) == ("symptom_to_drug", ())
    assert complaint.patient_context.current_medications == ("Sintrom",)  # as the user wrote it
    # asked something of its own, the drug is the subject alone
    own = conversation(resolver, "BN đang dùng spironolacton 50mg/ngày", "Captopril là thuốc gì?")
    assert own.drugs == ("captopril",)


def test_a_medicine_the_patient_takes_is_checked_against_the_drug_under_discussion(
    resolver: CatalogDrugResolver,
) -> None:
    prior = QueryFrame(turn_type="dosing_calc", drugs=("paracetamol",), attribute="lieu_luong_va_cach_dung")
    frame = understand_offline("đang dùng warfarin thì có dùng được không?", resolver, (), prior)
    assert (frame.turn_type, frame.drugs) == ("interaction", ("paracetamol", "warfarin"))
    assert frame.patient_context.current_medications == ("warfarin",)
    # asked something of its own, the named medicine is the subject
    own = understand_offline("Tôi đang dùng warfarin, cần lưu ý gì?", resolver, (), prior)
    assert (own.drugs, own.attribute) == (("warfarin",), "than_trong")
    # with no drug under discussion, the named medicine is the subject
    alone = understand_offline("đang dùng warfarin thì có dùng được không?", resolver)
    assert alone.drugs == ("warfarin",)


def test_an_elliptical_turn_after_an_interaction_swaps_one_drug(resolver: CatalogDrugResolver) -> None:
    # the patient's own medicine stays; the drug asked about is replaced
    first = "Bệnh nhân đang dùng warfarin, có thể kê thêm ciprofloxacin không?"
    prior = understand_offline(first, resolver)
    assert (prior.turn_type, prior.patient_context.current_medications) == ("interaction", ("warfarin",))
    then = understand_offline("Còn fluconazol thì sao?", resolver, (first,), prior)
    assert (then.turn_type, then.drugs, then.attribute) == (
        "interaction",
        ("fluconazol", "warfarin"),
        "tuong_tac_thuoc",
    )
    # with no patient medicine, the subject of the question (its first drug) stays
    asked = "Ciprofloxacin có tương tác với warfarin không?"
    pair = understand_offline(asked, resolver)
    assert understand_offline("thế còn fluconazol?", resolver, (asked,), pair).drugs == (
        "fluconazol",
        "ciprofloxacin",
    )
    # a new question of its own about the new drug is not the interaction
    own = understand_offline("Liều fluconazol?", resolver, (first,), prior)
    assert (own.drugs, own.attribute) == (("fluconazol",), "lieu_luong_va_cach_dung")


def test_a_drug_of_the_same_class_takes_its_class_mates_place(resolver: CatalogDrugResolver) -> None:
    # an alternative within a class (one ATC chemical subgroup) asked after an interaction question
    # replaces the drug of its class, whichever place it held; the other drug stays
    asked = "Omeprazol có tương tác gì với clopidogrel không?"
    pair = understand_offline(asked, resolver)
    assert pair.drugs == ("omeprazol", "clopidogrel")
    for then in ("Còn esomeprazol thì sao?", "Còn esomeprazol thì sao, đổi sang Nexium có được không?"):
        swapped = understand_offline(then, resolver, (asked,), pair)
        # a drug named twice (its name and its brand) is one drug, never an unknown name
        assert (swapped.turn_type, swapped.drugs, swapped.unknown_drugs) == (
            "interaction",
            ("esomeprazol", "clopidogrel"),
            (),
        ), then


def test_a_drug_added_to_the_conversations_is_asked_beside_it(resolver: CatalogDrugResolver) -> None:
    # "thêm X" adds X to what the patient takes: X for the same patient, beside the drug taken
    first, second = "Digoxin liều duy trì người lớn?", "BN 82 tuổi ClCr 35 thì dùng bao nhiêu?"
    prior = understand_offline(first, resolver)
    prior = understand_offline(second, resolver, (first,), prior)
    added = understand_offline("Nếu phải thêm Cordarone nữa thì sao?", resolver, (first, second), prior)
    assert (added.turn_type, added.drugs, added.attribute) == ("drug_attribute", ("amiodaron",), None)
    assert added.patient_context.current_medications == ("Digoxin",)
    assert added.age_text == prior.age_text and added.patient_context.labs == prior.patient_context.labs
    # a section asked of the added drug is that section, not the pair
    dose = understand_offline("Thêm amiodaron thì liều bao nhiêu?", resolver, (first,), prior)
    assert (dose.drugs, dose.attribute) == (("amiodaron",), "lieu_luong_va_cach_dung")

"""What a turn complains of (`rules.complaints`): a complaint, history (a past reaction, what a
medicine is taken for) or a reaction told with its drug; through the offline pipeline."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.understanding.pipeline import understand_offline


def test_a_past_reaction_and_its_drug_are_the_patients_history(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline(
        "Tôi từng bị phù mặt khi uống aspirin, nay đau răng thì uống thuốc giảm đau nào?", resolver
    )
    assert frame.condition is not None
    assert (frame.turn_type, frame.drugs, frame.condition.normalized) == ("symptom_to_drug", (), "đau răng")
    assert frame.patient_context.adverse_reactions == ("phù mặt (aspirin)",)
    assert frame.patient_context.comorbidities == ()  # "thuốc giảm đau" is a class, not the patient's
    history = understand_offline(
        "BN có tiền sử SJS do Tegretol, đau dây thần kinh V thì điều trị bằng thuốc gì?", resolver
    )
    assert (history.turn_type, history.drugs) == ("condition_to_drug", ())
    # without a later complaint, the reaction is what is asked about
    now = understand_offline("bị ho khan do captopril thì xử trí thế nào?", resolver)
    assert (now.drugs, now.attribute) == (("captopril",), "huong_dan_cach_xu_tri_adr")
    # the drug, then the reaction, told as past, then the complaint asked about now
    stopped = understand_offline(
        "Mẹ em uống Zyloric bị nổi ban đỏ ngứa khắp người phải ngưng, giờ lên cơn gút cấp, uống gì được ạ",
        resolver,
    )
    assert (stopped.drugs, stopped.indication) == ((), "cơn gút cấp")  # acute gout is its own condition
    assert (
        stopped.patient_context.adverse_reactions
        and "Zyloric" in stopped.patient_context.adverse_reactions[0]
    )
    current = understand_offline("uống allopurinol bị phát ban thì xử lý sao", resolver)
    assert (current.drugs, current.attribute) == (("allopurinol",), "huong_dan_cach_xu_tri_adr")


def test_a_reaction_to_one_drug_told_before_asking_about_another_is_history(
    resolver: CatalogDrugResolver,
) -> None:
    # the drug taken ("tiêm", "uống") then its reaction is no medicine the patient takes now, and
    # the drug asked after it is the subject, told as past or not
    for question, cause in (
        (
            "Năm ngoái tiêm amoxicillin bị sốc phản vệ phải cấp cứu. Chuyển sang Zinnat được ko ạ?",
            "amoxicillin",
        ),
        ("đang uống amlodipin bị phù chân, đổi sang losartan được không", "amlodipin"),
    ):
        frame = understand_offline(question, resolver)
        context = frame.patient_context
        assert context.current_medications == () and cause in context.adverse_reactions[0], question
    # "bị" in the next sentence is the patient's condition, not a reaction to the drug before it
    told = understand_offline(
        "Ông 71t đang uống metformin, thêm losartan. Ông bị thoái hóa khớp gối. Dùng diclofenac được ko?",
        resolver,
    )
    assert told.patient_context.adverse_reactions == ()


def test_a_reaction_told_with_its_drug_asks_for_its_adverse_reactions(resolver: CatalogDrugResolver) -> None:
    for question in (
        "Bị phù mạch khi uống Brufen thì sao?",
        "Uống ibuprofen bị phù mạch thì sao?",
        "Bị ho khi uống captopril?",
    ):
        frame = understand_offline(question, resolver)
        assert (frame.turn_type, frame.attribute) == ("drug_attribute", "tac_dung_khong_mong_muon"), question
    # asked how to handle it: the management section; taken for it: what the drug is for
    handled = understand_offline("Bị phù mạch khi uống ibuprofen phải làm sao?", resolver)
    assert handled.attribute == "huong_dan_cach_xu_tri_adr"
    treated = understand_offline("Uống paracetamol trị sốt được không?", resolver)
    assert treated.attribute == "chi_dinh"


def test_a_complaint_told_as_what_happened_on_a_medicine_is_its_reaction(
    resolver: CatalogDrugResolver,
) -> None:
    # told in one breath after the medicine: its adverse reactions, never drugs "for" the bleeding
    for question in ("Đang uống captopril bị ho khan", "Mẹ tôi đang uống warfarin bị chảy máu chân răng"):
        frame = understand_offline(question, resolver)
        assert (frame.turn_type, frame.attribute) == ("drug_attribute", "tac_dung_khong_mong_muon"), question
        assert len(frame.drugs) == 1
    # a new complaint in its own clause, or asked which drug for it: the drug is the patient's context
    for question in (
        "Tôi đang dùng warfarin, bị đau đầu",
        "Đang uống warfarin bị đau đầu thì uống thuốc gì?",
    ):
        frame = understand_offline(question, resolver)
        assert (frame.turn_type, frame.drugs) == ("symptom_to_drug", ()), question


def test_a_complaint_no_table_names_is_still_what_a_which_drug_question_asks(
    resolver: CatalogDrugResolver,
) -> None:
    # it had answered with atorvastatin's contraindications
    frame = understand_offline("Đang uống atorvastatin, bị lẹo mắt, bôi thuốc gì?", resolver)
    assert (frame.turn_type, frame.drugs) == ("symptom_to_drug", ())
    assert frame.condition is not None and frame.condition.text == "lẹo mắt"
    assert frame.patient_context.current_medications == ("atorvastatin",)
    # a vague complaint is not one
    vague = understand_offline("Tôi đang dùng warfarin, bị gì đó ở chân, dùng thuốc gì", resolver)
    assert vague.condition is None

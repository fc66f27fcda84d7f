"""What a turn takes from the conversation (`rules.follow_up`, with the merge): continuations,
elliptical turns, the relation kept; through the offline pipeline."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.understanding.pipeline import understand_offline

from tests.unit.understanding.turns import conversation


def test_continuation_from_history_alone(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("còn tác dụng phụ thì sao", resolver, ("Chống chỉ định của ibuprofen?",))
    assert (frame.turn_type, frame.drugs, frame.attribute) == (
        "drug_attribute",
        ("ibuprofen",),
        "tac_dung_khong_mong_muon",
    )
    assert frame.context_action == "continue" and frame.depends_on_previous_turn


def test_a_follow_up_asking_whether_to_start_or_stop_goes_on_about_the_drug(
    resolver: CatalogDrugResolver,
) -> None:
    for message in ("có bắt đầu luôn được không?", "Gia đình muốn dừng hẳn, có sao không?"):
        frame = understand_offline(message, resolver, ("Verospiron cho cụ suy tim dùng liều nào",))
        assert frame.turn_type != "out_of_scope" and frame.drugs == ("spironolacton",), message


def test_a_follow_up_going_on_about_the_drug_is_no_purchase_request(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("bé 8 tuổi 25kg nôn, mẹ muốn mua có nên không", resolver, ("Chị ơi Motilium",))
    assert frame.turn_type != "out_of_scope" and frame.drugs == ("domperidon",)


def test_a_name_without_a_monograph_is_asked_beside_the_medicine_the_patient_takes(
    resolver: CatalogDrugResolver,
) -> None:
    frame = understand_offline(
        "bs răng kê gel miconazol bôi miệng. Có vấn đề gì ko", resolver, ("ĐTĐ type 2, đang Diamicron",)
    )
    assert frame.drugs == ("gliclazid",) and frame.unknown_drugs == ("miconazol",)


def test_a_yes_or_no_follow_up_on_a_medicine_told_is_the_decision_not_its_overview(
    resolver: CatalogDrugResolver,
) -> None:
    earlier = ("BN nam 68t, ĐTĐ typ 2 đang uống metformin 850mg x2",)
    frame = understand_offline("hôm nay eGFR còn 27 thì sao, có giữ thuốc được ko", resolver, earlier)
    assert (frame.turn_type, frame.drugs, frame.attribute) == ("drug_attribute", ("metformin",), None)


def test_whether_a_finding_is_due_to_the_drug_asks_it_of_the_conversations_drug(
    resolver: CatalogDrugResolver,
) -> None:
    earlier = ("anh ơi enalapril ADR hay gặp là gì",)
    frame = understand_offline("thế ho đó có đặc điểm gì, có phải do thuốc không", resolver, earlier)
    assert frame.drugs == ("enalapril",) and frame.turn_type != "condition_relation"


def test_continuation_from_the_prior_frame(resolver: CatalogDrugResolver) -> None:
    prior = QueryFrame(
        turn_type="dosing_calc",
        drugs=("paracetamol",),
        attribute="lieu_luong_va_cach_dung",
        weight_kg=12,
        population="tre_em",
    )
    frame = understand_offline("Nếu bé 15 kg thì sao?", resolver, ("Paracetamol cho trẻ 12 kg?",), prior)
    assert (frame.turn_type, frame.drugs, frame.weight_kg) == ("dosing_calc", ("paracetamol",), 15.0)
    assert "Paracetamol" in (frame.standalone_query or "")


def test_a_new_drug_is_a_topic_change(resolver: CatalogDrugResolver) -> None:
    prior = QueryFrame(turn_type="dosing_calc", drugs=("paracetamol",), weight_kg=12, population="tre_em")
    frame = understand_offline("Liều amoxicilin cho người lớn?", resolver, (), prior)
    assert frame.drugs == ("amoxicilin",) and frame.weight_kg is None and frame.population == "nguoi_lon"
    assert frame.context_action == "new"


def test_an_elliptical_turn_asks_the_same_section_of_the_new_drug(resolver: CatalogDrugResolver) -> None:
    prior = QueryFrame(turn_type="drug_attribute", drugs=("ibuprofen",), attribute="than_trong", weight_kg=60)
    frame = understand_offline("thế còn paracetamol?", resolver, (), prior)
    assert (frame.turn_type, frame.drugs, frame.attribute) == (
        "drug_attribute",
        ("paracetamol",),
        "than_trong",
    )
    # the patient carries (the conversation's state); nothing else of the question before
    assert frame.weight_kg == 60 and frame.context_action == "new" and frame.route is None
    # a turn that is not elliptical, or asks for the overview, is its own question
    assert understand_offline("paracetamol", resolver, (), prior).turn_type == "drug_overview"
    assert understand_offline("thế còn cho tôi biết về paracetamol", resolver, (), prior).attribute is None
    # after whether a described patient may take a drug, the same decision of the new drug
    decided = QueryFrame(
        turn_type="drug_attribute", drugs=("ibuprofen",), age_text="2 tháng tuổi", weight_kg=5
    )
    same_decision = understand_offline("còn paracetamol thì sao", resolver, (), decided)
    assert (same_decision.turn_type, same_decision.drugs, same_decision.attribute) == (
        "drug_attribute",
        ("paracetamol",),
        None,
    )
    assert understand_offline("paracetamol là thuốc gì", resolver, (), decided).turn_type == "drug_overview"
    # "có bị như vậy không?" refers back the same way
    adverse = QueryFrame(
        turn_type="drug_attribute", drugs=("captopril",), attribute="tac_dung_khong_mong_muon"
    )
    same = understand_offline("Enalapril có bị như vậy không?", resolver, (), adverse)
    assert (same.drugs, same.attribute) == (("enalapril",), "tac_dung_khong_mong_muon")


def test_a_drug_name_asked_alone_repeats_the_question_before(resolver: CatalogDrugResolver) -> None:
    same = conversation(resolver, "Metformin CCĐ khi nào?", "Gliclazid?")
    assert (same.drugs, same.attribute) == (("gliclazid",), "chong_chi_dinh")
    assert conversation(
        resolver, "Furosemid dùng cho người cho con bú được không?", "spironolacton sao?"
    ).attribute == ("thoi_ky_cho_con_bu")
    swapped = conversation(resolver, "Tương tác giữa fluoxetin và diazepam?", "Carbamazepin?")
    assert (swapped.turn_type, swapped.drugs) == ("interaction", ("carbamazepin", "fluoxetin"))
    # without a question mark a name alone is a request for its overview
    assert conversation(resolver, "Metformin CCĐ khi nào?", "Gliclazid").turn_type == "drug_overview"


def test_after_an_overdose_how_to_handle_it_stays_on_the_overdose(resolver: CatalogDrugResolver) -> None:
    frame = conversation(resolver, "Ngộ độc colchicin do quá liều có biểu hiện gì?", "Cấp cứu thế nào?")
    assert (frame.drugs, frame.attribute) == (("colchicin",), "qua_lieu_va_xu_tri")
    # with no drug named anywhere, the drug is asked for
    unnamed = conversation(resolver, "Em lỡ uống quá liều rồi", "Phải làm sao bây giờ?")
    assert unnamed.needs_clarify and unnamed.drugs == ()


def test_a_follow_up_keeps_the_relation_asked(resolver: CatalogDrugResolver) -> None:
    # read as a new which-drug question it would list the drugs that treat renal failure
    avoid = conversation(resolver, "Người bị gút nên tránh thuốc nào?", "Còn người suy thận thì sao?")
    assert (avoid.turn_type, avoid.condition_relation) == ("condition_relation", "contraindication")
    assert avoid.population == "suy_than"
    cause = conversation(resolver, "Thuốc nào gây ho khan?", "còn phù chân?")
    assert (cause.condition_relation, cause.condition.normalized if cause.condition else None) == (
        "adverse_effect",
        "phù",
    )
    treat = conversation(resolver, "Thuốc nào trị gút?", "Còn tăng huyết áp thì sao?")
    assert (treat.turn_type, treat.indication) == ("condition_to_drug", "tăng huyết áp")


def test_a_follow_up_asks_its_own_question_of_the_conversations_drug(resolver: CatalogDrugResolver) -> None:
    # "gây" asked of the drug under discussion is its adverse reactions, not the section before
    for follow_up in (
        "Thuốc này có gây buồn ngủ không?",
        "Nó có gây buồn ngủ không?",
        "Có gây buồn ngủ không?",
    ):
        frame = conversation(resolver, "Cetirizin dùng để làm gì?", follow_up)
        assert (frame.drugs, frame.attribute) == (("cetirizin",), "tac_dung_khong_mong_muon"), follow_up
    # "thế còn X?" after "X có trị Y không?" asks it of Y again
    frame = conversation(resolver, "Paracetamol có trị đau đầu không?", "Thế còn ibuprofen?")
    assert (frame.turn_type, frame.drugs) == ("drug_to_condition", ("ibuprofen",))
    assert frame.condition is not None and frame.condition.normalized == "đau đầu"


def test_a_follow_up_naming_only_a_medicine_taken_asks_it_beside_the_carried_drug(
    resolver: CatalogDrugResolver,
) -> None:
    prior = QueryFrame(
        turn_type="drug_attribute", drugs=("spironolacton",), attribute="lieu_luong_va_cach_dung"
    )
    frame = understand_offline(
        "BN đang enalapril 10mg x2, K 5,3 thì phối hợp được không?", resolver, (), prior
    )
    assert (frame.turn_type, set(frame.drugs)) == ("interaction", {"spironolacton", "enalapril"})
    # a section of its own asked of the medicine taken is its own question
    dose = understand_offline("BN đang enalapril, liều tối đa bao nhiêu?", resolver, (), prior)
    assert dose.drugs == ("enalapril",)


def test_a_drug_named_only_as_the_patients_allergen_is_never_the_one_a_follow_up_asks_about(
    resolver: CatalogDrugResolver,
) -> None:
    told = "Bé 4 tuổi 16 kg sốt, có tiền sử dị ứng ibuprofen (nổi mẩn). Nên dùng thuốc hạ sốt gì cho bé"
    prior = understand_offline(told, resolver)
    dose = understand_offline("và liều bao nhiêu?", resolver, (told,), prior)
    assert "ibuprofen" not in dose.drugs


def test_a_medicine_the_patient_takes_asked_again_is_their_decision_not_a_new_pair(
    resolver: CatalogDrugResolver,
) -> None:
    told = ("Cụ bà 80t THA, ĐTĐ2, đang amlodipin 5mg + Glucophage 500 x2", "XN tuần này eGFR 28")
    prior = None
    for message in told:
        prior = understand_offline(message, resolver, (), prior)
    frame = understand_offline("vậy metformin còn dùng tiếp được không BS?", resolver, told, prior)
    assert (frame.turn_type, frame.drugs) == ("drug_attribute", ("metformin",))
    # buying it for the patient, asked whether they may take it, is that decision
    child = understand_offline("Bé 18 tháng tiêu chảy 3 ngày", resolver)
    bought = understand_offline(
        "mẹ bé hỏi mua Imodium cho bé uống, có được không?",
        resolver,
        ("Bé 18 tháng tiêu chảy 3 ngày",),
        child,
    )
    assert bought.turn_type != "out_of_scope" and bought.drugs == ("loperamid",)

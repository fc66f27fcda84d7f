"""Which kind of question a turn is (`rules.turn_type`): a section of named drugs, their
overview, an interaction, a dose to calculate, smalltalk or out of scope; through the offline
pipeline."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.understanding.pipeline import understand_offline


@pytest.mark.parametrize(
    ("message", "turn_type", "drugs", "attribute"),
    [
        ("Chống chỉ định của amoxicilin là gì?", "drug_attribute", ("amoxicilin",), "chong_chi_dinh"),
        ("chong chi dinh cua amoxicilin", "drug_attribute", ("amoxicilin",), "chong_chi_dinh"),
        ("Ibuprofen cần thận trọng gì?", "drug_attribute", ("ibuprofen",), "than_trong"),
        ("Amlodipin là thuốc gì?", "drug_overview", ("amlodipin",), None),
        (
            "Warfarin và aspirin có tương tác không?",
            "interaction",
            ("warfarin", "acid_acetylsalicylic"),
            "tuong_tac_thuoc",
        ),
        (
            "Paracetamol cho trẻ 12 kg liều bao nhiêu?",
            "dosing_calc",
            ("paracetamol",),
            "lieu_luong_va_cach_dung",
        ),
        ("Metformin dùng để làm gì?", "drug_to_condition", ("metformin",), "chi_dinh"),
        ("Metformin được chỉ định trong trường hợp nào?", "drug_attribute", ("metformin",), "chi_dinh"),
        ("Amoxicilin có được chỉ định cho viêm họng không?", "drug_attribute", ("amoxicilin",), "chi_dinh"),
        # whether this patient may take it: a decision, never the indications alone
        (
            "Bệnh nhân hẹp van động mạch chủ được chỉ định amlodipin hay không?",
            "drug_attribute",
            ("amlodipin",),
            None,
        ),
        (
            "Người suy gan có chỉ định dùng atorvastatin được không?",
            "drug_attribute",
            ("atorvastatin",),
            None,
        ),
        ("Xin chào", "smalltalk", (), None),
        ("Giá paracetamol bao nhiêu tiền?", "out_of_scope", ("paracetamol",), None),
        ("Quên uống một liều metformin thì phải làm sao?", "out_of_scope", ("metformin",), None),
        # a double dose taken by mistake is the overdose section; doubling up a missed dose is not covered
        (
            "Uống nhầm gấp đôi liều amlodipin thì có sao không?",
            "drug_attribute",
            ("amlodipin",),
            "qua_lieu_va_xu_tri",
        ),
        ("Quên liều metformin có uống gấp đôi được không?", "out_of_scope", ("metformin",), None),
        ("Khi nào không được uống gấp đôi liều metformin?", "out_of_scope", ("metformin",), None),
        ("Thời tiết hôm nay thế nào?", "out_of_scope", (), None),
    ],
)
def test_offline_frames(
    resolver: CatalogDrugResolver, message: str, turn_type: str, drugs: tuple[str, ...], attribute: str | None
) -> None:
    frame = understand_offline(message, resolver)
    assert (frame.turn_type, frame.drugs, frame.attribute) == (turn_type, drugs, attribute)
    assert frame.system_error is None and not frame.needs_clarify


def test_what_other_writers_asked_of_each_turn_type(resolver: CatalogDrugResolver) -> None:
    # a name half remembered is asked for, never looked up as written
    vague = understand_offline("Thuốc flu... gì đó uống bao nhiêu viên?", resolver)
    assert vague.needs_clarify and vague.drugs == ()
    # "what is this drug" stays the overview for a described patient
    overview = understand_offline("Mẹ tôi 70 tuổi được kê Plavix, thuốc này là thuốc gì vậy?", resolver)
    assert (overview.turn_type, overview.drugs) == ("drug_overview", ("clopidogrel",))
    # a place or a delivery is never a product
    for question in ("Tối nay Việt Nam đá với Thái Lan mấy giờ?", "Có ship Panadol tận nhà không?"):
        assert understand_offline(question, resolver).turn_type == "out_of_scope", question
    # "thuốc huyết áp nào hay gây ho khan": the relation asked, with a class between its words
    cause = understand_offline("Thuốc huyết áp nào hay gây ho khan?", resolver)
    assert (cause.turn_type, cause.condition_relation) == ("condition_relation", "adverse_effect")
    excluded = understand_offline("Những thuốc nào CCĐ ở BN suy gan nặng?", resolver)
    assert (excluded.turn_type, excluded.condition_relation) == ("condition_relation", "contraindication")
    # an age and "uống … bao nhiêu" is a dose for that child
    dose = understand_offline("be 4 tuoi uong domperidon bao nhieu", resolver)
    assert (dose.turn_type, dose.attribute) == ("dosing_calc", "lieu_luong_va_cach_dung")


def test_greetings_and_errands_are_not_drug_questions(resolver: CatalogDrugResolver) -> None:
    for question in ("Good morning bot", "Thank you nha, very helpful", "haha bot dễ thương ghê"):
        frame = understand_offline(question, resolver)
        assert (frame.turn_type, frame.unknown_drugs) == ("smalltalk", ()), question
    for question in (
        "Có bán Ventolin online không, ship ra Đà Nẵng mấy ngày?",
        "Thẻ BHYT đi khám trái tuyến được mấy phần trăm?",
    ):
        assert understand_offline(question, resolver).turn_type == "out_of_scope", question
    # a purchase that asks about the prescription is still the regulatory section
    assert understand_offline("Mua Ventolin có cần đơn không?", resolver).attribute == "thong_tin_qui_che"


@pytest.mark.parametrize(
    ("message", "turn_type"),
    [
        ("Warfarin INR mục tiêu", "drug_attribute"),  # no section named: free-form over the monograph
        ("Digoxin nồng độ điều trị là bao nhiêu?", "drug_attribute"),
        ("omeprazol", "drug_overview"),  # a name alone, or asked about as a whole
        ("Omeprazol là thuốc gì vậy?", "drug_overview"),
        ("Cho tôi biết về warfarin INR", "drug_overview"),
    ],
)
def test_a_question_no_section_names_is_free_form_not_the_overview(
    resolver: CatalogDrugResolver, message: str, turn_type: str
) -> None:
    frame = understand_offline(message, resolver)
    assert (frame.turn_type, frame.attribute) == (turn_type, None)


def test_a_focus_written_only_in_cue_words_is_a_question_not_the_overview(
    resolver: CatalogDrugResolver,
) -> None:
    # every word of "muốn dừng thì làm sao" is a cue of something else: the focus (stopping) asks more
    frame = understand_offline("Tegretol muốn dừng thì làm sao?", resolver)
    assert (frame.turn_type, frame.attribute) == ("drug_attribute", None)


def test_a_population_question_is_a_decision_not_an_overview(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("Dùng ciprofloxacin cho trẻ em được không?", resolver)
    assert (frame.turn_type, frame.attribute, frame.population) == ("drug_attribute", None, "tre_em")
    # an overview cue still asks for the overview
    assert understand_offline("Cho tôi biết về amoxicilin cho trẻ em", resolver).turn_type == "drug_overview"


def test_an_unlisted_product_is_read_like_a_catalogue_drug(resolver: CatalogDrugResolver) -> None:
    # a question no section phrase names is about the drug, read over its monograph, whether the
    # catalogue lists the product or not; "là thuốc gì" stays the overview
    for message in (
        "Người bị bệnh gan uống paracetamol có sao không?",
        "Người có bệnh gan uống Zyxtra có sao không?",
    ):
        frame = understand_offline(message, resolver)
        assert (frame.turn_type, frame.attribute) == ("drug_attribute", None), message
    assert understand_offline("Zyxtra là thuốc gì?", resolver).turn_type == "drug_overview"


def test_a_follow_up_going_on_with_the_case_is_neither_smalltalk_nor_an_errand(
    resolver: CatalogDrugResolver,
) -> None:
    # an acknowledgement opening a turn that tells the patient's new state, and a dose to work out
    # for the conversation's drug, go on about that drug; an acknowledgement alone is smalltalk
    for first, then, drug in (
        (
            "Liều metformin cho người lớn?",
            "ok. còn nếu lần sau eGFR tụt xuống 27 thì sao, dừng hẳn à?",
            "metformin",
        ),
        ("Liều paracetamol cho bé 12kg?", "chuyển sang viên đạn thì tính liều thế nào ạ?", "paracetamol"),
    ):
        prior = understand_offline(first, resolver)
        frame = understand_offline(then, resolver, (first,), prior)
        assert frame.turn_type not in ("smalltalk", "out_of_scope") and frame.drugs == (drug,), then
    prior = understand_offline("Liều metformin cho người lớn?", resolver)
    assert understand_offline("ok cảm ơn", resolver, ("Liều metformin cho người lớn?",), prior).turn_type == (
        "smalltalk"
    )


def test_a_complaint_told_after_a_drug_is_about_that_drug_unless_a_drug_is_asked_for(
    resolver: CatalogDrugResolver,
) -> None:
    first = "Lipitor 20mg cho BN rối loạn lipid máu 62t"
    prior = understand_offline(first, resolver)
    then = "BN than đau cơ đùi, CK gấp 7 lần bình thường, làm gì?"
    frame = understand_offline(then, resolver, (first,), prior)
    assert (frame.turn_type, frame.drugs) == ("drug_attribute", ("atorvastatin",))
    # asking for a drug for it is a which-drug question
    asked = understand_offline("BN bị đau đầu thì dùng thuốc gì?", resolver, (first,), prior)
    assert asked.turn_type == "symptom_to_drug"


def test_a_follow_up_asking_a_question_of_its_own_is_read_over_the_monograph(
    resolver: CatalogDrugResolver,
) -> None:
    # what stopping the drug told before would do: the parts that answer, never its introduction
    first = "Cụ bà 85t mất ngủ, con gái đang cho uống Seduxen 5mg tối"
    prior = understand_offline(first, resolver)
    then = "Tuần rồi cụ té 2 lần, hơi lú. Gia đình muốn ngưng hẳn luôn từ mai, có sao ko?"
    frame = understand_offline(then, resolver, (first,), prior)
    assert (frame.turn_type, frame.drugs) == ("drug_attribute", ("diazepam",))


def test_medicines_taken_asked_around_a_procedure_are_asked_each_not_together(
    resolver: CatalogDrugResolver,
) -> None:
    # an operation is what both medicines are asked of, as a pregnancy is: each one's lines on it
    # ("ngừng metformin tạm thời trước các phẫu thuật …"), not the pair's interactions
    message = "ĐTĐ đang Glucophage 850 x2 + Diamicron MR 60 sáng. Sắp mổ thoát vị, xử lý 2 thuốc này thế nào?"
    frame = understand_offline(message, resolver)
    assert frame.turn_type != "interaction" and set(frame.drugs) == {"metformin", "gliclazid"}
    # the words saying together still ask the pair
    together = "Đang Glucophage + Diamicron, sắp mổ, 2 thuốc này uống cùng nhau có tương tác không?"
    assert understand_offline(together, resolver).turn_type == "interaction"

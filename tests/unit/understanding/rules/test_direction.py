"""The direction of a question about a named drug and a condition (`rules.direction`): whether it
treats it or brings it on, and the background of a which-drug question; through the offline
pipeline."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.understanding.pipeline import understand_offline


def test_whether_a_drug_treats_a_named_condition(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("Amlodipin có tác dụng kiểm soát cơn đau thắt ngực không?", resolver)
    assert (frame.turn_type, frame.attribute, frame.condition_relation) == (
        "drug_to_condition",
        "chi_dinh",
        "indication",
    )
    assert frame.condition is not None and frame.condition.normalized == "đau thắt ngực"
    # nothing named to treat: not an indication question
    vague = understand_offline(
        "Phenothiazin và thuốc amitriptylin có tác dụng liên quan như thế nào?", resolver
    )
    assert (vague.turn_type, vague.attribute) == ("interaction", "tuong_tac_thuoc")


def test_whether_a_named_drug_treats_a_condition_never_reads_a_patient_as_one(
    resolver: CatalogDrugResolver,
) -> None:
    for question in (
        "Amlodipin có dùng cho đau thắt ngực được không?",
        "Spironolacton có tác dụng với suy tim không?",
    ):
        frame = understand_offline(question, resolver)
        assert (frame.turn_type, frame.attribute) == ("drug_to_condition", "chi_dinh"), question
    # a patient between the words and the condition: whether this patient may take it
    asthma = understand_offline("Paracetamol có dùng cho người bị hen được không?", resolver)
    assert (asthma.turn_type, asthma.attribute) == ("drug_attribute", "chong_chi_dinh")
    # a reaction after "bị" need not be a known condition to be handled
    ankles = understand_offline("Mẹ em uống amlodipin bị phù hai cổ chân, nên làm gì ạ?", resolver)
    assert ankles.attribute == "huong_dan_cach_xu_tri_adr"


def test_a_drug_used_for_a_purpose_asks_its_indications(resolver: CatalogDrugResolver) -> None:
    for question in (
        "Bị viêm mũi dị ứng có thể dùng thuốc Clorpheniramin để điều trị không?",
        "Người bị say tàu xe có dùng Aleucin để giảm chóng mặt được không?",
    ):
        assert understand_offline(question, resolver).attribute == "chi_dinh", question
    # a disease beside the complaint the drug is for: whether this patient may, contraindications first
    ulcer = understand_offline("Bị loét dạ dày có dùng ibuprofen để giảm đau được không?", resolver)
    assert ulcer.attribute == "chong_chi_dinh"
    # nor beside a population: whether they may take it is the decision
    elderly = understand_offline("Có nên dùng aspirin để phòng đột quỵ cho người 80 tuổi không?", resolver)
    assert (elderly.population, elderly.attribute) == ("nguoi_cao_tuoi", None)
    # what the patient's own medicine is taken for is not asked
    own = understand_offline("Đang uống methotrexat trị viêm khớp, bị đau đầu uống gì?", resolver)
    assert (own.turn_type, own.drugs) == ("symptom_to_drug", ())


@pytest.mark.parametrize(
    ("message", "attribute"),
    [
        # brought on: its adverse reactions, however far "không" stands
        ("Cavinton có làm tim đập nhanh, hồi hộp đánh trống ngực không?", "tac_dung_khong_mong_muon"),
        ("Furosemid có làm hạ kali máu không?", "tac_dung_khong_mong_muon"),  # the condition's own name
        # a wanted effect on a condition is what the drug is for, never its adverse reactions
        ("Paracetamol có làm hết đau đầu không?", "chi_dinh"),
        ("Paracetamol có làm hạ sốt không?", "chi_dinh"),
        ("Carbocistein có làm loãng đờm không?", None),
        ("Trước khi dùng warfarin có làm xét nghiệm gì không?", "than_trong"),  # a test done
        ("Paracetamol có khiến buồn nôn không?", "tac_dung_khong_mong_muon"),
        ("Paracetamol có làm dịu đau đầu không?", "chi_dinh"),
        ("Uống Paracetamol có hết đau đầu không?", "chi_dinh"),
        ("Paracetamol có cắt được cơn sốt không?", "chi_dinh"),
    ],
)
def test_whether_a_drug_makes_something_happen(
    resolver: CatalogDrugResolver, message: str, attribute: str | None
) -> None:
    assert understand_offline(message, resolver).attribute == attribute


def test_whether_it_helps_or_brings_on_carries_the_condition(resolver: CatalogDrugResolver) -> None:
    # as "X có trị Y không?" does: a use is drug_to_condition for Y, a reaction names Y
    for message, turn_type, relation, condition in (
        ("Bị đau đầu uống paracetamol có đỡ không?", "drug_to_condition", "indication", "đau đầu"),
        ("Paracetamol có làm hết đau đầu không?", "drug_to_condition", "indication", "đau đầu"),
        ("Paracetamol có làm buồn nôn không?", "drug_attribute", "adverse_effect", "buồn nôn"),
    ):
        frame = understand_offline(message, resolver)
        assert (frame.turn_type, frame.condition_relation) == (turn_type, relation), message
        assert frame.condition is not None and frame.condition.normalized == condition


@pytest.mark.parametrize(
    ("message", "turn_type", "relation"),
    [
        ("uong carbamazepin ma noi ban phong nuoc, bong da", "drug_attribute", None),  # told: its ADR
        ("Prednisolon uống dài ngày làm tăng đường huyết có đúng không?", "drug_attribute", "adverse_effect"),
        ("Diflucan uống có làm tăng men gan hông?", "drug_attribute", "adverse_effect"),
        ("thuoc loi tieu nao lam ha kali mau", "condition_relation", "adverse_effect"),
        (
            "Kháng sinh nào dễ dẫn đến tiêu chảy do Clostridium difficile?",
            "condition_relation",
            "adverse_effect",
        ),
        (
            "Bệnh nhân nhịp chậm, block nhĩ thất thì thuốc nào không hợp?",
            "condition_relation",
            "contraindication",
        ),
        ("Thuốc giảm đau nào làm hết đau nhanh?", "symptom_to_drug", "indication"),
        ("colchicin tri gut cap duoc khong", "drug_to_condition", "indication"),
        ("Salbutamol có cắt cơn hen được không?", "drug_to_condition", "indication"),
        ("metronidazol dùng trong các nhiễm khuẩn nào", "drug_attribute", None),  # which, not whether
        # the finding first, then which drugs: what they bring on
        (
            "Xuất huyết tiêu hóa do thuốc thường gặp với các thuốc nào?",
            "condition_relation",
            "adverse_effect",
        ),
        ("Nhịp tim chậm có thể gây ra bởi thuốc nào?", "condition_relation", "adverse_effect"),
        ("Đau cơ, tiêu cơ vân có thể do những thuốc gì?", "condition_relation", "adverse_effect"),
        ("digoxin uong bi buon non, nhin mo vang vang la sao", "drug_attribute", None),  # told: its ADR
        ("colchicin co phong ngua con gout khong", "drug_to_condition", "indication"),
        ("dang dung clopidogrel bi dau bao tu, uong thuoc da day nao", "symptom_to_drug", "indication"),
        # direction development set six
        ("Kháng sinh nào dễ khiến người uống bị tiêu chảy?", "condition_relation", "adverse_effect"),
        ("nguoi bi suy tim khong hop voi thuoc nao", "condition_relation", "contraindication"),
        ("Sintrom có phải thuốc trị huyết khối tĩnh mạch sâu không?", "drug_to_condition", "indication"),
        ("Clamoxyl có CĐ viêm tai giữa cấp ở trẻ không?", "drug_to_condition", "indication"),
        ("Bị mụn rộp ở môi, Zovirax có trị được không chị?", "drug_to_condition", "indication"),
        ("xai Seduxen thay buon ngu, lo mo ca ngay", "drug_attribute", None),  # told: its ADR
    ],
)
def test_one_drug_and_a_condition_keep_their_direction(
    resolver: CatalogDrugResolver, message: str, turn_type: str, relation: str | None
) -> None:
    frame = understand_offline(message, resolver)
    assert (frame.turn_type, frame.condition_relation) == (turn_type, relation)
    assert not frame.unknown_drugs
    if turn_type == "drug_attribute" and "dùng trong" not in message:
        assert frame.attribute == "tac_dung_khong_mong_muon"
    if "clopidogrel" in message:
        assert frame.patient_context.current_medications  # the patient's medicine, kept as context


@pytest.mark.parametrize(
    ("message", "asked", "background"),
    [
        ("Bệnh nhân hen bị đau đầu thì dùng thuốc gì?", "đau đầu", ("hen",)),
        ("Người bị hen phế quản, đau đầu nên uống thuốc gì?", "đau đầu", ("hen phế quản",)),
        ("Bệnh nhân có tiền sử loét dạ dày bị đau khớp thì dùng thuốc gì?", "đau khớp", ("loét dạ dày",)),
        ("Đau khớp ở người có tiền sử loét dạ dày thì dùng thuốc gì?", "đau khớp", ("loét dạ dày",)),
        ("Tôi bị đau dạ dày, giờ bị sốt thì uống thuốc gì?", "sốt", ("đau dạ dày",)),
        (
            "Thuốc nào điều trị tăng huyết áp cho bệnh nhân đái tháo đường?",
            "tăng huyết áp",
            ("đái tháo đường",),
        ),
        ("Bệnh nhân suy thận bị tăng huyết áp thì dùng thuốc gì?", "tăng huyết áp", ()),  # renal_function
        ("Bị đau răng thì uống thuốc gì?", "đau răng", ()),  # the condition asked is never the patient's
        ("Thuốc nào giúp ngủ ngon?", "mất ngủ", ()),  # everyday words for insomnia
        ("Khó ngủ thì uống thuốc gì?", "mất ngủ", ()),
    ],
)
def test_a_which_drug_question_asks_about_the_complaint_not_the_background(
    resolver: CatalogDrugResolver, message: str, asked: str, background: tuple[str, ...]
) -> None:
    frame = understand_offline(message, resolver)
    assert frame.turn_type in ("symptom_to_drug", "condition_to_drug") and frame.indication == asked
    assert frame.patient_context.comorbidities == background


def test_a_class_asked_with_which_asks_for_a_drug(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline(
        "Mẹ em đang uống Plavix, bị trào ngược dạ dày thực quản thì dùng thuốc dạ dày nào?", resolver
    )
    assert (frame.turn_type, frame.drugs) == ("condition_to_drug", ())
    assert frame.patient_context.current_medications == ("Plavix",)


@pytest.mark.parametrize(
    ("message", "finding"),
    [
        ("Uống captopril có bị ho khan không?", "ho khan"),  # a known condition
        ("Uống metformin lâu có bị rụng tóc không?", "rụng tóc"),  # words no table names
        ("Dùng amlodipin có thể bị phù chân không?", "phù"),
        ("Clarityne có buồn ngủ không?", "buồn ngủ"),  # a symptom had right after the drug
        # a condition whose own name starts with an effect verb is had, not wanted
        ("Diamicron có hạ đường huyết không", "hạ đường huyết"),
    ],
)
def test_what_one_may_get_from_a_named_drug_is_its_reaction(
    resolver: CatalogDrugResolver, message: str, finding: str
) -> None:
    frame = understand_offline(message, resolver)
    assert (frame.turn_type, frame.attribute, frame.condition_relation) == (
        "drug_attribute",
        "tac_dung_khong_mong_muon",
        "adverse_effect",
    )
    assert frame.condition is not None and frame.condition.normalized == finding
    # what the drug may bring on is never the patient's own condition
    assert frame.patient_context.comorbidities == ()


@pytest.mark.parametrize(
    ("message", "finding"),
    [
        # a narrowing word ends it
        ("Enalapril có làm tụt huyết áp sau lần uống đầu tiên không?", "tụt huyết áp"),
        ("Metronidazol có làm đắng miệng, tanh kim loại không vậy?", "đắng miệng"),  # its clause ends it
        ("Spironolacton uống lâu có làm đàn ông bị to ngực không?", "to ngực"),  # not who gets it
    ],
)
def test_a_finding_no_table_names_is_its_own_words(
    resolver: CatalogDrugResolver, message: str, finding: str
) -> None:
    frame = understand_offline(message, resolver)
    assert frame.condition_relation == "adverse_effect"
    assert frame.condition is not None and frame.condition.text == finding


def test_has_or_gets_before_any_drug_is_the_patients_condition(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("Người có bị hen dùng paracetamol được không?", resolver)
    assert frame.condition_relation != "adverse_effect"
    assert frame.patient_context.comorbidities == ("hen",)


def test_a_lowered_faculty_is_a_harm_not_a_use(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("Meloxicam có làm giảm khả năng thụ thai không?", resolver)
    assert (frame.attribute, frame.condition_relation) == ("tac_dung_khong_mong_muon", "adverse_effect")
    assert frame.condition is not None and frame.condition.text == "giảm khả năng thụ thai"
    # a wanted effect on no faculty and no known condition still names no section
    assert understand_offline("Carbocistein có làm loãng đờm không?", resolver).attribute is None


@pytest.mark.parametrize(
    ("message", "finding"),
    [
        ("Colchicin có làm đi ngoài không?", "tiêu chảy"),  # the formulary's word for it
        ("Amlodipin có gây phù mắt cá chân không?", "phù"),
        # "non" of "sinh non" is no "nôn" typed without marks
        ("Furosemid dùng kéo dài cho trẻ sinh non có gây lắng đọng calci ở thận không?", None),
    ],
)
def test_the_finding_asked_is_read_in_the_formularys_words(
    resolver: CatalogDrugResolver, message: str, finding: str | None
) -> None:
    frame = understand_offline(message, resolver)
    assert frame.condition_relation == "adverse_effect"
    assert frame.condition is not None and frame.condition.normalized == finding
    if finding is None:
        assert frame.condition.text == "lắng đọng calci ở thận"


def test_conditions_asked_of_no_one_are_what_is_asked_not_a_patients(resolver: CatalogDrugResolver) -> None:
    # no patient told: "hạ acid uric" is asked, never a comorbidity that labels allopurinol
    asked = understand_offline("thuốc nào trong danh mục dùng cho gút: cắt cơn và hạ acid uric?", resolver)
    assert asked.patient_context.comorbidities == ()
    # someone told: the other condition is theirs
    told = understand_offline("BN hen phế quản, đau khớp dùng thuốc gì", resolver)
    assert told.patient_context.comorbidities == ("hen phế quản",)


def test_a_symptom_named_with_the_effect_wanted_is_what_the_drug_is_for(
    resolver: CatalogDrugResolver,
) -> None:
    for message in ("Hapacol có hạ sốt cho bé được không?", "Seduxen có giúp ngủ được không?"):
        frame = understand_offline(message, resolver)
        assert (frame.turn_type, frame.attribute) == ("drug_to_condition", "chi_dinh")

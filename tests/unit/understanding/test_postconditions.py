"""The post-conditions: a scripted provider's frame rewritten where a model reverses the requested
relation, and the which-drug questions they decide for the offline provider."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.understanding.candidates import Turn, tagged_turn
from duocthu.understanding.cues import ends_finding
from duocthu.understanding.lexicon import formulary_wording
from duocthu.understanding.pipeline import understand_offline
from duocthu.understanding.postconditions import apply_postconditions
from duocthu.understanding.tags import MessageReader

from tests.factories import resolved_ids


def _turn(resolver: CatalogDrugResolver, message: str, prior: QueryFrame | None = None) -> Turn:
    return tagged_turn(MessageReader(resolver), message, (), prior)


@pytest.mark.parametrize(
    ("message", "model_says", "turn_type", "relation"),
    [
        # reverse relation: "which drug causes / is contraindicated in X" is never an indication lookup
        ("Thuốc nào gây ho khan?", "condition_to_drug", "condition_relation", "adverse_effect"),
        ("thuoc nao gay tao bon", "symptom_to_drug", "condition_relation", "adverse_effect"),
        (
            "Thuốc nào chống chỉ định trong loét dạ dày?",
            "condition_to_drug",
            "condition_relation",
            "contraindication",
        ),
        # a known condition + a candidate cue: which drugs are indicated
        ("Tăng huyết áp dùng thuốc gì?", "drug_attribute", "condition_to_drug", "indication"),
        ("Bị tiêu chảy uống thuốc gì?", "out_of_scope", "symptom_to_drug", "indication"),
        # a broad disease -> drug question with no named drug
        ("Thuốc điều trị đái tháo đường type 2", "out_of_scope", "condition_to_drug", "indication"),
    ],
)
def test_reverse_lookup_postconditions(
    resolver: CatalogDrugResolver, message: str, model_says: str, turn_type: str, relation: str
) -> None:
    frame = QueryFrame(turn_type=model_says, needs_clarify=True, clarify_reason="?")  # type: ignore[arg-type]
    fixed = apply_postconditions(frame, _turn(resolver, message))
    assert (fixed.turn_type, fixed.condition_relation) == (turn_type, relation)
    assert fixed.drugs == () and not fixed.needs_clarify and fixed.condition is not None


@pytest.mark.parametrize(
    ("message", "turn_type", "attribute", "relation"),
    [
        ("Paracetamol có tác dụng gì?", "drug_to_condition", "chi_dinh", None),
        ("Metformin dùng để làm gì?", "drug_to_condition", "chi_dinh", None),
        ("Captopril có gây ho khan không?", "drug_attribute", "tac_dung_khong_mong_muon", "adverse_effect"),
        ("Ibuprofen có chống chỉ định với người loét dạ dày?", "drug_attribute", "chong_chi_dinh", None),
    ],
)
def test_named_drug_postconditions(
    resolver: CatalogDrugResolver, message: str, turn_type: str, attribute: str, relation: str | None
) -> None:
    drug = resolved_ids(resolver, message)
    frame = QueryFrame(turn_type="drug_overview", drugs=drug)
    fixed = apply_postconditions(frame, _turn(resolver, message))
    assert (fixed.turn_type, fixed.attribute, fixed.condition_relation) == (turn_type, attribute, relation)
    assert fixed.drugs == drug


def test_a_medicine_the_patient_takes_is_context_not_the_drug_asked_about(
    resolver: CatalogDrugResolver,
) -> None:
    # A model that reads the one named drug as the subject is corrected by the post-condition.
    message = "Tôi đang uống warfarin, bị đau đầu thì nên dùng thuốc gì?"
    frame = QueryFrame(turn_type="drug_attribute", drugs=("warfarin",))
    fixed = apply_postconditions(frame, _turn(resolver, message))
    assert (fixed.turn_type, fixed.drugs, fixed.condition_relation) == ("symptom_to_drug", (), "indication")
    assert fixed.condition is not None and fixed.condition.normalized == "đau đầu"
    # ... and only when every named drug is one the patient already takes
    both = "Đang dùng warfarin, có dùng aspirin được không?"
    interaction = QueryFrame(turn_type="interaction", drugs=("warfarin", "acid_acetylsalicylic"))
    assert apply_postconditions(interaction, _turn(resolver, both)) == interaction
    # ... and only when a condition is asked about
    about_it = "Bệnh nhân đang dùng warfarin, thuốc nào tương tác?"
    own = QueryFrame(turn_type="drug_attribute", drugs=("warfarin",), attribute="tuong_tac_thuoc")
    assert apply_postconditions(own, _turn(resolver, about_it)) == own


def test_postconditions_leave_other_turns_alone_and_never_add_a_drug(resolver: CatalogDrugResolver) -> None:
    frame = QueryFrame(turn_type="drug_attribute", drugs=("ibuprofen",), attribute="than_trong")
    assert apply_postconditions(frame, _turn(resolver, "Ibuprofen cần thận trọng gì?")) == frame
    # a named drug switches the reverse rules off: "thuốc nào" here is about ibuprofen
    frame = QueryFrame(turn_type="interaction", drugs=("ibuprofen",), attribute="tuong_tac_thuoc")
    assert apply_postconditions(frame, _turn(resolver, "Ibuprofen tương tác với thuốc nào?")) == frame
    for message in ("Thuốc nào gây ho khan?", "Tăng huyết áp dùng thuốc gì?", "Paracetamol có tác dụng gì?"):
        fixed = apply_postconditions(QueryFrame(turn_type="out_of_scope"), _turn(resolver, message))
        assert fixed.drugs == ()


@pytest.mark.parametrize(
    ("message", "condition"),
    [
        ("Người bị gút nên tránh thuốc lợi tiểu nào?", "gút"),
        ("Bị hen thì kiêng thuốc gì?", "hen"),
        # the class the question names is not the patient's condition
        ("Người suy thận không nên dùng thuốc giảm đau nào?", "suy thận"),
        ("Phụ nữ có thai không nên dùng thuốc hạ sốt nào?", None),
        ("Thuốc giảm đau nào gây loét dạ dày?", "loét dạ dày"),
        ("Thuốc nào không dùng cho trẻ dưới 12 tuổi?", None),
        # gapped forms: a class or a population inside the question form
        ("Tăng kali máu thì chống chỉ định thuốc lợi tiểu nào?", "tăng kali máu"),
        ("Mẹ bầu 3 tháng đầu phải kiêng kháng sinh nào ạ?", None),
        ("Bị hen suyễn thì những thuốc huyết áp nào là CCĐ?", "hen"),
        # "nào … tránh" in any words between; a class before "nào" is no indication
        ("Kháng sinh nào cần tránh ở BN QT kéo dài bẩm sinh?", "khoảng QT kéo dài"),
        # who the drugs are asked for, after the form: a condition told before it is the patient's
        ("Mẹ bị ĐTĐ: thuốc nào không dùng khi cho con bú?", None),
        # the finding the which-drug form names after it is asked; one told before it is the patient's
        ("BN gút, đang sốt. Thuốc nào chống chỉ định ở suy thận?", "suy thận"),
        ("Ông bị đái tháo đường, hay mất ngủ. Những thuốc nào phải tránh khi suy gan?", "suy gan"),
        # a carrier of an allele is a finding the book's contraindications name
        ("Thuốc nào CCĐ ở người mang alen HLA-B?", "alen HLA"),
    ],
)
def test_which_drugs_to_avoid_is_never_an_indication_lookup(
    resolver: CatalogDrugResolver, message: str, condition: str | None
) -> None:
    # Listing the drugs that treat gout for "which to avoid in gout" would invert the answer.
    frame = understand_offline(message, resolver)
    assert frame.turn_type == "condition_relation" and frame.condition_relation != "indication"
    assert (frame.condition.normalized if frame.condition else None) == condition


@pytest.mark.parametrize(
    ("question", "relation"),
    [
        ("Ho khan về đêm mấy tuần nay, có thuốc nào làm giảm ho không?", "indication"),
        ("Những thuốc nào có thể dẫn đến suy thận cấp?", "adverse_effect"),
        ("Hay bị ho khan khi uống thuốc huyết áp nào?", "adverse_effect"),
        ("ADR giảm bạch cầu hạt gặp ở thuốc nào?", "adverse_effect"),
        ("Thuốc nào có hại cho người bị suy tim?", "contraindication"),
        # which drugs change another's effect: a list no section holds, said so
        ("Thuốc nào làm giảm tác dụng của thuốc tránh thai?", "unknown"),
        ("Thuốc nào tương tác với rượu?", "unknown"),
    ],
)
def test_the_direction_of_a_which_drug_question(
    resolver: CatalogDrugResolver, question: str, relation: str
) -> None:
    frame = understand_offline(question, resolver)
    assert (frame.drugs, frame.condition_relation) == ((), relation)


def test_which_drug_is_safe_for_a_patient_is_no_indication_lookup(resolver: CatalogDrugResolver) -> None:
    safe = understand_offline("Thuốc nào an toàn cho người suy thận?", resolver)
    assert (safe.turn_type, safe.condition_relation) == ("condition_relation", "unknown")
    # "dùng cho người tăng huyết áp" is what treats them; a patient's disease to treat stays one
    for message in (
        "Thuốc nào dùng cho người tăng huyết áp?",
        "Bệnh nhân suy tim có phù nhiều, lựa chọn thuốc nào?",
    ):
        frame = understand_offline(message, resolver)
        assert (frame.turn_type, frame.condition_relation) == ("condition_to_drug", "indication"), message


def test_a_safe_list_for_a_population_and_a_worry_about_a_reaction(resolver: CatalogDrugResolver) -> None:
    for message in (
        "Thuốc kháng sinh nào dùng được cho trẻ em?",
        "Thuốc nào dùng được cho người dị ứng penicilin?",  # an allergy is such a patient too
    ):
        safe = understand_offline(message, resolver)
        assert (safe.turn_type, safe.condition_relation, safe.needs_clarify) == (
            "condition_relation",
            "unknown",
            False,
        ), message
    # "có sao không" asks whether the reaction is expected and how serious: the adverse reactions
    # (every writer of the direction sets labelled it so); "xử trí sao" asks what to do
    worry = understand_offline("Uống amoxicilin bị tiêu chảy có sao không?", resolver)
    assert (worry.drugs, worry.attribute) == (("amoxicilin",), "tac_dung_khong_mong_muon")
    handle = understand_offline("Uống amoxicilin bị tiêu chảy thì xử trí sao?", resolver)
    assert handle.attribute == "huong_dan_cach_xu_tri_adr"
    alternate = understand_offline("Có thể dùng paracetamol và ibuprofen xen kẽ cho trẻ không?", resolver)
    assert alternate.turn_type == "interaction"


def test_what_drugs_bring_on_is_asked_after_the_cue_not_the_patients_condition(
    resolver: CatalogDrugResolver,
) -> None:
    frame = understand_offline("Người bị hen dùng thuốc nào có thể bị co thắt phế quản?", resolver)
    assert (frame.condition_relation, frame.condition and frame.condition.normalized) == (
        "adverse_effect",
        "co thắt phế quản",
    )
    # the gapped contraindication form is not taken for "có thể bị" + a reaction
    assert understand_offline("Thuốc nào có thể bị cấm cho bà bầu?", resolver).condition_relation == (
        "contraindication"
    )


def test_whether_a_class_brings_something_on_lists_the_drugs_that_do(resolver: CatalogDrugResolver) -> None:
    # "thuốc giảm đau có gây loét dạ dày không?" had listed the drugs that treat pain
    for message, condition in (
        ("Thuốc giảm đau có gây loét dạ dày không?", "loét dạ dày"),
        ("Kháng sinh có làm tiêu chảy không?", "tiêu chảy"),
    ):
        frame = understand_offline(message, resolver)
        assert frame.condition_relation == "adverse_effect", message
        assert frame.condition is not None and frame.condition.normalized == condition
    # "thuốc này" with no drug before it: which drug is asked back, never a drug for drowsiness
    alone = understand_offline("Thuốc này có gây buồn ngủ không?", resolver)
    assert alone.needs_clarify and alone.condition_relation is None


def test_a_relieving_verb_asks_what_treats_not_what_causes(resolver: CatalogDrugResolver) -> None:
    # "làm giảm đau" / "làm hạ sốt": drugs for pain or fever, never the drugs that cause them
    for question, normalized in (
        ("Thuốc nào làm giảm đau nhanh?", "đau"),
        ("Thuốc nào làm hạ sốt cho trẻ?", "sốt"),
        # a measure lowered is the disease it is high in: not a reaction "giảm cholesterol"
        ("Thuốc nào làm giảm cholesterol?", "tăng cholesterol máu"),
        ("Thuốc nào làm hạ men gan?", "tăng men gan"),
        ("Có thuốc nào làm dịu ho không?", "ho"),
    ):
        frame = understand_offline(question, resolver)
        assert frame.condition_relation == "indication", question
        assert frame.condition is not None and frame.condition.normalized == normalized
    # a condition whose own name starts with such a verb is still caused
    for question in (
        "Thuốc nào gây hạ đường huyết?",
        "thuốc gì uống vào có thể làm kéo dài khoảng QT",
        "Thuốc nào gây tăng cholesterol?",
        "Uống thuốc nào dễ bị tiêu chảy?",
    ):
        frame = understand_offline(question, resolver)
        assert (frame.turn_type, frame.condition_relation) == ("condition_relation", "adverse_effect"), (
            question
        )


def test_which_drugs_lower_a_measure_is_asked_back(resolver: CatalogDrugResolver) -> None:
    # "làm hạ huyết áp": what an antihypertensive is for, or hypotension as a reaction
    for message in ("Thuốc nào làm hạ huyết áp?", "thuoc nao khien ha huyet ap"):
        frame = understand_offline(message, resolver)
        assert frame.needs_clarify, message
        assert len(frame.quick_replies) == 2, message
        # each offered reply reads one way only
        use, reaction = (understand_offline(reply, resolver) for reply in frame.quick_replies)
        assert (use.condition_relation, use.needs_clarify) == ("indication", False)
        assert (reaction.condition_relation, reaction.needs_clarify) == ("adverse_effect", False)
    # a typed answer picks a reading as its button would
    asked = understand_offline("Thuốc nào làm hạ huyết áp?", resolver)
    history = ("Thuốc nào làm hạ huyết áp?",)
    for answer, relation in (("để điều trị", "indication"), ("tác dụng phụ", "adverse_effect")):
        frame = understand_offline(answer, resolver, history, asked)
        assert (frame.condition_relation, frame.needs_clarify) == (relation, False), answer
    # "cả hai" is asked again, saying each answer reads one way; a reading typed after still picks
    again = understand_offline("cả hai", resolver, history, asked)
    assert again.needs_clarify and again.quick_replies == asked.quick_replies
    assert again.clarify_reason and again.clarify_reason.endswith(asked.clarify_reason or "?")
    later = (*history, "cả hai")
    assert understand_offline("ca 2", resolver, later, again).clarify_reason == again.clarify_reason
    picked = understand_offline("tác dụng phụ", resolver, later, again)
    assert (picked.condition_relation, picked.needs_clarify) == ("adverse_effect", False)
    # "gây" says reaction, "hạ sốt" names no reaction, a raised measure is no use
    for message, relation in (
        ("Thuốc nào gây hạ huyết áp?", "adverse_effect"),
        ("Thuốc nào làm hạ sốt?", "indication"),
        ("Thuốc nào làm tăng huyết áp?", "adverse_effect"),
    ):
        frame = understand_offline(message, resolver)
        assert (frame.condition_relation, frame.needs_clarify) == (relation, False), message


def test_words_typed_without_marks_keep_their_direction(resolver: CatalogDrugResolver) -> None:
    # "cam" is cấm, cầm or the end of "trầm cảm": a which-drugs question keeps what it asks
    for message, relation in (
        ("Tieu chay tu sang toi gio, co thuoc nao cam tieu chay hong?", "indication"),  # cầm
        ("Lua chon thuoc nao cho tram cam?", "indication"),  # trầm cảm
        ("thuoc nao cam dung cho nguoi tram cam", "contraindication"),  # cấm
    ):
        assert understand_offline(message, resolver).condition_relation == relation, message
    for message in ("ibuprofen cấm dùng cho người bị bệnh gì", "aspirin cam xai cho nguoi bi benh gi dzay"):
        assert understand_offline(message, resolver).attribute == "chong_chi_dinh", message
    assert understand_offline("Ban la ai dzay?", resolver).turn_type == "smalltalk"


def test_words_after_a_findings_name_narrow_a_which_drugs_cause_question(
    resolver: CatalogDrugResolver,
) -> None:
    for message, normalized, subtype in (
        ("Thuốc nào gây chảy máu cam?", "chảy máu", "cam"),
        ("Thuốc nào gây chảy máu cam hả bác sĩ?", "chảy máu", "cam"),
        ("Thuốc nào gây suy thận cấp?", "suy thận", "cấp"),
        # a preposition, the question's tail or a question form ends the narrowing words
        ("Thuốc nào gây chảy máu ở người già?", "chảy máu", None),
        ("Thuốc nào gây chảy máu không?", "chảy máu", None),
        # a contraindication in "suy gan" holds in "suy gan nặng": never narrowed
        ("Người bị suy gan nặng không được dùng thuốc nào?", "suy gan", None),
    ):
        condition = understand_offline(message, resolver).condition
        assert condition is not None, message
        assert (condition.normalized, condition.subtype) == (normalized, subtype), message
    # a finding no table names ends at the question's particles, matched as written: folded, "hả"
    # would end at "hạ", "đây" at "dạ dày", "ạ" at vitamin A
    for message, finding in (
        ("Những thuốc nào gây rụng tóc hả bác sĩ?", "rụng tóc"),
        ("thuoc nao gay thieu vitamin a khong", "thieu vitamin a"),
        ("Thuốc nào gây thiếu vitamin K hả bác sĩ?", "thiếu vitamin k"),
    ):
        condition = understand_offline(message, resolver).condition
        assert condition is not None and condition.text == finding, message
    assert ends_finding("hả") and not ends_finding("hạ") and not ends_finding("ha")
    assert ends_finding("đây") and not ends_finding("day")
    assert ends_finding("ở", narrowing=True) and not ends_finding("ở")


@pytest.mark.parametrize(
    ("message", "turn_type", "condition"),
    [
        # a list asked in the plural, no "nào": the same which-drug question as "thuốc nào …"
        (
            "Liệt kê giúp các thuốc có chỉ định tăng huyết áp trong danh mục",
            "condition_to_drug",
            "tăng huyết áp",
        ),
        ("Những thuốc có chỉ định tăng huyết áp?", "condition_to_drug", "tăng huyết áp"),
        # the book referred to and the later part of a gapped form are no part of the condition
        ("NSAID nào trong DT CCĐ 3 tháng cuối thai kỳ?", "condition_relation", "3 tháng cuối thai kỳ"),
        # a listing goes on with a which-drugs form as "thuốc nào" does, for a population
        (
            "Liệt kê giúp mình những thuốc sách ghi rõ KHÔNG dùng khi cho con bú",
            "condition_relation",
            "con bú",
        ),
        # the book's entries for drugs are asked for as drugs are
        (
            "Liệt kê các chuyên luận có mục thận trọng nhắc đến hạ natri máu",
            "condition_relation",
            "hạ natri máu",
        ),
    ],
)
def test_which_drug_without_nao(
    resolver: CatalogDrugResolver, message: str, turn_type: str, condition: str
) -> None:
    frame = understand_offline(message, resolver)
    assert (frame.turn_type, frame.drugs, frame.needs_clarify) == (turn_type, (), False)
    assert frame.condition is not None and frame.condition.text == condition


@pytest.mark.parametrize(
    "message",
    [
        "Các thuốc này có tương tác không?",  # drugs named before: a pronoun, not a list
        "Benzyl benzoate có làm thay đổi tác dụng của các thuốc khác khi dùng chung không?",
        "dùng warfarin với các thuốc chống viêm được không",  # a drug named: what it is taken with
    ],
)
def test_a_plural_beside_other_drugs_asks_no_list(resolver: CatalogDrugResolver, message: str) -> None:
    frame = understand_offline(message, resolver)
    assert frame.turn_type not in ("condition_to_drug", "condition_relation", "symptom_to_drug")


def test_the_book_named_inside_a_which_drug_question_changes_nothing(resolver: CatalogDrugResolver) -> None:
    # where to look ("trong sách", "trong 40 thuốc này") sits between the parts of the question's
    # form; read as nothing, the question reads as it would without it
    for plain, with_book in [
        ("thuốc nào có ADR đứt gân?", "thuốc nào trong dược thư có ADR đứt gân?"),
        ("Thuốc nào gây tăng kali huyết?", "Thuốc nào trong sách gây tăng kali huyết?"),
    ]:
        said, reference = (understand_offline(m, resolver) for m in (plain, with_book))
        assert (reference.turn_type, reference.condition_relation) == (
            said.turn_type,
            said.condition_relation,
        )
        assert reference.condition == said.condition
    # whether a drug is in the book is asked, and stays so
    assert "trong Dược thư" in formulary_wording("Aspirin có trong Dược thư không?")


def test_a_which_drug_question_asks_about_the_topic_its_thi_closes(resolver: CatalogDrugResolver) -> None:
    # a condition no table names, said before "thì", is what the list is about (never the book)
    for message in (
        "porphyria thì tránh thuốc nào trong 40 thuốc này?",
        "người bị porphyria thì tránh thuốc nào",
    ):
        frame = understand_offline(message, resolver)
        assert frame.condition is not None and frame.condition.text == "porphyria"
        assert frame.condition_relation == "contraindication"


def test_a_pregnancy_told_by_its_stage_is_who_the_list_is_for(resolver: CatalogDrugResolver) -> None:
    # the stage alone says the patient is pregnant, as "có thai" does: no finding "thai 34 tuần"
    for message in ("Thai 34 tuần: thuốc nào chống chỉ định?", "sản phụ 32w thì thuốc nào chống chỉ định"):
        frame = understand_offline(message, resolver)
        assert frame.patient_context.pregnancy is True
        assert frame.condition is None and frame.condition_relation == "contraindication"


def test_words_pointing_back_name_no_finding(resolver: CatalogDrugResolver) -> None:
    # "ở giai đoạn này", "ở tuổi này": the state told before, no finding of their own
    frame = understand_offline("Thai 34 tuần: thuốc nào chống chỉ định ở giai đoạn này?", resolver)
    assert frame.condition is None and frame.patient_context.pregnancy is True
    message = "Bé 2 tháng: trong ibuprofen, paracetamol, thuốc nào không dùng ở tuổi này?"
    frame = understand_offline(message, resolver)
    assert frame.condition is None and frame.population == "tre_em"


def test_a_which_drug_question_asks_about_the_topic_its_opening_lead_in_names(
    resolver: CatalogDrugResolver,
) -> None:
    # "Nhược cơ: …" heads the message as "Trẻ em: …" heads a paragraph of the book
    frame = understand_offline("Nhược cơ: trong 40 thuốc này, thuốc nào bị chống chỉ định?", resolver)
    assert frame.condition is not None and frame.condition.text == "nhược cơ"
    assert frame.condition_relation == "contraindication"


def test_a_topic_naming_a_told_condition_is_asked_not_a_patient_fact(resolver: CatalogDrugResolver) -> None:
    # the list's subject, not also a fact about a patient to check the list against
    topic = understand_offline("Người thiếu G6PD từng tan máu: thuốc giảm đau nào bị CCĐ?", resolver)
    assert topic.condition_relation == "contraindication"
    assert topic.condition is not None and "g6pd" in topic.condition.text.lower()
    assert not topic.patient_context.comorbidities


def test_a_which_drug_question_naming_a_section_by_the_word_for_one_reads_that_section(
    resolver: CatalogDrugResolver,
) -> None:
    frame = understand_offline("Các thuốc có nhắc tiêu cơ vân trong mục thận trọng", resolver)
    assert (frame.turn_type, frame.condition_relation) == ("condition_relation", "unknown")
    # the uses asked by their section's name stay a list of uses
    uses = understand_offline("Thuốc nào có tăng huyết áp trong mục chỉ định?", resolver)
    assert uses.turn_type == "condition_to_drug"


def test_a_finding_read_after_its_cue_ends_with_its_sentence(resolver: CatalogDrugResolver) -> None:
    # the words after "gây" up to the sentence's end, never the next sentence's request
    message = "Đang Coumadin, có gây tê tủy sống. Nhắc lại giúp tôi dược thư nói gì về warfarin?"
    frame = understand_offline(message, resolver)
    assert frame.condition is not None and frame.condition.text == "tê tủy sống"


def test_a_section_named_after_the_which_word_is_the_relation(resolver: CatalogDrugResolver) -> None:
    # the reactions named after the finding ("… chuột rút là TDKMM"): which drugs cause it, never
    # which treat it; with no section named, the which-word asks what treats it
    frame = understand_offline("trong danh mục có thuốc nào liệt kê chuột rút là TDKMM?", resolver)
    assert frame.condition_relation == "adverse_effect"
    assert frame.condition is not None and frame.condition.normalized == "chuột rút"
    frame = understand_offline("thuốc nào có trong danh mục để trị chuột rút?", resolver)
    assert frame.condition_relation == "indication"


def test_a_class_asked_among_names_the_drugs_not_the_patients_finding(resolver: CatalogDrugResolver) -> None:
    # "thuốc giảm đau hạ sốt nào" names the drugs asked among; the condition told of the patient is
    # what they are asked about: never "sốt"
    frame = understand_offline("Thiếu G6PD thì những thuốc giảm đau hạ sốt nào bị CCĐ?", resolver)
    assert frame.condition is not None and frame.condition.text == "thiếu g6pd"
    # with no condition told, the class's finding is what is asked ("thuốc hạ sốt nào cho bé")
    frame = understand_offline("thuốc hạ sốt nào dùng được cho bé 2 tháng?", resolver)
    assert frame.condition is not None and frame.condition.normalized == "sốt"


def test_a_condition_told_is_what_a_list_naming_no_finding_is_asked_about(
    resolver: CatalogDrugResolver,
) -> None:
    frame = understand_offline("HS có thiếu men G6PD, từng tan máu. Thuốc nào bị chống chỉ định?", resolver)
    assert frame.condition_relation == "contraindication"
    assert frame.condition is not None and "g6pd" in frame.condition.text.casefold()
    assert not frame.patient_context.comorbidities


def test_a_past_reaction_told_is_what_a_list_naming_no_finding_is_asked_about(
    resolver: CatalogDrugResolver,
) -> None:
    # the reaction without its cause: the contraindications name "hen", not "hen (aspirin)"
    message = "BN hen do aspirin (lên cơn sau uống aspirin). Những thuốc giảm đau nào bị CCĐ?"
    frame = understand_offline(message, resolver)
    assert frame.condition_relation == "contraindication"
    assert frame.condition is not None and frame.condition.text == "hen"
    assert not frame.patient_context.adverse_reactions


def test_a_list_asked_for_the_patient_told_is_asked_about_their_state(resolver: CatalogDrugResolver) -> None:
    # "cho bé" names who the list is for, the child told; its state, not the word "bé", is asked,
    # and the class "hạ sốt giảm đau" is the drugs asked among, never a state of the child's
    message = "bé trai 6t thiếu men G6PD, từng tán huyết. Thuốc hạ sốt giảm đau nào trong list bị CCĐ cho bé?"
    frame = understand_offline(message, resolver)
    assert frame.condition_relation == "contraindication"
    assert frame.condition is not None and frame.condition.text == "thiếu men G6PD"
    assert frame.population is None and frame.age_text == "6 tuổi"
    assert not frame.patient_context.comorbidities


def test_a_list_pointing_back_at_who_the_patient_is_asks_that(resolver: CatalogDrugResolver) -> None:
    # "ở mức thận này": the kidney function told, not the diabetes told beside it
    message = "ĐTĐ típ 2, eGFR 25. Thuốc uống hạ đường huyết nào trong list CCĐ ở mức thận này?"
    frame = understand_offline(message, resolver)
    assert frame.condition is None and frame.population == "suy_than"
    # "ở tuổi này": the age told, not the fever told beside it
    message = "Bé 2 tháng tuổi sốt 38,5. Thuốc hạ sốt – giảm đau nào không được dùng ở tuổi này?"
    frame = understand_offline(message, resolver)
    assert frame.condition is None and frame.population == "tre_em"
    # pointing back with no one told: the condition told is asked
    message = (
        "Lỵ trực khuẩn Shigella: thuốc nào có chỉ định? Và thuốc nào chống chỉ định trong trường hợp này?"
    )
    frame = understand_offline(message, resolver)
    assert frame.condition is not None and "shigella" in frame.condition.text


def test_a_pregnancy_stage_after_the_form_is_asked_not_the_complaint_told(
    resolver: CatalogDrugResolver,
) -> None:
    # "mua thuốc đau răng" tells what the drugs are for; "cấm ở 3 tháng cuối" is what the list asks
    message = "khách bầu 34 tuần hỏi mua thuốc đau răng. loại nào cấm ở 3 tháng cuối?"
    frame = understand_offline(message, resolver)
    assert frame.condition is not None and "đau răng" not in frame.condition.text
    assert frame.patient_context.pregnancy_stage == "3 tháng cuối"


def test_a_complaint_beside_medicines_taken_is_what_the_drugs_are_for(resolver: CatalogDrugResolver) -> None:
    # "tránh thuốc giảm đau nào" of a patient on warfarin with a headache: the drugs that treat the
    # headache, checked against warfarin; never "drugs contraindicated in a headache"
    frame = understand_offline("BN đang warfarin, bị đau đầu, nên tránh thuốc giảm đau nào?", resolver)
    assert (frame.turn_type, frame.condition_relation) == ("symptom_to_drug", "indication")
    assert frame.patient_context.current_medications == ("warfarin",)
    # the medicine told in an earlier turn counts too (read after the merge)
    prior = understand_offline("BN nữ 63t van tim cơ học, đang Coumadin, INR ổn định.", resolver)
    first = "BN nữ 63t van tim cơ học, đang Coumadin, INR ổn định."
    later = understand_offline(
        "BN bị đau khớp gối cấp. Trong list tránh thuốc nào?", resolver, [first], prior
    )
    assert later.turn_type == "symptom_to_drug"
    # a state of the patient's own is what a list to avoid asks about
    asthma = understand_offline("BN hen đang warfarin, bị đau đầu, tránh thuốc giảm đau nào?", resolver)
    assert asthma.turn_type == "condition_relation"

"""Follow-ups keep their context both ways: a conversation sent as history (no prior frame) gives
the frames a session gives; a word for the drug binds to the prior drug; an animal's conversation
stays declined until the user says the question is about a person."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.models.frame import QueryFrame
from duocthu.understanding.pipeline import understand, understand_offline
from duocthu.understanding.scope import conversation_scope, kept_non_human, says_person

from tests.unit.understanding.turns import Scripted

CONVERSATIONS = [
    ("Liều paracetamol cho người lớn là bao nhiêu?", "còn trẻ em thì sao?"),
    ("Warfarin dùng chung với aspirin được không?", "thế còn ibuprofen?"),
    ("Allopurinol có tác dụng phụ gì?", "xử trí thế nào?"),
    (
        "Chỉ định của clopidogrel?",
        "Nó có chống chỉ định gì không?",
        "thuốc đó uống chung với omeprazol được không?",
    ),
    ("Con mèo nhà tôi bị sốt, cho uống paracetamol được không?", "thế dùng ibuprofen được không?"),
]


def both_ways(
    resolver: CatalogDrugResolver, turns: tuple[str, ...]
) -> tuple[list[QueryFrame], list[QueryFrame]]:
    stateless, session, prior = [], [], None
    for i, message in enumerate(turns):
        stateless.append(understand_offline(message, resolver, turns[:i]))
        prior = understand_offline(message, resolver, turns[:i], prior)
        session.append(prior)
    return stateless, session


@pytest.mark.parametrize("turns", CONVERSATIONS)
def test_history_without_a_prior_frame_gives_the_sessions_frames(
    resolver: CatalogDrugResolver, turns: tuple[str, ...]
) -> None:
    stateless, session = both_ways(resolver, turns)
    assert stateless == session


def test_the_section_asked_is_kept_when_sent_as_history(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline(
        "còn trẻ em thì sao?", resolver, ["Liều paracetamol cho người lớn là bao nhiêu?"]
    )
    assert (frame.drugs, frame.attribute, frame.population) == (
        ("paracetamol",),
        "lieu_luong_va_cach_dung",
        "tre_em",
    )
    managed = understand_offline("xử trí thế nào?", resolver, ["Allopurinol có tác dụng phụ gì?"])
    assert (managed.drugs, managed.attribute) == (("allopurinol",), "huong_dan_cach_xu_tri_adr")


def test_a_carried_prior_frame_is_used_as_given(resolver: CatalogDrugResolver) -> None:
    prior = QueryFrame(turn_type="drug_attribute", drugs=["ibuprofen"], attribute="chong_chi_dinh")
    frame = understand_offline("thế còn diclofenac?", resolver, ["Liều paracetamol?"], prior)
    assert (frame.drugs, frame.attribute) == (("diclofenac",), "chong_chi_dinh")


def test_a_provider_that_does_not_rebuild_priors_sees_the_history_lines_only(
    resolver: CatalogDrugResolver,
) -> None:
    provider = Scripted({"turn_type": "drug_attribute", "drugs": ["paracetamol"], "attribute": "chi_dinh"})
    understand("còn trẻ em thì sao?", resolver, provider, Deadline.after(5), ["Liều paracetamol?"])
    assert len(provider.turns) == 1  # one call: the history is not replayed through a model
    assert provider.turns[0].prior is None and provider.turns[0].history == ("Liều paracetamol?",)


@pytest.mark.parametrize(
    ("before", "message", "pair"),
    [
        (
            "Warfarin có tác dụng phụ gì?",
            "nó dùng chung với aspirin được không?",
            {"warfarin", "acid_acetylsalicylic"},
        ),
        (
            "Fluconazol là thuốc gì?",
            "thuốc này dùng chung với warfarin được không?",
            {"fluconazol", "warfarin"},
        ),
        (
            "Methotrexat liều dùng thế nào?",
            "nó có tương tác với ibuprofen không?",
            {"methotrexat", "ibuprofen"},
        ),
    ],
)
def test_a_word_for_the_drug_binds_to_the_prior_drug(
    resolver: CatalogDrugResolver, before: str, message: str, pair: set[str]
) -> None:
    frame = understand_offline(message, resolver, [before])
    assert (frame.turn_type, set(frame.drugs)) == ("interaction", pair)
    assert frame.standalone_query and frame.standalone_query != message  # the bound drug is said


def test_a_word_for_the_drug_after_a_pair_names_the_first(resolver: CatalogDrugResolver) -> None:
    turns = ["Amiodaron cần thận trọng gì?", "thuốc này uống cùng digoxin có sao không?"]
    frame = understand_offline("còn tác dụng phụ của nó?", resolver, turns)
    assert (frame.drugs, frame.attribute) == (("amiodaron",), "tac_dung_khong_mong_muon")


@pytest.mark.parametrize("message", ["Vậy thay bằng gì cho đỡ đau?", "Thế đổi sang thuốc nào?"])
def test_what_to_use_instead_is_asked_of_the_drugs_named_before(
    resolver: CatalogDrugResolver, message: str
) -> None:
    # a which-word asking for an alternative goes on about the conversation's drugs: no new list
    before = "Ông 82t đang Coumadin, đau gối, con mua Advil. Uống cùng được không?"
    frame = understand_offline(message, resolver, [before])
    assert (frame.turn_type, set(frame.drugs)) == ("interaction", {"warfarin", "ibuprofen"})
    assert frame.depends_on_previous_turn


def test_without_such_a_word_another_drug_is_a_new_topic(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline("aspirin có tác dụng phụ gì?", resolver, ["Warfarin có tác dụng phụ gì?"])
    assert frame.drugs == ("acid_acetylsalicylic",)


def test_a_word_joined_to_nothing_is_the_drug_named_beside_it(resolver: CatalogDrugResolver) -> None:
    before = ["Warfarin có tác dụng phụ gì?"]
    alone = understand_offline("aspirin thì nó có tương tác với thuốc nào?", resolver, before)
    assert (alone.drugs, alone.attribute) == (("acid_acetylsalicylic",), "tuong_tac_thuoc")
    joined = understand_offline("aspirin với nó có tương tác không?", resolver, before)
    assert (joined.turn_type, set(joined.drugs)) == ("interaction", {"warfarin", "acid_acetylsalicylic"})


@pytest.mark.parametrize(
    "turns",
    [
        ["Con mèo nhà tôi bị sốt, cho uống paracetamol được không?", "thế dùng ibuprofen được không?"],
        ["Con chó nhà tôi bị ghẻ", "Thế cho uống prednisolon được không?", "liều bao nhiêu?"],
    ],
)
def test_an_animals_conversation_stays_declined(resolver: CatalogDrugResolver, turns: list[str]) -> None:
    stateless, session = both_ways(resolver, tuple(turns))
    assert all(f.subject_scope == "non_human" and f.turn_type == "out_of_scope" for f in stateless + session)
    assert all(not f.drugs and not f.needs_clarify for f in stateless)


def test_saying_it_is_about_a_person_ends_it(resolver: CatalogDrugResolver) -> None:
    turns = (
        "Con chó nhà tôi bị ghẻ, bôi thuốc gì?",
        "Không phải, tôi hỏi cho tôi: liều prednisolon cho người lớn?",
    )
    stateless, session = both_ways(resolver, turns)
    assert stateless == session
    assert (session[1].subject_scope, session[1].drugs) == ("human", ("prednisolon",))
    after = understand_offline("còn tác dụng phụ?", resolver, turns)
    assert (after.subject_scope, after.drugs) == ("human", ("prednisolon",))


def test_the_kept_scope_reads_history_and_prior() -> None:
    assert kept_non_human(["mèo nhà tôi bị ho"]) and not kept_non_human(
        ["mèo nhà tôi bị ho", "tôi hỏi cho tôi"]
    )
    assert kept_non_human([], "non_human") and not kept_non_human([], "human")
    assert conversation_scope("liều bao nhiêu?", ["cho mèo uống amoxicilin được không"]) == "non_human"
    assert conversation_scope("liều cho người lớn?", ["cho mèo uống amoxicilin được không"]) == "human"
    assert conversation_scope("liều bao nhiêu?", ["bị chó cắn thì sao"]) == "human"  # a bite is a person's
    assert says_person("tôi hỏi cho tôi") and not says_person("mèo nhà tôi")


def test_the_complaint_told_outlives_a_turn_about_a_drug_for_it(resolver: CatalogDrugResolver) -> None:
    turns = (
        "bé gái 18kg, 4 tuổi, viêm tai giữa cấp",
        "amoxicilin liều cao là bao nhiêu mg/kg",
        "thế thì dùng thuốc nào?",
    )
    stateless, session = both_ways(resolver, turns)
    for frames in (stateless, session):
        dose, which = frames[1], frames[2]
        assert dose.drugs == ("amoxicilin",) and dose.condition is None and dose.indication == "viêm tai giữa"
        assert which.turn_type == "condition_to_drug" and which.weight_kg == 18
        assert which.condition is not None and which.condition.normalized == "viêm tai giữa"
    # a turn about a drug with no complaint told before it keeps none
    alone = understand_offline("amoxicilin liều cao là bao nhiêu mg/kg", resolver)
    assert alone.indication is None
    # asking each drug's dose too asks the same list, with the reaction told kept as the patient's
    asked = "Mẹ bé kể lần trước uống Clamoxyl bị phù mặt khó thở. Thế sách cho dùng thuốc nào, liều ra sao?"
    for frames in both_ways(resolver, (*turns[:2], asked)):
        which = frames[2]
        assert which.turn_type == "condition_to_drug" and which.condition is not None
        assert which.condition.normalized == "viêm tai giữa" and which.patient_context.adverse_reactions


def test_the_dose_of_one_drug_of_a_pair_keeps_the_other_beside_it(resolver: CatalogDrugResolver) -> None:
    # "thêm Cordarone", then "liều digoxin?": amiodarone is taken beside, its lines say the dose change
    turns = (
        "suy tim + rung nhĩ, đang Lanoxin 0,25mg/ngày",
        "tim mạch muốn thêm Cordarone để chuyển nhịp",
        "thế liều digoxin phải làm gì?",
    )
    for frames in both_ways(resolver, turns):
        dose = frames[2]
        assert (dose.drugs, dose.attribute) == (("digoxin",), "lieu_luong_va_cach_dung")
        assert "amiodaron" in dose.patient_context.current_medications


def test_the_dose_of_a_medicine_taken_keeps_the_drug_added_to_it(resolver: CatalogDrugResolver) -> None:
    # a drug added to what the patient takes, then the dose of that medicine: the added drug is
    # taken beside it (its interaction lines say how the dose changes), whatever the turn before
    # was read as
    turns = (
        "Bác sĩ tim mạch mới kê Cordarone cho ông 68 tuổi đang uống Lanoxin vì suy tim.",
        "Vậy liều digoxin có phải chỉnh không?",
    )
    for frames in both_ways(resolver, turns):
        dose = frames[1]
        assert (dose.drugs, dose.attribute) == (("digoxin",), "lieu_luong_va_cach_dung")
        assert "amiodaron" in dose.patient_context.current_medications


def test_a_turn_declined_between_two_questions_keeps_the_conversations_patient(
    resolver: CatalogDrugResolver,
) -> None:
    # buying is no formulary question, but the patient told before it is still the patient
    turns = ["Mẹ khách 65t đặt stent, đang uống Plavix", "Bà hay ợ chua, khách muốn mua Nexium"]
    frame = understand_offline("còn omeprazol thì sao, uống cách xa giờ nhau có được ko?", resolver, turns)
    assert set(frame.drugs) == {"omeprazol", "clopidogrel"}

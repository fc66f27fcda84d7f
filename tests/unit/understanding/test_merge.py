"""The prior-frame merge and its guards, with a scripted provider and the offline one."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.understanding.merge import merge_with_prior_frame
from duocthu.understanding.pipeline import understand_offline

from tests.unit.understanding.turns import conversation, run

OMEPRAZOL = QueryFrame(
    turn_type="drug_to_condition", drugs=("omeprazol",), attribute="chi_dinh", population="nguoi_lon"
)


def test_the_omeprazol_bleed_is_blocked(resolver: CatalogDrugResolver) -> None:
    # Given the reproduced incident: omeprazol's indications, then a headache question that names
    # paracetamol, and a model that calls the new turn a continuation
    output = {"turn_type": "drug_attribute", "drugs": ["paracetamol"], "context_action": "continue"}
    frame = run(
        resolver,
        "Tôi bị đau đầu, uống paracetamol được không?",
        output=output,
        history=("Omeprazol dùng để làm gì?",),
        prior=OMEPRAZOL,
    )
    # Then nothing of omeprazol's topic is inherited, its population (asked about, no patient) included
    assert frame.drugs == ("paracetamol",)
    assert frame.attribute is None and frame.population is None


def test_the_headache_question_without_a_drug_inherits_nothing(resolver: CatalogDrugResolver) -> None:
    output = {"turn_type": "drug_attribute", "context_action": "continue", "depends_on_previous_turn": True}
    frame = run(resolver, "Tôi bị đau đầu thì uống thuốc gì?", output=output, prior=OMEPRAZOL)
    assert frame.turn_type == "symptom_to_drug" and frame.drugs == ()
    assert frame.attribute == "chi_dinh" and frame.indication == "đau đầu"


def test_merge_fills_what_a_continuing_turn_left_empty() -> None:
    prior = QueryFrame(
        turn_type="dosing_calc",
        drugs=("paracetamol",),
        attribute="lieu_luong_va_cach_dung",
        weight_kg=12,
        population="tre_em",
        patient_context={"allergies": ["penicilin"]},
    )
    frame = QueryFrame(
        turn_type="dosing_calc",
        weight_kg=15,
        context_action="continue",
        patient_context={"renal_function": "suy thận nhẹ"},
    )
    merged = merge_with_prior_frame(frame, prior)
    assert merged.drugs == ("paracetamol",) and merged.attribute == "lieu_luong_va_cach_dung"
    # another weight is another patient: the old one's facts stay behind, the topic carries
    assert merged.weight_kg == 15 and merged.population is None
    assert merged.patient_context.allergies == () and merged.patient_context.renal_function == "suy thận nhẹ"
    # a turn that states no patient of its own adds to the held one
    same = merge_with_prior_frame(frame.model_copy(update={"weight_kg": None}), prior)
    assert same.weight_kg == 12 and same.population == "tre_em"
    assert same.patient_context.allergies == ("penicilin",)
    assert same.patient_context.renal_function == "suy thận nhẹ"


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        (QueryFrame(turn_type="drug_attribute", attribute="than_trong"), "guard 1: not continuing"),
        (
            QueryFrame(
                turn_type="drug_attribute",
                attribute="than_trong",
                context_action="new",
                depends_on_previous_turn=True,
            ),
            "guard 2: context_action new",
        ),
        (
            QueryFrame(turn_type="drug_attribute", drugs=("esomeprazol",), context_action="continue"),
            "guard 3: another drug",
        ),
        (QueryFrame(turn_type="smalltalk", context_action="continue"), "nothing to carry into smalltalk"),
    ],
)
def test_merge_guards(frame: QueryFrame, why: str) -> None:
    # the topic stays the turn's own; a population asked about with no patient is the topic's
    assert merge_with_prior_frame(frame, OMEPRAZOL) == frame, why


def test_a_which_drug_question_on_a_new_topic_keeps_the_patient_only() -> None:
    prior = QueryFrame(
        turn_type="drug_attribute",
        drugs=("warfarin",),
        attribute="tuong_tac_thuoc",
        patient_context={"current_medications": ["warfarin"], "comorbidities": ["hen"]},
    )
    which = QueryFrame(
        turn_type="symptom_to_drug",
        indication="đau răng",
        condition_relation="indication",
        context_action="new",
    )
    merged = merge_with_prior_frame(which, prior)
    assert merged.patient_context.current_medications == ("warfarin",)
    assert merged.patient_context.comorbidities == ("hen",)
    assert merged.drugs == () and merged.attribute is None  # nothing of the prior question
    # a question about a drug on a new topic takes the patient, nothing of the topic
    other = QueryFrame(turn_type="drug_attribute", drugs=("paracetamol",), context_action="new")
    merged = merge_with_prior_frame(other, prior)
    assert merged.patient_context == prior.patient_context
    assert merged.model_copy(update={"patient_context": other.patient_context}) == other


def test_a_clarifying_prior_is_answered_without_a_continue_flag() -> None:
    prior = QueryFrame(
        turn_type="drug_attribute",
        attribute="chong_chi_dinh",
        needs_clarify=True,
        clarify_reason="Thuốc nào?",
    )
    answer = QueryFrame(turn_type="drug_overview", drugs=("ibuprofen",))
    merged = merge_with_prior_frame(answer, prior)
    assert (merged.turn_type, merged.drugs, merged.attribute) == (
        "drug_attribute",
        ("ibuprofen",),
        "chong_chi_dinh",
    )
    assert not merged.needs_clarify


def test_the_offline_provider_answers_a_clarify_end_to_end(resolver: CatalogDrugResolver) -> None:
    asked = understand_offline("Chống chỉ định là gì?", resolver)
    assert asked.needs_clarify and asked.drugs == () and asked.attribute == "chong_chi_dinh"
    answered = understand_offline("Ibuprofen", resolver, ("Chống chỉ định là gì?",), asked)
    assert (answered.turn_type, answered.drugs, answered.attribute) == (
        "drug_attribute",
        ("ibuprofen",),
        "chong_chi_dinh",
    )


# --- The conversation's two states: the patient and the topic ------------------------------------


def test_a_pregnancy_told_before_decides_the_section_of_a_drug_named_after(
    resolver: CatalogDrugResolver,
) -> None:
    frame = conversation(resolver, "Thai 10 tuần, bị nấm âm đạo tái lại", "Diflucan 150 có an toàn không?")
    assert frame.drugs == ("fluconazol",) and frame.attribute == "thoi_ky_mang_thai"
    assert frame.patient_context.pregnancy and frame.patient_context.pregnancy_stage == "10 tuần"


def test_a_turn_that_only_tells_facts_keeps_the_topic(resolver: CatalogDrugResolver) -> None:
    told = conversation(resolver, "BN ngộ độc digoxin, nhịp chậm, nôn nhiều", "kali máu 6,2 mmol/l")
    assert (told.turn_type, told.drugs, told.attribute) == (
        "drug_attribute",
        ("digoxin",),
        "qua_lieu_va_xu_tri",
    )
    asked = conversation(
        resolver,
        "BN ngộ độc digoxin, nhịp chậm, nôn nhiều",
        "kali máu 6,2 mmol/l",
        "có nên bù kali hay tiêm calci không?",
    )
    assert asked.drugs == ("digoxin",) and asked.attribute == "qua_lieu_va_xu_tri"
    # a word that tells no value of the case is not a fact
    assert conversation(resolver, "BN ngộ độc digoxin", "vâng").turn_type == "out_of_scope"


def test_the_section_for_a_carried_state_is_chosen_for_a_continued_turn(
    resolver: CatalogDrugResolver,
) -> None:
    frame = conversation(
        resolver,
        "chị BN 32t THA đang uống Renitec 10mg",
        "hôm nay que thử 2 vạch, siêu âm thai 7 tuần",
        "thuốc này có phải ngừng luôn không em?",
    )
    assert (frame.drugs, frame.attribute) == (("enalapril",), "thoi_ky_mang_thai")
    assert frame.patient_context.pregnancy and frame.age_text == "32 tuổi"


def test_naming_one_of_a_pair_asked_together_keeps_the_other(resolver: CatalogDrugResolver) -> None:
    frame = conversation(
        resolver,
        "Cụ bà 84 tuổi, rung nhĩ đang uống Coumadin INR ổn",
        "tuần này tim mạch thêm Cordarone.",
        "thế warfarin phải giảm bao nhiêu, theo dõi INR thế nào?",
    )
    assert (frame.turn_type, frame.attribute) == ("interaction", "tuong_tac_thuoc")
    assert set(frame.drugs) == {"warfarin", "amiodaron"} and frame.age_text == "84 tuổi"
    # a question about the one drug alone is its own
    alone = QueryFrame(turn_type="drug_attribute", drugs=("warfarin",), attribute="chi_dinh")
    pair = QueryFrame(turn_type="interaction", drugs=("amiodaron", "warfarin"), attribute="tuong_tac_thuoc")
    assert merge_with_prior_frame(alone, pair) == alone


def test_a_turn_stating_its_own_patient_carries_none_of_the_old_one() -> None:
    child = QueryFrame(
        turn_type="dosing_calc",
        drugs=("paracetamol",),
        attribute="lieu_luong_va_cach_dung",
        population="tre_em",
        weight_kg=12,
        patient_context={"allergies": ["penicilin"]},
    )
    adult = QueryFrame(turn_type="drug_attribute", drugs=("paracetamol",), population="nguoi_lon")
    assert merge_with_prior_frame(adult, child) == adult  # no weight, no allergy of the child
    # a band said of a patient known only by a weight is another patient too
    weighed = child.model_copy(update={"population": None})
    assert merge_with_prior_frame(adult, weighed).weight_kg is None
    # a state (kidney failure) is a fact of the same patient
    renal = QueryFrame(turn_type="drug_attribute", drugs=("paracetamol",), population="suy_than")
    assert merge_with_prior_frame(renal, child).weight_kg == 12


def test_a_turn_about_another_patient_carries_none_of_the_old_one(resolver: CatalogDrugResolver) -> None:
    frame = conversation(resolver, "CCĐ ibuprofen?", "còn suy thận?", "ok. BN khác: quá liều digoxin xử trí?")
    assert frame.drugs == ("digoxin",) and frame.population is None
    assert frame.patient_context.is_empty()

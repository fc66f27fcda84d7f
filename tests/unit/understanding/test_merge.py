"""The prior-frame merge and its guards, with a scripted provider and the offline one."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.understanding.merge import merge_with_prior_frame
from duocthu.understanding.pipeline import understand_offline

from tests.unit.understanding.turns import run

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
    # Then nothing of omeprazol's turn is inherited
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
    assert merged.weight_kg == 15 and merged.population == "tre_em"  # the turn's own value wins
    assert merged.patient_context.allergies == ("penicilin",)
    assert merged.patient_context.renal_function == "suy thận nhẹ"


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
    # a question about a drug on a new topic inherits nothing, the patient included
    other = QueryFrame(turn_type="drug_attribute", drugs=("paracetamol",), context_action="new")
    assert merge_with_prior_frame(other, prior) == other


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

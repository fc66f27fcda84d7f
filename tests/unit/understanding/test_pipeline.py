"""The understanding pipeline with a scripted provider: validation and fail-closed rows of
reference 08, candidate bounding, the four post-conditions, the prior-frame merge and its guards,
subject scope and the non-human guard before a clarifying question."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.errors import MalformedOutput, ProviderUnavailable
from duocthu.models.frame import QueryFrame
from duocthu.models.source import Monograph
from duocthu.understanding.candidates import Turn, bound_candidates
from duocthu.understanding.pipeline import (
    _resolve_id,
    apply_postconditions,
    merge_with_prior_frame,
    understand,
    understand_offline,
)
from duocthu.understanding.prompt import user_message

from tests.factories import resolved_ids


@pytest.fixture(scope="module")
def resolver(sample_records: list[Monograph]) -> CatalogDrugResolver:
    return CatalogDrugResolver(Catalog.from_records(sample_records, corpus_hash="test"))


class Scripted:
    """A provider that returns a fixed raw frame (or raises), recording the turns it saw."""

    name = "scripted"

    def __init__(self, output: Any = None, error: Exception | None = None):
        self.output, self.error, self.turns = output, error, []

    def propose(self, turn: Turn, deadline: Deadline) -> Any:
        self.turns.append(turn)
        if self.error:
            raise self.error
        return self.output


def run(
    resolver: CatalogDrugResolver,
    message: str,
    output: Any = None,
    error: Exception | None = None,
    history: tuple[str, ...] = (),
    prior: QueryFrame | None = None,
) -> QueryFrame:
    return understand(message, resolver, Scripted(output, error), Deadline.after(5), history, prior)


# --- Fail closed --------------------------------------------------------------------------------


def test_provider_unavailable_is_a_system_error_frame(
    resolver: CatalogDrugResolver, caplog: pytest.LogCaptureFixture
) -> None:
    # Given a provider that is throttled
    with caplog.at_level(logging.ERROR):
        frame = run(
            resolver, "Chống chỉ định của ibuprofen?", error=ProviderUnavailable("ThrottlingException")
        )
    # Then the turn fails closed, says why, and the real exception is logged
    assert frame.turn_type == "out_of_scope" and frame.needs_clarify
    assert frame.system_error == "understanding_provider_unavailable"
    assert frame.drugs == () and frame.attribute is None
    assert any("ThrottlingException" in r.getMessage() and r.exc_info for r in caplog.records)


@pytest.mark.parametrize(
    ("output", "error"),
    [
        (None, MalformedOutput("no tool call")),
        ("not an object", None),
        (["a", "list"], None),
        ({"turn_type": "drug_attribute", "drugs": {"not": "a list"}}, None),
    ],
)
def test_unusable_output_is_malformed(
    resolver: CatalogDrugResolver, output: Any, error: Exception | None
) -> None:
    frame = run(resolver, "Chống chỉ định của ibuprofen?", output=output, error=error)
    assert frame.system_error == "understanding_malformed_output"
    assert frame.turn_type == "out_of_scope" and frame.drugs == ()


# --- Validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "field", "expected"),
    [
        ({"turn_type": "recommend", "drugs": ["ibuprofen"]}, "turn_type", "drug_attribute"),
        ({"turn_type": "recommend"}, "turn_type", "out_of_scope"),
        (
            {"turn_type": "drug_attribute", "drugs": ["ibuprofen"], "attribute": "side_effects"},
            "attribute",
            None,
        ),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "population": "infant"}, "population", None),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "route": "oral"}, "route", None),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "weight_kg": 0}, "weight_kg", None),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "weight_kg": 501}, "weight_kg", None),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "weight_kg": 12}, "weight_kg", 12.0),
    ],
)
def test_out_of_vocabulary_output_is_dropped(
    resolver: CatalogDrugResolver, output: dict[str, Any], field: str, expected: Any
) -> None:
    frame = run(resolver, "ibuprofen", output=output)
    assert getattr(frame, field) == expected and frame.system_error is None


def test_a_drug_outside_the_shown_set_is_unknown_never_substituted(resolver: CatalogDrugResolver) -> None:
    # Given a question naming an invented drug, and a model that maps it onto a real one
    output = {"turn_type": "drug_attribute", "drugs": ["acid_acetylsalicylic"], "attribute": "chong_chi_dinh"}
    frame = run(resolver, "Chống chỉ định của aspirinol?", output=output)
    # Then the real drug was never a candidate, so it becomes an unknown name, not a drug
    assert frame.drugs == () and frame.unknown_drugs == ("acid_acetylsalicylic",)


def test_resolve_id_accepts_only_shown_ids_in_either_form() -> None:
    shown = ("acid_acetylsalicylic", "ibuprofen")
    assert _resolve_id("acid acetylsalicylic", shown) == "acid_acetylsalicylic"
    assert _resolve_id("Acid_Acetylsalicylic", shown) == "acid_acetylsalicylic"
    assert _resolve_id("ibuprofen", shown) == "ibuprofen"
    assert _resolve_id("aspirin", shown) is None  # an alias is not an id
    assert _resolve_id("paracetamol", shown) is None  # a real drug that was not shown
    assert _resolve_id("ibuprofenn", shown) is None  # never the nearest id


def test_quick_replies_are_bounded(resolver: CatalogDrugResolver) -> None:
    replies = ["Amoxicilin", "amoxicilin", "x" * 41, "A", "B", "C", "D"]
    output = {"turn_type": "out_of_scope", "needs_clarify": True, "quick_replies": replies}
    frame = run(resolver, "thuốc này", output=output)
    assert frame.quick_replies == ("Amoxicilin", "A", "B", "C")


def test_the_model_cannot_set_system_error_and_a_bad_field_is_dropped(resolver: CatalogDrugResolver) -> None:
    output = {
        "turn_type": "drug_attribute",
        "drugs": ["ibuprofen"],
        "attribute": "than_trong",
        "system_error": "store_unavailable",
        "patient_context": "suy thận",  # wrong shape: dropped, the rest of the frame stands
    }
    frame = run(resolver, "Ibuprofen cần thận trọng gì?", output=output)
    assert frame.system_error is None and frame.attribute == "than_trong" and frame.patient_context.is_empty()
    assert frame.raw == output  # the model's own output is kept (excluded from equality)


# --- Candidate bounding -------------------------------------------------------------------------


def test_candidates_come_from_the_turn_history_and_prior_only(resolver: CatalogDrugResolver) -> None:
    prior = QueryFrame(turn_type="drug_attribute", drugs=("warfarin",), attribute="tuong_tac_thuoc")
    candidates = bound_candidates(resolver, "Tác dụng phụ của amoxiciline?", ("Liều Panadol?",), prior)
    # exact names of the history, fuzzy guesses for the turn (it names nothing exactly), the prior
    assert set(candidates.ids) == {"amoxicilin", "paracetamol", "warfarin"}
    assert candidates.named_ids == ()
    assert [s.drug_id for s in candidates.turn.suggestions] == ["amoxicilin"]
    assert candidates.names["paracetamol"][0] == "Paracetamol"  # its own name form first


def test_suggest_is_consulted_only_where_nothing_resolves(resolver: CatalogDrugResolver) -> None:
    candidates = bound_candidates(resolver, "Chống chỉ định của ibuprofen?")
    assert candidates.ids == ("ibuprofen",) and candidates.turn.suggestions == ()


def test_the_prompt_shows_only_the_bounded_set(resolver: CatalogDrugResolver) -> None:
    candidates = bound_candidates(resolver, "Aspirinol có tác dụng phụ gì?", ("Liều ibuprofen?",))
    text = user_message("Aspirinol có tác dụng phụ gì?", ("Liều ibuprofen?",), None, candidates)
    shown = {d.drug_id for d in resolver.catalog.drugs if f"\n{d.drug_id}\t" in text}
    assert shown == {"ibuprofen"}  # aspirinol brings no candidate: aspirin is never shown
    assert "NOT the whole formulary" in text


# --- Post-conditions --------------------------------------------------------------------------


def _turn(resolver: CatalogDrugResolver, message: str, prior: QueryFrame | None = None) -> Turn:
    return Turn(message, (), prior, bound_candidates(resolver, message, (), prior))


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


# --- Prior-frame merge -------------------------------------------------------------------------

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


# --- Subject scope --------------------------------------------------------------------------------


def test_a_non_human_turn_never_reaches_the_provider(resolver: CatalogDrugResolver) -> None:
    provider = Scripted(error=AssertionError("the provider must not be called"))
    frame = understand("Liều paracetamol cho chó 10 kg?", resolver, provider, Deadline.after(5))
    assert frame.turn_type == "out_of_scope" and not frame.needs_clarify and frame.drugs == ()
    assert provider.turns == []


def test_a_caller_claim_narrows_scope(resolver: CatalogDrugResolver) -> None:
    provider = Scripted(error=AssertionError("the provider must not be called"))
    frame = understand("Liều paracetamol?", resolver, provider, Deadline.after(5), claimed_scope="non_human")
    assert frame.turn_type == "out_of_scope" and provider.turns == []


def test_no_clarifying_question_about_an_animal(resolver: CatalogDrugResolver) -> None:
    # Given a conversation about a dog and a follow-up the model would ask about
    output = {"turn_type": "drug_attribute", "needs_clarify": True, "clarify_reason": "Thuốc nào?"}
    frame = run(resolver, "Vậy liều bao nhiêu?", output=output, history=("Con chó nhà tôi nặng 8 kg",))
    # Then the guard answers out of scope instead of asking
    assert frame.turn_type == "out_of_scope" and not frame.needs_clarify

"""Stages: which kind of question the turn is. Smalltalk or a topic no section covers; a turn
naming medicines (a section of them, their overview, their interaction, a dose to calculate);
a turn going on about the conversation's drugs; else out of scope."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duocthu.core.conditions import condition_kind
from duocthu.core.phrases import contains_phrase
from duocthu.core.sections import (
    ADR_MANAGEMENT_SECTION,
    ADR_SECTION,
    BREASTFEEDING_SECTION,
    CAUTION_SECTION,
    CONTRAINDICATION_SECTION,
    DOSE_SECTION,
    INTERACTION_SECTION,
    PREGNANCY_SECTION,
)
from duocthu.core.text import asks_yes_or_no
from duocthu.core.vocabulary import DRUG_TURN_TYPES
from duocthu.models.frame import PatientContext, QueryFrame
from duocthu.understanding.candidates import Turn
from duocthu.understanding.clauses import in_what_is_asked
from duocthu.understanding.cue_readings import changes_dose, managed_attribute
from duocthu.understanding.cues import TurnCues
from duocthu.understanding.facts import Facts
from duocthu.understanding.merge import CONTINUED
from duocthu.understanding.reading import asks_a_focus
from duocthu.understanding.rules.clarify import name_asked_back
from duocthu.understanding.rules.direction import with_asked
from duocthu.understanding.rules.follow_up import continues, same_question
from duocthu.understanding.rules.names import content_words
from duocthu.understanding.rules.reading import Reading
from duocthu.understanding.rules.together import beside_another_medicine


def off_topic(reading: Reading) -> dict[str, Any] | None:
    """Smalltalk, or a topic no section of the formulary covers."""
    cues, attribute = reading.cues, reading.attribute
    frame = reading.frame()
    goes_on = reading.earlier and not reading.drugs and continues(reading)
    if (
        not reading.drugs
        and not reading.unknown
        and not attribute
        and not reading.facts.conditions
        and not goes_on  # an acknowledgement that goes on with the case is no smalltalk
        and cues.has("smalltalk")
    ):
        return {**frame, "turn_type": "smalltalk", "context_action": reading.context_action}
    # a request no section answers is asked, not told ("tự mua X uống …, có dùng tiếp được không?")
    asked = in_what_is_asked(reading.text, len(cues.tokens))
    uncovered = {cue.value for cue in cues.all("not_covered") if asked[cue.start]}
    if "compute" in uncovered and reading.drugs and not uncovered - {"compute", "purchase", "maker"}:
        # computing a dose is not done: the reply says so and quotes the dose section to work from
        return {**frame, "turn_type": "dosing_calc", "attribute": DOSE_SECTION}
    # no section answers them; buying and the maker are weak: a section asked, a decision, or a
    # follow-up going on about the conversation's drug ("bé 25kg, mẹ muốn mua có nên không") wins;
    # a dose to compute for the conversation's drug is read as the turn naming it would be
    weak = {"purchase", "maker", "compute"} if goes_on else {"purchase", "maker"}
    if uncovered - weak or (uncovered and attribute is None and not reading.decides and not goes_on):
        return {**frame, "turn_type": "out_of_scope", "attribute": None}
    return None


def named_drug_frame(reading: Reading) -> dict[str, Any] | None:
    """A turn naming catalogue drugs: its kind (`named_turn`); an elliptical turn asks the section
    asked before of the drug it names."""
    drugs, named, cues, prior = reading.drugs, reading.named, reading.cues, reading.prior
    if not drugs:
        return None
    frame = reading.frame()
    spans = [(m.start, m.end) for m in named]
    turn_type, attribute = (
        ("drug_attribute", None)
        if reading.decides
        else named_turn(reading, len(drugs) + len(reading.unknown), spans)
    )
    if (
        turn_type in ("drug_overview", "drug_attribute")
        and not attribute
        and same_question(reading.text, cues, named, prior)
    ):
        # the section asked before, of the drug this turn names (and a use question's condition)
        assert prior is not None
        turn_type, attribute = "drug_attribute", prior.attribute
        if prior.turn_type == "drug_to_condition":
            turn_type = "drug_to_condition"
            if prior.condition is not None:
                frame |= {
                    "condition": prior.condition.model_dump(),
                    "condition_relation": prior.condition_relation,
                }
    changed = bool(prior and prior.drugs and set(prior.drugs) != set(drugs))
    answers_question = bool(prior and prior.needs_clarify)
    return with_asked(
        {
            **frame,
            "turn_type": turn_type,
            "attribute": attribute,
            "section_overview": turn_type == "drug_attribute" and not reading.facts.states_patient,
            "context_action": "new" if changed else ("continue" if answers_question else "none"),
            "depends_on_previous_turn": answers_question,
        },
        reading.asked,
    )


def continued_frame(reading: Reading) -> dict[str, Any] | None:
    """A turn naming no drug that goes on about the conversation's drugs (`follow_up.continues`)."""
    if not (reading.earlier and not reading.unknown and continues(reading)):
        return None
    turn = reading.turn
    turn_type, attribute = _continued_turn(reading)
    carried = [] if turn.prior and turn.prior.drugs else _not_allergens(turn)
    if not carried and not (turn.prior and turn.prior.drugs):
        return None
    return {
        **reading.frame(),
        "turn_type": turn_type,
        "drugs": carried,
        "attribute": attribute,
        **CONTINUED,
    }


def _not_allergens(turn: Turn) -> list[str]:
    """The drugs the conversation named, less those named as what the patient is allergic or
    reacted to: an allergen is a fact about the patient, never the drug a follow-up goes on about."""
    context = turn.prior.patient_context if turn.prior else None
    told = " ".join((*context.allergies, *context.adverse_reactions)) if context else ""
    names = turn.candidates.names
    return [
        d
        for d in turn.candidates.history_ids()
        if not any(contains_phrase(told, n) for n in names.get(d, (d,)))
    ]


def unknown_product_frame(reading: Reading) -> dict[str, Any] | None:
    """A turn naming only products the catalogue does not know: read as for a catalogue drug, and
    a misspelt or half-remembered name asked back."""
    if not reading.unknown:
        return None
    # as for a catalogue drug: a question no section phrase names is read over the monograph
    turn_type, attribute = named_turn(reading, len(reading.unknown), reading.products)
    clarify = name_asked_back(reading)
    frame = {
        **reading.frame(),
        "turn_type": turn_type,
        "attribute": attribute,
        "context_action": reading.context_action,
    }
    return with_asked(frame, reading.asked) | clarify


def out_of_scope(reading: Reading) -> dict[str, Any]:
    """What no stage framed: out of scope."""
    return {**reading.frame(), "turn_type": "out_of_scope", "context_action": reading.context_action}


def dose_turn(attribute: str | None, cues: TurnCues, facts: Facts, prior: QueryFrame | None) -> bool:
    """A dose for a stated weight or age: a calculation, not a survey of the dosing section."""
    if attribute not in (None, DOSE_SECTION) or not (facts.weight_kg or facts.age_text):
        return False
    asks_dose = attribute == DOSE_SECTION or cues.has("dose")
    return asks_dose or (prior is not None and prior.turn_type == "dosing_calc")


def named_turn(reading: Reading, products: int, spans: Sequence[tuple[int, int]]) -> tuple[str, str | None]:
    """The turn type for a turn naming `products` medicines (catalogue drugs and unknown names,
    standing at `spans`), beside another medicine or not (`together.beside_another_medicine`). The
    section for the patient's state is chosen after the merge (`section_for_patient`)."""
    attribute, cues, facts = reading.attribute, reading.cues, reading.facts
    beside = beside_another_medicine(reading)
    # a word of its own, or a focus its words are all cues of ("muốn ngừng thì làm sao?")
    asks_more = content_words(cues, spans) or asks_a_focus(reading.text)
    for_someone = bool(facts.population or facts.states_patient)
    taken = facts.current_medication_ids
    # the patient's state is what every medicine named is asked of (none is added to the others,
    # and no word says together): each, for her pregnancy or nursing, or each dose for their organ
    organ = bool(facts.renal_function or facts.hepatic_function)
    for_state = bool(facts.pregnancy or facts.breastfeeding) or (attribute == DOSE_SECTION and organ)
    # so is a procedure the patient is to have ("đang Glucophage + Diamicron, mổ … xử lý thế nào?")
    for_state = for_state or cues.has("procedure")
    if for_state and (not taken or products == len(taken)) and not cues.has("interaction"):
        taken, beside = (), None
    if products >= 2 and (
        attribute == INTERACTION_SECTION
        or cues.has("interaction")
        or taken
        or beside
        or (attribute is None and not for_someone and not cues.has("overview"))
    ):
        # medicines asked of nothing else are asked together; for a patient, or asked what they are,
        # each, unless the words say together or one is already taken
        return "interaction", INTERACTION_SECTION
    if beside and (
        attribute in (None, CAUTION_SECTION)
        or cues.has("interaction")
        or (beside == "joined" and attribute == ADR_SECTION)
        or (beside == "taken" and attribute == DOSE_SECTION and changes_dose(cues.folded))
    ):
        # beside a class or an unnamed medicine, whether, what to watch, what goes wrong or a dose
        # changed for it is the interactions; any other section asked is kept
        return "interaction", INTERACTION_SECTION
    if dose_turn(attribute, cues, facts, None):
        return "dosing_calc", DOSE_SECTION
    if attribute or ((facts.states_patient or facts.population) and not cues.has("overview")):
        # a described patient or a population: a decision from the parts on them, not the intro
        return "drug_attribute", attribute
    if asks_more and not cues.has("overview"):
        # a question no section phrase names: the whole monograph ordered for it, not the intro
        return "drug_attribute", None
    return "drug_overview", None


def _continued_turn(reading: Reading) -> tuple[str, str | None]:
    attribute, cues, prior = reading.attribute, reading.cues, reading.prior
    if dose_turn(attribute, cues, reading.facts, prior):
        return "dosing_calc", DOSE_SECTION
    if attribute is None and prior is not None:
        # asked how to handle after the adverse reactions: their management section
        managed = managed_attribute(prior.attribute, cues)
        attribute = managed if managed != prior.attribute else None
    if attribute:
        return "drug_attribute", attribute
    if reading.facts.conditions and not cues.has("overview"):
        # a complaint told of the patient on the drug: its monograph read for it, not the intro
        return "drug_attribute", None
    if prior is not None and prior.turn_type in DRUG_TURN_TYPES:
        return prior.turn_type, None
    if reading.facts.states_patient and asks_yes_or_no(reading.text):
        # whether the patient may go on with the drug told before: a decision, never its overview
        return "drug_attribute", None
    if not cues.has("overview") and (content_words(cues, ()) or asks_a_focus(reading.text)):
        # a question of its own about the conversation's drug: read over its monograph, as when the
        # turn names the drug (`named_turn`), never its introduction
        return "drug_attribute", None
    return "drug_overview", None


def state_section(context: PatientContext) -> str | None:
    """The section the formulary gives the patient's state, if any: a pregnant or breastfeeding
    patient's; for an allergy or a disease, whether the drug may be used at all: the
    contraindications, where cross-allergies are listed."""
    if context.pregnancy or context.breastfeeding:
        return PREGNANCY_SECTION if context.pregnancy else BREASTFEEDING_SECTION
    if context.allergies or any(condition_kind(c) == "disease" for c in context.comorbidities):
        return CONTRAINDICATION_SECTION
    return None


def section_for_patient(frame: QueryFrame) -> QueryFrame:
    """A question about medicines that names no section, for a patient in a state the formulary
    gives a section: that section decides first. Run after the merge, on the merged patient, for a
    turn naming its drugs and a turn going on about the conversation's alike (a pregnancy told two
    turns before the question still decides it)."""
    # what to do ("xử lý sao") with no reaction told is asked of the patient's state, not of a reaction
    managed = frame.attribute == ADR_MANAGEMENT_SECTION and not frame.patient_context.adverse_reactions
    managed = managed and frame.condition is None
    if (frame.attribute and not managed) or frame.turn_type not in ("drug_overview", "drug_attribute"):
        return frame
    if not (frame.drugs or frame.unknown_drugs):
        return frame
    section = state_section(frame.patient_context)
    if section is None:
        return frame
    update = {"turn_type": "drug_attribute", "attribute": section, "section_overview": False}
    return frame.model_copy(update=update)

"""The prior-frame merge and the follow-ups: what a turn takes from the conversation, the same for
every provider. The merge is a backstop for a fact the provider dropped, with its three guards; a
follow-up turn's carried drugs are said in its standalone query; an answer to the question asked
back about two readings ("làm hạ huyết áp") is read as the reply it picks.
"""

from __future__ import annotations

from typing import Any

from duocthu.core.sections import ADR_SECTION, INDICATION_SECTION, INTERACTION_SECTION, SECTION_HEADINGS
from duocthu.core.vocabulary import DRUG_TURN_TYPES, WHICH_DRUG_TURNS
from duocthu.models.frame import ASK_FOR_DRUG, MAX_FRAME_TEXT, PatientContext, QueryFrame
from duocthu.understanding.candidates import Turn
from duocthu.understanding.postconditions import lowering_question
from duocthu.understanding.tags import MessageTags

# Turn types that carry nothing of the prior frame (a question asked back keeps its patient).
_NO_CARRY = frozenset({"smalltalk", "out_of_scope"})


def merged_context(own: PatientContext, prior: PatientContext) -> PatientContext:
    """The patient as this turn and the conversation before it describe them."""
    update: dict[str, Any] = {}
    for name, value in prior:
        mine = getattr(own, name)
        if isinstance(value, tuple):
            update[name] = tuple(dict.fromkeys((*value, *mine)))
        elif mine is None and value is not None:
            update[name] = value
    return own.model_copy(update=update)


def _same_patient(frame: QueryFrame, prior: QueryFrame) -> QueryFrame:
    """A which-drug question on a new topic still concerns the patient the conversation described:
    after "tôi đang dùng warfarin", "bị đau răng thì uống thuốc gì?" must check each candidate
    against warfarin. Only the patient's facts come along (nothing of the prior question), and only
    into the stage-2 safety facets, which can add warnings and never remove a candidate; the answer
    says which facts it checked."""
    if frame.turn_type not in WHICH_DRUG_TURNS:
        return frame
    context = merged_context(frame.patient_context, prior.patient_context)
    if context == frame.patient_context:
        return frame
    return frame.model_copy(update={"patient_context": context})


def _patient_kept(frame: QueryFrame, prior: QueryFrame) -> QueryFrame:
    """A question answered with a question still concerns the patient described before it ("Em
    đang mang bầu 3 tháng.", then "thuốc này dùng được không?"): the patient's facts stay for the
    turn that names the drug."""
    update: dict[str, Any] = {
        name: getattr(prior, name)
        for name in ("population", "weight_kg", "age_text")
        if getattr(frame, name) is None and getattr(prior, name) is not None
    }
    context = merged_context(frame.patient_context, prior.patient_context)
    if context != frame.patient_context:
        update["patient_context"] = context
    return frame.model_copy(update=update) if update else frame


def merge_with_prior_frame(frame: QueryFrame, prior: QueryFrame | None) -> QueryFrame:
    """Carry forward what the prior frame established and this frame left empty.

    Guards: (1) the turn continues the case (context_action continue, depends_on_previous_turn,
    or the prior turn was a clarifying question); (2) context_action is not new; (3) this turn's
    drugs agree with the prior's (either is empty, or they are the same). A turn naming another
    drug is a new topic and inherits nothing: without this guard a headache question was answered
    about the omeprazol of the turn before. When the guards hold it back, a which-drug question
    still keeps the patient's facts (`_same_patient`).
    """
    if prior is None or frame.system_error:
        return frame
    if frame.turn_type in _NO_CARRY:
        return _patient_kept(frame, prior) if frame.needs_clarify and prior.needs_clarify else frame
    continuing = frame.context_action == "continue" or frame.depends_on_previous_turn or prior.needs_clarify
    if not continuing or frame.context_action == "new":
        return _same_patient(frame, prior)
    if frame.drugs and prior.drugs and set(frame.drugs) != set(prior.drugs):
        return frame
    update: dict[str, Any] = {}
    if not frame.drugs and prior.drugs and frame.turn_type in DRUG_TURN_TYPES:
        update["drugs"] = prior.drugs
    for name in (
        "attribute",
        "population",
        "weight_kg",
        "age_text",
        "route",
        "indication",
        "condition",
        "condition_relation",
    ):
        if getattr(frame, name) is None and getattr(prior, name) is not None:
            update[name] = getattr(prior, name)
    context = merged_context(frame.patient_context, prior.patient_context)
    if context != frame.patient_context:
        update["patient_context"] = context
    if update.get("attribute") and frame.turn_type == "drug_overview":
        update["turn_type"] = "drug_attribute"  # the name answers "which drug?" for a section asked before
    if frame.needs_clarify and update.get("drugs") and frame.clarify_reason in (None, ASK_FOR_DRUG):
        update.update(needs_clarify=False, clarify_reason=None, quick_replies=())
    return frame.model_copy(update=update) if update else frame


def unknown_beside_carried(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """A follow-up naming only drugs the catalogue lacks ("còn rifampicin thì sao?", "cho X được
    không?") asks about them beside the conversation's drugs: is each named in their monographs?
    The carried drugs are never replaced by a name with no monograph, with or without words
    referring back (a name the catalogue lacks reads as a new topic to the rules)."""
    prior = turn.prior
    if prior is None or not prior.drugs or frame.drugs or not frame.unknown_drugs or frame.system_error:
        return frame
    if frame.turn_type not in DRUG_TURN_TYPES:
        return frame
    return frame.model_copy(
        update={
            "drugs": prior.drugs,
            "turn_type": "interaction",
            "attribute": INTERACTION_SECTION,
            "context_action": "continue",
            "depends_on_previous_turn": True,
        }
    )


def standalone_query(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """A follow-up turn's drugs come from earlier turns: say them in the standalone query (unless
    the provider already rewrote the turn), and the question it goes on from."""
    carried = frame.depends_on_previous_turn or frame.context_action == "continue"
    if not carried or not frame.drugs or turn.candidates.named_ids:
        return frame
    if frame.standalone_query not in (None, turn.message):
        return frame
    names = ", ".join(turn.candidates.names.get(d, (d,))[0] for d in frame.drugs)
    topic = f"{SECTION_HEADINGS[frame.attribute]} của {names}" if frame.attribute else names
    # the question carried on: a follow-up's words are read with the ask they continue
    before = f": {turn.history[-1]}" if turn.history else ""
    query = f"{turn.message} ({topic}{before})"[:MAX_FRAME_TEXT]
    return frame.model_copy(update={"standalone_query": query})


# --- Answers to the question about two readings -------------------------------------------------


# Said when a user answers `lowering_question` with both readings: each answer reads one way.
_ONE_AT_A_TIME = "Mỗi câu trả lời chỉ theo một cách hiểu; hãy chọn một trước, rồi hỏi tiếp cách còn lại."


def _asked_two_readings(prior: QueryFrame | None) -> bool:
    """Whether the turn before asked `lowering_question` (again, after "cả hai", too)."""
    condition = prior.condition if prior is not None else None
    if prior is None or condition is None or len(prior.quick_replies) != 2 or not prior.clarify_reason:
        return False
    asked = lowering_question(condition.normalized or condition.text)["clarify_reason"]
    return prior.clarify_reason in (asked, f"{_ONE_AT_A_TIME} {asked}")


def both_asked_again(tags: MessageTags, prior: QueryFrame | None) -> QueryFrame | None:
    """ "cả hai" after `lowering_question`: the same question again, saying why one is picked
    first; never a new question about nothing."""
    if prior is None or prior.condition is None or not _asked_two_readings(prior):
        return None
    if not tags.cues.has("both"):
        return None
    asked = lowering_question(prior.condition.normalized or prior.condition.text)["clarify_reason"]
    return prior.model_copy(
        update={
            "clarify_reason": f"{_ONE_AT_A_TIME} {asked}",
            "context_action": "continue",
            "depends_on_previous_turn": True,
        }
    )


def reading_picked(tags: MessageTags, prior: QueryFrame | None) -> str | None:
    """A typed answer to `lowering_question` ("tác dụng phụ", "để điều trị") is read as the quick
    reply it picks, as if that button were pressed: a reaction's words (the ADR section's phrases,
    "gây ra") pick the second reading, a purpose ("để điều trị", "dùng để chữa") the first."""
    if prior is None or not _asked_two_readings(prior):
        return None
    cues, section = tags.cues, tags.attribute
    reaction = section == ADR_SECTION or any(
        c.value.endswith(":adverse_effect") for c in cues.all("named_drug")
    )
    use = section == INDICATION_SECTION or cues.has("purpose")
    if reaction == use:
        return None  # neither, or both: read as written
    return prior.quick_replies[1 if reaction else 0]

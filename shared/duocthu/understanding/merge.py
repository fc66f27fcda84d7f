"""The conversation's two states, and the follow-ups: what a turn takes from the conversation, the
same for every provider.

- The patient: facts accumulate over the conversation, whatever the turn asks, until a turn states
  a patient of its own (an age band, an age or a weight other than the one held): that turn starts
  a new patient and carries nothing of the old one, so a child's weight never reaches an adult's
  dose question.
- The topic (drugs + section): a turn naming another drug replaces it; a turn naming one of a pair
  asked about together keeps the others when it asks about using them together; a turn naming no
  drug that goes on about the conversation's takes the topic it left empty.

A follow-up turn's carried drugs are said in its standalone query; an answer to the question asked
back about two readings ("làm hạ huyết áp") is read as the reply it picks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duocthu.core.sections import (
    ADR_SECTION,
    CAUTION_SECTION,
    DOSE_SECTION,
    INDICATION_SECTION,
    INTERACTION_SECTION,
    SECTION_HEADINGS,
)
from duocthu.core.text import asks_yes_or_no, fold
from duocthu.core.vocabulary import DRUG_TURN_TYPES, WHICH_DRUG_TURNS
from duocthu.models.frame import ASK_FOR_DRUG, MAX_FRAME_TEXT, PatientContext, QueryFrame
from duocthu.understanding.candidates import Turn
from duocthu.understanding.cue_readings import changes_dose
from duocthu.understanding.postconditions import lowering_question
from duocthu.understanding.tags import MessageTags

# Turn types that carry nothing of the prior frame (a question asked back keeps its patient).
_NO_CARRY = frozenset({"smalltalk", "out_of_scope"})
# The populations that say who the patient is (the others are states the patient accumulates).
_AGE_BANDS = frozenset({"tre_em", "nguoi_lon", "nguoi_cao_tuoi"})
# What a turn going on from the conversation says of itself (and, asking about drugs together, of them).
CONTINUED: dict[str, Any] = {"context_action": "continue", "depends_on_previous_turn": True}
TOGETHER: dict[str, Any] = {
    **CONTINUED,
    "turn_type": "interaction",
    "attribute": INTERACTION_SECTION,
}
# The topic's fields besides its drugs: the section, the condition, the route, the population.
_TOPIC_FIELDS = ("attribute", "route", "indication", "condition", "condition_relation", "population")


def merged_context(own: PatientContext, prior: PatientContext) -> PatientContext:
    """The patient as this turn and the conversation before it describe them."""
    update: dict[str, Any] = {}
    for name, value in prior:
        mine = getattr(own, name)
        if isinstance(value, tuple):
            update[name] = tuple(dict.fromkeys((*value, *mine)))
        elif mine is None and value is not None:
            update[name] = value
    if own.pregnancy is False:  # delivered since: no stage of a pregnancy told before
        update["pregnancy_stage"] = None
    return own.model_copy(update=update)


# --- The patient ------------------------------------------------------------------------------


def _band(frame: QueryFrame) -> str | None:
    return frame.population if frame.population in _AGE_BANDS else None


def new_patient(frame: QueryFrame, prior: QueryFrame) -> bool:
    """The turn states a patient of its own: an age band, an age or a weight other than the held
    patient's. A band said of a patient known only by an age or a weight is another patient too
    (which band the old one was is unknown)."""
    band, held_band = _band(frame), _band(prior)
    if band and band != held_band and (held_band or prior.age_text or prior.weight_kg):
        return True
    return any(
        getattr(frame, name) is not None and getattr(prior, name) not in (None, getattr(frame, name))
        for name in ("age_text", "weight_kg")
    )


def describes_patient(frame: QueryFrame) -> bool:
    """The frame describes a particular patient (an age, a weight, a fact), whose population is
    theirs; a population asked about with no patient described is the question's (the topic's)."""
    return bool(frame.age_text or frame.weight_kg or not frame.patient_context.is_empty())


def _left_empty(frame: QueryFrame, prior: QueryFrame, names: Sequence[str]) -> dict[str, Any]:
    """The prior frame's values of the fields this turn left empty."""
    return {n: value for n in names if getattr(frame, n) is None and (value := getattr(prior, n)) is not None}


def patient_carried(frame: QueryFrame, prior: QueryFrame) -> QueryFrame:
    """The held patient's facts this turn left empty, unless it states a patient of its own."""
    if new_patient(frame, prior):
        return frame
    scalars = (
        ("population", "weight_kg", "age_text") if describes_patient(prior) else ("weight_kg", "age_text")
    )
    update = _left_empty(frame, prior, scalars)
    context = merged_context(frame.patient_context, prior.patient_context)
    if context != frame.patient_context:
        update["patient_context"] = context
    return frame.model_copy(update=update) if update else frame


# --- The topic --------------------------------------------------------------------------------


def _asks_together(frame: QueryFrame, prior: QueryFrame) -> bool:
    """The turn names some of the drugs the turn before asked about together, and asks what a
    medicine beside them answers (their use, a caution, an interaction: `turn_type.named_turn`'s
    rule for a drug beside another), so the others stay beside it."""
    named, held = set(frame.drugs), set(prior.drugs)
    if not named < held or prior.turn_type != "interaction":
        return False
    beside = frame.attribute in (None, CAUTION_SECTION, INTERACTION_SECTION)
    return frame.turn_type == "interaction" or (frame.turn_type == "drug_attribute" and beside)


def topic_carried(frame: QueryFrame, prior: QueryFrame) -> QueryFrame:
    """The topic: kept beside a drug of a pair asked about together, taken where the turn goes on
    about the conversation's drugs and left them (or its section) empty, else the turn's own."""
    if frame.drugs and _asks_together(frame, prior):
        others = tuple(d for d in prior.drugs if d not in frame.drugs)
        return frame.model_copy(
            update={
                "drugs": (*frame.drugs, *others),
                **TOGETHER,
                "section_overview": False,
            }
        )
    continuing = frame.context_action == "continue" or frame.depends_on_previous_turn or prior.needs_clarify
    if not continuing or frame.context_action == "new":
        return frame
    if frame.drugs and prior.drugs and set(frame.drugs) != set(prior.drugs):
        return frame  # another drug: a new topic (a headache question is not about the omeprazol before)
    fields = _TOPIC_FIELDS if not describes_patient(prior) else _TOPIC_FIELDS[:-1]
    update = _left_empty(frame, prior, fields)
    if not frame.drugs and prior.drugs and frame.turn_type in DRUG_TURN_TYPES:
        update["drugs"] = prior.drugs
    if update.get("attribute") and frame.turn_type == "drug_overview":
        update["turn_type"] = "drug_attribute"  # the name answers "which drug?" for a section asked before
    if frame.needs_clarify and update.get("drugs") and frame.clarify_reason in (None, ASK_FOR_DRUG):
        update.update(needs_clarify=False, clarify_reason=None, quick_replies=())
    return frame.model_copy(update=update) if update else frame


def asked_for_this_patient(merged: QueryFrame, own: QueryFrame, turn: Turn) -> QueryFrame:
    """A follow-up naming no section that describes a patient the turns before did not, asking
    whether they may use the drug ("Em bé 18 tháng dùng được không?"): the decision for this
    patient (their contraindications first), never the section asked of no one in particular."""
    prior, cues = turn.prior, turn.tags.cues
    if prior is None or own.attribute is not None or merged.attribute is None:
        return merged
    if merged.turn_type != "drug_attribute" or describes_patient(prior) or not describes_patient(own):
        return merged
    if cues.has("dose") or not (cues.has("safe_to_use") or asks_yes_or_no(turn.tags.text)):
        return merged
    return merged.model_copy(update={"attribute": None})


def complaint_of(frame: QueryFrame) -> str | None:
    """What the conversation's patient is treated for: a which-drug turn's condition asked as an
    indication, or the complaint a turn about a drug for it kept (`complaint_carried`)."""
    condition = frame.condition
    if (
        frame.turn_type in WHICH_DRUG_TURNS
        and condition is not None
        and frame.condition_relation == "indication"
    ):
        return condition.normalized or condition.text
    return frame.indication if frame.turn_type in DRUG_TURN_TYPES else None


def complaint_carried(frame: QueryFrame, prior: QueryFrame) -> QueryFrame:
    """A turn about a drug, asking nothing of a condition, after the patient's complaint was told:
    the drug is asked for it (its `indication`), so a later "dùng thuốc nào?" still lists drugs for
    the complaint, not for nothing."""
    complaint = complaint_of(prior)
    if not frame.drugs or frame.turn_type not in DRUG_TURN_TYPES or frame.condition or frame.indication:
        return frame
    if complaint is None or new_patient(frame, prior):
        return frame
    return frame.model_copy(update={"indication": complaint})


def merge_with_prior_frame(
    frame: QueryFrame, prior: QueryFrame | None, other_patient: bool = False
) -> QueryFrame:
    """The turn with the conversation's patient (none when it says it is about `other_patient`),
    their complaint, and the topic. Smalltalk and out of scope take the patient only."""
    if prior is None:
        return frame
    if frame.turn_type in _NO_CARRY:
        # no topic, but the conversation's patient: a turn declined ("khách muốn mua Nexium") or a
        # thank-you between two questions about them leaves them as they were told
        return frame if other_patient else patient_carried(frame, prior)
    if other_patient:
        return topic_carried(frame, prior)
    return topic_carried(complaint_carried(patient_carried(frame, prior), prior), prior)


def unknown_beside_carried(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """A follow-up naming only drugs the catalogue lacks asks about them beside the conversation's
    drugs, or the medicines the patient was told to take (is each named in their monographs?): the
    carried drugs are never replaced by a name with no monograph. So does one naming only
    medicines it tells the patient takes, asking of nothing but them together ("BN đang
    enalapril, K 5,3 thì phối hợp được không?"): never a medicine taken in place of the drug
    asked about."""
    prior = turn.prior
    if prior is None or frame.turn_type not in DRUG_TURN_TYPES:
        return frame
    # the conversation's drugs, or with none asked about, the medicines the patient takes
    taken_before = [d for line in turn.candidates.history for d in line.facts.current_medication_ids]
    carried = prior.drugs or tuple(dict.fromkeys(taken_before))
    if not frame.drugs and frame.unknown_drugs and carried:
        return frame.model_copy(update={"drugs": carried, **TOGETHER})
    if not prior.drugs:
        return frame
    taken = set(turn.tags.facts.current_medication_ids)
    only_taken = bool(frame.drugs) and set(frame.drugs) <= taken and not set(frame.drugs) & set(prior.drugs)
    if only_taken and frame.attribute in (None, INTERACTION_SECTION) and not turn.tags.cues.has("new_topic"):
        return frame.model_copy(update={"drugs": (*prior.drugs, *frame.drugs), **TOGETHER})
    return frame


def others_beside(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """The dose, or the care, of some of the conversation's drugs asked after them: of a pair asked
    about together, or of a medicine the patient takes after a drug added to it ("đang Coumadin,
    thêm Cordarone" → "liều warfarin chỉnh sao?"). The others are taken beside it, and what their
    interaction lines say of the dose answers."""
    prior = turn.prior
    if prior is None or not frame.drugs or frame.attribute not in (DOSE_SECTION, CAUTION_SECTION):
        return frame
    named = set(frame.drugs)
    taken = {d for line in turn.candidates.history for d in line.facts.current_medication_ids}
    paired = prior.turn_type == "interaction" and named < set(prior.drugs)
    # of a medicine taken: what to watch, or a change of its dose, asked (its dosing schedule
    # asked beside a drug added answers from its own dose section)
    changed = frame.attribute == CAUTION_SECTION or changes_dose(turn.tags.cues.folded, either_side=True)
    added_to_taken = named <= taken and not named & set(prior.drugs) and changed
    if not (paired and frame.attribute == DOSE_SECTION) and not added_to_taken:
        return frame
    beside = [d for d in prior.drugs if d not in named]
    medicines = tuple(dict.fromkeys((*frame.patient_context.current_medications, *beside)))
    if not beside or medicines == frame.patient_context.current_medications:
        return frame
    context = frame.patient_context.model_copy(update={"current_medications": medicines})
    return frame.model_copy(update={"patient_context": context})


def medicines_of_the_case(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """A yes-or-no question naming no drug, no section and no complaint ("có nguy hiểm gì
    không?"), after turns telling the medicines the patient takes: the question is those medicines
    together (each name the catalogue lacks sought in the others' monographs). With one medicine
    and nothing beside it, it stays that drug's question for the patient."""
    prior, tags = turn.prior, turn.tags
    if prior is None or tags.matches or tags.facts.conditions:
        return frame
    if frame.attribute is not None or frame.turn_type not in (
        "out_of_scope",
        "drug_overview",
        "drug_attribute",
    ):
        return frame
    if not asks_yes_or_no(tags.text) or tags.cues.has("new_topic") or frame.subject_scope == "non_human":
        return frame
    taken = [d for line in turn.candidates.history for d in line.facts.current_medication_ids]
    drugs = tuple(dict.fromkeys((*prior.drugs, *taken)))
    unknown = tuple(dict.fromkeys((*frame.unknown_drugs, *prior.unknown_drugs)))
    if not drugs or len(drugs) + len(unknown) < 2:
        return frame
    carried = patient_carried(frame, prior)
    return carried.model_copy(
        update={
            "drugs": drugs,
            "unknown_drugs": unknown,
            "needs_clarify": False,
            "clarify_reason": None,
            **TOGETHER,
        }
    )


def asked_not_taken(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """A dose asked of the conversation's drugs, naming none ("liều sao?" after "đang amlodipin,
    cho ciprofloxacin được không?"), is asked of those the patient does not already take: the
    medicines taken are the case, the drug weighed for it is the question. (What to watch for
    stays asked of all: a caution of the medicine taken may be about the new one.)"""
    carried = frame.depends_on_previous_turn or frame.context_action == "continue"
    if not carried or turn.tags.matches or len(frame.drugs) < 2 or frame.attribute != DOSE_SECTION:
        return frame
    taken = " ".join(fold(m) for m in frame.patient_context.current_medications)
    names = turn.candidates.names
    weighed = tuple(d for d in frame.drugs if not any(fold(n) in taken for n in names.get(d, (d,))))
    return frame.model_copy(update={"drugs": weighed}) if weighed and weighed != frame.drugs else frame


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


def _two_readings_asked(prior: QueryFrame | None) -> str | None:
    """The `lowering_question` the turn before asked (again, after "cả hai", too), or None."""
    condition = prior.condition if prior is not None else None
    if prior is None or condition is None or len(prior.quick_replies) != 2 or not prior.clarify_reason:
        return None
    asked: str = lowering_question(condition.normalized or condition.text)["clarify_reason"]
    return asked if prior.clarify_reason in (asked, f"{_ONE_AT_A_TIME} {asked}") else None


def both_asked_again(tags: MessageTags, prior: QueryFrame | None) -> QueryFrame | None:
    """ "cả hai" after `lowering_question`: the same question again, saying why one is picked
    first; never a new question about nothing."""
    asked = _two_readings_asked(prior)
    if prior is None or asked is None or not tags.cues.has("both"):
        return None
    return prior.model_copy(update={"clarify_reason": f"{_ONE_AT_A_TIME} {asked}", **CONTINUED})


def reading_picked(tags: MessageTags, prior: QueryFrame | None) -> str | None:
    """A typed answer to `lowering_question` is read as the quick reply it picks, as if that button
    were pressed: a reaction's words pick the second reading, a purpose the first."""
    if prior is None or _two_readings_asked(prior) is None:
        return None
    cues, section = tags.cues, tags.attribute
    reaction = section == ADR_SECTION or any(
        c.value.endswith(":adverse_effect") for c in cues.all("named_drug")
    )
    use = section == INDICATION_SECTION or cues.has("purpose")
    if reaction == use:
        return None  # neither, or both: read as written
    return prior.quick_replies[1 if reaction else 0]

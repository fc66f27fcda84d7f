"""Stages: what a turn takes from the conversation. An elliptical turn asks the question before of
another drug or condition; a turn naming no drug may go on about the conversation's; a bare
which-drug question asks about the condition told before."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duocthu.catalog.resolver import DrugMatch
from duocthu.core.sections import DOSE_SECTION, RELATION_SECTIONS
from duocthu.core.text import fold
from duocthu.core.vocabulary import WHICH_DRUG_TURNS
from duocthu.models.frame import QueryFrame
from duocthu.understanding.cue_readings import condition_asked
from duocthu.understanding.cues import TurnCues
from duocthu.understanding.merge import CONTINUED, complaint_of, describes_patient
from duocthu.understanding.reading import asks_alternative
from duocthu.understanding.rules.reading import Reading, reverse_lookup

# Words that may stand beside a drug's name in an elliptical turn ("spironolacton sao?", "Còn X nhỉ?").
_ELLIPSIS_WORDS = frozenset({"sao", "vay", "nhi", "the", "a", "thi", "con"})


def refers_back(text: str, cues: TurnCues, named: Sequence[DrugMatch]) -> bool:
    """An elliptical turn: "thế còn X?", "X thì sao?", "X có bị vậy không?", or a drug's name alone,
    asked ("Gliclazid?"). A name alone without a question mark is a request for its overview."""
    if cues.leads("continue_lead") or cues.has("continue"):
        return True
    inside = {i for m in named for i in range(m.start, m.end)}
    rest = [fold(t) for i, t in enumerate(cues.tokens) if i not in inside]
    return bool(named) and ("?" in text or rest[-1:] == ["sao"]) and all(t in _ELLIPSIS_WORDS for t in rest)


def same_question(text: str, cues: TurnCues, named: Sequence[DrugMatch], prior: QueryFrame | None) -> bool:
    """An elliptical turn after a question about one section, or after whether a described patient
    may take a drug ("bé 2 tháng, ibuprofen được không?" then "còn paracetamol?")."""
    return bool(
        refers_back(text, cues, named)
        and not cues.has("overview")
        and prior is not None
        and prior.turn_type in ("drug_attribute", "drug_to_condition")
        and (prior.attribute or (prior.turn_type == "drug_attribute" and describes_patient(prior)))
    )


def continues(reading: Reading) -> bool:
    """The turn names no drug but goes on about the drugs of the conversation."""
    cues, facts, attribute = reading.cues, reading.facts, reading.attribute
    if cues.has("new_topic"):
        return False
    if reverse_lookup(cues):
        # what to use instead ("thay bằng gì?") is asked of the drug the conversation named
        return asks_alternative(reading.text) and bool(reading.prior and reading.prior.drugs)
    prior = reading.prior
    if prior is not None and prior.needs_clarify and not prior.drugs and facts.conditions and not attribute:
        # a complaint of the patient described before: a drug to find, not the medicine taken
        return False
    # a complaint told after a drug was asked about, asking no drug for it: what may be its reaction
    complaint = bool(facts.conditions and prior is not None and prior.drugs)
    return bool(
        complaint
        or cues.leads("continue_lead")
        or cues.has("continue")
        or attribute
        or cues.has("dose")
        or cues.has("medicine")
        or cues.has("manage")
        or facts.states_patient
        or facts.population
        or tells_a_measure(reading)
    )


def tells_a_measure(reading: Reading) -> bool:
    """The turn only tells a value of the case: a number, no question, no cue and no complaint. It
    updates the patient and keeps the topic; read alone it would break the conversation's chain."""
    cues = reading.cues
    return (
        "?" not in reading.text
        and not cues.by_kind
        and not reading.facts.conditions
        and any(token.isdigit() for token in cues.tokens)
    )


def relation_kept(reading: Reading) -> dict[str, Any] | None:
    """ "còn người suy thận thì sao?" after a relation question: the same relation of another
    condition or population; read as a new which-drug question it would invert to the indications."""
    prior, cues, asked_about = reading.prior, reading.cues, reading.asked_about
    if (
        prior is None
        or prior.turn_type != "condition_relation"
        or prior.condition_relation is None
        or reverse_lookup(cues)
        or not (cues.leads("continue_lead") or cues.has("continue"))
        or not (asked_about or reading.facts.population)
    ):
        return None
    relation = prior.condition_relation
    first = condition_asked(asked_about, cues) if asked_about else None
    return {
        **reading.frame(),
        "turn_type": "condition_relation",
        "condition_relation": relation,
        "attribute": RELATION_SECTIONS.get(relation),
        "condition": {"text": first.text, "normalized": first.normalized} if first else None,
        **CONTINUED,
    }


def prior_condition(reading: Reading) -> dict[str, Any] | None:
    """ "Má tui bị tăng huyết áp lâu năm.", then "xài thuốc gì?": the condition told before, or
    the complaint a turn about a drug for it kept (after "amoxicilin liều bao nhiêu?"). Asking
    the dose too ("thuốc nào, liều ra sao?") asks the same list: the drugs for it, each with its
    dose for this patient; another section asked ("thuốc nào chống chỉ định") is another lookup."""
    prior, cues = reading.prior, reading.cues
    if prior is None or not cues.has("candidate") or reading.attribute not in (None, DOSE_SECTION):
        return None
    if prior.turn_type in WHICH_DRUG_TURNS and prior.condition is not None:
        turn_type, condition = prior.turn_type, prior.condition.model_dump()
    elif (complaint := complaint_of(prior)) is not None:
        turn_type, condition = "condition_to_drug", {"text": complaint, "normalized": complaint}
    else:
        return None
    return {
        **reading.frame(),
        "turn_type": turn_type,
        "condition": condition,
        "condition_relation": "indication",
        "indication": condition["normalized"] or condition["text"],
        **CONTINUED,
    }

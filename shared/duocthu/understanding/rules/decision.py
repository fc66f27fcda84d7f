"""Stage: whether this patient may take the one drug asked. A described patient and one drug asked
is one ask: the drug's safety sections for the patient's facts (`plan.decision_sections`), the
evidence ranking which line leads. A dose word makes no dose question unless a quantity is asked;
a medicine taken makes no interaction question; a condition told of the patient is no reaction."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from duocthu.catalog.resolver import DrugMatch
from duocthu.core.sections import DOSE_SECTION
from duocthu.core.text import asks_yes_or_no, fold
from duocthu.understanding.cue_readings import changes_dose
from duocthu.understanding.rules.reading import Reading, reverse_lookup

# Folded words that ask a quantity or a manner: a dose question, not a decision.
_HOW_MUCH = frozenset({("bao", "nhieu"), ("bao", "lau"), ("toi", "da"), ("the", "nao"), ("ra", "sao")})
_AMOUNT_REACH = 3  # words after the drug where an amount proposed for it stands ("X 500 mg")


def patient_decision(reading: Reading) -> Reading:
    """The reading with the one drug asked and no section, marked `decides`, where the turn asks
    whether its patient may take that drug (above); unchanged otherwise."""
    facts, cues = reading.facts, reading.cues
    attribute, relation = reading.attribute, reading.asked
    asked = [m for m in reading.named if m.start not in facts.current_medication_starts]
    again = [] if asked else _asked_again(reading)
    asked = asked or again
    told = [fold(t) for t in (*facts.current_medications, *facts.allergies, *facts.adverse_reactions)]
    # a name is theirs by its words, whatever strength follows it ("bisoprolol 2,5mg")
    theirs = all(any(_without_strength(name) in t for t in told) for name in reading.unknown)
    # beside medicines the catalogue lacks alone, the pair is the question (each name sought in the text)
    theirs = theirs and (not reading.unknown or bool(facts.current_medication_ids))
    # "dùng X cho người … bị Y": Y is the patient's, not a reaction to X asked about
    patients = (
        relation is not None
        and relation[0] == "adverse_effect"
        and any(c.end <= relation[1].start for c in cues.all("patient_lead"))
    )
    # medicines taken alone make it a question about the pair (`named_turn`)
    about = facts.patient_context().model_copy(update={"current_medications": ()})
    told_more = facts.weight_kg or facts.age_text or not about.is_empty() or _patient_held(reading)
    for_patient = told_more or facts.population is not None or patients
    if len(asked) != 1 or not theirs or not for_patient or reverse_lookup(cues):
        return reading
    if cues.has("interaction") or cues.has("overview"):
        return reading
    if attribute is not None and again:
        # a section asked again of one of the drugs told: the section of that one drug
        return replace(reading, named=tuple(asked))
    yes_or_no = asks_yes_or_no(reading.text) or cues.has("safe_to_use")
    weak = (
        attribute is None
        or (yes_or_no and attribute == DOSE_SECTION and not _asks_quantity(reading, asked[0].end))
        or (yes_or_no and patients)
    )
    if not weak:
        return reading
    return replace(reading, named=tuple(asked), attribute=None, asked=None, decides=True)


def _without_strength(name: str) -> str:
    words = fold(name).split()
    return " ".join(words[: next((i for i, w in enumerate(words) if w[:1].isdigit()), len(words))])


def _patient_held(reading: Reading) -> bool:
    """The conversation has described its patient by more than the medicines taken, and this turn
    names no other patient and no section: a drug asked for them is theirs to take or not. (A turn
    stating an age or a weight is read before this, as a patient of its own.)"""
    prior, asks = reading.prior, asks_yes_or_no(reading.text) or reading.cues.has("safe_to_use")
    if prior is None or not asks or reading.attribute is not None or reading.cues.has("other_patient"):
        return False
    held = prior.patient_context.model_copy(update={"current_medications": ()})
    return bool(prior.age_text or prior.weight_kg or not held.is_empty())


def _asked_again(reading: Reading) -> list[DrugMatch]:
    """Of the medicines the patient takes, the one the question names again in its own clause
    ("đang aspirin + Plavix, … Aspirin có CCĐ không?"); none when it names none or several."""
    last = reading.clauses[-1] if reading.clauses else -1
    ids = {m.drug_id for m in reading.named}
    again = {
        m.drug_id: m
        for m in reading.turn.tags.mentions
        if m.drug_id in ids and reading.clauses[m.start] == last
    }
    first = {m.drug_id: m for m in reading.named}
    return [first[d] for d in again] if len(again) == 1 and len(ids) > 1 else []


def _asks_quantity(reading: Reading, drug_end: int) -> bool:
    """A quantity or manner asked ("bao nhiêu", "thế nào"), a change of dose ("có cần giảm liều
    không?"), or an amount proposed right after the drug ("X 500 mg được không?")."""
    folded = reading.cues.folded
    after = folded[drug_end : drug_end + _AMOUNT_REACH]
    asked = any(pair in _HOW_MUCH for pair in pairwise(folded)) or changes_dose(folded)
    return asked or any(w[:1].isdigit() for w in after)

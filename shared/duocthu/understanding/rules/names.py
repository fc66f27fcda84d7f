"""Stages: the medicines a turn names. The products the catalogue does not know (an ingredient
named inside its product is none), and the catalogue drugs asked about: those that are the
patient's own (a medicine taken beside a complaint to treat, an allergen) are set aside, as
context."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from duocthu.catalog.resolver import DrugMatch
from duocthu.core.sections import INTERACTION_SECTION
from duocthu.core.text import NO_WORDS, asks_something, no_after, raw_words, stop_words
from duocthu.understanding.clauses import asks_what, sentences_asking
from duocthu.understanding.cue_readings import avoids_combining
from duocthu.understanding.cues import TurnCues
from duocthu.understanding.facts import Facts, only_patient_facts
from duocthu.understanding.product_names import unknown_names
from duocthu.understanding.rules.complaints import reaction_told_with_drug
from duocthu.understanding.rules.reading import Reading, product_spans, reverse_lookup


def unknown_products(reading: Reading) -> Reading:
    """The product names the catalogue does not know (`facts.unknown_names`)."""
    line = reading.turn.candidates.turn
    # every name of a catalogue drug is one, also where the drug was already named
    again = [m for m in line.mentions if m not in reading.named]
    found = unknown_names(
        reading.text, [*reading.named, *again], line.suggestions, reading.facts, reading.cues
    )
    return replace(reading, unknown=_without_ingredients(reading.cues.folded, reading.named, list(found)))


def _without_ingredients(folded: Sequence[str], named: Sequence[DrugMatch], unknown: list[str]) -> list[str]:
    """Unknown names less those that name an ingredient of another product: "Crom trong Cosele",
    "dextromethorphan trong Atussin" ask about one product, never an interaction of two."""
    spans = product_spans(folded, named, unknown)
    starts = {start for start, _ in spans}

    def ingredient(name: str) -> bool:
        return any(
            end < len(folded) and folded[end] == "trong" and end + 1 in starts
            for _, end in product_spans(folded, (), [name])
        )

    return [name for name in unknown if not ingredient(name)]


def set_aside_the_patients(reading: Reading) -> Reading:
    """The catalogue drugs asked about: all named, but the patient's own medicines when the turn
    asks about a complaint, and an allergen beside another drug."""
    reading = _without_denied(reading)
    text, cues, facts, named = reading.text, reading.cues, reading.facts, reading.named
    # before any named drug is set aside as the patient's: a reaction told on it keeps it
    told_first = reaction_told_with_drug(cues, facts, [(m.start, m.end) for m in named], reading.clauses)
    if (
        not reading.unknown
        and reading.complaint
        and (
            reverse_lookup(cues)
            or (reading.attribute is None and not asks_something(text) and not told_first)
        )
        and only_patient_facts(facts, named)
        and not avoids_combining(cues)
    ):
        # a complaint beside the patient's own medicines (not their reaction): which drug for the
        # complaint, the medicines kept in patient_context
        named = ()
    elif named and not reading.unknown and not cues.has("interaction"):
        named = _asked_of_the_case(reading)
    if named and not cues.has("interaction"):
        named, facts = _told_before_the_question(reading, named)
    elif not named and cues.has("candidate"):
        # which drug instead of a drug told: that drug stays the patient's, only considered
        facts = as_the_patients(reading, _told(reading, reading.named), facts)
    allergens = facts.object_positions | facts.reaction_cause_starts
    if reading.unknown or any(m.start not in allergens for m in named) or cues.has("candidate"):
        # the allergen is the patient's (patient_context keeps it): the other product is asked, or,
        # asked which drug, one for this patient
        named = tuple(m for m in named if m.start not in allergens)
    return replace(reading, named=named, facts=facts)


def _without_denied(reading: Reading) -> Reading:
    """A drug a statement names after a "không" of its own clause ("ko bán Brufen rồi.", "không
    có Renitec.") is neither asked nor taken, when a question names another: the turn asks about
    that one for the patient, never the two together."""
    sentences = sentences_asking(reading.text, len(reading.cues.tokens), ends_asking=True)
    if sentences is None:
        return reading
    asking = [asks for _, asks in sentences]
    folded, clauses = reading.cues.folded, reading.clauses
    known = reading.facts.object_positions | reading.facts.reaction_cause_starts

    def denied(m: DrugMatch) -> bool:
        opening = next((i for i in range(m.start - 1, -1, -1) if clauses[i] != clauses[m.start]), -1)
        told = not asking[m.start] and m.start not in known
        return told and any(folded[i] in NO_WORDS for i in range(opening + 1, m.start))

    kept = tuple(m for m in reading.named if not denied(m))
    asked = any(asking[m.start] for m in kept)
    return replace(reading, named=kept) if asked and len(kept) < len(reading.named) else reading


def _told_before_the_question(
    reading: Reading, named: tuple[DrugMatch, ...]
) -> tuple[tuple[DrugMatch, ...], Facts]:
    """A case told in sentences, then a question naming its own drug: the drugs named only in the
    sentences that tell (what was given, taken or reacted to) are the patient's, not asked. A
    question naming no catalogue drug asks about those told (or whether their sections name the
    product it names)."""
    told = _told(reading, named)
    if not told or len(told) == len(named):
        return named, reading.facts
    return tuple(m for m in named if m not in told), as_the_patients(reading, told, reading.facts)


def _told(reading: Reading, named: Sequence[DrugMatch]) -> list[DrugMatch]:
    """The drugs named only in sentences that ask nothing (a drug written again where the turn asks
    is asked, wherever it was first named)."""
    sentences = sentences_asking(reading.text, len(reading.cues.tokens))
    if sentences is None:
        return []
    asked = {m.drug_id for m in (*named, *reading.turn.tags.mentions) if sentences[m.start][1]}
    return [m for m in named if m.drug_id not in asked]


def as_the_patients(reading: Reading, told: Sequence[DrugMatch], facts: Facts) -> Facts:
    """The drugs told in the case, in the patient's facts: one told with a condition in its
    clause as a past reaction to it, else as a medicine taken (each once)."""
    written = raw_words(reading.text)
    known = facts.current_medication_starts | facts.object_positions | facts.reaction_cause_starts
    reactions, taken = [], []
    for match in (m for m in told if m.start not in known):
        name = " ".join(written[match.start : match.end])
        conditions = [c for c in facts.conditions if reading.clauses[c.start] == reading.clauses[match.start]]
        if conditions:
            reactions.append((match, f"{' '.join(c.text for c in conditions)} ({name})"))
        else:
            taken.append((match, name))
    return replace(
        facts,
        adverse_reactions=(*facts.adverse_reactions, *(r for _, r in reactions)),
        reaction_cause_starts=facts.reaction_cause_starts | {m.start for m, _ in reactions},
        current_medications=(*facts.current_medications, *(w for _, w in taken)),
        current_medication_ids=(*facts.current_medication_ids, *(m.drug_id for m, _ in taken)),
        current_medication_starts=facts.current_medication_starts | {m.start for m, _ in taken},
    )


# The medicines taken that make a list: beside one, a drug asked about is asked about the two together.
MIN_LISTED = 2


def _asked_of_the_case(reading: Reading) -> tuple[DrugMatch, ...]:
    """In a case that lists what the patient takes, the drugs its question asks about: whether this
    patient may take the other drug (the medicines taken stay in patient_context), or, asked with
    "thuốc gì khác", which drug for the complaint: the question's last clause decides. A drug asked
    after no such list, or in no yes/no form, stays as it was."""
    cues, facts, named = reading.cues, reading.facts, reading.named
    mine = facts.current_medication_starts | facts.object_positions | facts.reaction_cause_starts
    asked = [m for m in named if m.start not in mine]
    if asked and _asks_of_the_other(reading, asked):
        # a section of the drug asked, not of the two: the medicine taken stays the patient's
        return tuple(asked)
    if not asked or not all(no_after(cues.folded, m.end) for m in asked):
        return named
    which = cues.has("candidate")
    if which and reading.asked_about:
        return ()  # "X được không, hay dùng thuốc gì?", "nên thêm thuốc nào, X được không?": which drug
    listed = [m for m in named if m.start in facts.current_medication_starts]
    if which or len(listed) < MIN_LISTED:
        return named
    return tuple(asked)


def _asks_of_the_other(reading: Reading, asked: Sequence[DrugMatch]) -> bool:
    """The question asks what a section says of the drug asked, and names the medicines taken only
    as taken: no yes-or-no about the two, no word of them beyond the one telling they are taken."""
    if reading.attribute in (None, INTERACTION_SECTION) or not asks_what(reading.text):
        return False
    taken = {m.drug_id for m in reading.named if m not in asked}
    told = reading.facts.current_medication_starts
    return not any(m.drug_id in taken and m.start not in told for m in reading.turn.tags.mentions)


def content_words(cues: TurnCues, names: Sequence[tuple[int, int]]) -> bool:
    """The turn says more than a drug's name: a word that is no stop word, cue, number or part of
    a name. `names`: where the names stand, start and end."""
    taken = set(cues.covered())
    for start, end in names:
        taken.update(range(start, end))
    stops = stop_words()
    return any(
        i not in taken and token not in stops and not token.isdigit() for i, token in enumerate(cues.tokens)
    )

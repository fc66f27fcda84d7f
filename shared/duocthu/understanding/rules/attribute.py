"""Stages: which section the turn asks for. First what its words name, else whether the drug makes
something happen; then what is asked of the drugs named (a named-drug cue, a decision for a
patient, a purpose), and last a reaction told on the drug (its adverse reactions, or handling)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from duocthu.core.phrases import phrase_starts
from duocthu.core.sections import (
    ADR_MANAGEMENT_SECTION,
    ADR_SECTION,
    CONTRAINDICATION_SECTION,
    INDICATION_SECTION,
    INTERACTION_SECTION,
    OVERDOSE_SECTION,
)
from duocthu.core.text import asks_yes_or_no, fold, words
from duocthu.understanding.cue_readings import managed_attribute, named_drug_attribute
from duocthu.understanding.cues import JOINER_WORDS, WHICH_WORDS, TurnCues, ends_finding
from duocthu.understanding.facts import Facts
from duocthu.understanding.rules.complaints import (
    noticed_after_use,
    reaction_after_use,
    reaction_told_with_drug,
)
from duocthu.understanding.rules.direction import asks_if_it_treats, made_to_happen
from duocthu.understanding.rules.reading import Reading, reverse_lookup

# Sections whose subject a follow-up "X thì xử trí sao?" goes on handling for another drug.
HANDLED_SECTIONS = frozenset({ADR_SECTION, ADR_MANAGEMENT_SECTION, OVERDOSE_SECTION})


def asked_section(reading: Reading) -> Reading:
    """The section the words name, else what "có làm … không" asks (`made_to_happen`), with the
    condition asked about; the finding too when the words name the adverse reactions."""
    attribute = reading.turn.tags.attribute
    made, asked = made_to_happen(reading.cues, reading.facts, reading.products, reading.clauses)
    if attribute is None:
        return replace(reading, attribute=made, asked=asked)
    # "uống … có bị" names the adverse reactions itself; the finding after it is still asked
    return replace(reading, attribute=attribute, asked=asked if made == attribute == ADR_SECTION else None)


def section_of_drug(reading: Reading) -> Reading:
    """What is asked of the drugs named: the section a named-drug cue implies; a decision for the
    patient in place of the indications; a purpose or an effect hoped for, the indications with
    the condition it names."""
    text, cues, facts = reading.text, reading.cues, reading.facts
    attribute, asked = reading.attribute, reading.asked
    named, unknown = reading.named, reading.unknown
    refers_to_drug = reading.earlier or cues.has("continue")
    if attribute is None and (named or unknown or (refers_to_drug and not reverse_lookup(cues))):
        # also of the conversation's drug, not the section asked before (with none, which drug is asked)
        attribute = named_drug_attribute(cues, facts.complaints)
    if attribute == INDICATION_SECTION and _asks_if_patient_may(text, cues, facts):
        attribute = None
    products = reading.products
    treats, purpose_object = asks_if_it_treats(cues, facts, products)
    if attribute is None and treats:
        attribute = INDICATION_SECTION
    if (
        attribute == INDICATION_SECTION
        and purpose_object is not None
        and asked is None
        and not WHICH_WORDS & set(cues.folded[purpose_object.start :])
    ):
        # the condition the purpose names; "trị những loại … nào" asks the indications whole
        asked = ("indication", purpose_object)
    helped = [c for c in facts.complaints if c.start not in reading.history]
    if attribute in (None, INDICATION_SECTION) and products and helped and cues.has("efficacy"):
        # whether it helps the complaint is what the drug is for, not whether the patient may take it
        attribute, asked = INDICATION_SECTION, ("indication", helped[0])
    return replace(reading, attribute=attribute, asked=asked)


def reaction_section(reading: Reading) -> Reading:
    """A reaction told on the drug: its adverse reactions, or with "xử trí" their management; "X
    thì xử trí sao?" after a reaction or an overdose asked of another drug goes on with it."""
    cues, facts, products = reading.cues, reading.facts, reading.products
    attribute = reading.attribute
    told_reaction = reaction_told_with_drug(cues, facts, products, reading.clauses)
    reaction = told_reaction or reaction_after_use(cues, facts, products) or noticed_after_use(cues, products)
    prior_section = reading.prior.attribute if reading.prior is not None else None
    # a generic caution form gives way to a told reaction's management, and to the section handled before
    generic = {None, *(c.value for c in cues.all("modal_section"))}
    handled = reaction or prior_section in HANDLED_SECTIONS
    if handled and cues.has("manage") and reading.turn.tags.named_attribute in generic:
        attribute = None  # "bị ho khan khi dùng X thì xử trí thế nào": not "dùng … thế nào"
    attribute = managed_attribute(attribute, cues, reaction)
    if attribute is None and told_reaction:
        attribute = ADR_SECTION  # is it the drug's reaction: its adverse reactions
    if attribute is None and reading.named and cues.has("manage") and prior_section in HANDLED_SECTIONS:
        # a drug asked how to handle: the reaction or overdose of the turn before, handled for this drug
        attribute = managed_attribute(prior_section, cues)
    return replace(reading, attribute=attribute)


def drugs_beside_it(reading: Reading) -> Reading:
    """A which-drug question of the drugs taken with one catalogue drug ("thuốc nào … khi dùng với
    X", "đang X; kháng sinh nào … dùng kèm"): what other drugs do beside a drug is written in its
    interaction section, whatever the words say they do (cause a finding, must not be given), so that
    section is asked. The drug is named after the which-words or taken by the patient, and a word
    of taking together stands between them; a question of the drug alone is left as it was read,
    and so are the contraindications asked (a barred combination is written there too, whole)."""
    cues, named = reading.cues, reading.named
    asked_barred = reading.attribute == CONTRAINDICATION_SECTION
    if len({m.drug_id for m in named}) != 1 or not cues.has("candidate") or asked_barred:
        return reading
    folded = cues.folded
    sentence = cues.sentences or (0,) * len(folded)
    taken = any(m.start in reading.facts.current_medication_starts for m in named)
    # words of taking together: an interaction cue, or a joiner right after a word of taking
    # ("dùng kèm"; "cùng nhóm với X" joins no taking)
    joining = {i for c in cues.all("interaction") for i in range(c.start, c.end)}
    joining |= {c.end for c in cues.all("medicine") if c.end < len(folded) and folded[c.end] in JOINER_WORDS}
    for head in cues.all("candidate"):
        # the drug named after the which-words in their sentence, wherever its name is written
        # again (the catalogue reads a name once: "Methotrexat …: thuốc nào làm tăng độc tính
        # methotrexat?"), else taken by the patient
        later = [
            at
            for m in named
            for at in phrase_starts(folded, folded[m.start : m.end])
            if at >= head.end and sentence[at] == sentence[head.start]
        ]
        after = bool(later)
        if not (after or taken):
            continue
        end = later[0] if after else len(folded)
        acted_on = after and _acted_on(folded[head.end : end])
        if acted_on or any(head.end <= i < end and sentence[i] == sentence[head.start] for i in joining):
            return replace(reading, attribute=INTERACTION_SECTION, asked=None)
    return reading


# What of one drug another acts on, as interaction sections write it (folded): "làm tăng độc tính
# methotrexat", "tăng nồng độ colchicin", "giảm tác dụng của warfarin"
_ACTING = frozenset({"lam", "tang", "giam"})
_ACTED_ON = frozenset({("tac", "dung"), ("nong", "do"), ("doc", "tinh"), ("hieu", "qua"), ("thai", "tru")})


def _acted_on(between: Sequence[str]) -> bool:
    """The words between the which-words and the drug end with a verb acting on what of the drug
    its interactions name ("… nào làm tăng độc tính X"), never a finding it causes ("… nào gây tăng
    men gan như X")."""
    said = list(between[:-1] if between[-1:] == ["cua"] else between)
    return len(said) >= 3 and tuple(said[-2:]) in _ACTED_ON and said[-3] in _ACTING


_AFFECT = ("anh", "huong")  # "ảnh hưởng", folded


def effect_on_medicine_taken(reading: Reading) -> Reading:
    """ "(Thuốc này) có ảnh hưởng không?" beside a medicine the patient takes, naming nothing it
    affects: the effect asked is on that medicine, which the drug's interaction section states
    ("… làm giảm hiệu quả thuốc tránh thai"), not an adverse reaction of the drug."""
    facts, cues = reading.facts, reading.cues
    own = [d for d in facts.current_medication_ids if d in reading.drugs]
    if reading.attribute != ADR_SECTION or len(facts.current_medications) <= len(own):
        return reading
    folded, tokens = cues.folded, cues.tokens
    at = next((i for i in range(len(folded) - 1) if folded[i : i + 2] == _AFFECT), None)
    if at is None or (at + 2 < len(tokens) and not ends_finding(tokens[at + 2])):
        return reading
    return replace(reading, attribute=INTERACTION_SECTION, asked=None)


def _asks_if_patient_may(text: str, cues: TurnCues, facts: Facts) -> bool:
    """A yes/no "được chỉ định" about a patient asks whether they may take the drug: a decision (the
    contraindications first), not the indications, which alone would leave the contraindication out."""
    folded = f" {' '.join(fold(t) for t in words(text))} "
    asked = " duoc chi dinh " in folded or " co chi dinh " in folded
    return (
        asked
        and asks_yes_or_no(text)
        and (facts.states_patient or bool(facts.population) or cues.has("patient_lead"))
    )

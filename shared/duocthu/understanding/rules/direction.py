"""Stage: the direction of a question about a drug and a condition. A named drug asked whether it
treats or brings on a condition (drug -> condition: its indications for it, or its adverse
reactions) or which drugs a condition calls for (condition -> drugs), with the patient's other
conditions as background."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duocthu.core.conditions import ORGAN_FUNCTION_CONDITIONS, ConditionMention
from duocthu.core.sections import ADR_SECTION, INDICATION_SECTION
from duocthu.core.text import fold, no_after
from duocthu.models.frame import PatientContext
from duocthu.understanding.cue_readings import condition_asked, relieved_form
from duocthu.understanding.cues import TurnCues, ends_finding
from duocthu.understanding.facts import Facts
from duocthu.understanding.product_names import not_a_name_word
from duocthu.understanding.rules.reading import Asked, Reading, reverse_lookup

# Verbs of a wanted effect after "có làm": "X có làm loãng đờm / giảm huyết áp / hết đau không?".
_EFFECT_VERBS = frozenset(
    {"giam", "ha", "loang", "tan", "het", "khoi", "do", "lanh", "dut", "cat", "on", "diu", "bot", "thuyen"}
)
# "có làm", "có khiến": whether the drug makes something happen
_MAKES = (("co", "lam"), ("co", "khien"))
# "có (thể) bị" after the drug: whether taking it brings something on ("Uống X có bị ho khan không?")
_GETS = (("co", "bi"), ("co", "the", "bi"))
# A symptom named with the effect wanted on it ("có hạ sốt", "có giúp ngủ") is what the drug is for
_WANTED = _EFFECT_VERBS | {"giup", "tri", "chua"}
# Words that open a clause going on about the drug asked before: "… liều bao nhiêu? và có buồn ngủ không"
_CLAUSE_OPENERS = frozenset({"va", "ma", "voi", "lai"})
# After "có làm", what is not something brought on: "có làm sao" (is it serious), a test done.
_NOT_BROUGHT_ON = frozenset({"sao", "gi", "xet", "the"})
# At most this many words of a finding no condition table names ("có bị rụng tóc không").
_UNNAMED_FINDING_WORDS = 5


def made_to_happen(
    cues: TurnCues, facts: Facts, products: Sequence[tuple[int, int]], clauses: Sequence[int]
) -> tuple[str | None, Asked]:
    """Whether the drug brings something on ("có làm", "có bị") is its adverse reactions; a wanted
    effect on a condition is what it is for. A wanted effect on no known condition names no
    section, unless what is lowered is a faculty: a harm. With the section, the condition asked
    about: a known one, else the finding's words as written. Bare "làm" counts only before a
    condition; "có bị" only after a drug (`products`), where what one gets is never wanted."""
    folded = cues.folded
    starts = {c.start for c in facts.complaints}
    faculties = {c.start for c in cues.all("faculty")}
    symptoms = {c.start for c in facts.complaints if c.kind == "symptom"}
    # a condition whose own name starts with an effect verb ("hạ đường huyết", "tăng kali máu") is
    # had, never a wanted effect: "X có hạ đường huyết không" asks whether X brings it on
    named_so = {
        c.start
        for c in facts.complaints
        if folded[c.start] in _EFFECT_VERBS and fold(c.normalized).split()[:1] == [folded[c.start]]
    }
    had = {i for i in symptoms if folded[i] not in _WANTED} | named_so
    # where the drug, a word standing for it, or the clause's opening ends
    subject_ends = {end for _, end in products} | {c.end for c in cues.all("drug_pronoun")}
    subject_ends |= {0, 1} if folded and folded[0] in _CLAUSE_OPENERS else {0}
    for i in range(len(folded) - 1):
        gets = next((len(g) for g in _GETS if folded[i : i + len(g)] == g), 0)
        if gets and any(end <= i for _, end in products):
            j = i + gets
        elif folded[i] == "co" and i + 1 in had and i in subject_ends:
            # "X có buồn ngủ không", "thuốc này có …", "và có … không" of the conversation's drug:
            # a symptom had right after the drug is one it brings on
            j, gets = i + 1, 1
        elif folded[i : i + 2] in _MAKES:
            j = i + 2  # the word after "có làm"
        elif folded[i] in ("lam", "khien") and (i + 1 in starts or i + 2 in starts):
            j = i + 1
        else:
            continue
        if j >= len(folded) or not no_after(folded, j + 1):
            continue
        verb = folded[j]
        if verb in _NOT_BROUGHT_ON:
            return None, None
        after = [c for c in facts.complaints if c.start >= j]
        if verb in _EFFECT_VERBS and not gets and j + 1 not in faculties:
            treated = [c for c in after if c.start in (j, j + 1)]
            if any(fold(c.normalized).split()[:1] == [verb] for c in treated):
                # a condition whose own name starts so: "có làm hạ kali máu"
                return ADR_SECTION, ("adverse_effect", treated[0])
            return (INDICATION_SECTION, ("indication", treated[0])) if treated else (None, None)
        finding = after[0] if after else _unnamed_finding(cues, j, clauses)
        return ADR_SECTION, ("adverse_effect", finding) if finding else None
    return None, None


def _unnamed_finding(cues: TurnCues, start: int, clauses: Sequence[int]) -> ConditionMention | None:
    """The words of a finding no condition table names, as written from `start` up to the first
    word that ends or narrows one (`ends_finding`), in its clause; after the one made to get it,
    what "bị" names."""
    subject = next((c.end for c in cues.all("comorbidity") if start < c.start < start + 3), None)
    if subject is not None and clauses[subject - 1] == clauses[start]:  # "có làm đàn ông bị to ngực"
        start = subject
    span = []
    for i in range(start, min(start + _UNNAMED_FINDING_WORDS, len(cues.tokens))):
        if ends_finding(cues.tokens[i], narrowing=True) or clauses[i] != clauses[start]:
            break
        span.append(cues.tokens[i])
    if not span:
        return None
    text = " ".join(span)
    return ConditionMention(text=text, normalized=text, kind="symptom", start=start, length=len(span))


def with_asked(frame: dict[str, Any], asked: Asked) -> dict[str, Any]:
    """A turn asking whether its drug treats or brings on a condition carries it: a use is
    `drug_to_condition` for it, a reaction the adverse-reaction section for it."""
    if asked is None or frame["turn_type"] != "drug_attribute":
        return frame
    relation, condition = asked
    wanted = INDICATION_SECTION if relation == "indication" else ADR_SECTION
    if frame["attribute"] != wanted:
        return frame
    update: dict[str, Any] = {
        "condition": {"text": condition.text, "normalized": condition.normalized},
        "condition_relation": relation,
    }
    if relation == "indication":
        update |= {"turn_type": "drug_to_condition", "section_overview": False}
    else:  # "Uống X có bị ho khan không?": what the drug may bring on is not the patient's condition
        context = frame["patient_context"]
        kept = tuple(c for c in context["comorbidities"] if c != condition.normalized)
        update["patient_context"] = {**context, "comorbidities": kept}
    return {**frame, **update}


_USE_VERBS = frozenset({"dung", "uong", "boi", "de"})


def asks_if_it_treats(
    cues: TurnCues, facts: Facts, products: Sequence[tuple[int, int]]
) -> tuple[bool, ConditionMention | None]:
    """The drug used for a purpose asks what it is indicated for (with the condition the purpose
    names, if known); a disease beside the complaint, or a population, leaves it a decision."""
    if facts.population:
        return False, None
    # what the patient's own medicine is for is history
    ends = [end for start, end in products if start not in facts.current_medication_starts]
    folded = cues.folded

    # a maker or a form word may stand between: "bôi Acyclovir Stella Cream để điều trị"
    unnamed = {i for c in cues.all("not_a_name") for i in range(c.start, c.end)}
    unnamed |= {i for i, token in enumerate(cues.tokens) if not_a_name_word(token)}

    def follows_drug(start: int) -> bool:  # "dùng X để trị", "X dùng trị"; not "X nồng độ điều trị"
        return any(
            end <= start
            and all(folded[i] in _USE_VERBS or folded[i] == "nay" or i in unnamed for i in range(end, start))
            for end in ends
        )

    purpose = next((c for c in cues.all("purpose") if follows_drug(c.start)), None)
    if purpose is None:
        return False, None
    objects = [c for c in facts.conditions if c.start + c.length > purpose.end]  # "để giảm đau"
    disease_beside = any(c.kind == "disease" and c.start < purpose.start for c in facts.comorbid)
    if objects and disease_beside:
        return False, None
    return True, objects[0] if objects else None


def condition_to_drugs(reading: Reading) -> dict[str, Any] | None:
    """Which drugs for the condition the turn asks about: a symptom or a disease, the patient's
    other conditions as background. Not when the turn asks a section of no drug."""
    asked_about = reading.asked_about
    if not (asked_about and (not reading.attribute or reverse_lookup(reading.cues))):
        return None
    first = condition_asked(asked_about, reading.cues)
    kind = "symptom_to_drug" if first.kind == "symptom" else "condition_to_drug"
    return {
        **reading.frame(),
        "patient_context": _background(reading.facts, first, reading.cues).model_dump(),
        "turn_type": kind,
        "attribute": None,
        "condition": {"text": first.text, "normalized": first.normalized},
        "condition_relation": "indication",
        "indication": first.normalized,
        "context_action": reading.context_action,
    }


# Words that join the relieving forms of one class run ("hạ sốt, giảm đau", "hạ sốt – giảm đau")
_CLASS_JOINS = frozenset({",", "-", "–", "/", "va", "hoac"})


def _class_words(cues: TurnCues, conditions: Sequence[ConditionMention]) -> set[int]:
    """The words of the classes the turn names, each run on through the relieving forms that go on
    from it ("thuốc hạ sốt giảm đau", "thuốc giảm đau, chống viêm"): a class of drugs, no state."""
    words = {i for c in cues.all("drug_class") for i in range(c.start, c.end)}
    for condition in sorted(conditions, key=lambda c: c.start):
        gap = range(max(words, default=-2) + 1, condition.start)
        if words and relieved_form(condition) and all(cues.folded[i] in _CLASS_JOINS for i in gap):
            words.update(range(condition.start, condition.start + condition.length))
    return words


def _background(facts: Facts, asked: ConditionMention, cues: TurnCues) -> PatientContext:
    """The patient of a which-drug question: every condition it names but the one asked about is the
    patient's, for the safety facets, when the turn tells of a patient (someone, an age, a fact);
    asked of no one, they are what is asked too ("thuốc nào dùng cho gút: cắt cơn và hạ acid
    uric?"). Organ function is stated apart; what an allergy names is an allergy; a class of drugs
    is no condition."""
    if not (facts.states_patient or facts.population or cues.has("patient_subject")):
        return facts.patient_context()
    classes = _class_words(cues, facts.conditions)
    others = [
        c.normalized
        for c in facts.conditions
        if c is not asked
        and c.normalized != asked.normalized
        and c.normalized not in ORGAN_FUNCTION_CONDITIONS
        and c.start not in facts.object_positions
        and c.start not in facts.reaction_starts  # stated as adverse_reactions, with its drug
        and c.start not in facts.denied  # "không sốt": the patient has no fever
        and c.start not in classes
    ]
    others += facts.stated_conditions  # "thiếu men G6PD": the patient's, never what is asked
    return facts.patient_context().model_copy(update={"comorbidities": tuple(dict.fromkeys(others))})

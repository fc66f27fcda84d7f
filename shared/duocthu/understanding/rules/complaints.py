"""Stage: what the turn complains of. A condition it names is a complaint unless it is organ
function or history (what a medicine the patient takes is for, a past reaction); a complaint no
condition table names may be told after "bị". How a reaction is told beside the drug it came
with is read here too: it keeps that drug the subject, and it is the section asked."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from duocthu.catalog.resolver import DrugMatch
from duocthu.core.conditions import ORGAN_FUNCTION_CONDITIONS, ConditionMention
from duocthu.core.text import stop_words
from duocthu.understanding.cue_readings import relieved_form
from duocthu.understanding.cues import TurnCues
from duocthu.understanding.facts import REACTION_TO_LEAD, Facts
from duocthu.understanding.rules.reading import Reading


def read_complaints(reading: Reading) -> Reading:
    """The history the turn tells, whether it tells a complaint, and the complaint no table names."""
    cues, facts = reading.cues, reading.facts
    treated = _treated_by_current_medicine(cues, facts, reading.named)
    history = treated | facts.reaction_starts  # what a medicine is taken for; a past reaction
    complaint = any(
        c.normalized not in ORGAN_FUNCTION_CONDITIONS and c.start not in history for c in facts.conditions
    )
    untold = None if facts.complaints else _unnamed_complaint(cues, reading.clauses, facts.reaction_starts)
    return replace(reading, history=history, complaint=complaint or untold is not None, untold=untold)


def _treated_by_current_medicine(cues: TurnCues, facts: Facts, named: Sequence[DrugMatch]) -> frozenset[int]:
    """Where a condition a current medicine is taken for starts: the patient's history, not a
    complaint the turn asks about."""
    ends = {m.end for m in named if m.start in facts.current_medication_starts}
    return frozenset(c.end for c in cues.all("purpose") if c.start in ends)


# How many words after "bị" a complaint no table names may take: "bị lẹo mắt", "bị mụn rộp ở môi".
_UNNAMED_COMPLAINT_WORDS = 5


def _unnamed_complaint(
    cues: TurnCues, clauses: Sequence[int], reactions: Collection[int]
) -> ConditionMention | None:
    """A complaint no condition table names, told after "bị" in a clause of its own before a
    which-drug question, is what the question asks about (as written); never a past reaction
    (`reactions`: where those start), which is history."""
    candidate = cues.first("candidate")
    if candidate is None:
        return None
    stops = stop_words()
    for said in cues.all("comorbidity"):
        if cues.folded[said.start] != "bi" or said.end >= candidate.start or said.end in reactions:
            continue
        span = []
        for i in range(said.end, min(candidate.start, said.end + _UNNAMED_COMPLAINT_WORDS)):
            if clauses[i] != clauses[said.start]:
                break
            span.append(i)
        words_told = [cues.tokens[i] for i in span]
        if words_told and clauses[said.start] != clauses[candidate.start] and words_told[0] not in stops:
            text = " ".join(words_told)
            return ConditionMention(
                text=text, normalized=text, kind="symptom", start=said.end, length=len(span)
            )
    return None


def reaction_after_use(cues: TurnCues, facts: Facts, products: Sequence[tuple[int, int]]) -> bool:
    """A condition that happened on the drug, not the disease it was taken for: told after the drug
    or the verb of taking it, or before a cause or time lead that names the drug. Organ function
    is never a reaction. `products`: where the drugs asked about stand."""
    uses = [start for start, _ in products] + [c.start for c in cues.all("medicine")]
    reactions = [c for c in facts.conditions if c.normalized not in ORGAN_FUNCTION_CONDITIONS]
    if not uses or not reactions:
        return False
    if any(c.start > min(uses) for c in reactions):
        return True
    leads = [c for c in cues.all("reaction_lead") if c.start > reactions[0].start]
    return any(start - lead.end in (0, 1) for lead in leads for start, _ in products)


def noticed_after_use(cues: TurnCues, products: Sequence[tuple[int, int]]) -> bool:
    """ "Dùng X mà thấy nổi mụn mủ thì phải làm gì?": something noticed after the drug, then how to
    handle it, is a reaction to manage even when no condition table names it."""
    manage = [c.start for c in cues.all("manage")]
    return any(
        cues.folded[i] == "thay"
        and cues.folded[i + 1 : i + 2] != ("khong",)  # "thấy không đỡ": the drug not working
        and any(end <= i <= end + 2 for _, end in products)
        and any(m > i for m in manage)
        for i in range(len(cues.folded))
    )


# Words between a drug and the "bị" of its reaction ("uống X có thể bị …").
_BEFORE_REACTION = frozenset({"co", "the", "de", "hay", "ma", "uong", "dung", "xit", "boi", "vo", "xong"})
# Words that tell what came after taking a drug: "uống X mà / xong / vô nổi ban", "xài X thấy buồn ngủ".
_THEN_WORDS = frozenset({"ma", "xong", "vo", "vao", "thay"})


def reaction_told_with_drug(
    cues: TurnCues, facts: Facts, products: Sequence[tuple[int, int]], clauses: Sequence[int]
) -> bool:
    """A reaction told with the drug it came with, and nothing else asked. Stricter than
    `reaction_after_use`: the reaction sits right before a lead naming the drug, or right after
    "bị" following the drug in the same clause (in a clause of its own it is a new complaint), and
    no purpose word says it is what the drug is taken for. After "bị" it need not be a known
    condition."""
    reactions = [c for c in facts.conditions if c.normalized not in ORGAN_FUNCTION_CONDITIONS]
    if not products or cues.has("purpose"):
        return False
    starts = {start for start, _ in products}
    for lead in cues.all("reaction_lead"):
        names_drug = any(lead.end + gap in starts for gap in (0, 1))  # "khi uống (thuốc) X"
        if names_drug and any(0 <= lead.start - (c.start + c.length) <= REACTION_TO_LEAD for c in reactions):
            return True
    folded = cues.folded
    for reaction in reactions:  # "uống carbamazepin mà nổi ban", "uống vô xong nổi mẩn"
        if relieved_form(reaction):
            continue  # "uống X xong đỡ đau": relief, no reaction
        for _, end in products:
            linking = folded[end : reaction.start]
            if (
                end <= reaction.start < len(clauses)
                and clauses[end - 1] == clauses[reaction.start]
                and set(linking) & _THEN_WORDS
                and set(linking) <= _BEFORE_REACTION | _THEN_WORDS
                and not cues.has("efficacy")
            ):
                return True
    for said in cues.all("comorbidity"):
        between = [
            folded[end : said.start]
            for _, end in products
            if 0 < end <= said.start < len(clauses) and clauses[end - 1] == clauses[said.start]
        ]
        known = [c for c in facts.conditions if c.start == said.end]  # organ function is no reaction
        told = any(c in reactions for c in known) or (
            not known
            and said.end < len(clauses)
            and clauses[said.end] == clauses[said.start]
            and folded[said.end] not in stop_words()
        )
        if told and any(set(words) <= _BEFORE_REACTION for words in between):
            return True
    return False

"""The post-conditions: narrow, knowledge-free rewrites of surface forms on which a model reverses
the requested relation, applied to every provider's frame in the same order. None holds disease or
drug knowledge, none adds a candidate. A which-drug question keeps its direction (what causes or is
excluded in X is never an indication lookup); a named drug keeps the relation its cue asks; a
finding keeps the words that narrow it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duocthu.core.conditions import ConditionMention
from duocthu.core.phrases import phrase_starts
from duocthu.core.sections import CAUTION_SECTION, INDICATION_SECTION, RELATION_SECTIONS, SECTION_PHRASES
from duocthu.core.text import fold, folded_words
from duocthu.models.frame import ConditionQuery, QueryFrame
from duocthu.understanding.candidates import Turn
from duocthu.understanding.cue_readings import (
    RELIEF_VERBS,
    avoids_combining,
    condition_asked,
    named_drug_cues,
    patient_qualifiers_only,
    relieved_form,
)
from duocthu.understanding.cues import Cue, CueKind, TurnCues, ends_finding
from duocthu.understanding.facts import only_patient_facts
from duocthu.understanding.states_told import stage_phrases


def _condition_after(
    cue: Cue, cues: TurnCues, conditions: Sequence[ConditionMention], which_drugs: bool = False
) -> ConditionQuery | None:
    """The condition a cue introduces: a known condition after it, else the words that follow it;
    for a which-drug question, those after its whole form (a class or a population sits in a gapped
    form's gaps) but for the references to the book."""
    for condition in conditions:
        if condition.start >= cue.end:
            return ConditionQuery(text=condition.text, normalized=condition.normalized)
    if which_drugs and _points_back_to_who(cue, cues):
        return None
    tail = _words_after(cue, cues, which_drugs)
    # who the drugs are asked for, after the form, makes a condition told before it the patient's
    for condition in () if which_drugs and _who_after(cue, cues) else conditions:  # "ho khan thì …"
        return ConditionQuery(text=condition.text, normalized=condition.normalized)
    if tail and tail[-1] in _POINTING:
        tail = []  # "ở giai đoạn này": the state told before, no finding of its own
    tail = tail or (_topic_before(cue, cues) if which_drugs else [])
    return ConditionQuery(text=" ".join(tail)) if tail else None


def _words_after(cue: Cue, cues: TurnCues, which_drugs: bool) -> list[str]:
    """The words a finding after `cue` is made of, to the end of its sentence."""
    after = max((p.end for p in cues.all("form_part")), default=cue.end) if which_drugs else cue.end
    book = cues.spans("book") if which_drugs else frozenset()
    # a finding never runs past the end of its sentence ("… có gây tê tủy sống. Nhắc lại giúp tôi …")
    ends = cues.sentences[after] if cues.sentences and after < len(cues.sentences) else None
    kept_at = [
        i
        for i in range(after, len(cues.tokens))
        if i not in book and (ends is None or cues.sentences[i] == ends)
    ]
    # who the patient is ("… CCĐ cho bé", "cho BN"): the patient told, no finding of its own
    if kept_at and set(kept_at) - _leads(cues) <= cues.spans("patient_subject"):
        return []
    tail = [cues.tokens[i] for i in kept_at]
    while tail and ends_finding(tail[-1]):
        tail.pop()
    while tail and fold(tail[0]) in _FINDING_LEADS:
        tail.pop(0)
    # the finding ends at the first word no finding is made of
    kept = next((i for i, word in enumerate(tail) if i and ends_finding(word)), len(tail))
    return tail[:kept]


# Words that lead a finding without being it ("cho", "trong"), folded
_FINDING_LEADS = frozenset({"cho", "trong", "voi", "khi", "bi"})


def _leads(cues: TurnCues) -> frozenset[int]:
    return frozenset(i for i, word in enumerate(cues.folded) if word in _FINDING_LEADS)


POINTING_WITHIN = 4  # "ở tuổi này", "(trong) trường hợp này": the pointing word ends a short phrase


def _points_back_to_who(cue: Cue, cues: TurnCues) -> bool:
    """A which-drug form ending on words that point back ("… ở tuổi này", "ở mức thận này") in a
    turn that told who the patient is (an age band, a stage, an organ's function): that is asked."""
    tail = _words_after(cue, cues, True)
    pointing = any(word in _POINTING for word in tail[:POINTING_WITHIN])
    return pointing and any(cues.has(kind) for kind in _WHO_KINDS)


def _who_after(cue: Cue, cues: TurnCues) -> bool:
    """The words after a which-drug form name who the drugs are for ("… không dùng khi cho con
    bú", "… cấm ở 3 tháng cuối" of a patient told pregnant): the asked, beside which a condition
    told before the form is the patient's."""
    if any(c.start >= cue.end for kind in _WHO_KINDS for c in cues.all(kind)):
        return True
    after = cues.tokens[cue.end :]
    return cues.has("pregnancy") and any(
        next(phrase_starts(after, p, lenient=True), None) is not None for p in stage_phrases()
    )


# Words that point back to what the message told ("giai đoạn này", "trường hợp đó"), as written
_POINTING = frozenset({"này", "đó", "ấy", "đấy"})
# Words that lead a topic without being it: "người bị", "bệnh nhân có"
_TOPIC_LEADS = frozenset({"nguoi", "ng", "benh", "nhan", "bn", "bi", "mac", "co", "khi", "neu"})
# A topic naming who the patient is: the frame reads it as such (a population, a stage, an organ)
_WHO_KINDS: tuple[CueKind, ...] = (
    "population", "pregnancy", "breastfeeding", "delivered", "renal", "hepatic"
)  # fmt: skip
TOPIC_WORDS = 4  # at most this many words of a topic no condition table names


def _topic_before(cue: Cue, cues: TurnCues) -> list[str]:
    """ "porphyria thì tránh thuốc nào?", "Nhược cơ: thuốc nào chống chỉ định?": a which-drug
    question asking nothing after its form asks about the topic its "thì" or its opening colon
    closes, as written (a few words; a condition no table names)."""
    folded = cues.folded
    then = next((i for i in range(cue.start - 1, -1, -1) if folded[i] == "thi"), None)
    opening = cues.first("topic")  # or the message's opening lead-in closes it: "Nhược cơ: …"
    if then is None and opening is not None and opening.end <= cue.start:
        then = opening.end
    if then is None:
        return []
    start = max(0, then - TOPIC_WORDS)
    if any(c.start < then and c.end > start for kind in _WHO_KINDS for c in cues.all(kind)):
        return []
    while start < then and folded[start] in _TOPIC_LEADS:
        start += 1
    return list(cues.tokens[start:then])


def _topic(cue: Cue, cues: TurnCues) -> ConditionQuery | None:
    words = _topic_before(cue, cues)
    return ConditionQuery(text=" ".join(words)) if words else None


def _names_told(asked: str, told: str) -> bool:
    """The condition asked names the one told: all its words, or all but a leading one ("g6pd từng
    tan máu" names "thiếu G6PD"; "suy thận" does not name "suy tim")."""
    said, named = set(folded_words(asked)), folded_words(told)
    return bool(named) and (set(named) <= said or (len(named) > 1 and set(named[1:]) <= said))


def _reverse(
    frame: QueryFrame, turn_type: str, relation: str, condition: ConditionQuery | None
) -> QueryFrame:
    update: dict[str, Any] = {
        "turn_type": turn_type,
        "drugs": (),
        "condition_relation": relation,
        "attribute": RELATION_SECTIONS.get(relation),
        "needs_clarify": False,
        "clarify_reason": None,
        "quick_replies": (),
        "context_action": "new" if frame.context_action == "continue" else frame.context_action,
        "depends_on_previous_turn": False,
    }
    if condition is not None:
        update["condition"] = asked = frame.condition or condition
        # what the list is about is asked, not a fact about a patient to check the list against
        context = frame.patient_context
        kept = tuple(c for c in context.comorbidities if not _names_told(asked.text, c))
        if kept != context.comorbidities:
            update["patient_context"] = context.model_copy(update={"comorbidities": kept})
    if relation == "indication":
        update["indication"] = frame.indication or (
            condition.normalized or condition.text if condition else None
        )
    else:
        update["indication"] = None
    return frame.model_copy(update=update)


def _apply_reverse_relation_cues(
    frame: QueryFrame, named: Sequence[str], cues: TurnCues, conditions: Sequence[ConditionMention]
) -> QueryFrame:
    """No named drug + "thuốc nào gây X" / "thuốc nào chống chỉ định X": which drugs cause or
    exclude X - never an indication lookup."""
    cue = cues.first("reverse_relation")
    if named or frame.unknown_drugs or cue is None:
        return frame
    # A class (right after its cue, or sharing its last word) names the drugs asked about, not the
    # patient's condition; the one left (or the population) excludes them.
    class_starts = {i for c in cues.all("broad_condition") for i in range(c.start + 1, c.end + 1)}
    classes = {c.normalized for c in conditions if c.start in class_starts}
    if frame.condition is not None and frame.condition.normalized in classes:
        frame = frame.model_copy(update={"condition": None, "indication": None})
    kept = [c for c in conditions if c.start not in class_starts]
    if frame.condition is not None and any(c.start >= cue.end for c in kept):
        # the which-drug form names its own finding: one told before it is the patient's, not the one asked
        frame = frame.model_copy(update={"condition": None, "indication": None})
    pointed = _points_back_to_who(cue, cues)
    if (
        frame.condition is not None
        and (_who_after(cue, cues) or pointed)
        and all(c.start < cue.end for c in kept)
    ):
        # "mẹ bị ĐTĐ: thuốc nào không dùng khi cho con bú?": asked for the nursing mother, not for ĐTĐ
        frame = frame.model_copy(update={"condition": None, "indication": None})
    # with every finding inside the class, the topic is what the words before it close ("X thì …")
    condition = _condition_after(cue, cues, kept, True) if kept or not classes else _topic(cue, cues)
    if cue.value != "adverse_effect":
        return _reverse(frame, "condition_relation", cue.value, condition)
    # what the drugs bring on, from here on
    if _names_caution(cues):
        # which drugs need care is a list no one section holds: a reaction only when no caution is named
        return _reverse(frame, "condition_relation", "unknown", condition)
    if frame.condition is not None:
        # what the drugs bring on is what follows the cue; a condition before it is the patient's
        after = [c for c in kept if c.start >= cue.end]
        caused = _condition_after(cue, cues, after, True)
        if caused is not None:
            frame, condition = frame.model_copy(update={"condition": None, "indication": None}), caused
    relieved = next((c for c in kept if c.start >= cue.end and relieved_form(c)), None)
    # a relieving verb right after the cue, not starting a condition's own name, asks what relieves it
    verb = cues.folded[cue.end] if cue.end < len(cues.folded) else ""
    named_there = any(c.start == cue.end for c in kept)
    if relieved is None and verb in RELIEF_VERBS and kept and not named_there:
        relieved = kept[0]
    if relieved is not None:
        # what relieves it, the indications; never the drugs that cause pain or fever
        kind = "symptom_to_drug" if relieved.kind == "symptom" else "condition_to_drug"
        return _reverse(
            frame, kind, "indication", ConditionQuery(text=relieved.text, normalized=relieved.normalized)
        )
    causative = cues.folded[cue.end - 1] in ("lam", "khien")
    if causative and named_there and verb in _LOWERING and condition:
        # lowering a finding is a use or a reaction; the words do not tell which, so ask, offering both
        return _reverse(frame, "condition_relation", "adverse_effect", condition).model_copy(
            update=lowering_question(condition.normalized or condition.text)
        )
    if causative and verb in RELIEF_VERBS and not named_there:
        # a relieving verb with no condition known after it: still a use, never a reaction
        return _reverse(frame, "symptom_to_drug", "indication", condition)
    return _reverse(frame, "condition_relation", "adverse_effect", condition)


def _names_caution(cues: TurnCues) -> bool:
    """The precautions are named outright ("thận trọng") or by a caution form ("cẩn thận", "lưu ý")."""
    named = (m.value for m in SECTION_PHRASES.matches(list(cues.tokens)))
    modal = (c.value for c in cues.all("modal_section"))
    return CAUTION_SECTION in {*named, *modal}


# "hạ" / "giảm" both start a reaction's name (hạ huyết áp) and say what a drug is for
_LOWERING = frozenset({"ha", "giam"})


def lowering_question(finding: str) -> dict[str, Any]:
    return {
        "needs_clarify": True,
        "clarify_reason": (
            f"Bạn muốn hỏi thuốc dùng để {finding} (mục Chỉ định), hay thuốc có thể gây {finding} "
            "như một tác dụng không mong muốn?"
        ),
        "quick_replies": (f"Thuốc nào dùng để {finding}?", f"Thuốc nào có thể gây {finding}?"),
    }


def _apply_condition_candidate_cue(
    frame: QueryFrame, named: Sequence[str], cues: TurnCues, conditions: Sequence[ConditionMention]
) -> QueryFrame:
    """A known condition + "dùng thuốc gì" with no named drug: which drugs are indicated for it."""
    cue = cues.first("candidate")
    if named or frame.unknown_drugs or cue is None or not conditions or cues.has("reverse_relation"):
        return frame
    first = condition_asked(conditions, cues)
    asked = ConditionQuery(text=first.text, normalized=first.normalized)
    if patient_qualifiers_only(conditions, cues):
        return _reverse(frame, "condition_relation", "unknown", asked)
    relation = _relation_named(cues, cue)
    if relation is not None:
        # "thuốc nào liệt kê chuột rút là TDKMM": the section named after the which-word is the relation
        return _reverse(frame, "condition_relation", relation, asked)
    kind = "symptom_to_drug" if first.kind == "symptom" else "condition_to_drug"
    return _reverse(frame, kind, "indication", asked)


def _relation_named(cues: TurnCues, cue: Cue) -> str | None:
    """The relation whose section the words after a which-word name (its adverse reactions, its
    contraindications), if one."""
    relations = {section: relation for relation, section in RELATION_SECTIONS.items()}
    named = (m.value for m in SECTION_PHRASES.matches(list(cues.tokens)) if m.start >= cue.end)
    return next((relations[key] for key in named if key in relations and key != INDICATION_SECTION), None)


def _apply_safe_list_cue(
    frame: QueryFrame, named: Sequence[str], cues: TurnCues, conditions: Sequence[ConditionMention]
) -> QueryFrame:
    """Which drugs are safe for a population or a patient (an allergy, a pregnancy), with no
    condition to treat: no section lists drugs that way, so the relation is unknown and said so,
    never a request to name a drug the user has not got."""
    patient = frame.patient_context
    if (
        named
        or frame.unknown_drugs
        or conditions
        or not (frame.population or patient.allergies or patient.pregnancy or patient.breastfeeding)
        or not cues.has("candidate")
        or cues.has("reverse_relation")
        or not cues.has("safe_to_use")  # what is safe, not what treats
    ):
        return frame
    return _reverse(frame, "condition_relation", "unknown", None)


def _apply_broad_condition_cue(
    frame: QueryFrame, named: Sequence[str], cues: TurnCues, conditions: Sequence[ConditionMention]
) -> QueryFrame:
    """No named drug + "thuốc điều trị X": a disease -> drugs question."""
    cue = cues.first("broad_condition")
    reverse_already = frame.turn_type in ("symptom_to_drug", "condition_to_drug")
    if named or frame.unknown_drugs or cue is None or cues.has("reverse_relation") or reverse_already:
        return frame
    condition = _condition_after(cue, cues, conditions, True)
    if condition is None:
        return frame
    symptom = any(c.kind == "symptom" and c.normalized == condition.normalized for c in conditions)
    return _reverse(frame, "symptom_to_drug" if symptom else "condition_to_drug", "indication", condition)


def _apply_named_drug_cues(
    frame: QueryFrame, named: Sequence[str], cues: TurnCues, conditions: Sequence[ConditionMention]
) -> QueryFrame:
    """A named drug + "có tác dụng gì" (what is it for) or + "gây X" / "có chống chỉ định": the
    relation the phrase asks, not an overview."""
    if len(named) != 1 or frame.turn_type not in ("drug_attribute", "drug_overview", "drug_to_condition"):
        return frame
    for cue, turn_type, attribute, relation in named_drug_cues(cues, conditions):
        if frame.attribute not in (None, attribute):
            continue
        condition = _condition_after(cue, cues, conditions) if relation else None
        update: dict[str, Any] = {"turn_type": turn_type, "attribute": attribute or frame.attribute}
        if relation:
            update["condition_relation"] = relation
            if condition is not None and frame.condition is None and cue.end < len(cues.tokens):
                update["condition"] = condition
        if turn_type == "drug_to_condition":
            update["section_overview"] = False
        return frame.model_copy(update=update)
    return frame


_MAX_NARROWING_WORDS = 3
# Cue kinds of a question's form: a narrowing word never starts one ("suy thận chống chỉ định").
_QUESTION_FORMS: tuple[CueKind, ...] = (
    "section",
    "modal_section",
    "reverse_relation",
    "candidate",
    "interaction",
    "manage",
)


def _apply_narrowing_words(
    frame: QueryFrame, named: Sequence[str], cues: TurnCues, conditions: Sequence[ConditionMention]
) -> QueryFrame:
    """The words right after a known finding's name narrow it ("chảy máu cam"), kept as the
    condition's `subtype`, so an adverse-effect lookup searches the narrowed finding, the wider one
    listed apart; no table is needed per narrowed form. Not for a contraindication: a drug
    contraindicated in a condition is so in its severe form, and must stay on that list."""
    condition = frame.condition
    if (
        frame.turn_type not in ("condition_relation", "drug_attribute")
        or frame.condition_relation != "adverse_effect"
        or condition is None
        or condition.subtype
    ):
        return frame
    mention = next((c for c in conditions if fold(c.text) == fold(condition.text)), None)
    if mention is None:
        return frame
    # another finding, or a question form after the finding ("suy thận chống chỉ định thuốc nào")
    starts = {c.start for c in conditions} | {
        i for kind in _QUESTION_FORMS for c in cues.all(kind) for i in range(c.start, c.end)
    }
    taken: list[str] = []
    end = mention.start + mention.length
    for i in range(end, min(end + _MAX_NARROWING_WORDS, len(cues.tokens))):
        if ends_finding(cues.tokens[i], narrowing=True) or i in starts:
            break
        taken.append(cues.tokens[i])
    if not taken:
        return frame
    return frame.model_copy(update={"condition": condition.model_copy(update={"subtype": " ".join(taken)})})


def _apply_section_named(
    frame: QueryFrame, named: Sequence[str], cues: TurnCues, conditions: Sequence[ConditionMention]
) -> QueryFrame:
    """A which-drug question naming a section by the word for one ("trong mục thận trọng", "mục
    CCĐ có nhắc X") asks that section across the book, never the indications it defaults to."""
    if frame.turn_type not in ("symptom_to_drug", "condition_to_drug"):
        return frame
    tokens = cues.folded
    sections = {
        m.value
        for m in SECTION_PHRASES.matches(list(cues.tokens))
        if m.start and tokens[m.start - 1] == "muc"
    }
    if not sections or INDICATION_SECTION in sections:
        return frame
    return _reverse(frame, "condition_relation", "unknown", frame.condition)


def apply_postconditions(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """The rewrites, in order; none holds disease or drug knowledge, none adds a candidate."""
    cues, facts = turn.tags.cues, turn.tags.facts
    named = turn.candidates.named_ids
    matches = turn.candidates.turn.matches
    conditions = facts.complaints  # a past reaction ("từng bị phù mặt khi uống aspirin") is history
    if conditions and only_patient_facts(facts, matches) and not avoids_combining(cues):
        named = ()  # a condition is asked about; the patient's medicines and allergies are context
    for rule in (
        _apply_reverse_relation_cues,
        _apply_condition_candidate_cue,
        _apply_safe_list_cue,
        _apply_broad_condition_cue,
        _apply_named_drug_cues,
        _apply_narrowing_words,
        _apply_section_named,
        _apply_told_condition_asked,
    ):
        frame = rule(frame, named, cues, conditions)
    return frame


def _apply_told_condition_asked(
    frame: QueryFrame, named: Sequence[str], cues: TurnCues, conditions: Sequence[ConditionMention]
) -> QueryFrame:
    """A which-drugs-exclude question naming no finding and no population, beside one condition
    or one past reaction the message tells of the patient ("HS thiếu men G6PD, từng tan máu.
    Thuốc … nào bị chống chỉ định?"; "hen do aspirin … thuốc giảm đau nào bị CCĐ?"): that state,
    without its cause, is what the list is asked about, not also a fact to check it against."""
    context = frame.patient_context
    told = (*context.comorbidities, *context.adverse_reactions)
    if (
        frame.turn_type != "condition_relation"
        or frame.condition is not None
        or (frame.population is not None and frame.age_text is None)  # an age told: the patient's
        or context.pregnancy
        or context.breastfeeding
        or len(told) != 1
        or any(_points_back_to_who(cue, cues) for cue in cues.all("reverse_relation"))
    ):
        return frame
    return frame.model_copy(
        update={
            "condition": ConditionQuery(text=told[0].split(" (")[0]),
            "population": None,  # the patient's age band, told; the state is what the list asks
            "patient_context": context.model_copy(update={"comorbidities": (), "adverse_reactions": ()}),
        }
    )


def complaint_beside_taken(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """A which-drugs-exclude question whose one finding is the complaint the patient has (a
    symptom), beside medicines they take and no state of theirs ("đang warfarin, bị đau đầu, nên
    tránh thuốc giảm đau nào?"): the complaint is what the drugs are for, and what to avoid is
    what the medicines taken bar, so the drugs that treat it are listed and checked against them,
    never searched as drugs contraindicated in a headache. Read after the merge: the medicines may
    have been told in an earlier turn."""
    context, asked = frame.patient_context, frame.condition
    if (
        frame.turn_type != "condition_relation"
        or frame.condition_relation != "contraindication"
        or asked is None
        or not context.current_medications
        or context.comorbidities
        or context.allergies
        or context.adverse_reactions
        or context.pregnancy
        or context.breastfeeding
    ):
        return frame
    complaints = turn.tags.facts.complaints
    if not any(c.kind == "symptom" and c.normalized == asked.normalized for c in complaints):
        return frame
    return _reverse(frame, "symptom_to_drug", "indication", asked)

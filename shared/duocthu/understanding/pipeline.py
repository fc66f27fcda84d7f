"""A turn (+ history, prior frame) -> QueryFrame. Intent only: nothing here answers a question.

The pipeline, the same for every provider:

1. subject scope (`policy.scope`): a question about an animal is out of scope before any model runs;
2. candidate bounding (`candidates`): the drug_ids this turn may name, fixed before the provider;
3. the provider (`providers`): Bedrock Converse with the frame as a forced tool, or the offline rules;
   a failure becomes a frame with `system_error`, never an exception or a silent fallback;
4. validation: `_resolve_id` keeps only shown drug_ids (anything else is an unknown drug), and the
   frame's own validators drop out-of-vocabulary values;
5. four deterministic post-conditions: narrow, knowledge-free rewrites of surface forms on which a
   model reverses the requested relation;
6. the prior-frame merge, a backstop for a dropped fact, with its three guards;
7. `looks_non_human` before any clarifying question.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.conditions import ConditionMention
from duocthu.core.deadline import Deadline
from duocthu.core.errors import MalformedOutput, ProviderUnavailable
from duocthu.core.sections import ADR_SECTION, INDICATION_SECTION, RELATION_SECTIONS, SECTION_HEADINGS
from duocthu.core.text import fold
from duocthu.core.vocabulary import PATIENT_SAFETY_TURNS, SubjectScope, SystemError
from duocthu.models.frame import ConditionQuery, PatientContext, QueryFrame
from duocthu.understanding.candidates import Turn, bound_candidates
from duocthu.understanding.cue_readings import (
    RELIEF_VERBS,
    asks_what_is_safe,
    avoids_combining,
    condition_asked,
    names_what_it_treats,
    patient_qualifiers_only,
    relieved_form,
    resolve_attribute,
)
from duocthu.understanding.cues import Cue, CueKind, TurnCues, ends_finding, scan_cues
from duocthu.understanding.facts import extract_facts, only_patient_facts
from duocthu.understanding.prompt import MODEL_EXCLUDED_FIELDS
from duocthu.understanding.providers import FrameProvider
from duocthu.understanding.rules.clarify import ASK_FOR_DRUG
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.rules.turn_type import DRUG_TURN_TYPES
from duocthu.understanding.scope import looks_non_human, resolve_subject_scope

log = logging.getLogger(__name__)

OFFLINE_BUDGET_S = 5.0
UNAVAILABLE_REASON = "Hệ thống tạm thời chưa phân tích được câu hỏi. Vui lòng thử lại sau giây lát."
# Words that close a question and are not part of the condition it names.
_NO_CARRY = frozenset({"smalltalk", "out_of_scope"})


# --- 4. Validation ---------------------------------------------------------------------------


def _id_key(text: str) -> str:
    """A drug_id as a model may write it: case, spaces, hyphens and diacritics do not matter."""
    return "_".join(fold(text).replace("-", " ").replace("_", " ").split())


def _resolve_id(raw: str, shown: Sequence[str]) -> str | None:
    """The shown drug_id a model's output names, or None. Only ids of the shown set are accepted
    (written with underscores or spaces); anything else is an unknown drug, never the nearest id."""
    return {_id_key(d): d for d in shown}.get(_id_key(raw))


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else []


def frame_from_output(data: Any, turn: Turn) -> QueryFrame:
    """Validate a provider's raw frame against the turn's shown candidates.

    A drug outside the shown set goes to unknown_drugs. A field of the wrong shape is dropped (one
    bad field must not fail the turn); output that is not a frame at all is MalformedOutput.
    """
    if not isinstance(data, dict):
        raise MalformedOutput(f"the frame is a {type(data).__name__}, not an object")
    shown = turn.candidates.ids
    clean = {k: v for k, v in data.items() if k not in MODEL_EXCLUDED_FIELDS}
    if not isinstance(clean.get("drugs", []), list | tuple | str | None):
        raise MalformedOutput(f"drugs is a {type(clean['drugs']).__name__}, not a list")
    drugs: list[str] = []
    unknown = [str(u) for u in _as_list(clean.get("unknown_drugs"))]
    for item in _as_list(clean.get("drugs")):
        drug_id = _resolve_id(str(item), shown)
        if drug_id:
            drugs.append(drug_id)
        else:
            unknown.append(str(item))
    clean["drugs"], clean["unknown_drugs"] = drugs, unknown
    if isinstance(clean.get("condition"), str):
        clean["condition"] = {"text": clean["condition"]}
    for _ in range(3):
        try:
            return QueryFrame.model_validate({**clean, "raw": data})
        except ValidationError as err:
            bad = {str(e["loc"][0]) for e in err.errors() if e["loc"]}
            if not bad or "turn_type" in bad or "drugs" in bad:
                raise MalformedOutput(f"the frame does not validate: {err}") from err
            log.warning("dropping invalid frame fields %s", sorted(bad))
            clean = {k: v for k, v in clean.items() if k not in bad}
    raise MalformedOutput("the frame does not validate")


# --- 5. Post-conditions ---------------------------------------------------------------------------


def _condition_after(
    cue: Cue, cues: TurnCues, conditions: Sequence[ConditionMention]
) -> ConditionQuery | None:
    """The condition a cue introduces: a known condition after it, else the words that follow it."""
    for condition in conditions:
        if condition.start >= cue.end:
            return ConditionQuery(text=condition.text, normalized=condition.normalized)
    for condition in conditions:  # "ho khan thì dùng thuốc gì": the condition comes first
        return ConditionQuery(text=condition.text, normalized=condition.normalized)
    tail = list(cues.tokens[cue.end :])
    while tail and ends_finding(tail[-1]):
        tail.pop()
    while tail and fold(tail[0]) in {"cho", "trong", "voi", "khi", "bi"}:
        tail.pop(0)
    # "gây rụng tóc hả bác sĩ": the finding ends at the first word no finding is made of
    kept = next((i for i, word in enumerate(tail) if i and ends_finding(word)), len(tail))
    tail = tail[:kept]
    return ConditionQuery(text=" ".join(tail)) if tail else None


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
        update["condition"] = frame.condition or condition
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
    # "Người suy thận không nên dùng thuốc giảm đau nào?": "thuốc giảm đau" names the drugs asked
    # about, not the patient's condition; the one left (or the population) is what excludes them.
    # A class condition starts right after its cue or shares its last word ("thuốc giảm" + "giảm đau").
    class_starts = {i for c in cues.all("broad_condition") for i in range(c.start + 1, c.end + 1)}
    classes = {c.normalized for c in conditions if c.start in class_starts}
    if frame.condition is not None and frame.condition.normalized in classes:
        frame = frame.model_copy(update={"condition": None, "indication": None})
    kept = [c for c in conditions if c.start not in class_starts]
    condition = _condition_after(cue, cues, kept) if kept or not classes else None
    if cue.value == "adverse_effect" and frame.condition is not None:
        # "người bị hen dùng thuốc nào có thể bị co thắt phế quản?": what the drugs bring on is
        # what follows the cue; a condition before it is the patient's
        after = [c for c in kept if c.start >= cue.end]
        caused = _condition_after(cue, cues, after)
        if caused is not None:
            frame, condition = frame.model_copy(update={"condition": None, "indication": None}), caused
    relieved = next((c for c in kept if c.start >= cue.end and relieved_form(c)), None)
    # a relieving verb right after the cue, not the start of a condition's own name ("gây hạ
    # đường huyết"): "ho khan mấy tuần nay, có thuốc nào làm giảm ho không?"
    verb = cues.folded[cue.end] if cue.end < len(cues.folded) else ""
    named_there = any(c.start == cue.end for c in kept)
    if (
        cue.value == "adverse_effect"
        and relieved is None
        and verb in RELIEF_VERBS
        and kept
        and not named_there
    ):
        relieved = kept[0]
    if cue.value == "adverse_effect" and relieved is not None:
        # "thuốc nào làm giảm đau / làm hạ sốt": what relieves it, the indications; never the drugs
        # that cause pain or fever
        kind = "symptom_to_drug" if relieved.kind == "symptom" else "condition_to_drug"
        return _reverse(
            frame, kind, "indication", ConditionQuery(text=relieved.text, normalized=relieved.normalized)
        )
    causative = cues.folded[cue.end - 1] in ("lam", "khien")
    if cue.value == "adverse_effect" and causative and named_there and verb in _LOWERING and condition:
        # "thuốc nào làm hạ huyết áp": the drugs used to lower it or those that bring hypotension on
        # as a reaction; the words do not tell which, so ask, offering both readings
        return _reverse(frame, "condition_relation", "adverse_effect", condition).model_copy(
            update=_lowering_question(condition.normalized or condition.text)
        )
    if cue.value == "adverse_effect" and causative and verb in RELIEF_VERBS and not named_there:
        # "thuốc nào làm hết …" with no condition known after it: still a use, never a reaction
        # (a cue naming reactions, "có TDKMM giảm bạch cầu", keeps them)
        return _reverse(frame, "symptom_to_drug", "indication", condition)
    return _reverse(frame, "condition_relation", cue.value, condition)


# "hạ" / "giảm" both start a reaction's name (hạ huyết áp) and say what a drug is for
_LOWERING = frozenset({"ha", "giam"})


def _lowering_question(finding: str) -> dict[str, Any]:
    return {
        "needs_clarify": True,
        "clarify_reason": (
            f"Bạn muốn hỏi thuốc dùng để {finding} (mục Chỉ định), hay thuốc có thể gây {finding} "
            "như một tác dụng không mong muốn?"
        ),
        "quick_replies": (f"Thuốc nào dùng để {finding}?", f"Thuốc nào có thể gây {finding}?"),
    }


# Said when a user answers `_lowering_question` with both readings: each answer reads one way.
_ONE_AT_A_TIME = "Mỗi câu trả lời chỉ theo một cách hiểu; hãy chọn một trước, rồi hỏi tiếp cách còn lại."


def _asked_two_readings(prior: QueryFrame | None) -> bool:
    """Whether the turn before asked `_lowering_question` (again, after "cả hai", too)."""
    condition = prior.condition if prior is not None else None
    if prior is None or condition is None or len(prior.quick_replies) != 2 or not prior.clarify_reason:
        return False
    asked = _lowering_question(condition.normalized or condition.text)["clarify_reason"]
    return prior.clarify_reason in (asked, f"{_ONE_AT_A_TIME} {asked}")


def _both_asked_again(message: str, prior: QueryFrame | None) -> QueryFrame | None:
    """ "cả hai" after `_lowering_question`: the same question again, saying why one is picked
    first; never a new question about nothing."""
    if prior is None or prior.condition is None or not _asked_two_readings(prior):
        return None
    if not scan_cues(message).has("both"):
        return None
    asked = _lowering_question(prior.condition.normalized or prior.condition.text)["clarify_reason"]
    return prior.model_copy(
        update={
            "clarify_reason": f"{_ONE_AT_A_TIME} {asked}",
            "context_action": "continue",
            "depends_on_previous_turn": True,
        }
    )


def _reading_picked(message: str, prior: QueryFrame | None) -> str | None:
    """A typed answer to `_lowering_question` ("tác dụng phụ", "để điều trị") is read as the quick
    reply it picks, as if that button were pressed: a reaction's words (the ADR section's phrases,
    "gây ra") pick the second reading, a purpose ("để điều trị", "dùng để chữa") the first."""
    if prior is None or not _asked_two_readings(prior):
        return None
    cues, section = scan_cues(message), resolve_attribute(message)
    reaction = section == ADR_SECTION or any(
        c.value.endswith(":adverse_effect") for c in cues.all("named_drug")
    )
    use = section == INDICATION_SECTION or cues.has("purpose")
    if reaction == use:
        return None  # neither, or both: read as written
    return prior.quick_replies[1 if reaction else 0]


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
    kind = "symptom_to_drug" if first.kind == "symptom" else "condition_to_drug"
    return _reverse(frame, kind, "indication", asked)


def _apply_safe_list_cue(
    frame: QueryFrame, named: Sequence[str], cues: TurnCues, conditions: Sequence[ConditionMention]
) -> QueryFrame:
    """ "Thuốc kháng sinh nào dùng được cho trẻ em?", "… cho người dị ứng penicilin?": which drugs
    are safe for a population or a patient (an allergy, a pregnancy), with no condition to treat.
    No section lists drugs that way: relation unknown, said so, never a request to name a drug
    the user has not got."""
    patient = frame.patient_context
    if (
        named
        or frame.unknown_drugs
        or conditions
        or not (frame.population or patient.allergies or patient.pregnancy or patient.breastfeeding)
        or not cues.has("candidate")
        or cues.has("reverse_relation")
        or not asks_what_is_safe(cues)
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
    condition = _condition_after(cue, cues, conditions)
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
    for cue in cues.all("named_drug"):
        turn_type, _, rest = cue.value.partition(":")
        attribute, _, relation = rest.partition(":")
        if frame.attribute not in (None, attribute):
            continue
        if relation == "indication" and not names_what_it_treats(
            cue, cues.folded, [(c.start, c.start + c.length) for c in conditions]
        ):
            continue  # "X có tác dụng không?" names nothing it would treat
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
    """ "Thuốc nào gây chảy máu cam?": the words right after a known finding's name narrow it, so
    a which-drugs-cause lookup searches "chảy máu cam", with "chảy máu" only as a wider finding
    listed apart; read as "chảy máu" it listed every drug that causes bleeding. So does a named
    drug's ("Aspirin có gây chảy máu cam không?": its ADR section is read for "chảy máu cam").
    Kept as the condition's `subtype`; no table is needed for each narrowed form. Not for a
    contraindication: a drug contraindicated in "suy gan" is so in "suy gan nặng", and must stay
    on that list."""
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


def apply_postconditions(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """The rewrites, in order; none holds disease or drug knowledge, none adds a candidate."""
    if frame.system_error:
        return frame
    cues = scan_cues(turn.wording)
    named = turn.candidates.named_ids
    matches = turn.candidates.turn.matches
    facts = extract_facts(turn.wording, matches)
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
    ):
        frame = rule(frame, named, cues, conditions)
    return frame


# --- 6. Prior-frame merge ----------------------------------------------------------------------


def _merge_context(own: PatientContext, prior: PatientContext) -> PatientContext:
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
    if frame.turn_type not in PATIENT_SAFETY_TURNS:
        return frame
    context = _merge_context(frame.patient_context, prior.patient_context)
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
    context = _merge_context(frame.patient_context, prior.patient_context)
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
    context = _merge_context(frame.patient_context, prior.patient_context)
    if context != frame.patient_context:
        update["patient_context"] = context
    if update.get("attribute") and frame.turn_type == "drug_overview":
        update["turn_type"] = "drug_attribute"  # the name answers "which drug?" for a section asked before
    if frame.needs_clarify and update.get("drugs") and frame.clarify_reason in (None, ASK_FOR_DRUG):
        update.update(needs_clarify=False, clarify_reason=None, quick_replies=())
    return frame.model_copy(update=update) if update else frame


# --- The pipeline ------------------------------------------------------------------------------


def failed_frame(error: SystemError) -> QueryFrame:
    """Fail closed: no drugs, no section, a clarifying abstention that says it was a fault."""
    return QueryFrame(
        turn_type="out_of_scope", needs_clarify=True, clarify_reason=UNAVAILABLE_REASON, system_error=error
    )


def non_human_frame(message: str) -> QueryFrame:
    """A question about an animal: out of scope (reason non_human_subject downstream), no drugs, no
    clarifying question."""
    return QueryFrame(turn_type="out_of_scope", standalone_query=message, subject_scope="non_human")


def _standalone(frame: QueryFrame, turn: Turn) -> QueryFrame:
    """A follow-up turn's drugs come from earlier turns: say them in the standalone query (unless
    the provider already rewrote the turn)."""
    carried = frame.depends_on_previous_turn or frame.context_action == "continue"
    if not carried or not frame.drugs or turn.candidates.named_ids:
        return frame
    if frame.standalone_query not in (None, turn.message):
        return frame
    names = ", ".join(turn.candidates.names.get(d, (d,))[0] for d in frame.drugs)
    topic = f"{SECTION_HEADINGS[frame.attribute]} của {names}" if frame.attribute else names
    return frame.model_copy(update={"standalone_query": f"{turn.message} ({topic})"})


def understand_turn(
    turn: Turn, provider: FrameProvider, deadline: Deadline, claimed_scope: SubjectScope | None = None
) -> QueryFrame:
    if resolve_subject_scope(turn.message, claimed_scope) == "non_human":
        return non_human_frame(turn.message)
    try:
        frame = frame_from_output(provider.propose(turn, deadline), turn)
    except ProviderUnavailable as err:
        log.error("understanding provider %s unavailable: %s", provider.name, err, exc_info=err)
        return failed_frame("understanding_provider_unavailable")
    except MalformedOutput as err:
        log.error("understanding provider %s gave malformed output: %s", provider.name, err, exc_info=err)
        return failed_frame("understanding_malformed_output")
    frame = apply_postconditions(frame, turn)
    frame = _standalone(merge_with_prior_frame(frame, turn.prior), turn)
    if frame.needs_clarify and looks_non_human([*turn.history, turn.message]):
        return non_human_frame(turn.message)
    return frame


def understand(
    message: str,
    resolver: CatalogDrugResolver,
    provider: FrameProvider,
    deadline: Deadline,
    history: Sequence[str] = (),
    prior: QueryFrame | None = None,
    claimed_scope: SubjectScope | None = None,
) -> QueryFrame:
    """One turn with the given provider: bound the candidates, then run the pipeline."""
    if (again := _both_asked_again(message, prior)) is not None:
        return again
    message = _reading_picked(message, prior) or message
    candidates = bound_candidates(resolver, message, history, prior)
    turn = Turn(message, tuple(history), prior, candidates)
    return understand_turn(turn, provider, deadline, claimed_scope)


def understand_offline(
    message: str, resolver: CatalogDrugResolver, history: Sequence[str] = (), prior: QueryFrame | None = None
) -> QueryFrame:
    """The offline provider end to end (no model, no network): the embedded default."""
    return understand(
        message, resolver, OfflineFrameProvider(), Deadline.after(OFFLINE_BUDGET_S), history, prior
    )


__all__ = [
    "apply_postconditions",
    "failed_frame",
    "frame_from_output",
    "merge_with_prior_frame",
    "understand",
    "understand_offline",
    "understand_turn",
]

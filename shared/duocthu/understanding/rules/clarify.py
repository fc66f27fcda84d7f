"""Stages: the questions asked back. A patient described with the question still to come is asked
what to look up (the next turn keeps that patient: a clarifying prior is always continued); a
misspelt name is offered its catalogue names; a question of no drug asks for one."""

from __future__ import annotations

from typing import Any

from duocthu.core.text import asks_something, tells_only
from duocthu.models.frame import ASK_FOR_DRUG, MAX_QUICK_REPLIES
from duocthu.understanding.candidates import Turn
from duocthu.understanding.facts import only_current_medications, only_patient_facts
from duocthu.understanding.rules.reading import Reading, reverse_lookup

ASK_ABOUT_DESCRIBED_PATIENT = (
    "Tôi đã ghi nhận thông tin người bệnh. Bạn muốn hỏi gì? Ví dụ: liều của một thuốc cho người bệnh "
    "này, hoặc bị một triệu chứng thì dùng thuốc nào."
)
ASK_ABOUT_PATIENT = (
    "Tôi đã ghi nhận người bệnh đang dùng {names}. Bạn muốn hỏi gì? Ví dụ: bị một triệu chứng thì dùng "
    "thuốc nào, hoặc có dùng được một thuốc khác cùng {names} không."
)
ASK_ABOUT_ALLERGY = (
    "Tôi đã ghi nhận người bệnh dị ứng hoặc từng có phản ứng với {names}. Bạn muốn hỏi gì? Ví dụ: bị một "
    "triệu chứng thì dùng thuốc nào (mỗi thuốc tìm được sẽ được đối chiếu với {names})."
)


def patient_told(reading: Reading) -> dict[str, Any] | None:
    """ "Tôi đang dùng warfarin", "Tôi dị ứng aspirin.": the patient, described; the question is
    still to come, and the next turn keeps this patient (a clarifying prior is always continued)."""
    named, cues, facts = reading.named, reading.cues, reading.facts
    if not (
        not reading.unknown
        and reading.attribute is None
        and not reading.complaint
        and only_patient_facts(facts, named)
        and not reverse_lookup(cues)
        and not cues.has("interaction")
        and not asks_something(reading.text)
    ):
        return None
    names = ", ".join(m.matched_text for m in named)
    template = ASK_ABOUT_PATIENT if only_current_medications(facts, named) else ASK_ABOUT_ALLERGY
    return _asked_back(reading, template.format(names=names), drugs=[])


def _asked_back(reading: Reading, reason: str, **fields: Any) -> dict[str, Any]:
    """The turn's frame with a question asked back (out of scope unless `fields` say otherwise)."""
    frame = reading.frame() | {"turn_type": "out_of_scope", "context_action": reading.context_action}
    return {**frame, "needs_clarify": True, "clarify_reason": reason, **fields}


def name_asked_back(reading: Reading) -> dict[str, Any]:
    """For a product the catalogue does not know: the catalogue names it may be a misspelling of,
    offered back; a name the user does not remember, asked for. Empty otherwise."""
    if reading.turn.candidates.turn.suggestions:
        reason, replies = _suggestion_question(reading.turn)
        return {"needs_clarify": True, "clarify_reason": reason, "quick_replies": replies}
    if reading.cues.has("vague_name"):
        # the user does not remember the name; ask for it
        return {"needs_clarify": True, "clarify_reason": ASK_FOR_DRUG}
    return {}


def _suggestion_question(turn: Turn) -> tuple[str, list[str]]:
    suggestions = turn.candidates.turn.suggestions[:MAX_QUICK_REPLIES]
    names = [turn.candidates.names.get(s.drug_id, (s.drug_id,))[0] for s in suggestions]
    spans = list(dict.fromkeys(s.matched_text for s in suggestions))
    offered = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " hay " + names[-1]
    return f"Không tìm thấy “{', '.join(spans)}” trong Dược thư. Ý bạn là {offered}?", names


def ask_for_drug(reading: Reading) -> dict[str, Any] | None:
    """A section, a medicine, a dose or a reaction's handling asked of no drug: which drug."""
    cues, attribute = reading.cues, reading.attribute
    if not (
        attribute or cues.has("medicine") or cues.has("dose") or cues.has("manage") or reverse_lookup(cues)
    ):
        return None
    turn_type = "drug_attribute" if attribute else "out_of_scope"
    return _asked_back(reading, ASK_FOR_DRUG, turn_type=turn_type, attribute=attribute)


def described_patient(reading: Reading) -> dict[str, Any] | None:
    """ "Con tui 2 tuổi, nặng 12 ký.": the patient, described; the question is still to come, and
    the next turn keeps this patient (a clarifying prior is always continued)."""
    facts = reading.facts
    if not (tells_only(reading.text) and (facts.states_patient or facts.population)):
        return None
    return _asked_back(reading, ASK_ABOUT_DESCRIBED_PATIENT)

"""QueryFrame: what one turn asks for (intent only; nothing here answers a medical question).

Validation is lenient about values, strict about types: a string outside its closed vocabulary
becomes None (or the documented fallback) instead of failing the whole turn, because the frame is
built from a language model's output and one bad word must not turn into an outage. A value of the
wrong type (a list for a population, a number for the drugs) and anything over the caps below is a
pydantic ValidationError naming the field, never a TypeError: a 422 when a client sent it, a
system_error when a model wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from duocthu.core.measures import MAX_WEIGHT_KG
from duocthu.core.sections import SECTION_ORDER
from duocthu.core.vocabulary import (
    CONDITION_RELATIONS,
    POPULATIONS,
    ROUTES,
    TURN_TYPES,
    ConditionRelation,
    ContextAction,
    Population,
    Route,
    SubjectScope,
    SystemError,
    TurnType,
)

MAX_QUICK_REPLIES = 4
# The clarifying question that asks which drug is meant; a later turn naming one answers it.
ASK_FOR_DRUG = "Bạn muốn hỏi về thuốc nào? Hãy cho biết tên hoạt chất hoặc biệt dược."
MAX_QUICK_REPLY_CHARS = 40
_DRUG_ID = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")
# Caps on what a frame may carry (a client's prior_frame, a model's output), set above anything the
# pipeline writes from a message of 2,000 characters: the standalone query is a message and its
# topic; one fact, name or lab is a span of the message; a list is a message's worth of names.
MAX_FRAME_TEXT = 4000
MAX_FRAME_ITEM = 2000
MAX_FRAME_ITEMS = 64

FrameText = Annotated[str, StringConstraints(max_length=MAX_FRAME_TEXT)]
FrameItem = Annotated[str, StringConstraints(max_length=MAX_FRAME_ITEM)]
FrameItems = Annotated[tuple[FrameItem, ...], Field(max_length=MAX_FRAME_ITEMS)]


def _strings(value: Any) -> tuple[str, ...]:
    """A tuple of non-empty, stripped, de-duplicated strings (order kept); any other shape is a
    ValueError (pydantic reports it as the field's validation error)."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
        raise ValueError("expected a list of strings")
    seen: dict[str, None] = {}
    for item in value:
        text = item.strip()
        if text:
            seen.setdefault(text, None)
    return tuple(seen)


def _choice(value: Any, allowed: Collection[str]) -> str | None:
    """A closed-vocabulary value: None for a string outside it, a ValueError for a non-string."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError("expected a string")
    return value if value in allowed else None


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class ConditionQuery(_Model):
    """A condition as the user stated it, normalised, with subtype and ambiguity."""

    text: FrameText
    normalized: FrameText | None = None
    subtype: FrameText | None = None
    ambiguous: bool = False


class PatientContext(_Model):
    comorbidities: FrameItems = ()
    allergies: FrameItems = ()
    adverse_reactions: FrameItems = ()
    current_medications: FrameItems = ()
    renal_function: FrameItem | None = None
    hepatic_function: FrameItem | None = None
    pregnancy: bool | None = None
    # the stage as written ("tuần 10", "thai 7 tháng", "3 tháng cuối"): a contraindication bound to
    # a stage is read against it (duocthu.retrieval.levels)
    pregnancy_stage: FrameItem | None = None
    breastfeeding: bool | None = None
    labs: FrameItems = ()

    @field_validator(
        "comorbidities", "allergies", "adverse_reactions", "current_medications", "labs", mode="before"
    )
    @classmethod
    def _clean(cls, value: Any) -> tuple[str, ...]:
        return _strings(value)

    def is_empty(self) -> bool:
        return self == PatientContext()


class QueryFrame(_Model):
    turn_type: TurnType
    drugs: FrameItems = ()
    unknown_drugs: FrameItems = ()
    attribute: str | None = None
    population: Population | None = None
    weight_kg: float | None = Field(default=None, gt=0, le=MAX_WEIGHT_KG)
    age_text: FrameText | None = None
    indication: FrameText | None = None
    condition: ConditionQuery | None = None
    condition_relation: ConditionRelation | None = None
    patient_context: PatientContext = Field(default_factory=PatientContext)
    context_action: ContextAction = "none"
    route: Route | None = None
    section_overview: bool = False
    standalone_query: FrameText | None = None
    depends_on_previous_turn: bool = False
    needs_clarify: bool = False
    clarify_reason: FrameText | None = None
    quick_replies: tuple[Annotated[str, StringConstraints(max_length=MAX_QUICK_REPLY_CHARS)], ...] = Field(
        default=(), max_length=MAX_QUICK_REPLIES
    )
    system_error: SystemError | None = None
    # non_human: the question is about an animal; it is answered as out of scope (non_human_subject)
    subject_scope: SubjectScope = "human"
    raw: dict[str, Any] = Field(default_factory=dict, exclude=True, repr=False)

    @model_validator(mode="before")
    @classmethod
    def _fallback_turn_type(cls, data: Any) -> Any:
        # An unknown turn type is not an error: with resolved drugs the safest reading is a
        # question about them; without, the turn is out of scope. A turn type that is no string at
        # all is left to fail the field's own validation.
        turn_type = data.get("turn_type") if isinstance(data, dict) else None
        if (
            isinstance(data, dict)
            and (turn_type is None or isinstance(turn_type, str))
            and turn_type not in TURN_TYPES
        ):
            data = dict(data)
            drugs = data.get("drugs")
            drugs = [drugs] if isinstance(drugs, str) else drugs
            named = isinstance(drugs, list | tuple) and any(isinstance(d, str) and d.strip() for d in drugs)
            data["turn_type"] = "drug_attribute" if named else "out_of_scope"
        return data

    @field_validator("drugs", mode="before")
    @classmethod
    def _drug_ids(cls, value: Any) -> tuple[str, ...]:
        ids = _strings(value)
        bad = [d for d in ids if not _DRUG_ID.match(d)]
        if bad:
            raise ValueError(f"not drug_ids (lower-case slugs): {bad}")
        return ids

    @field_validator("unknown_drugs", mode="before")
    @classmethod
    def _unknown(cls, value: Any) -> tuple[str, ...]:
        return _strings(value)

    @field_validator("attribute", mode="before")
    @classmethod
    def _attribute(cls, value: Any) -> str | None:
        return _choice(value, SECTION_ORDER)

    @field_validator("population", mode="before")
    @classmethod
    def _population(cls, value: Any) -> Any:
        return _choice(value, POPULATIONS)

    @field_validator("route", mode="before")
    @classmethod
    def _route(cls, value: Any) -> Any:
        return _choice(value, ROUTES)

    @field_validator("condition_relation", mode="before")
    @classmethod
    def _relation(cls, value: Any) -> Any:
        if value is None:
            return None
        return _choice(value, CONDITION_RELATIONS) or "unknown"

    @field_validator("weight_kg", mode="before")
    @classmethod
    def _weight(cls, value: Any) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            return None
        try:
            weight = float(value)
        except (ValueError, OverflowError):
            return None
        return weight if 0 < weight <= MAX_WEIGHT_KG else None

    @field_validator("quick_replies", mode="before")
    @classmethod
    def _quick_replies(cls, value: Any) -> tuple[str, ...]:
        kept: dict[str, str] = {}
        for reply in _strings(value):
            if len(reply) <= MAX_QUICK_REPLY_CHARS:
                kept.setdefault(reply.casefold(), reply)
        return tuple(kept.values())[:MAX_QUICK_REPLIES]

    def __eq__(self, other: object) -> bool:
        # `raw` is the model's own JSON: two frames that mean the same are equal.
        if not isinstance(other, QueryFrame):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]


def indication_of(frame: QueryFrame) -> str | None:
    """The phrase a frame asks drugs for: its indication, else its condition as normalised, else
    as the user wrote it."""
    if frame.indication:
        return frame.indication
    condition = frame.condition
    return (condition.normalized or condition.text) if condition else None

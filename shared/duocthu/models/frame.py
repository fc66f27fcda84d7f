"""QueryFrame: what one turn asks for (intent only; nothing here answers a medical question).

Validation is lenient by design, field by field: a value outside its closed vocabulary becomes
None (or the documented fallback) instead of failing the whole turn, because the frame is built
from a language model's output and one bad field must not turn into an outage.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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


def _strings(value: Any) -> tuple[str, ...]:
    """A tuple of non-empty, stripped, de-duplicated strings (order kept)."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    seen: dict[str, None] = {}
    for item in value:
        text = str(item).strip()
        if text:
            seen.setdefault(text, None)
    return tuple(seen)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class ConditionQuery(_Model):
    """A condition as the user stated it, normalised, with subtype and ambiguity."""

    text: str
    normalized: str | None = None
    subtype: str | None = None
    ambiguous: bool = False


class PatientContext(_Model):
    comorbidities: tuple[str, ...] = ()
    allergies: tuple[str, ...] = ()
    adverse_reactions: tuple[str, ...] = ()
    current_medications: tuple[str, ...] = ()
    renal_function: str | None = None
    hepatic_function: str | None = None
    pregnancy: bool | None = None
    breastfeeding: bool | None = None
    labs: tuple[str, ...] = ()

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
    drugs: tuple[str, ...] = ()
    unknown_drugs: tuple[str, ...] = ()
    attribute: str | None = None
    population: Population | None = None
    weight_kg: float | None = None
    age_text: str | None = None
    indication: str | None = None
    condition: ConditionQuery | None = None
    condition_relation: ConditionRelation | None = None
    patient_context: PatientContext = Field(default_factory=PatientContext)
    context_action: ContextAction = "none"
    route: Route | None = None
    section_overview: bool = False
    standalone_query: str | None = None
    depends_on_previous_turn: bool = False
    needs_clarify: bool = False
    clarify_reason: str | None = None
    quick_replies: tuple[str, ...] = ()
    system_error: SystemError | None = None
    # non_human: the question is about an animal; it is answered as out of scope (non_human_subject)
    subject_scope: SubjectScope = "human"
    raw: dict[str, Any] = Field(default_factory=dict, exclude=True, repr=False)

    @model_validator(mode="before")
    @classmethod
    def _fallback_turn_type(cls, data: Any) -> Any:
        # An unknown turn type is not an error: with resolved drugs the safest reading is a
        # question about them; without, the turn is out of scope.
        if isinstance(data, dict) and data.get("turn_type") not in TURN_TYPES:
            data = dict(data)
            data["turn_type"] = "drug_attribute" if _strings(data.get("drugs")) else "out_of_scope"
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
        return value if value in SECTION_ORDER else None

    @field_validator("population", mode="before")
    @classmethod
    def _population(cls, value: Any) -> Any:
        return value if value in POPULATIONS else None

    @field_validator("route", mode="before")
    @classmethod
    def _route(cls, value: Any) -> Any:
        return value if value in ROUTES else None

    @field_validator("condition_relation", mode="before")
    @classmethod
    def _relation(cls, value: Any) -> Any:
        if value is None:
            return None
        return value if value in CONDITION_RELATIONS else "unknown"

    @field_validator("weight_kg", mode="before")
    @classmethod
    def _weight(cls, value: Any) -> float | None:
        try:
            weight = float(value)
        except (TypeError, ValueError):
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

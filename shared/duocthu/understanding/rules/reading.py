"""The turn as the offline rules read it: what the reading stages have found so far, and the reads
several stages share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from duocthu.catalog.resolver import DrugMatch
from duocthu.core.conditions import ConditionMention
from duocthu.core.phrases import phrase_starts
from duocthu.core.text import fold
from duocthu.models.frame import QueryFrame
from duocthu.understanding.candidates import Turn
from duocthu.understanding.cues import TurnCues
from duocthu.understanding.facts import Facts

Asked = tuple[str, ConditionMention] | None  # (relation, condition) a turn asks of its drug


@dataclass(frozen=True)
class Reading:
    """One turn as read so far. The reading stages fill it in, in order; the framing stages only
    read it."""

    turn: Turn
    text: str  # the message in the formulary's words (`understanding.lexicon`)
    cues: TurnCues
    facts: Facts
    clauses: list[int]  # each token's clause (`facts.clause_ids`)
    named: tuple[DrugMatch, ...]  # the catalogue drugs asked about; the patient's own are set aside
    unknown: list[str] = field(default_factory=list)  # products the catalogue does not know
    attribute: str | None = None
    asked: Asked = None
    history: frozenset[int] = frozenset()  # where what a medicine is taken for, or a past reaction, stands
    complaint: bool = False  # the turn tells a complaint (history and organ function are none)
    untold: ConditionMention | None = None  # a complaint no condition table names
    decides: bool = False  # whether this patient may take the one drug asked (`decision`)

    @property
    def prior(self) -> QueryFrame | None:
        return self.turn.prior

    @property
    def drugs(self) -> list[str]:
        return [m.drug_id for m in self.named]

    @property
    def products(self) -> list[tuple[int, int]]:
        """Where the medicines asked about stand, start and end (`product_spans`)."""
        return product_spans(self.cues.folded, self.named, self.unknown)

    @property
    def earlier(self) -> bool:
        """The conversation has named a drug before this turn."""
        return bool(self.turn.prior and self.turn.prior.drugs) or bool(self.turn.candidates.history_ids())

    @property
    def context_action(self) -> str:
        """For a turn that neither goes on nor names a drug again: a new topic if drugs came before."""
        return "new" if self.earlier else "none"

    @property
    def asked_about(self) -> tuple[ConditionMention, ...]:
        """The conditions a which-drug question may be about: the complaints, else one no table names."""
        return self.facts.complaints or ((self.untold,) if self.untold is not None else ())

    def frame(self) -> dict[str, Any]:
        """What every frame of this turn says: the medicines, the patient's facts, the query."""
        facts = self.facts
        return {
            "drugs": self.drugs,
            "unknown_drugs": self.unknown,
            "population": facts.population,
            "weight_kg": facts.weight_kg,
            "age_text": facts.age_text,
            "route": facts.route,
            "patient_context": facts.patient_context().model_dump(),
            "standalone_query": self.turn.message,
        }


def read_turn(turn: Turn) -> Reading:
    """The turn's cues, facts and clauses, before any stage: every exact catalogue hit is named."""
    tags = turn.tags
    return Reading(turn, tags.text, tags.cues, tags.facts, tags.clauses, tags.matches)


def reverse_lookup(cues: TurnCues) -> bool:
    """The turn asks which drugs (for / causing / contraindicated in) a condition."""
    return cues.has("reverse_relation") or cues.has("candidate") or cues.has("broad_condition")


def product_spans(
    folded: Sequence[str], named: Sequence[DrugMatch], unknown: Sequence[str]
) -> list[tuple[int, int]]:
    """Where the products asked about stand: catalogue matches, and each unknown name found by
    its words in the folded turn."""
    spans = [(m.start, m.end) for m in named]
    for name in unknown:
        parts = fold(name).split()
        spans += [(i, i + len(parts)) for i in phrase_starts(folded, parts)]
    return spans

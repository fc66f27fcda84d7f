"""The plan of a turn: made once, at the end of understanding, from the frame and its reading.

The plan says what kind of reply the turn gets and what evidence each part of it needs (its
**asks**). Retrieval gathers every ask's evidence in one call (`duocthu.retrieval.gather`); one
composer per reply kind turns plan and evidence into the reply (`duocthu.answer.compose`). Nothing
after the plan decides what the turn means: the turn type is branched on here and in the
composers' dispatch only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from duocthu.core.vocabulary import Reason
from duocthu.models.evidence import AskEvidence, GatheredEvidence, WholeSection
from duocthu.models.frame import QueryFrame
from duocthu.models.reading import TurnReading

# What the reply is: a decline or a question back (no evidence), the quoted sections of one or
# more drugs, a which-drug list (a patient table when the patient is checked), the pairs of drugs
# asked together, one drug checked beside the medicines the patient takes, or several asks written
# in one message (each part answered as its own turn would be, in the message's order).
ReplyKind = Literal[
    "decline", "clarify", "smalltalk", "sections", "drug_list", "pairs", "beside_medicines", "several_asks"
]  # fmt: skip

# What one ask needs from the formulary.
AskKind = Literal[
    "section",  # one drug's section, whole (pooled neighbours when the policy pools it)
    "overview",  # one drug's introductory sections in book order
    "monograph",  # one drug's prose parts ordered for the question (the free-form route)
    "each_drug",  # the same section (or overview) of several drugs
    "together",  # two or more drugs named together: their interaction sections' parts naming each other
    "condition",  # a condition -> the drugs whose indications name it (+ the patient's check)
    "relation",  # a condition and a relation (cause, avoid) -> the drugs whose section names it
    "uses",  # one drug's indications, read for the condition asked
    "whole_sections",  # sections a composer quotes beside the asked one (contraindications, …)
    "lines",  # one named drug's sentences read for the question before a decline says no
    "book_lines",  # every sentence of the book read for a which-drug question no list answers
]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Ask(_Model):
    kind: AskKind
    drugs: tuple[str, ...] = ()
    section_key: str | None = None
    # `whole_sections`: every (drug, section) read whole
    sections: tuple[tuple[str, str], ...] = ()
    # the words that order a free-form answer and drive pooling (the question, with the
    # formulary's words for the patient when it asks whether they may take the drug)
    query: str | None = None
    # names the catalogue lacks that are asked together with the drugs
    unknown_names: tuple[str, ...] = ()
    # the drug's contraindications and its pairs with the patient's medicines, whatever ranked
    with_patient: bool = False
    # the section read for how it names the finding asked ("X có trị Y không?": chỉ định; "X có
    # gây Y không?": the ADR list), for one named drug
    reads_section: str | None = None
    # the drugs found are checked against the patient the frame describes
    patient_check: bool = False
    # every section the question's words point to, strongest first (`section_key` is the first
    # when one is committed): retrieval may rank evidence across them where one word is weak
    candidate_sections: tuple[str, ...] = ()
    # the reply quotes first the sentences of the asked section that answer its focus (a maximum,
    # a weight, the patient's state: duocthu.answer.lines)
    answering_lines: bool = False
    # the question asks for the section itself ("CCĐ của captopril?"), not for something in it:
    # the reply quotes it whole whatever its length (answer.reply_budget)
    whole_section: bool = False
    # a which-drug question naming the drugs to choose among ("trong A, B, C, thuốc nào …"): only
    # they are looked up, and the reply says of each whether its section names the finding
    among: tuple[str, ...] = ()


class Plan(_Model):
    reply: ReplyKind
    frame: QueryFrame
    reading: TurnReading
    # why a decline declines (out_of_scope, unknown_drug, …)
    reason: Reason | None = None
    asks: tuple[Ask, ...] = ()
    # the catalogue drugs the turn is about together: the frame's, then the medicines taken
    together: tuple[str, ...] = ()
    # the names a formulary text may use for each drug the turn is about together
    names: dict[str, tuple[str, ...]] = {}
    # the question asks for a dose the assistant does not compute: the reply says so, then quotes
    dose_calculation: bool = False
    # several asks in one message: one plan per ask clause, in the message's order; the turn's
    # asks are theirs, part after part (`understanding.several_asks`)
    parts: tuple[Plan, ...] = ()
    # a part's clause, as written: the question it answers
    clause: str | None = None

    @property
    def main_ask(self) -> Ask | None:
        return self.asks[0] if self.asks else None

    def asks_kind(self, *kinds: str) -> bool:
        """Whether the turn's main ask is one of these kinds."""
        return self.main_ask is not None and self.main_ask.kind in kinds

    @property
    def needs_evidence(self) -> bool:
        return bool(self.asks)

    def part_offsets(self) -> tuple[int, ...]:
        """Where each part's asks start among the turn's asks."""
        starts, at = [], 0
        for part in self.parts:
            starts.append(at)
            at += len(part.asks)
        return tuple(starts)


def gathered_by_part(plan: Plan, gather: Callable[[Plan], GatheredEvidence]) -> GatheredEvidence:
    """A plan's evidence: gathered for the plan itself, or for each of its parts with its own frame
    and reading, the asks numbered as the turn's (part after part) and each section read once."""
    if not plan.parts:
        return gather(plan)
    answers: list[AskEvidence] = []
    sections: dict[tuple[str, str], WholeSection] = {}
    for part, start in zip(plan.parts, plan.part_offsets(), strict=True):
        if not part.needs_evidence:
            continue
        found = gather(part)
        answers += [a.model_copy(update={"ask": a.ask + start}) for a in found.answers]
        sections.update({(s.drug_id, s.section_key): s for s in found.sections})
    return GatheredEvidence(answers=tuple(answers), sections=tuple(sections.values()))


def part_evidence(plan: Plan, evidence: GatheredEvidence, index: int) -> GatheredEvidence | None:
    """What was gathered for one part, its asks numbered as the part's own (None: it needs none)."""
    part, start = plan.parts[index], plan.part_offsets()[index]
    if not part.needs_evidence:
        return None
    end = start + len(part.asks)
    answers = tuple(
        a.model_copy(update={"ask": a.ask - start}) for a in evidence.answers if start <= a.ask < end
    )
    return GatheredEvidence(answers=answers, sections=evidence.sections)

"""A plan and its gathered evidence -> the reply: one composer per reply kind, each in its module.

This dispatch is, with the plan, the only place that branches on what a turn is. Composers read
the plan and the evidence alone: no store, no resolver, no retrieval service (a test holds it).
"""

from __future__ import annotations

from dataclasses import replace

from duocthu.answer.quoted_once import quoted_once
from duocthu.answer.replies.beside_medicines import beside_medicines
from duocthu.answer.replies.book_lines import book_lines
from duocthu.answer.replies.context import Composed, Composer, Generator, abstain
from duocthu.answer.replies.declined import abstained, declined, said_first, unavailable
from duocthu.answer.replies.drug_list import drug_list, patient_table
from duocthu.answer.replies.pairs import pairs
from duocthu.answer.replies.relation_list import relation_list, with_named_by_others
from duocthu.answer.replies.sections import sections
from duocthu.answer.replies.several_asks import several_asks
from duocthu.answer.reply_budget import within_budget
from duocthu.core.vocabulary import NOT_DONE_BUT_QUOTED
from duocthu.models.evidence import GatheredEvidence
from duocthu.models.plan import Plan


def compose(composer: Composer, plan: Plan, evidence: GatheredEvidence | None) -> Composed:
    """The turn's reply, within the one reply budget (answer.reply_budget) whatever its kind."""
    composed = _composed(composer, plan, evidence)
    composed = replace(composed, reply=quoted_once(composed.reply))
    together = {d: names for part in (plan, *plan.parts) for d, names in part.names.items()}
    parts_asked = {
        (d, a.section_key) for part in plan.parts for a in part.asks if a.section_key for d in a.drugs
    }
    ranked = [line for answer in evidence.answers for line in answer.lines] if evidence else []
    fitted = within_budget(
        composed.reply, composer.wording.names, routed_sections(plan), together, parts_asked, ranked
    )
    return composed if fitted is composed.reply else replace(composed, reply=fitted)


def routed_sections(plan: Plan) -> set[tuple[str, str]]:
    """The sections a one-ask turn asks for whole (`Ask.whole_section`): the reply's subject,
    never left out for length. A question about something in its section is answered by the
    lines quoted first, and the section may leave past the budget as any other (a turn of several
    asks may leave each part's)."""
    if plan.parts:
        return set()
    return {
        (d, a.section_key)
        for a in plan.asks
        if a.kind == "section" and a.section_key and a.whole_section
        for d in a.drugs
    }


def _composed(composer: Composer, plan: Plan, evidence: GatheredEvidence | None) -> Composed:
    if plan.parts:  # several asks: each part composed as its own turn, the budget on the whole
        return several_asks(composer, plan, evidence, _composed)
    if not plan.needs_evidence or evidence is None or not evidence.answers:
        return declined(composer, plan)
    bundle = evidence.main
    if plan.asks_kind("book_lines") or (plan.asks_kind("condition", "relation") and evidence.lines_of(0)):
        return book_lines(composer, plan, evidence) if evidence.lines_of(0) else declined(composer, plan)
    if bundle.decision == "ABSTAIN":
        return abstained(composer, plan, bundle)
    if bundle.candidate_statuses:  # a patient case: the compact table, never every part in full
        return patient_table(composer, plan, bundle)
    if plan.reply == "drug_list" and (bundle.ranked_drugs or bundle.wider_drugs):
        return drug_list(composer, plan, bundle)
    if plan.asks_kind("relation") and (bundle.ranked_drugs or bundle.wider_drugs):
        return relation_list(composer, plan, bundle)
    if plan.reply == "pairs":
        return pairs(composer, plan, evidence, bundle)
    if plan.reply == "beside_medicines":
        return beside_medicines(composer, plan, evidence, bundle)
    composed = with_named_by_others(composer, plan, evidence, sections(composer, plan, evidence, bundle))
    if plan.reply == "decline" and NOT_DONE_BUT_QUOTED.intersection(plan.reading.not_covered):
        return said_first(composed)  # read before saying no found lines beside what is not done
    return composed


__all__ = ["Composed", "Composer", "Generator", "abstain", "compose", "unavailable"]

"""Several asks in one message: each part answered as its own turn would be, in the message's order,
each under a line saying which question it answers. The reply names its book once and quotes a
section once (a later part that needs it again says where it stands above). The whole reply keeps
within the one reply budget (answer.reply_budget), applied to it as to any reply."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import reduce

from duocthu.answer.blocks import sample_notice, text_block, verify_notice
from duocthu.answer.replies.context import Composed, Composer, quick_replies
from duocthu.answer.reply_budget import quoted_above, section_of
from duocthu.core.sections import CONTRAINDICATION_SECTION, SECTION_HEADINGS
from duocthu.models.evidence import CandidateAssessment, EvidenceBundle, GatheredEvidence, RankedDrug
from duocthu.models.plan import Plan, part_evidence
from duocthu.models.reply import Block, NoticeBlock, Reply, SectionBlock
from duocthu.retrieval.decision import merge_bundles

ComposeOne = Callable[[Composer, Plan, GatheredEvidence | None], Composed]
# Notices said once for the whole reply, after (or, the print check, before) every part
_ONCE = frozenset({"source", "sample_data", "verify_pdf"})
# What an ask that names no section asks, as its question's line says it
_ASKED = {
    "overview": "tổng quan",
    "monograph": "các đoạn trả lời trong chuyên luận",
    "together": "dùng cùng nhau",
    "condition": "thuốc nào",
    "relation": "thuốc nào",
    "uses": "chỉ định",
}


def several_asks(
    composer: Composer, plan: Plan, evidence: GatheredEvidence | None, compose_one: ComposeOne
) -> Composed:
    found = evidence or GatheredEvidence()
    answers = [
        compose_one(composer, part, part_evidence(plan, found, i)) for i, part in enumerate(plan.parts)
    ]
    shown = _not_checked_later(plan.parts, answers)
    if len(shown) == 1:
        return answers[shown[0]]
    asked, answers = [plan.parts[i] for i in shown], [answers[i] for i in shown]
    parts = [
        _part_blocks(i, part, answer, composer)
        for i, (part, answer) in enumerate(zip(asked, answers, strict=True))
    ]
    parts = _quoted_once(parts)
    replies = [r for answer in answers for r in answer.reply.quick_replies]
    bundle = _every_part(reduce(merge_bundles, [answer.bundle for answer in answers]), answers)
    notices = [b for a in answers for b in a.reply.blocks if isinstance(b, NoticeBlock)]
    source = next((b for b in notices if b.kind == "source"), None)
    kinds = {b.kind for b in notices}
    blocks: list[Block] = [verify_notice()] if "verify_pdf" in kinds else []
    blocks += [block for part in parts for block in part]
    blocks += [source] if source is not None else []
    blocks += [sample_notice()] if "sample_data" in kinds else []
    reply = Reply(
        blocks=tuple(blocks),
        quick_replies=quick_replies(plan, replies),
        source=next((a.reply.source for a in answers if a.reply.source), None),
    )
    citations = tuple(dict.fromkeys(c for answer in answers for c in answer.citations))
    error = next((a.system_error for a in answers if a.system_error), None)
    return Composed(reply, bundle, citations, error, answer_lines=answers[0].answer_lines)


def _not_checked_later(parts: Sequence[Plan], answers: Sequence[Composed]) -> list[int]:
    """The parts a reply shows: a part asking whether this patient may take one drug (its
    contraindications, or the sections deciding it) goes when a later part's patient table checks
    that drug ("X được không hay dùng gì?" with X among the drugs listed): the table's row states
    X's status with its lines, and the part would quote them again whole. A drug the list does not
    hold keeps its part (the list would never answer it), and so does one the list marks barred
    (its contraindications, whole, name what to use instead: "corticosteroid đường uống …")."""
    shown = []
    for i, part in enumerate(parts):
        ask = part.main_ask
        deciding = ask is not None and (ask.with_patient or ask.section_key == CONTRAINDICATION_SECTION)
        one = ask.drugs[0] if ask is not None and deciding and len(ask.drugs) == 1 else None
        # a drug barred for the patient keeps its part: its contraindications whole say what instead
        later = {
            c.drug_id
            for a in answers[i + 1 :]
            for c in a.bundle.candidate_statuses
            if c.status != "CONTRAINDICATED"
        }
        if one is None or one not in later:
            shown.append(i)
    return shown


def _every_part(bundle: EvidenceBundle, answers: Sequence[Composed]) -> EvidenceBundle:
    """The turn's evidence with every part's drugs ranked and checked, in the parts' order (a part
    listing drugs after a part about one drug: the list is the turn's too, never the first part's
    ranking alone)."""
    ranked: dict[str, RankedDrug] = {}
    checked: dict[str, CandidateAssessment] = {}
    for answer in answers:  # a drug two parts rank or check: as the first part did
        for drug in answer.bundle.ranked_drugs:
            ranked.setdefault(drug.drug_id, drug)
        for status in answer.bundle.candidate_statuses:
            checked.setdefault(status.drug_id, status)
    return bundle.model_copy(
        update={"ranked_drugs": tuple(ranked.values()), "candidate_statuses": tuple(checked.values())}
    )


def _question_line(index: int, part: Plan, composer: Composer) -> str:
    """Which question a part answers, in the reply's own words: the drugs and what is asked of
    them. Never the clause as written: a reply does not repeat what it was told to say."""
    ask = part.main_ask
    drugs = composer.wording.names(ask.drugs if ask and ask.drugs else part.frame.drugs)
    asked = (ask.section_key or ask.reads_section) if ask else None
    what = SECTION_HEADINGS.get(asked, asked) if asked else _ASKED.get(ask.kind if ask else "", "")
    # which drugs: of what finding (two lists in one message are told apart by it)
    finding = part.frame.condition if not drugs else None
    found = f"{what}: {finding.normalized or finding.text}" if finding and what else what
    said = " — ".join(x for x in (drugs, found) if x)
    return f"▸ Câu hỏi {index + 1}" + (f" ({said})" if said else "")


def _part_blocks(index: int, part: Plan, answer: Composed, composer: Composer) -> list[Block]:
    """A part's reply under the line naming its question, without the notices said once."""
    head = text_block([*([""] if index else []), _question_line(index, part, composer)])
    body = [b for b in answer.reply.blocks if not (isinstance(b, NoticeBlock) and b.kind in _ONCE)]
    while body and body[0].lines and not body[0].lines[0]:  # the part's own opening blank line
        body[0] = body[0].model_copy(update={"lines": body[0].lines[1:]})
        if not body[0].lines and body[0].type == "text":
            body.pop(0)
    return [head, *body]


def _quoted_once(parts: Sequence[list[Block]]) -> list[list[Block]]:
    """Each section quoted by the first part that needs it; a later part says it stands above."""
    seen: set[tuple[str, str]] = set()
    kept: list[list[Block]] = []
    for part in parts:
        mine: set[tuple[str, str]] = set()
        blocks: list[Block] = []
        for block in part:
            key = section_of(block)
            if key is None or key not in seen:
                blocks.append(block)
                mine |= {key} if key else set()
            elif key not in mine:
                mine.add(key)
                name = block.display_name if isinstance(block, SectionBlock) else key[0]
                blocks.append(text_block(["", quoted_above(key[1], name)]))
        seen |= mine
        kept.append(blocks)
    return kept

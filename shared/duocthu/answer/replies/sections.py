"""The quoted sections of the drugs asked: the answering lines first (a focus the question names:
a maximum, a weight, the patient's state), the reply's own words, then every part retrieval found,
section by section with its source (or a model's answer over them, each sentence cited)."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.answer.blocks import source_of
from duocthu.answer.handling_lines import handling_lines
from duocthu.answer.lines import AnswerLines, answer_lines, lines_text, ranked_lines
from duocthu.answer.replies.context import Composed, Composer, lines_block, quick_replies
from duocthu.core.measures import STATES_AMOUNT
from duocthu.core.phrases import contains_every
from duocthu.core.sections import CONTRAINDICATION_SECTION, DOSE_SECTION
from duocthu.core.text import words
from duocthu.models.evidence import EvidenceBundle, GatheredEvidence
from duocthu.models.plan import Plan
from duocthu.models.reply import AnswerLinesBlock, Block, QuotedLine, Reply
from duocthu.retrieval.focus import focus_terms
from duocthu.retrieval.interactions import phrase_in
from duocthu.retrieval.question_words import asked_pieces


def answer_lines_block(found: AnswerLines, lines: list[str]) -> AnswerLinesBlock:
    return AnswerLinesBlock(
        drug_id=found.drug_id,
        section_key=found.section_key,
        focus=found.focus,
        not_said=found.not_said,
        quotes=tuple(
            QuotedLine(
                text=line.text, drug_id=line.drug_id, section_key=line.section_key, citation=line.citation
            )
            for line in found.lines
        ),
        lines=tuple(lines),
    )


def lead(plan: Plan, evidence: GatheredEvidence, bundle: EvidenceBundle) -> list[AnswerLines]:
    """What the reply quotes first: the sentences that answer the question's focus (a maximum, a
    weight, the patient's state, the finding asked: `answer_lines`); without any, the monograph's
    best lines for the question (`ranked_lines`), before the line that says the focus is not said."""
    ask = plan.main_ask
    found = answer_lines(plan.frame, plan.reading, bundle, evidence.section, ask)
    each_drug = ask is not None and ask.kind == "each_drug"
    ranked = ranked_lines(evidence.lines_of(0), ask.section_key if ask else None, plan.frame.route, each_drug)
    several = len(asked_pieces(plan.reading.text, ())) > 1
    beyond = bool(focus_terms(plan.reading.text))  # a focus beside the finding: what to use instead
    leads = ordered_leads(found, ranked, plan.frame.patient_context.comorbidities, several, beyond)
    # what the book says to do about the reaction follows how the ADR list names it
    reading = found if found is not None and found.read_sections and found.lines else None
    handling = handling_lines(reading, evidence) if reading is not None else None
    if handling is None:
        return leads
    said = {line.text for x in leads for line in x.lines}
    rest = tuple(line for line in handling.lines if line.text not in said)
    return [leads[0], handling.model_copy(update={"lines": rest}), *leads[1:]] if rest else leads


def ordered_leads(
    found: AnswerLines | None,
    ranked: AnswerLines | None,
    conditions: Sequence[str] = (),
    several: bool = False,
    beyond: bool = False,
) -> list[AnswerLines]:
    """The focus lines (`found`) and the question's best lines (`ranked`) in the order they lead;
    `conditions`: what the patient has besides the state the focus read. A message asking
    `several` questions: the focus answers one of them, the best lines it does not quote follow,
    whatever their section (the ranking puts each question's best line first; a section quoted
    whole may leave a long reply, its line on the other question must not); so do they when the
    ranking reaches no focus line (the words ask another thing than who the patient is)."""
    if found is not None and found.read_sections:
        # how the section names the finding answers whether the drug causes it; a question asking
        # more of it (`beyond`: what to use instead) has its best line the reading does not quote next
        read = {line.text for line in found.lines}
        other = [line for line in ranked.lines if line.text not in read][:1] if ranked and beyond else []
        return [found, ranked.model_copy(update={"lines": tuple(other)})] if ranked and other else [found]
    if found is not None and ranked is not None and found.not_said:
        # the sentences that answer stand first; the note on what the section does not say (and
        # what another section says of the patient's state) follows
        return [ranked, found]
    if found is not None and found.lines and ranked is not None and _leads_focus(ranked, found, conditions):
        # a patient who may not take the drug at all, or a condition of theirs the focus (an age,
        # a state carried from earlier) did not read: the line the question's words found leads,
        # before the focus lines of a dose or a precaution (each line quoted once)
        said = [line.text for line in ranked.lines]  # a focus line holding a ranked one says it again
        rest = tuple(line for line in found.lines if not any(t in line.text or line.text in t for t in said))
        return [ranked, found.model_copy(update={"lines": rest})] if rest else [ranked]
    if found is not None and found.lines:
        focus = _ranked_first(found, ranked)
        quoted = [line.text for line in found.lines]
        other = (
            [line for line in ranked.lines if not any(line.text in t or t in line.text for t in quoted)]
            if ranked
            else []
        )
        # the focus reads who the patient is; when the ranking for the question's own words reaches
        # none of its lines, what those words ask is another thing: its best lines follow the focus
        apart = len(other) == len(ranked.lines) if ranked else False
        if (several or apart) and ranked is not None and other:
            return [*focus, ranked.model_copy(update={"lines": tuple(other)})]
        return focus
    return [x for x in (found, ranked) if x is not None]


def _leads_focus(ranked: AnswerLines, found: AnswerLines, conditions: Sequence[str]) -> bool:
    """The question's best line is a contraindication where the focus lines are another
    section's, or a dose line stating an amount where the focus lines state none (the dose for
    what the question treats, before how to adjust or watch it for the patient's age or state), or
    names a condition of the patient's that no focus line names."""
    best = ranked.lines[0]
    if best.section_key == CONTRAINDICATION_SECTION and found.section_key != CONTRAINDICATION_SECTION:
        return True
    dose = best.section_key == found.section_key == DOSE_SECTION and STATES_AMOUNT.search(best.text)
    if dose and not any(STATES_AMOUNT.search(line.text) for line in found.lines):
        return True
    named = [c for c in conditions if phrase_in(words(best.text), c)]
    return bool(named) and not any(phrase_in(words(line.text), c) for line in found.lines for c in named)


def _ranked_first(found: AnswerLines, ranked: AnswerLines | None) -> list[AnswerLines]:
    """The focus lines (picked by what they name, in book order) in the order the ranking for
    the whole question puts them, those it did not rank after in book order."""
    if ranked is None:
        return [found]
    order = [line.text for line in ranked.lines]

    def rank(text: str) -> int:
        return next((i for i, t in enumerate(order) if t in text or text in t), len(order))

    lines = tuple(sorted(found.lines, key=lambda line: rank(line.text)))  # stable: book order after
    return [found.model_copy(update={"lines": lines})]


def _drugs_of(found: AnswerLines) -> list[str]:
    return list(dict.fromkeys(line.drug_id for line in found.lines)) or [found.drug_id]


def section_absent(plan: Plan, bundle: EvidenceBundle) -> bool:
    """The section the plan routed to is not in the monograph (the lines found stand for it); a
    dose withheld from a patient the drug is barred for (`dose_withheld`) is there, not quoted."""
    ask = plan.main_ask
    routed = ask.section_key if ask and ask.kind == "section" else None
    present = dose_withheld(plan, bundle)
    return routed is not None and not present and all(item.section_key != routed for item in bundle.evidence)


def dose_withheld(plan: Plan, bundle: EvidenceBundle) -> bool:
    """The dose asked is not quoted: the drug is barred for this patient (`answer.barred`)."""
    ask = plan.main_ask
    return bool(ask and ask.section_key == DOSE_SECTION and bundle.barred_for_patient)


def sections(composer: Composer, plan: Plan, evidence: GatheredEvidence, bundle: EvidenceBundle) -> Composed:
    frame, reading = plan.frame, plan.reading
    preface: list[Block] = lines_block(composer.wording.preface(plan, bundle))
    leads = lead(plan, evidence, bundle)
    absent, withheld = section_absent(plan, bundle), dose_withheld(plan, bundle)
    # a ranked block after the focus answers another question: the focus already said what follows
    quoted: list[Block] = [
        answer_lines_block(
            x, lines_text(x, composer.wording.names(_drugs_of(x)), absent, withheld or (i > 0 and x.ranked))
        )
        for i, x in enumerate(leads)
    ]
    # the page's answering lines: the focus read (said or not), else the ranked lines
    found = next((x for x in leads if not x.ranked), leads[0]) if leads else None
    ask = plan.main_ask
    if quoted:
        # how the question was read follows the answering lines; said first: a name the reply
        # does not cover (the lines are about the other drug only), and how the section read for
        # a finding names it ("X có trị Y không?": that is the answer)
        said, notes = composer.wording.said_and_notes(plan, bundle)
        # a name without a monograph that the answering lines themselves name: they cannot read as
        # covering it, so the notice follows them
        named = _named_in_lines(plan, leads)
        notes += [line for line in said if any(composer.wording.quoted([name]) in line for name in named)]
        said = [line for line in said if line not in notes]
        only_ranked = all(x.ranked for x in leads)
        first = said and (frame.unknown_drugs or (ask is not None and ask.reads_section and only_ranked))
        preface = [*lines_block(said), *quoted, *lines_block(notes)] if first else [*quoted, *preface]
    shown = _shown(plan, bundle, leads)
    answer = composer.generator.generate(reading.text, shown, sample_data=composer.sample_data)
    blocks = [*preface, *_trimmed(answer.blocks)] if preface else list(answer.blocks)
    reply = Reply(blocks=tuple(blocks), quick_replies=quick_replies(plan), source=source_of(bundle))
    return Composed(reply, bundle, answer.citations, answer.system_error, answer_lines=found)


def _named_in_lines(plan: Plan, leads: Sequence[AnswerLines]) -> list[str]:
    """The names without a monograph the turn asks beside a catalogue drug, when every one of
    them is named by the answering lines; [] when any is not."""
    reading = plan.reading
    names = list(
        dict.fromkeys((*plan.frame.unknown_drugs, *reading.outside_formulary, *reading.joined_unknown_names))
    )
    quoted = " ".join(line.text for x in leads for line in x.lines)
    return names if contains_every(quoted, names) else []


def _shown(plan: Plan, bundle: EvidenceBundle, leads: list[AnswerLines]) -> EvidenceBundle:
    """What the reply quotes after its lead. A routed section, whole; a question that names none
    (the free-form route, parts ranked for it) led by the monograph's best lines: the parts those
    lines stand in and any contraindication, the other parts counted as not shown (a quick reply
    away), so a bedside reply is not the whole monograph."""
    ask = plan.main_ask
    ranked = next((x for x in leads if x.ranked), None)
    if ask is None or ask.kind != "monograph" or ranked is None:
        return bundle
    wanted = {line.evidence_id for line in ranked.lines}
    kept = [p for p in bundle.evidence if p.id in wanted or p.section_key == CONTRAINDICATION_SECTION]
    dropped = [p.id for p in bundle.evidence if p not in kept]
    if not kept or not dropped:
        return bundle
    omitted = (*bundle.omitted_evidence_ids, *dropped)
    return bundle.model_copy(update={"evidence": tuple(kept), "omitted_evidence_ids": omitted})


def _trimmed(blocks: tuple[Block, ...]) -> list[Block]:
    """The answer's blocks as its own text reads them after the reply's first lines: without the
    empty line it opens with."""
    if not blocks or not blocks[0].lines or blocks[0].lines[0]:
        return list(blocks)
    first = blocks[0].model_copy(update={"lines": blocks[0].lines[1:]})
    return [first, *blocks[1:]]

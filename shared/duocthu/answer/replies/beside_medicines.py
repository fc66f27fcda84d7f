""" "Đang uống A và B, uống thêm X được không?": X's contraindication sentences about the patient,
then per medicine taken the sentences of X's and its interaction sections naming the other (those
first when one of them bars the combination); every whole section a quick reply away, never
pasted, but X's contraindications asked by name when none of their sentences names the patient."""

from __future__ import annotations

from duocthu.answer.blocks import section_blocks
from duocthu.answer.lines import WHOLE_SECTION_FOLLOWS, AnswerLines, lines_text
from duocthu.answer.replies.context import Composed, Composer, compact, lines_block
from duocthu.answer.replies.pairs import interaction_lines
from duocthu.answer.replies.sections import answer_lines_block, lead
from duocthu.core.sections import CONTRAINDICATION_SECTION, SECTION_HEADINGS
from duocthu.models.evidence import EvidenceBundle, GatheredEvidence
from duocthu.models.plan import Plan
from duocthu.models.reply import Block, PairsBlock
from duocthu.retrieval.advice import advises_against
from duocthu.retrieval.decision import merge_bundles
from duocthu.retrieval.reverse.reading import advice_position


def beside_medicines(
    composer: Composer, plan: Plan, evidence: GatheredEvidence, bundle: EvidenceBundle
) -> Composed:
    frame = plan.frame
    drug = frame.drugs[0]
    pooled = evidence.for_ask(1) or bundle
    preface = composer.wording.preface(plan, bundle)
    # the question's best lines lead as in a one-drug reply (`sections.lead`), beside what the
    # patient's state read (a dose line for their clearance before a precaution naming their
    # state) or without it (a finding asked of the drug added: its own lines on it, then the pairs)
    leads = lead(plan, evidence, bundle)
    found = next((x for x in leads if not x.ranked), None)
    whole = _asked_whole(plan, found)
    name = composer.wording.names([drug])
    head: list[Block] = []
    quoted: list[str] = []
    for each in leads:
        # no section follows the lines here unless the contraindications are asked whole
        said = [line for line in lines_text(each, name, withheld=not whole) if line != WHOLE_SECTION_FOLLOWS]
        head += [answer_lines_block(each, said)] if said else []
        quoted += said
    used = sum(len(line) + 1 for line in (*quoted, *preface))
    pairs = interaction_lines(composer, plan, evidence)
    lines = pairs.lines(pooled, used, about=drug)
    if whole:  # the contraindications asked: the list whole, never a quick reply away
        parts = [
            item
            for item in bundle.evidence
            if (item.drug_id, item.section_key) == (drug, CONTRAINDICATION_SECTION)
        ]
        head += section_blocks(parts[0], parts) if parts else []
    read = pairs.pairs(pooled, about=drug)
    paired = PairsBlock(drugs=pairs.known, unknown_names=pairs.unknown, pairs=read, lines=tuple(lines))
    # a combination the sections bar answers before what the patient's state reads (a precaution,
    # or a contraindication section silent on it): the strongest statement leads
    bars = any(_bars(s) for pair in read for m in pair.mentions for s in m.sentences)
    barred_itself = found is not None and found.section_key == CONTRAINDICATION_SECTION and not found.not_said
    if bars and not barred_itself:
        body = [paired, *head, *lines_block(preface)]
    else:
        body = [*head, *lines_block(preface), paired]
    barred = f"{SECTION_HEADINGS[CONTRAINDICATION_SECTION]} của {name}"
    return compact(
        composer, plan, merge_bundles(bundle, pooled), body, [barred, *pairs.quick_replies()], found
    )


def _asked_whole(plan: Plan, found: AnswerLines | None) -> bool:
    """The turn asks the drug's contraindications and no sentence of them names this patient: the
    section is the answer (a list cut to the lines on the patient, or to none, would read as
    complete)."""
    ask = plan.main_ask
    asked = ask is not None and ask.section_key == CONTRAINDICATION_SECTION
    return asked and (found is None or found.not_said or found.section_key != CONTRAINDICATION_SECTION)


_CONTRAINDICATED = ("chống", "chỉ", "định")


def _bars(sentence: str) -> bool:
    """An interaction sentence that contraindicates the combination or advises against it."""
    return advice_position(sentence, _CONTRAINDICATED) >= 0 or advises_against(sentence)

"""Which drugs: per drug the sentence of its section that names what was asked, never every
section in full; with a patient described, each drug found checked against them in a table (a
status per drug and facet, and the sentence each status comes from)."""

from __future__ import annotations

from duocthu.answer.indication_lines import WhichDrugLines
from duocthu.answer.patient_table import PatientTable, facet_word, most_severe_first
from duocthu.answer.replies.context import Composed, Composer, compact, lines_block
from duocthu.answer.replies.relation_list import LONG_LIST, by_class, class_lines
from duocthu.models.evidence import EvidenceBundle
from duocthu.models.frame import indication_of
from duocthu.models.plan import Plan
from duocthu.models.reply import Block, DrugListBlock, FacetCell, ListedDrug, PatientRow, PatientTableBlock


def patient_table(composer: Composer, plan: Plan, bundle: EvidenceBundle) -> Composed:
    before, table, after = composer.wording.preface_parts(plan, bundle)
    rows = tuple(
        PatientRow(
            drug_id=checked.drug_id,
            name=composer.titles.get(checked.drug_id, checked.drug_id),
            status=checked.status,
            facets=tuple(
                FacetCell(facet=f.facet, status=f.status, word=facet_word(f), quotes=f.quotes)
                for f in checked.facets
            ),
        )
        for checked in most_severe_first(bundle.candidate_statuses)  # a contraindicated drug first
    )
    body: list[Block] = [
        *lines_block(before),
        PatientTableBlock(rows=rows, lines=tuple(table)),
        *lines_block(after),
    ]
    replies = PatientTable(composer.titles).quick_replies(bundle, plan.frame)
    return compact(composer, plan, bundle, body, replies)


def drug_list(composer: Composer, plan: Plan, bundle: EvidenceBundle) -> Composed:
    unlisted = bundle.unlisted_drugs
    after: list[str] = []
    if len(bundle.ranked_drugs) + len(unlisted) <= LONG_LIST:
        # every drug found is quoted with its line: the lines lead, how the list was found follows
        preface, _, after = composer.wording.preface_parts(plan, bundle, quoted_below=True)
    else:  # the drugs beyond the quoted ones grouped by class and counted, never a wall of names
        preface = composer.wording.preface(plan, bundle.model_copy(update={"unlisted_drugs": ()}))
        ordered = by_class(unlisted, composer.wording.classes, composer.titles)
        preface[1:1] = [
            f"Mục “Chỉ định” của {len(unlisted)} thuốc khác cũng nêu tình trạng này (không trích ở đây); "
            "theo nhóm ở mục “Loại thuốc”:",
            *class_lines(ordered),
        ]
    quotes = WhichDrugLines(composer.titles)
    used = sum(len(line) + 1 for line in (*preface, *after))
    listed = tuple(
        ListedDrug(
            drug_id=d.drug_id, name=composer.titles.get(d.drug_id, d.display_name), section_key=d.section_key
        )
        for d in (*bundle.ranked_drugs, *bundle.wider_drugs, *unlisted)
    )
    lines = quotes.lines(bundle, indication_of(plan.frame), used, plan.reading.text)
    body: list[Block] = [
        *lines_block(preface),
        DrugListBlock(drugs=listed, lines=tuple(lines)),
        *lines_block(after),
    ]
    return compact(composer, plan, bundle, body, quotes.quick_replies(bundle))

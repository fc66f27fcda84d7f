"""A which-drug question that no list of the book answers (a drug outside the catalogue named, no
relation read): the sentences of the whole book that answer it best, each with its drug, section
and page, said to be the closest lines and not a complete list. Read before asking back or saying
no: a "not found" where monographs speak to the question is the failure that matters."""

from __future__ import annotations

from duocthu.answer.replies.context import Composed, Composer, compact
from duocthu.core.phrases import contains_every
from duocthu.models.evidence import GatheredEvidence, RankedLine
from duocthu.models.plan import Plan
from duocthu.models.reply import AnswerLinesBlock, QuotedLine

HEAD = (
    "Dược thư không có sẵn danh sách thuốc cho câu hỏi này. Các câu gần nhất với câu hỏi trong "
    "các chuyên luận (có thể chưa đủ: hãy đọc từng câu và mục của nó):"
)


def _citation(line: RankedLine) -> str:
    ref = line.source_refs[0] if line.source_refs else None
    return f"{line.display_name}, {ref.place()}" if ref else line.display_name


def book_lines(composer: Composer, plan: Plan, evidence: GatheredEvidence) -> Composed:
    lines = evidence.lines_of(0)
    # the names asked that have no monograph, said before any other monograph's line, or after the
    # lines when they name every one of them (they cannot read as covering another drug)
    names = plan.main_ask.unknown_names if plan.main_ask else ()
    no_monograph = (f"{composer.wording.without_monograph(names)}.",) if names else ()
    after = contains_every(" ".join(line.text for line in lines), names)
    quotes = tuple(
        QuotedLine(
            text=line.text, drug_id=line.drug_id, section_key=line.section_key, citation=_citation(line)
        )
        for line in lines
    )
    block = AnswerLinesBlock(
        drug_id=lines[0].drug_id,
        section_key=lines[0].section_key,
        quotes=quotes,
        lines=(
            *(() if after else no_monograph),
            HEAD,
            *(f"- “{q.text}” ({q.citation})" for q in quotes),
            *(no_monograph if after else ()),
        ),
    )
    return compact(composer, plan, evidence.main, [block], ())

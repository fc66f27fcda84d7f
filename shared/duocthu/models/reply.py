"""The structured reply: what the API returns as `blocks`, the CLI prints and the page renders.

A reply is an ordered list of typed blocks. Each block carries its structure (what a page draws:
rows as rows, a status per drug and facet, the citation of its drug, section and pages) and
`lines`, how it reads as text; the reply's text is its blocks' lines, in order. The book and
edition are named once per reply (`Reply.source`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from duocthu.core.vocabulary import CandidateStatus, FacetStatus


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Source(_Model):
    """The book every citation of a reply is from."""

    book: str
    edition: str
    sample_data: bool = False


class Citation(_Model):
    """Where a block's text stands: the drug, the section and its pages (the book is the reply's)."""

    drug_id: str
    section_key: str
    heading: str
    page_start: int
    page_end: int


class _Block(_Model):
    lines: tuple[str, ...] = ()  # how the block reads in the text answer


class TextBlock(_Block):
    """Words of the reply's own around the quotes: which drugs a list holds, the patient checked, …"""

    type: Literal["text"] = "text"


NoticeKind = Literal["verify_pdf", "source", "sample_data", "omitted", "decline", "clarify", "smalltalk"]


class NoticeBlock(_Block):
    type: Literal["notice"] = "notice"
    kind: NoticeKind
    text: str
    sections: tuple[Citation, ...] = ()  # "omitted": the sections left out, each a quick reply away


class QuotedLine(_Model):
    text: str  # the sentence, verbatim
    drug_id: str
    section_key: str
    citation: str  # the section and pages it stands on, as the text cites it


class AnswerLinesBlock(_Block):
    """The sentences that answer the question, quoted first; or that the asked section does not say."""

    type: Literal["answer_lines"] = "answer_lines"
    drug_id: str
    section_key: str
    focus: tuple[str, ...] = ()
    not_said: bool = False
    quotes: tuple[QuotedLine, ...] = ()


class Paragraph(_Model):
    text: str
    needs_visual_check: bool = False


class SectionBlock(_Block):
    """One drug's section as the formulary prints it, paragraphs in book order."""

    type: Literal["section"] = "section"
    drug_id: str
    display_name: str
    citation: Citation
    paragraphs: tuple[Paragraph, ...] = ()


class TableBlock(_Block):
    """A table of a section, its rows kept as rows (a dose table by weight, …)."""

    type: Literal["table"] = "table"
    drug_id: str
    citation: Citation
    caption: str | None = None
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    needs_visual_check: bool = False


class FacetCell(_Model):
    facet: str
    status: FacetStatus
    word: str  # the cell as the table says it ("CHỐNG CHỈ ĐỊNH", "mục không nêu", …)
    quotes: tuple[str, ...] = ()  # the sentences the status comes from, as written


class PatientRow(_Model):
    drug_id: str
    name: str
    status: CandidateStatus
    facets: tuple[FacetCell, ...] = ()


class PatientTableBlock(_Block):
    """Each drug found checked against the patient: a status per drug and facet, and the
    sentences each status comes from. A facet that found nothing is never "safe"."""

    type: Literal["patient_table"] = "patient_table"
    rows: tuple[PatientRow, ...] = ()


class ListedDrug(_Model):
    drug_id: str
    name: str
    section_key: str | None = None
    drug_class: str | None = None  # the head of its "Loại thuốc" section, what a long list groups by


class DrugListBlock(_Block):
    """The drugs whose section names what was asked, each with the sentence that names it."""

    type: Literal["drug_list"] = "drug_list"
    drugs: tuple[ListedDrug, ...] = ()


class PairMention(_Model):
    """The sentences of one drug's interaction section that name the other (by name, or by its
    class: `by_class` gives the class as the section writes it)."""

    owner: str
    sentences: tuple[str, ...]
    by_class: tuple[str, ...] = ()
    pages: str
    needs_visual_check: bool = False


class InteractionPair(_Model):
    """Two drugs asked together (a catalogue id, or a name the catalogue lacks as written). No
    mention means neither section names the other: never "no interaction"."""

    drugs: tuple[str, str]
    mentions: tuple[PairMention, ...] = ()
    without_section: tuple[str, ...] = ()  # of the two, the monographs with no interaction section


class PairsBlock(_Block):
    """Drugs asked together: per pair, the sentences of each drug's interaction section naming the
    other, every sentence (the text may count some rather than quote them, to stay short)."""

    type: Literal["pairs"] = "pairs"
    drugs: tuple[str, ...] = ()
    unknown_names: tuple[str, ...] = ()
    pairs: tuple[InteractionPair, ...] = ()


class GeneratedBlock(_Block):
    """A language model's answer over the quoted evidence, each sentence citing it."""

    type: Literal["generated"] = "generated"
    method: str


Block = Annotated[
    TextBlock
    | NoticeBlock
    | AnswerLinesBlock
    | SectionBlock
    | TableBlock
    | PatientTableBlock
    | DrugListBlock
    | PairsBlock
    | GeneratedBlock,
    Field(discriminator="type"),
]


class Reply(_Model):
    blocks: tuple[Block, ...] = ()
    quick_replies: tuple[str, ...] = ()
    source: Source | None = None

    @property
    def text(self) -> str:
        return "\n".join(line for block in self.blocks for line in block.lines).strip()

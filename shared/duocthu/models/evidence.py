"""Evidence: what retrieval hands to an answer, and the decision over it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from duocthu.core.vocabulary import CandidateStatus, Decision, FacetStatus, Reason, SystemError


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceRef(_Model):
    """Where a piece of evidence stands in the printed formulary."""

    book: str
    edition: str
    section_heading: str
    page_start: int = Field(ge=1)
    page_end: int = Field(ge=1)
    sample_data: bool = False

    @model_validator(mode="after")
    def _page_order(self) -> SourceRef:
        if self.page_end < self.page_start:
            raise ValueError("page_end before page_start")
        return self

    def pages(self) -> str:
        if self.page_start == self.page_end:
            return f"tr. {self.page_start}"
        return f"tr. {self.page_start}–{self.page_end}"

    def book_line(self) -> str:
        """The book and its edition: named once per reply."""
        sample = " [DỮ LIỆU MẪU]" if self.sample_data else ""
        return f"{self.book} ({self.edition}){sample}"

    def place(self) -> str:
        """Where in the book: the section and its pages (the reply names the book once)."""
        return f"mục “{self.section_heading}”, {self.pages()}"

    def citation(self) -> str:
        """The whole citation (book, edition, section, pages): what a copied citation carries."""
        sample = " [DỮ LIỆU MẪU]" if self.sample_data else ""
        return f"{self.book} ({self.edition}), {self.place()}{sample}"


class EvidenceItem(_Model):
    id: str
    drug_id: str
    display_name: str
    section_key: str
    part_index: int = Field(ge=0)
    chunk_kind: str
    score: float
    text: str
    source_refs: tuple[SourceRef, ...]
    requires_visual_check: bool = False
    has_quarantined_content: bool = False

    @property
    def needs_visual_check(self) -> bool:
        return self.requires_visual_check or self.has_quarantined_content


class RankedLine(_Model):
    """One sentence of a drug's monograph ranked for the question (BM25 over every sentence of
    the book, `duocthu.retrieval.answering`), with the part it stands in and its citation."""

    text: str  # the sentence, verbatim
    drug_id: str
    display_name: str
    section_key: str
    part_id: str  # the EvidenceItem id of its part
    part_index: int = Field(ge=0)
    line_index: int = Field(ge=0)
    score: float
    source_refs: tuple[SourceRef, ...]
    needs_visual_check: bool = False
    # A dose line's paragraph lead-in when the sentence has none of its own ("Trẻ em"): who or
    # what the dose is for, quoted and weighed with it (`core.sentences.sentence_leads`)
    lead: str = ""

    @property
    def headed(self) -> str:
        """The sentence under its paragraph's lead-in, as the book reads it."""
        return f"{self.lead}: {self.text}" if self.lead else self.text


class RankedDrug(_Model):
    drug_id: str
    display_name: str
    score: float
    # The section whose text put the drug on the list (chi_dinh for an indication lookup); a
    # relation lookup may draw on two (chong_chi_dinh, then thoi_ky_mang_thai).
    section_key: str | None = None
    evidence_ids: tuple[str, ...] = ()
    # Set when the section names a wider finding that holds the one asked, not that one itself:
    # the wider finding in the section's own words ("loét và chảy máu tiêu hóa").
    wider_finding: str | None = None


# Stage-2 safety facets (duocthu.retrieval.safety): each a separate search with its own query and sections.
SafetyFacet = Literal["interaction", "warnings", "dosage", "pregnancy", "breastfeeding"]


class FacetAssessment(_Model):
    """What one facet found for one candidate: INSUFFICIENT_EVIDENCE when it found nothing (never
    "safe"), NO_CHANGE_STATED when what it found says no change is needed for this patient (quoted).
    The status counts every matching part; evidence_ids are the parts kept within the caps."""

    facet: SafetyFacet
    status: FacetStatus
    evidence_ids: tuple[str, ...] = ()
    # The monograph has none of the facet's sections: nothing to read, not "the section says
    # nothing" (and never "safe" either way).
    section_absent: bool = False
    # The sentences of the kept parts that name the patient, as written: what a compact answer quotes.
    quotes: tuple[str, ...] = ()


class CandidateAssessment(_Model):
    drug_id: str
    status: CandidateStatus
    evidence_ids: tuple[str, ...] = ()
    facets: tuple[FacetAssessment, ...] = ()


class NamedByClass(_Model):
    """An interaction part that names one of the asked drugs only by its class ("thuốc ức chế
    enzym chuyển" for enalapril), as that drug's "Loại thuốc" section words it."""

    evidence_id: str
    drug_id: str
    wording: str  # the class as the part writes it


class NamedAlternative(_Model):
    """A sentence of a checked drug's or a current medicine's section that names another drug as
    the one to take instead ("nếu cần giảm đau ưu tiên paracetamol", in warfarin's interactions),
    or names itself the one preferred in the patient's state (its pregnancy section): quoted, and
    the drug it names is checked too."""

    evidence_id: str
    source_drug_id: str  # whose section says it
    drug_id: str  # the drug it names
    text: str  # the sentence, as written


class EvidenceBundle(_Model):
    decision: Decision
    reason: Reason
    evidence: tuple[EvidenceItem, ...] = ()
    omitted_evidence_ids: tuple[str, ...] = ()
    # The drugs whose section names the finding asked, best first. A question about one named
    # drug and a finding ("X có trị / gây Y không?") fills this, `incidental_drugs` or
    # `wider_drugs` with that drug alone, to say how its section names Y (reverse.with_section_reading).
    ranked_drugs: tuple[RankedDrug, ...] = ()
    # Drugs a which-drugs route also found beyond its cap: named in the answer, never quoted, so a
    # list is never cut short in silence.
    unlisted_drugs: tuple[RankedDrug, ...] = ()
    # Drugs whose section names only a wider finding holding the one asked ("loét tiêu hóa" for
    # "loét dạ dày"): listed apart with that wording, never as naming the finding itself.
    wider_drugs: tuple[RankedDrug, ...] = ()
    # Drugs whose chỉ định names the finding only inside another disease's name ("sốt giảm bạch
    # cầu trung tính", "thiếu máu cục bộ") or as a risk ("có nguy cơ chảy máu thấp", "ít gây hạ
    # glucose huyết"): listed apart, never as treating it.
    incidental_drugs: tuple[RankedDrug, ...] = ()
    # Interaction parts that name an asked drug only by its class: said so, never as naming it.
    named_by_class: tuple[NamedByClass, ...] = ()
    candidate_statuses: tuple[CandidateAssessment, ...] = ()
    named_alternatives: tuple[NamedAlternative, ...] = ()
    # A named drug the patient's own numbers contraindicate: the sentences that bar them (a
    # contraindication, or a line against use in their band). Its dose parts are left out (in
    # `omitted_evidence_ids`): never offered as an option for this patient.
    barred_for_patient: tuple[RankedLine, ...] = ()
    ordering: str | None = None
    # A which-drugs finding the book never writes as asked, searched as the run of its words the
    # book writes ("nhược cơ" for "làm nặng nhược cơ"): the reply says what it searched.
    searched_as: str | None = None
    system_error: SystemError | None = None

    @model_validator(mode="after")
    def _consistent(self) -> EvidenceBundle:
        if self.decision == "ANSWERABLE" and not self.evidence:
            raise ValueError("an ANSWERABLE bundle must carry evidence")
        return self


class AskEvidence(_Model):
    """What retrieval found for one of the plan's asks (`ask`: its index in `Plan.asks`)."""

    ask: int = Field(ge=0)
    bundle: EvidenceBundle
    # the drug's sentences that answer the ask best, best first (an ask about one named drug)
    lines: tuple[RankedLine, ...] = ()


class WholeSection(_Model):
    """A section read whole for a composer to quote from beside the asked one (empty: the
    monograph has no such section)."""

    drug_id: str
    section_key: str
    parts: tuple[EvidenceItem, ...] = ()


class GatheredEvidence(_Model):
    """Everything a plan's asks need, gathered in one retrieval call: a bundle per ask, and the
    whole sections its composer quotes from. The answer layer reads this and nothing else."""

    answers: tuple[AskEvidence, ...] = ()
    sections: tuple[WholeSection, ...] = ()

    def for_ask(self, ask: int) -> EvidenceBundle | None:
        return next((a.bundle for a in self.answers if a.ask == ask), None)

    def lines_of(self, ask: int) -> tuple[RankedLine, ...]:
        return next((a.lines for a in self.answers if a.ask == ask), ())

    @property
    def main(self) -> EvidenceBundle:
        """The first ask's bundle: the one the turn's decision and citations come from."""
        if not self.answers:
            raise ValueError("no ask was answered")
        return self.answers[0].bundle

    def section(self, drug_id: str, section_key: str) -> tuple[EvidenceItem, ...]:
        found = next((s for s in self.sections if (s.drug_id, s.section_key) == (drug_id, section_key)), None)
        if found is None:  # a composer read a section its plan did not ask for: a bug, never "absent"
            raise KeyError(f"the plan did not ask for {drug_id}/{section_key}")
        return found.parts

"""A which-drug question read across the book quotes, beside a drug's best lines, its best
contraindication line the question's words found when none of those is one
(`retrieval.book_lines.with_contraindications`)."""

from __future__ import annotations

from duocthu.models.evidence import RankedLine
from duocthu.retrieval.book_lines import with_contraindications

BAR, CAUTION = "chong_chi_dinh", "than_trong"


def line(drug: str, section: str, text: str, score: float) -> RankedLine:
    return RankedLine(
        text=text,
        drug_id=drug,
        display_name=drug.title(),
        section_key=section,
        part_id=f"{drug}-{section}",
        part_index=0,
        line_index=0,
        score=score,
        source_refs=(),
    )


def test_a_drug_quoted_for_its_caution_brings_its_contraindication_line_after_it() -> None:
    caution = line("carbamazepin", CAUTION, "Nên xét nghiệm HLA-B*1502 trước khi dùng thuốc.", 20.0)
    bar = line("carbamazepin", BAR, "Người mang alen HLA-B*1502 không được bắt đầu điều trị.", 9.0)
    other = line("allopurinol", BAR, "Khi đã xác định người bệnh mang HLA-B*5801, không nên dùng.", 15.0)
    found = [caution, other, bar]
    assert with_contraindications([caution, other], found) == [caution, bar, other]


def test_a_drug_already_quoted_for_a_contraindication_or_with_none_found_is_as_chosen() -> None:
    bar = line("allopurinol", BAR, "Khi đã xác định người bệnh mang HLA-B*5801, không nên dùng.", 15.0)
    caution = line("atorvastatin", CAUTION, "Gan: cần xét nghiệm chức năng gan trước khi điều trị.", 12.0)
    assert with_contraindications([bar, caution], [bar, caution]) == [bar, caution]

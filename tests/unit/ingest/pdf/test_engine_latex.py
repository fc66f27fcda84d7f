"""A book typeset by LuaLaTeX in the printed book's layout (mirrored margins, running heads, roman
front matter, printed = PDF page + 84, TeX's justified word spaces, hyphenated Latin names), with
an ATC appendix between the monographs and the brand index."""

from __future__ import annotations

import pytest
from duocthu.models.source import Monograph

pytest.importorskip("fontTools", reason="the pdf-render extra is not installed: no LaTeX book fonts")

from duocthu.ingest.pdf.convert import convert
from duocthu.ingest.pdf.render import expected_records
from duocthu.ingest.pdf.render_latex import available, group_records, render_latex
from duocthu.ingest.pdf.render_typst import OFFSET

from tests.unit.ingest.pdf.conftest import assert_reads_back

if not available():
    pytest.skip(
        "lualatex is not installed (apt-get install texlive-luatex texlive-latex-recommended): no LaTeX book",
        allow_module_level=True,
    )

# A table (loperamid, paracetamol), a synonym title (the 3rd), variant and numbered headings.
SOME = ("acid_acetylsalicylic", "amoxicilin", "carbamazepin", "cefuroxim", "loperamid", "paracetamol")


@pytest.fixture(scope="module")
def latex_book(sample_records: list[Monograph], tmp_path_factory: pytest.TempPathFactory) -> tuple:
    records = group_records([r for r in sample_records if r.drug_id in SOME])  # the 6th: a group
    pdf = tmp_path_factory.mktemp("latex") / "book.pdf"
    truth = render_latex(records, pdf)
    return expected_records(records, truth), convert(pdf)


def test_latex_book_reads_back_whole(latex_book: tuple) -> None:
    assert_reads_back(*latex_book, len(SOME))


def test_atc_appendix_is_no_monograph_text(latex_book: tuple) -> None:
    """The appendix after the last monograph ("PHỤ LỤC", code and drug a line) ends the monographs:
    none of its lines lands in the last monograph's closing section."""
    _, result = latex_book
    closing = result.records[-1]["sections"][-1]
    text = " ".join(b["text"] for b in closing["blocks"])
    assert closing["key"] == "ten_thuong_mai"
    assert "PHỤ LỤC" not in text.upper() and "J01DC02" not in text  # cefuroxim's code, in the appendix
    first = result.records[0]["sections"][0]
    assert first["pages"]["start"] == first["pdf_pages"]["start"] + OFFSET  # front matter i-iv skipped


def test_group_monograph_one_heading_its_brands_cited_under_a_member(latex_book: tuple) -> None:
    """ "PARACETAMOL VÀ PARACETAMOL NATRI": one monograph, titled as printed; the index cites its
    brands under "Paracetamol natri", which resolves to it (no problem, pages kept)."""
    _, result = latex_book
    group = next(r for r in result.records if " và " in r["title"])
    assert group["drug_id"] == "paracetamol_va_paracetamol_natri"
    assert any(b["page"] for b in group["brands"])

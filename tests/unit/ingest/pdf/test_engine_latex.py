"""A book typeset by LuaLaTeX in the printed book's layout (mirrored margins, running heads, roman
front matter, printed = PDF page + 84, TeX's justified word spaces, hyphenated Latin names), with
an ATC appendix between the monographs and the brand index. This book's paragraphs are flush left
(not indented) and carry every text-layer defect; a title is left alone at a page's foot and one
monograph is a form of its drug under a descriptor line."""

from __future__ import annotations

import unicodedata
from itertools import pairwise

import pytest
from duocthu.core.syllables import is_syllable
from duocthu.models.source import Monograph

pytest.importorskip("fontTools", reason="the pdf-render extra is not installed: no LaTeX book fonts")

from duocthu.ingest.pdf.convert import convert
from duocthu.ingest.pdf.render import expected_records
from duocthu.ingest.pdf.render_latex import available, group_records, render_latex
from duocthu.ingest.pdf.render_typst import OFFSET
from duocthu.tools.evals.pdf import _compare

from tests.unit.ingest.pdf.conftest import assert_reads_back, assert_tcvn3_u_horn_read

if not available():
    pytest.skip(
        "lualatex is not installed (apt-get install texlive-luatex texlive-latex-recommended): no LaTeX book",
        allow_module_level=True,
    )

# A table (loperamid, paracetamol), a synonym title (the 3rd), variant and numbered headings, a
# descriptor (the 4th), run-in labels in the text's weight (the 2nd and 5th).
SOME = ("acid_acetylsalicylic", "amoxicilin", "carbamazepin", "cefuroxim", "loperamid", "paracetamol")


@pytest.fixture(scope="module")
def latex_book(sample_records: list[Monograph], tmp_path_factory: pytest.TempPathFactory) -> tuple:
    records = group_records([r for r in sample_records if r.drug_id in SOME])  # the 6th: a group
    pdf = tmp_path_factory.mktemp("latex") / "book.pdf"
    truth = render_latex(records, pdf, indent=False)
    return expected_records(records, truth), convert(pdf), pdf


def test_latex_book_reads_back_whole(latex_book: tuple) -> None:
    expected, result, _ = latex_book
    assert_reads_back(expected, result, len(SOME))
    c = _compare(expected, result.records)
    assert min(r for r, _ in c["ratios"]) >= 0.99


def test_latex_book_carries_the_printed_books_text_layer_defects(latex_book: tuple) -> None:
    """The defects the converter repairs are in this engine's text layer, not only in the project's
    own renderer's: TCVN3 code points in a `.Vn…` font, Symbol private-use code points, decomposed
    letters and syllables split by a space; the book still reads back whole (above)."""
    import pdfplumber

    with pdfplumber.open(latex_book[2]) as pdf:
        chars = [c for page in pdf.pages for c in page.chars]
        words = " ".join(page.extract_text() for page in pdf.pages).split()
    fonts = {str(c["fontname"]).split("+")[-1] for c in chars}
    assert ".VnTime" in fonts and "SymbolMT" in fonts
    assert any(0xF000 <= ord(c["text"][0]) <= 0xF0FF for c in chars)
    assert any(unicodedata.combining(c["text"][0]) for c in chars)
    split = [(a, b) for a, b in pairwise(words) if a.isalpha() and b.isalpha() and not is_syllable(b)]
    assert any(is_syllable(a + b) for a, b in split)
    # TCVN3's ư is its slot U+00AD, drawn as a letter (no soft hyphen) and read back
    assert any(c["text"] == "\u00ad" and ".Vn" in c["fontname"] for c in chars)
    assert_tcvn3_u_horn_read(latex_book[2], latex_book[1], "\u00ad")


def test_atc_appendix_is_no_monograph_text(latex_book: tuple) -> None:
    """The appendix after the last monograph ("PHỤ LỤC", code and drug a line) ends the monographs:
    none of its lines lands in the last monograph's closing section."""
    _, result, _ = latex_book
    closing = result.records[-1]["sections"][-1]
    text = " ".join(b["text"] for b in closing["blocks"])
    assert closing["key"] == "ten_thuong_mai"
    assert "PHỤ LỤC" not in text.upper() and "J01DC02" not in text  # cefuroxim's code, in the appendix
    first = result.records[0]["sections"][0]
    assert first["pages"]["start"] == first["pdf_pages"]["start"] + OFFSET  # front matter i-iv skipped


def test_group_monograph_one_heading_its_brands_cited_under_a_member(latex_book: tuple) -> None:
    """ "PARACETAMOL VÀ PARACETAMOL NATRI": one monograph, titled as printed; the index cites its
    brands under "Paracetamol natri", which resolves to it (no problem, pages kept)."""
    _, result, _ = latex_book
    group = next(r for r in result.records if " và " in r["title"])
    assert group["drug_id"] == "paracetamol_va_paracetamol_natri"
    assert any(b["page"] for b in group["brands"])


def test_descriptor_line_makes_a_monograph_of_one_form(latex_book: tuple) -> None:
    """ "CEFUROXIM" / "(Dùng đường uống)" / identity lines: the descriptor is part of the title and
    the id (the book has one monograph per form); the brand index citing it resolves."""
    _, result, _ = latex_book
    form = next(r for r in result.records if r["drug_id"] == "cefuroxim_dung_duong_uong")
    assert form["title"] == "Cefuroxim (dùng đường uống)"
    assert form["sections"][0]["key"] == "ten_chung_quoc_te"
    assert any(b["page"] for b in form["brands"])  # the index entries, beside the trade names


def test_title_alone_at_a_page_foot_keeps_its_monograph(latex_book: tuple) -> None:
    """A title left at the foot of a page's last column, its identity lines on the next page: the
    monograph is read whole, and its brands keep the page the index cites (the title's)."""
    expected, result, _ = latex_book
    foot = [
        r for r in expected if r["brands"] and r["brands"][0]["page"] < r["sections"][0]["pages"]["start"]
    ]
    assert foot, "the book has no title left at a page's foot"
    got = next(r for r in result.records if r["drug_id"] == foot[0]["drug_id"])
    assert {(b["name"], b["page"]) for b in foot[0]["brands"]} <= {
        (b["name"], b["page"]) for b in got["brands"]
    }


def test_a_table_without_rules_or_caption_is_found_by_its_alignment(latex_book: tuple) -> None:
    """The first table is printed with no rule and no "Bảng N" caption (its title a line of text):
    its cells' alignment alone makes it a flagged table block, rows as the source has them."""
    expected, result, _ = latex_book
    tables = [
        (r["drug_id"], b)
        for r in result.records
        for s in r["sections"]
        for b in s["blocks"]
        if b["kind"] == "table"
    ]
    assert len(tables) == 2 and all(b["requires_visual_check"] for _, b in tables)
    drug, table = tables[0]
    source = next(
        b["text"]
        for r in expected
        if r["drug_id"] == drug
        for s in r["sections"]
        for b in s["blocks"]
        if b["kind"] == "table"
    )
    assert table["text"] == source.split("\n", 1)[1]  # the rows; the title is the text before them

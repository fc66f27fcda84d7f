"""A book printed by a word processor: a flat OpenDocument text in the printed book's layout (page
columns on mirrored margins, running heads from the chapter field, roman front matter, printed =
PDF page + 84) printed by LibreOffice headless, with the book's text-layer defects written by an
engine other than the project's own renderer."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
import pytest
from duocthu.ingest.pdf.convert import convert
from duocthu.ingest.pdf.render import expected_records
from duocthu.ingest.pdf.render_libreoffice import SOFFICE, available, render_libreoffice
from duocthu.models.source import Monograph

from tests.unit.ingest.pdf.conftest import assert_reads_back_whole, assert_tcvn3_u_horn_read

# A table (loperamid, paracetamol; the first broken across a page inside a column), run-in
# headings (every third monograph), a synonym title, ≤ in ADR bands (Symbol code points), long
# INN names (soft hyphens), enough words for every defect to fire.
SOME = ("acid_acetylsalicylic", "amoxicilin", "carbamazepin", "cefuroxim", "loperamid", "paracetamol")


@pytest.mark.skipif(not available(), reason=f"{SOFFICE} is not installed: no LibreOffice book")
def test_libreoffice_book_with_the_text_layer_defects_reads_back_whole(
    sample_records: list[Monograph], tmp_path: Path
) -> None:
    # Given the book printed by LibreOffice, every text-layer defect on
    records = [r for r in sample_records if r.drug_id in SOME]
    truth = render_libreoffice(records, tmp_path / "book.pdf")
    with pdfplumber.open(str(tmp_path / "book.pdf")) as pdf:
        chars = [c for p in pdf.pages for c in p.chars]
        heads = [(p.page_number, t.extract()[0][0]) for p in pdf.pages for t in p.find_tables()]
    # the first table broken inside a column across a page, its header row repeated
    assert heads[1] == (heads[0][0] + 1, heads[0][1])
    fonts = {str(c["fontname"]).split("+")[-1] for c in chars}
    assert {".VnTime", "SymbolMT", "DTSerif-Bold"} <= fonts  # the defects are really in the PDF
    assert any("\uf000" <= c["text"] <= "\uf0ff" for c in chars)
    # When it is converted back
    result = convert(tmp_path / "book.pdf")
    # Then it reads back whole: the repairs work on another engine's text layer
    assert_reads_back_whole(expected_records(records, truth), result, len(SOME))
    # TCVN3 in a symbol-encoded .VnTime (U+F0xx): ư (0xAD) is no soft hyphen there, and reads back
    assert_tcvn3_u_horn_read(tmp_path / "book.pdf", result, "\uf0ad")

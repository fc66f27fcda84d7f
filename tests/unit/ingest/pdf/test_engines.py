"""Books typeset by an engine the converter was not written against (typst, in the printed book's
layout: mirrored margins, running heads, roman front matter, printed = PDF page + 84, headings
in other spellings and without bold, bold captions, titles with synonyms, a brand index)."""

from __future__ import annotations

from pathlib import Path

import pytest
from duocthu.models.source import Monograph

pytest.importorskip("typst", reason="typst is not installed (pip install -e '.[pdf-typst]'): no typst book")

from duocthu.ingest.pdf.convert import convert
from duocthu.ingest.pdf.render import expected_records
from duocthu.ingest.pdf.render_typst import OFFSET, book_data, render_typst

from tests.unit.ingest.pdf.conftest import assert_reads_back

# A table (loperamid, paracetamol), a synonym title (the 3rd), variant, numbered and upper-case
# headings (every 2nd and 4th), Stevens-Johnson and beta-lactam in the text.
SOME = ("acid_acetylsalicylic", "amoxicilin", "carbamazepin", "cefuroxim", "loperamid", "paracetamol")


@pytest.fixture(scope="module")
def typst_book(sample_records: list[Monograph], tmp_path_factory: pytest.TempPathFactory) -> tuple:
    records = [r for r in sample_records if r.drug_id in SOME]
    pdf = tmp_path_factory.mktemp("typst") / "book.pdf"
    truth = render_typst(records, pdf)
    return expected_records(records, truth), convert(pdf)


def test_typst_book_reads_back_whole(typst_book: tuple) -> None:
    assert_reads_back(*typst_book, len(SOME))


def test_typst_book_printed_pages_and_synonym(typst_book: tuple, sample_records: list[Monograph]) -> None:
    _, result = typst_book
    by_id = {r["drug_id"]: r for r in result.records}
    first = by_id["acid_acetylsalicylic"]["sections"][0]
    assert first["pages"]["start"] == first["pdf_pages"]["start"] + OFFSET  # front matter i-iv skipped
    printed = [
        m for m in book_data([r for r in sample_records if r.drug_id in SOME])["monographs"] if m["synonym"]
    ]
    assert printed, "the typst book prints a title with a synonym"
    for mono in printed:  # "CARBAMAZEPIN (Carbamazepine)": title before the parenthesis, synonym an alias
        assert mono["synonym"] in by_id[mono["id"]]["aliases"]
    text = " ".join(b["text"] for r in result.records for s in r["sections"] for b in s["blocks"])
    assert "Stevens- Johnson" not in text and "Stevens-Johnson" in text


def test_a_heading_spelt_as_the_vocabulary_does_not_is_reported_where_it_is(
    sample_records: list[Monograph], tmp_path: Path
) -> None:
    # Given a typst book whose 4th monograph (its headings set with a colon, weight no evidence in
    # typst) prints "Tác dụng phụ:" for its adverse-effects heading, a spelling the vocabulary lacks
    records = [r for r in sample_records if r.drug_id in SOME[:4]]
    key = "tac_dung_khong_mong_muon"
    sections = [
        s.model_copy(update={"heading": "Tác dụng phụ"}) if s.key == key else s for s in records[3].sections
    ]
    records[3] = records[3].model_copy(update={"sections": tuple(sections)})
    truth = render_typst(records, tmp_path / "book.pdf")
    # When it is converted
    result = convert(tmp_path / "book.pdf")
    # Then that one label is a problem on the page it starts, its text stays in the section before
    # it, and every other heading (plain, numbered, upper case, with a colon) still reads
    expected = expected_records(records, truth)
    page = next(s["pdf_pages"]["start"] for s in expected[3]["sections"] if s["key"] == key)
    assert [(p.page, "unrecognised heading? 'Tác dụng phụ'" in p.message) for p in result.problems] == [
        (page, True)
    ]
    got = next(r for r in result.records if r["drug_id"] == records[3].drug_id)
    printed = [s["key"] for s in expected[3]["sections"]]
    assert [s["key"] for s in got["sections"]] == [k for k in printed if k != key]
    before = " ".join(b["text"] for b in got["sections"][printed.index(key) - 1]["blocks"])
    first = next(s for s in records[3].sections if s.key == key).blocks[0].text.split()[:6]
    assert " ".join(first) in before
    others = zip(result.records[:3], expected[:3], strict=True)
    assert all(len(r["sections"]) == len(e["sections"]) for r, e in others)

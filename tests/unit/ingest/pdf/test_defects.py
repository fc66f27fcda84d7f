"""Each defect of the book's text layer, rendered on purpose, and read back to the truth."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from duocthu.ingest.pdf.render_text import DEFECTS
from duocthu.models.source import Monograph

from tests.unit.ingest.pdf.conftest import Book, render_and_convert


def _texts(records: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    return {
        (r["drug_id"], s["key"]): re.sub(r"\s+", " ", " ".join(b["text"] for b in s["blocks"])).strip()
        for r in records
        for s in r["sections"]
    }


def _present(book: Book, defect: str) -> bool:
    """The defect is really in the PDF (so the test can fail when the repair is missing)."""
    with pdfplumber.open(str(book.pdf)) as pdf:
        pages = pdf.pages[:6]
        chars = [c for p in pages for c in p.chars]
        text = " ".join(p.extract_text() or "" for p in pages)
        mid = float(pages[0].width) / 2
        body = [c for c in pages[0].chars if c["top"] > 70]
        checks = {
            "right_first": body[0]["x0"] > mid,
            "split_syllables": bool(re.search(r"\b\w+ (ư|ơ|ư)\w*", text)) or " ược" in text,
            "tcvn3": any(".VnTime" in c["fontname"] for c in chars),
            "symbols": any("\uf000" <= c["text"] <= "\uf0ff" for c in chars),
            "hyphenation": bool(re.search(r"[a-z]{3}-\n[a-z]", text)),
            "decomposed": any(unicodedata.combining(c["text"]) for c in chars),
            "bold_split": any("Bold" in c["fontname"] for c in chars),
            "figure": any(p.images for p in pdf.pages),
        }
    return checks.get(defect, True)


@pytest.mark.parametrize("defect", DEFECTS)
def test_each_defect_alone_reads_back_exactly(
    defect: str, few_records: list[Monograph], tmp_path: Path
) -> None:
    book = render_and_convert(few_records, tmp_path, frozenset({defect}))
    assert _present(book, defect), f"the rendering lacks {defect}"
    assert book.result.problems == []
    expected, got = _texts(book.expected), _texts(book.result.records)
    assert set(got) == set(expected)
    assert [k for k in expected if got[k] != expected[k]] == []
    pages = {
        (r["drug_id"], s["key"]): (s["pages"], s["pdf_pages"]) for r in book.expected for s in r["sections"]
    }
    read = {
        (r["drug_id"], s["key"]): (s["pages"], s["pdf_pages"])
        for r in book.result.records
        for s in r["sections"]
    }
    assert read == pages


def test_the_table_across_a_page_break_is_one_flagged_block(
    few_records: list[Monograph], tmp_path: Path
) -> None:
    book = render_and_convert(few_records, tmp_path, frozenset({"table_break"}))
    dose = {r["drug_id"]: r for r in book.result.records}["loperamid"]["sections"]
    section = next(s for s in dose if s["key"] == "lieu_luong_va_cach_dung")
    tables = [b for b in section["blocks"] if b["kind"] == "table"]
    assert len(tables) == 1 and tables[0]["requires_visual_check"]
    assert section["pdf_pages"]["end"] > section["pdf_pages"]["start"]
    assert tables[0]["text"].count("Tuổi | Cân nặng") == 1  # the repeated header row is dropped


def test_the_whole_sample_with_every_defect(sample_book: Book) -> None:
    assert sample_book.result.problems == []
    expected, got = _texts(sample_book.expected), _texts(sample_book.result.records)
    assert len(expected) == 760 + sum(1 for k in expected if k[1] == "ten_thuong_mai")
    assert [k for k in expected if got.get(k) != expected[k]] == []
    assert all(r["sample_data"] and r["notice"] for r in sample_book.result.records)


def test_trade_names_and_the_brand_index_become_aliases(sample_book: Book) -> None:
    amox = {r["drug_id"]: r for r in sample_book.result.records}["amoxicilin"]
    start = amox["sections"][0]["pages"]["start"]
    assert {"Clamoxyl", "Amoxil", "Hagimox"} <= set(amox["aliases"])
    assert {"name": "Clamoxyl", "page": None} in amox["brands"]
    assert {"name": "Clamoxyl", "page": start} in amox["brands"]  # the page the index cites


def test_a_title_wider_than_a_column_and_a_long_index_entry(
    few_records: list[Monograph], tmp_path: Path
) -> None:
    """Found by the scale run: a title cut after its "/" and an index entry that runs on."""
    title = "Sulfamethoxazol/trimethoprim/phenazopyridin (dạng tiêm)"
    brand = "Bactrim IV dạng tiêm truyền tĩnh mạch pha sẵn dùng trong bệnh viện"
    record = few_records[0].model_copy(
        update={
            "title": title,
            "drug_id": "sulfamethoxazol_trimethoprim_phenazopyridin_dang_tiem",
            "aliases": (brand,),
        }
    )
    book = render_and_convert([record], tmp_path, frozenset())
    assert book.result.problems == []
    [got] = book.result.records
    assert got["title"] == title
    assert {"name": brand, "page": got["sections"][0]["pages"]["start"]} in got["brands"]


def test_a_wrapped_title_whose_last_line_has_no_letter(few_records: list[Monograph], tmp_path: Path) -> None:
    title = "Hydroxocobalamin (vitamin b12) 2"  # "… (VITAMIN B12)" / "2" on two lines
    record = few_records[0].model_copy(update={"title": title, "drug_id": "hydroxocobalamin_vitamin_b12_2"})
    book = render_and_convert([record], tmp_path, frozenset())
    assert book.result.problems == []
    assert [r["title"] for r in book.result.records] == [title]

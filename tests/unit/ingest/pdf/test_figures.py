"""A figure (an image on the page) becomes a flagged figure block in its section, with its caption
and printed page; never text, never dropped. Without the renderer's "figure" option there is none."""

from __future__ import annotations

import json
from pathlib import Path

import pdfplumber
from duocthu.ingest.pdf.convert import write_debug
from duocthu.ingest.pdf.render import FIGURE_CAPTION
from duocthu.ingest.pdf.render_text import DEFECTS
from duocthu.models.source import Monograph

from tests.unit.ingest.pdf.conftest import Book, render_and_convert


def _figures(records: list[dict[str, object]]) -> list[tuple[str, str, dict[str, object], dict[str, object]]]:
    return [
        (r["drug_id"], s["key"], s["pages"], b)  # type: ignore[index]
        for r in records
        for s in r["sections"]  # type: ignore[attr-defined]
        for b in s["blocks"]
        if b["kind"] == "figure"
    ]


def test_the_figure_is_flagged_in_its_section_and_page(few_records: list[Monograph], tmp_path: Path) -> None:
    book = render_and_convert(few_records, tmp_path, frozenset({"figure"}))
    assert book.result.problems == []
    [(drug, key, pages, block)] = _figures(book.result.records)
    assert _figures(book.expected) == [(drug, key, pages, block)]  # the renderer's truth
    assert (drug, key) == ("paracetamol", "dang_thuoc_va_ham_luong")
    assert block["requires_visual_check"] is True
    assert str(block["text"]).startswith(f"Hình 1: {FIGURE_CAPTION}")
    assert f"trang {pages['start']}" in str(block["text"])  # type: ignore[index]
    section = next(
        s for r in book.result.records if r["drug_id"] == drug for s in r["sections"] if s["key"] == key
    )
    prose = " ".join(b["text"] for b in section["blocks"] if b["kind"] == "prose")
    assert "Hình" not in prose  # the caption is not merged into the text around it


def test_the_debug_output_names_the_figure(few_records: list[Monograph], tmp_path: Path) -> None:
    book = render_and_convert(few_records, tmp_path, frozenset({"figure"}))
    debug = tmp_path / "debug.jsonl"
    write_debug(book.result.lines, debug)
    rows = [json.loads(line) for line in debug.read_text(encoding="utf-8").splitlines()]
    [figure] = [r for r in rows if r["kind"] == "figure"]
    assert figure["where"] == "paracetamol/dang_thuoc_va_ham_luong"
    assert figure["text"].startswith("[image ")


def test_without_the_option_there_is_no_figure(few_records: list[Monograph], tmp_path: Path) -> None:
    book: Book = render_and_convert(few_records, tmp_path, frozenset(DEFECTS) - {"figure"})
    with pdfplumber.open(str(book.pdf)) as pdf:
        assert not any(page.images for page in pdf.pages)
    assert _figures(book.result.records) == []
    assert _figures(book.expected) == []


def test_every_figure_of_the_sample_is_flagged(sample_book: Book) -> None:
    want = _figures(sample_book.expected)
    assert len(want) == 2  # render.FIGURE_AT
    assert _figures(sample_book.result.records) == want


def test_a_scanned_page_is_reported_not_read_as_a_figure_only(tmp_path: Path) -> None:
    from io import BytesIO

    from duocthu.ingest.pdf.convert import convert
    from duocthu.ingest.pdf.render_figure import figure_png
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

    pdf = tmp_path / "scanned.pdf"
    canvas = Canvas(str(pdf))
    canvas.drawImage(ImageReader(BytesIO(figure_png())), 60, 100, 470, 650)  # the page, scanned
    canvas.showPage()
    canvas.save()
    problems = [(p.page, p.message) for p in convert(pdf).problems]
    assert problems == [
        (1, "no text layer (a scanned page needs OCR)"),
        (1, "figure (an image) outside any section"),
    ]

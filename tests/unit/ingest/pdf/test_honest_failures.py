"""What the converter cannot place is reported with its page and line, and fails the conversion
unless --keep-going; nothing is merged into the section before it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from duocthu.ingest.pdf.convert import convert
from duocthu.ingest.pdf.render import render
from duocthu.ingest.pdf.render_text import Defects
from duocthu.models.source import Monograph, Section
from duocthu.tools.cli import main


def _one(few_records: list[Monograph]) -> Monograph:
    return next(r for r in few_records if r.drug_id == "amoxicilin")


def _with_sections(record: Monograph, sections: list[Section]) -> Monograph:
    return record.model_copy(update={"sections": tuple(sections)})


def _book(records: list[Monograph], tmp_path: Path) -> Path:
    pdf = tmp_path / "book.pdf"
    render(records, pdf, Defects(on=frozenset()))
    return pdf


def test_a_heading_it_cannot_place(few_records: list[Monograph], tmp_path: Path) -> None:
    record = _one(few_records)
    sections = [
        s.model_copy(update={"heading": "Chú ý đặc biệt"}) if s.key == "than_trong" else s
        for s in record.sections
    ]
    result = convert(_book([_with_sections(record, sections)], tmp_path))
    [problem] = result.problems
    assert "Chú ý đặc biệt" in problem.message and problem.page >= 1 and problem.line >= 1
    converted = {s["key"]: s for s in result.records[0]["sections"]}
    assert "than_trong" not in converted
    caution = " ".join(b.text for b in record.sections[8].blocks)[:40]
    assert all(caution not in json.dumps(s, ensure_ascii=False) for s in converted.values())  # not merged


def test_a_monograph_without_identity_lines(few_records: list[Monograph], tmp_path: Path) -> None:
    record = _one(few_records)
    sections = [s for s in record.sections if s.key not in ("ten_chung_quoc_te", "ma_atc", "loai_thuoc")]
    result = convert(_book([_with_sections(record, sections)], tmp_path))
    assert any("not followed by identity lines" in p.message and p.page == 1 for p in result.problems)


def test_a_section_heading_out_of_order(few_records: list[Monograph], tmp_path: Path) -> None:
    record = _one(few_records)
    sections = list(record.sections)
    sections[8], sections[9] = sections[9], sections[8]  # Thời kỳ mang thai before Thận trọng
    result = convert(_book([_with_sections(record, sections)], tmp_path))
    [problem] = result.problems
    assert "out of order" in problem.message and "than_trong" in problem.message


def test_a_page_without_text_layer(tmp_path: Path) -> None:
    from reportlab.pdfgen.canvas import Canvas

    pdf = tmp_path / "scanned.pdf"
    canvas = Canvas(str(pdf))
    canvas.rect(100, 100, 300, 500, fill=1)  # a scanned page: an image, no characters
    canvas.showPage()
    canvas.save()
    result = convert(pdf)
    assert [(p.page, p.message) for p in result.problems] == [(1, "no text layer (a scanned page needs OCR)")]


def test_the_command_fails_unless_told_to_keep_going(
    few_records: list[Monograph], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = _one(few_records)
    sections = [
        s.model_copy(update={"heading": "Chú ý đặc biệt"}) if s.key == "than_trong" else s
        for s in record.sections
    ]
    pdf = _book([_with_sections(record, sections)], tmp_path)
    out = tmp_path / "out.jsonl"
    assert main(["convert-pdf", str(pdf), str(out)]) == 1
    assert not out.exists()
    assert "problem: page " in capsys.readouterr().err
    assert (
        main(["convert-pdf", str(pdf), str(out), "--keep-going", "--debug", str(tmp_path / "d.jsonl")]) == 0
    )
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1
    debug = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {"page", "printed", "column", "x0", "top", "where"} <= set(debug[0])
    assert any(d["where"] == "amoxicilin/chong_chi_dinh" for d in debug)

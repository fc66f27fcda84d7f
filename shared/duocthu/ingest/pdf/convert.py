"""`duocthu convert-pdf BOOK.pdf OUT.jsonl`: the book's PDF -> the source format, one monograph a line.

Monograph pages and brand-index pages are PDF page ranges (1-based, inclusive); by default the
brand index starts at the first page whose first line is "MỤC LỤC TRA CỨU" and runs to the end.
Problems (with page and line) make the conversion fail unless `keep_going`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from duocthu.core.text import fold
from duocthu.ingest.pdf.layout import HEADER_BAND, Line, page_lines
from duocthu.ingest.pdf.read import Reader, brand_entries
from duocthu.ingest.pdf.structure import MonographDraft, Problem
from duocthu.models.source import DEFAULT_BOOK, Monograph


@dataclass
class Conversion:
    records: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    pages: int = 0


def parse_range(text: str | None) -> tuple[int, int] | None:
    """ "100-1496" -> (100, 1496); None for no option."""
    if not text:
        return None
    first, _, last = text.partition("-")
    start, end = int(first), int(last or first)
    if start < 1 or end < start:
        raise ValueError(f"bad page range {text!r}")
    return start, end


def _pages(pdf: Any, span: tuple[int, int]) -> Iterator[tuple[int, list[Line], Problem | None]]:
    for index in range(span[0], min(span[1], len(pdf.pages)) + 1):
        page = pdf.pages[index - 1]
        lines = page_lines(page, index)
        page.flush_cache()  # pdfplumber keeps every parsed page otherwise: memory grows with the book
        text = any(not ln.figure for ln in lines)  # a scanned page is an image and no text
        problem = None if text else Problem(index, 0, "no text layer (a scanned page needs OCR)")
        yield index, lines, problem


def _opens_index(page: Any) -> bool:
    """Whether the page's first body line is the brand index's title."""
    body = page.crop((0, HEADER_BAND, page.width, min(page.height, HEADER_BAND + 60)))
    found = "muc luc tra cuu" in fold(body.extract_text() or "")
    page.flush_cache()
    return found


def _index_start(pdf: Any) -> int | None:
    """The brand index's first page: searched from the back, it fills the last pages."""
    for index in range(len(pdf.pages), max(0, len(pdf.pages) - 200), -1):
        if _opens_index(pdf.pages[index - 1]):
            return index
    return None


def _record(
    draft: MonographDraft, brands: list[tuple[str, int | None]], meta: dict[str, Any]
) -> dict[str, Any]:
    sections = [s.record() for s in draft.sections]
    for section in sections:
        for block in section["blocks"]:
            block.pop("header", None)
            block.pop("printed", None)
    atc = next((s for s in draft.sections if s.key == "ma_atc"), None)
    atc_text = " ".join(str(b["text"]) for b in atc.blocks) + " " + atc.paragraph if atc else ""
    codes = list(dict.fromkeys(_atc_codes(atc_text)))
    names = [*draft.trade_names(), *(name for name, _ in brands)]
    return {
        "drug_id": draft.drug_id,
        "title": draft.title,
        "aliases": list(dict.fromkeys(names)),
        "brands": [
            {"name": n, "page": p}
            for n, p in dict.fromkeys([*((n, None) for n in draft.trade_names()), *brands])
        ],
        "atc_codes": codes,
        "source": {"book": meta.get("book", DEFAULT_BOOK), "edition": meta.get("edition", "unspecified")},
        "sample_data": meta.get("sample_data", False),
        "notice": meta.get("notice"),
        "sections": sections,
    }


def _atc_codes(text: str) -> list[str]:
    import re

    return re.findall(r"\b[A-Z]\d{2}[A-Z]{2}\d{2}\b", text)


def _metadata(pdf: Any, edition: str | None) -> dict[str, Any]:
    subject = str((pdf.metadata or {}).get("Subject", ""))
    meta: dict[str, Any] = {"edition": edition or "unspecified"}
    if subject.startswith("sample_data:"):  # the renderer marks its books as sample data
        meta.update(sample_data=True, notice=subject.removeprefix("sample_data:").strip())
    return meta


def convert(
    path: Path,
    monographs: tuple[int, int] | None = None,
    index: tuple[int, int] | None = None,
    edition: str | None = None,
) -> Conversion:
    import pdfplumber

    out = Conversion()
    with pdfplumber.open(str(path)) as pdf:
        total = len(pdf.pages)
        if index is None:
            start = _index_start(pdf)
            index = (start, total) if start else None
        body = monographs or (1, (index[0] - 1) if index else total)
        reader = Reader()
        for _, lines, problem in _pages(pdf, body):
            out.pages += 1
            out.problems += [problem] if problem else []
            for line in lines:
                reader.feed(line)
            out.lines += lines
        entries: list[tuple[str, str, int]] = []
        if index:
            index_lines: list[Line] = []
            for _, lines, problem in _pages(pdf, index):
                out.pages += 1
                out.problems += [problem] if problem else []
                index_lines += lines
            entries, problems = brand_entries(index_lines)
            out.problems += problems
            out.lines += index_lines
        meta = _metadata(pdf, edition)
    out.problems += reader.problems
    by_title = {fold(d.title): d for d in reader.monographs}
    cited: dict[str, list[tuple[str, int | None]]] = {}
    for brand, generic, page in entries:
        if fold(generic) not in by_title:
            out.problems.append(
                Problem(0, 0, f"brand index: {brand!r} cites {generic!r}, which no monograph is titled")
            )
            continue
        cited.setdefault(by_title[fold(generic)].drug_id, []).append((brand, page))
    for draft in reader.monographs:
        record = _record(draft, cited.get(draft.drug_id, []), meta)
        try:
            Monograph.model_validate(record)
        except ValidationError as err:
            out.problems.append(Problem(draft.line.page, 0, f"{draft.drug_id}: {err.errors()[0]['msg']}"))
            continue
        out.records.append(record)
    return out


def write_jsonl(records: list[dict[str, Any]], out: Path) -> None:
    with out.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_debug(lines: list[Line], out: Path) -> None:
    """Every line's provenance, so a wrong section can be traced to its page."""
    with out.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line.provenance(), ensure_ascii=False) + "\n")

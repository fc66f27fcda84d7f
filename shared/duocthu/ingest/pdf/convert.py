"""`duocthu convert-pdf BOOK.pdf OUT.jsonl`: the book's PDF -> the source format, one monograph a line.

Monograph pages and brand-index pages are PDF page ranges (1-based, inclusive); by default the
brand index starts at the first page whose first line is "MỤC LỤC TRA CỨU" and runs to the end.
Problems (with page and line) make the conversion fail unless `keep_going`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from duocthu.core.text import fold
from duocthu.ingest.pdf.layout import HEADER_BAND, Line, PageRead, read_page
from duocthu.ingest.pdf.read import Reader, brand_entries
from duocthu.ingest.pdf.repair import resolve_breaks
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


def _pages(pdf: Any, span: tuple[int, int]) -> Iterator[tuple[PageRead, Problem | None]]:
    for index in range(span[0], min(span[1], len(pdf.pages)) + 1):
        page = pdf.pages[index - 1]
        read = read_page(page, index)
        page.flush_cache()  # pdfplumber keeps every parsed page otherwise: memory grows with the book
        problem = None if read.has_text else Problem(index, 0, "no text layer (a scanned page needs OCR)")
        yield read, problem


def number_pages(pages: list[PageRead]) -> tuple[set[int], list[Problem]]:
    """Each page's printed number, checked to increase; the PDF pages of the front matter.

    A page whose margins print a roman numeral and no arabic one is front matter. Among arabic
    candidates the one that keeps the book's usual printed-minus-PDF offset wins, else the one that
    continues the previous page; a page printing none is numbered from its neighbour.
    """
    problems: list[Problem] = []
    front = {p.index for p in pages if p.romans and not p.numbers}
    offsets = Counter(n - p.index for p in pages for n in p.numbers)
    usual = offsets.most_common(1)[0][0] if offsets else None
    previous: int | None = None
    for page in pages:
        if page.index in front:
            page.set_printed(None)
            continue
        fits = [n for n in page.numbers if usual is not None and n == page.index + usual]
        after = sorted(n for n in page.numbers if previous is None or n > previous)
        if fits:
            printed: int | None = fits[0]
        elif previous is not None and previous + 1 in after:
            printed = previous + 1
        elif after and previous is not None:
            printed = after[0]
        elif previous is not None:
            printed = previous + 1
            if page.numbers:
                problems.append(
                    Problem(page.index, 0, f"printed page numbers {page.numbers} do not follow {previous}")
                )
        elif usual is not None:
            printed = page.index + usual
        else:
            printed = after[0] if after else None
        page.set_printed(printed)
        previous = printed if printed is not None else previous
    return front, problems


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
    draft: MonographDraft, brands: list[tuple[str, int | None]], meta: dict[str, Any], hyphenated: set[str]
) -> dict[str, Any]:
    sections = [s.record() for s in draft.sections]
    for section in sections:
        for block in section["blocks"]:
            block.pop("header", None)
            block.pop("printed", None)
            block["text"] = resolve_breaks(str(block["text"]), hyphenated)
    atc = next((s for s in draft.sections if s.key == "ma_atc"), None)
    atc_text = " ".join(str(b["text"]) for b in atc.blocks) + " " + atc.paragraph if atc else ""
    codes = list(dict.fromkeys(_atc_codes(atc_text)))
    names = [*draft.synonyms, *draft.trade_names(), *(name for name, _ in brands)]
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
        pages: list[PageRead] = []
        for read, problem in _pages(pdf, body):
            pages.append(read)
            out.problems += [problem] if problem else []
        index_pages: list[PageRead] = []
        if index:
            for read, problem in _pages(pdf, index):
                index_pages.append(read)
                out.problems += [problem] if problem else []
        front, problems = number_pages(pages + index_pages)
        out.problems += problems
        out.pages = len(pages) + len(index_pages)
        reader = Reader(body_size=body_size([ln for p in pages for ln in p.lines]))
        for read in pages:
            out.lines += read.lines
            if read.index in front:  # front matter (roman page numbers): no monograph there
                continue
            for line in read.lines:
                reader.feed(line)
        reader.finish()
        entries: list[tuple[str, str, int]] = []
        if index:
            index_lines = [ln for p in index_pages for ln in p.lines]
            entries, problems = brand_entries(index_lines)
            out.problems += problems
            out.lines += index_lines
        meta = _metadata(pdf, edition)
    out.problems += reader.problems
    by_title = _by_name(reader.monographs)
    cited: dict[str, list[tuple[str, int | None]]] = {}
    for brand, generic, page in entries:
        if fold(generic) not in by_title:
            out.problems.append(
                Problem(0, 0, f"brand index: {brand!r} cites {generic!r}, which no monograph is titled")
            )
            continue
        cited.setdefault(by_title[fold(generic)].drug_id, []).append((brand, page))
    for draft in reader.monographs:
        kept, problems = _degrade(
            draft, _record(draft, cited.get(draft.drug_id, []), meta, reader.hyphenated)
        )
        out.problems += problems
        if kept is not None:
            out.records.append(kept)
    return out


_MEMBERS = re.compile(r"\s*(?:[,;/]|\bvà\b)\s*")


def _by_name(drafts: list[MonographDraft]) -> dict[str, MonographDraft]:
    """The monograph each name the brand index may cite points to: its title, then each member of a
    group monograph's title (one heading for several salts or forms: "X và Y", "X, Y", "X/Y") and
    its synonyms; a title wins over another monograph's member."""
    out = {fold(d.title): d for d in drafts}
    for draft in drafts:
        for name in [*_MEMBERS.split(draft.title), *draft.synonyms]:
            if name.strip():
                out.setdefault(fold(name), draft)
    return out


def _degrade(draft: MonographDraft, record: dict[str, Any]) -> tuple[dict[str, Any] | None, list[Problem]]:
    """A section that cannot be read (empty, or invalid) is reported and left out; its monograph
    keeps the rest. Only a monograph invalid without any section is dropped."""
    problems: list[Problem] = []
    kept = []
    for section in record["sections"]:
        if not any(str(b["text"]).strip() for b in section["blocks"]):
            problems.append(
                Problem(
                    section["pdf_pages"]["start"], 0, f"{draft.drug_id}/{section['key']}: empty; left out"
                )
            )
            continue
        kept.append(section)
    record["sections"] = kept
    while True:
        try:
            Monograph.model_validate(record)
            return record, problems
        except ValidationError as err:
            where = err.errors()[0]["loc"]
            message = err.errors()[0]["msg"]
            if len(where) >= 2 and where[0] == "sections" and isinstance(where[1], int):
                bad = record["sections"].pop(where[1])
                problems.append(
                    Problem(
                        bad["pdf_pages"]["start"], 0, f"{draft.drug_id}/{bad['key']}: {message}; left out"
                    )
                )
                continue
            problems.append(Problem(draft.line.page, 0, f"{draft.drug_id}: {message}"))
            return None, problems


def body_size(lines: list[Line]) -> float:
    """The size most of the book's text is set in (by letters): what a title stands out from."""
    sizes: Counter[float] = Counter()
    for line in lines:
        if line.rows is None and not line.figure:
            sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def write_jsonl(records: list[dict[str, Any]], out: Path) -> None:
    with out.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_debug(lines: list[Line], out: Path) -> None:
    """Every line's provenance, so a wrong section can be traced to its page."""
    with out.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line.provenance(), ensure_ascii=False) + "\n")

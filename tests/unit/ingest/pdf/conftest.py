"""PDFs typeset by the project's own renderer (no binary PDF is committed): a few monographs for
most tests, the whole sample once per session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from duocthu.models.source import Monograph

pytest.importorskip("pdfplumber", reason="the pdf extra is not installed (pip install -e '.[pdf]')")
pytest.importorskip(
    "reportlab", reason="the pdf-render extra is not installed (pip install -e '.[pdf-render]')"
)

from duocthu.ingest.pdf.convert import Conversion, convert
from duocthu.ingest.pdf.render import expected_records, render
from duocthu.ingest.pdf.render_text import DEFECTS, Defects

# A table (loperamid, paracetamol), long INN names, and enough headings for the foot-of-column one.
FEW = ("amoxicilin", "loperamid", "paracetamol")


@dataclass
class Book:
    pdf: Path
    expected: list[dict[str, Any]]
    result: Conversion


def render_and_convert(
    records: list[Monograph], folder: Path, on: frozenset[str] = frozenset(DEFECTS)
) -> Book:
    pdf = folder / "book.pdf"
    truth = render(records, pdf, Defects(on=on))
    return Book(pdf, expected_records(records, truth), convert(pdf))


@pytest.fixture(scope="session")
def few_records(sample_records: list[Monograph]) -> list[Monograph]:
    return [r for r in sample_records if r.drug_id in FEW]


@pytest.fixture(scope="session")
def sample_book(tmp_path_factory: pytest.TempPathFactory, sample_records: list[Monograph]) -> Book:
    """The whole sample, every defect on."""
    return render_and_convert(sample_records, tmp_path_factory.mktemp("sample-book"))


def assert_reads_back_whole(expected: list[dict[str, Any]], result: Conversion, monographs: int) -> None:
    """An engine's book converted back: no problem, every monograph, section and printed page, the
    text within 1 %, both tables flagged, every alias."""
    from duocthu.tools.evals.pdf import _compare

    c = _compare(expected, result.records)
    assert not [str(p) for p in result.problems]
    assert c["monographs"] == (monographs, monographs, 0)
    assert c["sections"][0] == c["sections"][1]
    assert c["pages"][0] == c["pages"][1]
    assert min(r for r, _ in c["ratios"]) >= 0.99
    assert c["tables"][0] == c["tables"][1] == 2
    assert c["aliases"][0] == c["aliases"][1]


def assert_reads_back(expected: list[dict[str, Any]], result: Conversion, monographs: int) -> None:
    """Another engine's book converts whole: no problem, every monograph, every section, and every
    section on its printed page."""
    from duocthu.tools.evals.pdf import _compare

    c = _compare(expected, result.records)
    assert not [str(p) for p in result.problems]
    assert c["monographs"] == (monographs, monographs, 0)
    assert c["sections"][0] == c["sections"][1]
    assert c["pages"][0] == c["pages"][1]  # printed pages, from the running heads


def assert_tcvn3_u_horn_read(pdf: Path, result: Conversion, slot: str) -> None:
    """The book writes words with ư in TCVN3 (`slot`: the code its text layer gives for ư), and
    each such word reads back: ư is never dropped or split off."""
    import pdfplumber
    from duocthu.ingest.pdf.repair import decode_tcvn3, nfc

    with pdfplumber.open(str(pdf)) as book:
        raw = [
            w["text"]
            for page in book.pages
            for w in page.extract_words(extra_attrs=["fontname"])
            if ".Vn" in w["fontname"]
        ]
    text = " ".join(str(b["text"]) for r in result.records for s in r["sections"] for b in s["blocks"])
    horned = [nfc(decode_tcvn3(w)).strip(".,;:()") for w in raw if slot in w]
    assert horned, f"the book has no TCVN3 word with ư ({slot!r})"
    assert all(w in text for w in horned), [w for w in horned if w not in text]

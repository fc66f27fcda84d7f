"""The rendered sample, converted, ingested and asked: the citation shows the PDF's printed page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from duocthu.ingest.pdf.convert import write_jsonl
from duocthu.tools.cli import main

from tests.unit.ingest.pdf.conftest import Book


def test_ask_cites_the_printed_page(
    sample_book: Book, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "book.jsonl"
    write_jsonl(sample_book.result.records, source)
    data = str(tmp_path / "data")
    assert main(["ingest", "--source", str(source), "--data-dir", data, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["ask", "Chống chỉ định của amoxicilin là gì?", "--json", "--data-dir", data]) == 0
    response = json.loads(capsys.readouterr().out)
    amox = {r["drug_id"]: r for r in sample_book.expected}["amoxicilin"]
    pages = next(s["pages"] for s in amox["sections"] if s["key"] == "chong_chi_dinh")
    assert pages["start"] > 98  # printed numbers, not PDF indices
    assert f"tr. {pages['start']}" in response["answer"]  # SourceRef.citation: "tr. 114" or "tr. 114–115"
    assert response["decision"] == "ANSWERABLE"

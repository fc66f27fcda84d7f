"""A book printed by a browser's layout engine: an HTML layout (CSS columns on mirrored margins,
page-margin boxes, soft hyphens, ligatures in the text layer) printed to PDF by Debian's Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from duocthu.ingest.pdf.convert import convert
from duocthu.ingest.pdf.render import expected_records
from duocthu.ingest.pdf.render_chromium import CHROMIUM, render_chromium
from duocthu.models.source import Monograph
from duocthu.tools.evals.pdf import _compare

SOME = ("acid_acetylsalicylic", "amoxicilin", "carbamazepin", "cefuroxim", "loperamid", "paracetamol")


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed: no chromium book")
def test_chromium_book_reads_back_whole(sample_records: list[Monograph], tmp_path: Path) -> None:
    # Given the book printed by Chromium
    records = [r for r in sample_records if r.drug_id in SOME]
    truth = render_chromium(records, tmp_path / "book.pdf")
    # When it is converted back
    result = convert(tmp_path / "book.pdf")
    c = _compare(expected_records(records, truth), result.records)
    # Then it reads back whole
    assert not [str(p) for p in result.problems]
    assert c["monographs"] == (len(SOME), len(SOME), 0)
    assert c["sections"][0] == c["sections"][1]
    assert c["pages"][0] == c["pages"][1]
    assert min(r for r, _ in c["ratios"]) >= 0.99
    assert c["tables"][0] == c["tables"][1] == 2
    assert c["aliases"][0] == c["aliases"][1]

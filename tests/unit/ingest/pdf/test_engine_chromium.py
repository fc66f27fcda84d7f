"""A book printed by a browser's layout engine: an HTML layout (CSS columns on mirrored margins,
page-margin boxes, soft hyphens, ligatures in the text layer) printed to PDF by Debian's Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from duocthu.ingest.pdf.convert import convert
from duocthu.ingest.pdf.render import expected_records
from duocthu.ingest.pdf.render_chromium import CHROMIUM, render_chromium
from duocthu.models.source import Monograph

from tests.unit.ingest.pdf.conftest import assert_reads_back_whole

SOME = ("acid_acetylsalicylic", "amoxicilin", "carbamazepin", "cefuroxim", "loperamid", "paracetamol")


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed: no chromium book")
def test_chromium_book_reads_back_whole(sample_records: list[Monograph], tmp_path: Path) -> None:
    # Given the book printed by Chromium
    records = [r for r in sample_records if r.drug_id in SOME]
    truth = render_chromium(records, tmp_path / "book.pdf")
    # When it is converted back
    result = convert(tmp_path / "book.pdf")
    # Then it reads back whole
    assert_reads_back_whole(expected_records(records, truth), result, len(SOME))

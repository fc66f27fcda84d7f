"""Pins the sample formulary (team-written SAMPLE data, not for clinical use) against the kit's list."""

from __future__ import annotations

from itertools import pairwise

import pytest
from duocthu.core.phrases import contains_phrase
from duocthu.core.sections import SECTION_HEADINGS, SECTION_KEYS
from duocthu.ingest.chunking import chunk_monograph
from duocthu.models.source import Monograph

from tests.conftest import SAMPLE_TSV, kit_rows

ROWS = kit_rows(SAMPLE_TSV)


def _by_id(records: list[Monograph]) -> dict[str, Monograph]:
    return {r.drug_id: r for r in records}


def _section_text(record: Monograph, key: str) -> str:
    section = record.section(key)
    assert section is not None, f"{record.drug_id} lacks {key}"
    return " ".join(b.text for b in section.blocks)


def test_forty_drugs_with_all_nineteen_sections(sample_records: list[Monograph]) -> None:
    assert sorted(r.drug_id for r in sample_records) == sorted(row["drug_id"] for row in ROWS)
    for record in sample_records:
        # every key but the trade names, which only a converted book has (issue 24)
        assert tuple(s.key for s in record.sections) == SECTION_KEYS[:-1], record.drug_id
        assert all(s.heading == SECTION_HEADINGS[s.key] for s in record.sections)
        assert record.sample_data and record.notice, "every record says it is sample data"
        assert record.atc_codes


@pytest.mark.parametrize("row", ROWS, ids=[r["drug_id"] for r in ROWS])
def test_every_tsv_alias_and_title(row: dict[str, str], sample_records: list[Monograph]) -> None:
    record = _by_id(sample_records)[row["drug_id"]]
    assert record.title == row["title"]
    for alias in row["aliases_that_must_resolve"].split(";"):
        assert alias.strip() in record.aliases


def test_page_ranges_are_consecutive_and_disjoint(sample_records: list[Monograph]) -> None:
    spans = []
    for record in sample_records:
        previous_end = None
        for section in record.sections:
            if previous_end is not None:
                assert previous_end <= section.pages.start <= previous_end + 1, (record.drug_id, section.key)
            previous_end = section.pages.end
        spans.append((record.sections[0].pages.start, record.sections[-1].pages.end, record.drug_id))
    spans.sort()
    for (_, end, a), (start, _, b) in pairwise(spans):
        assert end < start, f"{a} and {b} overlap"


def test_each_drug_has_a_multi_part_section_and_no_identical_sections(
    sample_records: list[Monograph],
) -> None:
    for record in sample_records:
        chunks = chunk_monograph(record)
        assert max(c.part_index for c in chunks) >= 1, record.drug_id
        texts = [_section_text(record, key) for key in SECTION_KEYS[:-1]]  # no trade names in the sample
        assert len(set(texts)) == len(texts), record.drug_id


NOTES = [
    ("acid_acetylsalicylic", "chong_chi_dinh", "loét dạ dày tá tràng"),
    ("ibuprofen", "chong_chi_dinh", "loét dạ dày"),
    ("ibuprofen", "than_trong", "suy thận"),
    ("omeprazol", "chi_dinh", "viêm loét dạ dày tá tràng"),
    ("metformin", "than_trong", "suy thận"),
    ("metformin", "chong_chi_dinh", "suy thận"),
    ("amlodipin", "chi_dinh", "tăng huyết áp"),
    ("losartan", "chi_dinh", "tăng huyết áp"),
    ("enalapril", "tac_dung_khong_mong_muon", "ho khan"),
    ("captopril", "tac_dung_khong_mong_muon", "ho khan"),
]
INTERACTIONS = [
    ("acid_acetylsalicylic", "warfarin"),
    ("omeprazol", "clopidogrel"),
    ("warfarin", "ibuprofen"),
    ("warfarin", "amiodaron"),
    ("digoxin", "amiodaron"),
    ("methotrexat", "ibuprofen"),
    ("methotrexat", "acid_acetylsalicylic"),
]


@pytest.mark.parametrize(("drug_id", "section_key", "phrase"), NOTES)
def test_notes_items_stand_where_they_belong(
    drug_id: str, section_key: str, phrase: str, sample_records: list[Monograph]
) -> None:
    assert contains_phrase(_section_text(_by_id(sample_records)[drug_id], section_key), phrase)


def test_ibuprofen_thận_trọng_does_not_hold_the_ulcer_answer(sample_records: list[Monograph]) -> None:
    # the measured pooling case: the answer to "thận trọng ... loét dạ dày" is filed only under
    # chống chỉ định, so that retrieval must pool to find it
    assert not contains_phrase(
        _section_text(_by_id(sample_records)["ibuprofen"], "than_trong"), "loét dạ dày"
    )


@pytest.mark.parametrize(("a", "b"), INTERACTIONS)
def test_named_interactions_are_written_in_both_monographs(
    a: str, b: str, sample_records: list[Monograph]
) -> None:
    records = _by_id(sample_records)
    for drug, other in ((a, b), (b, a)):
        assert contains_phrase(_section_text(records[drug], "tuong_tac_thuoc"), records[other].title), (
            drug,
            other,
        )


def test_paracetamol_weight_table_requires_visual_check(sample_records: list[Monograph]) -> None:
    section = _by_id(sample_records)["paracetamol"].section("lieu_luong_va_cach_dung")
    assert section is not None
    tables = [b for b in section.blocks if b.kind == "table"]
    assert tables and all(b.requires_visual_check for b in tables)
    assert any(contains_phrase(b.text, "kg") for b in tables)


def test_amiodaron_carries_quarantined_content(sample_records: list[Monograph]) -> None:
    quarantined = [s for s in _by_id(sample_records)["amiodaron"].sections if s.quarantined]
    assert [s.key for s in quarantined] == ["tuong_tac_thuoc"]
    assert quarantined[0].quarantine_reason

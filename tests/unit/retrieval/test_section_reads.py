"""One turn's section reads: the same parts, in the same order, as the store's section route, with
one read per drug."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from duocthu.retrieval.section_reads import SectionReads
from duocthu.store.edge import EdgeStore

from tests.factories import publish, section_chunks

PARTS = {
    "ibuxen": {
        "chong_chi_dinh": ["Loét dạ dày tiến triển.", "Ba tháng cuối thai kỳ.", "Suy gan nặng."],
        "than_trong": ["Người cao tuổi."],
        "loai_thuoc": ["Thuốc chống viêm không steroid."],
    },
    "paranol": {"chong_chi_dinh": ["Quá mẫn với paranol."]},
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStore]:
    edge = EdgeStore(Path(tmp_path_factory.mktemp("reads")))
    publish(edge, section_chunks(PARTS, {"ibuxen": "Ibuxen", "paranol": "Paranol"}))
    yield edge
    edge.close()


def test_sections_read_once_per_drug_are_the_section_route(store: EdgeStore) -> None:
    reads = SectionReads(store, {"chong_chi_dinh", "than_trong", "thoi_ky_mang_thai"})
    for drug in PARTS:
        for section in ("chong_chi_dinh", "than_trong", "thoi_ky_mang_thai", "loai_thuoc"):
            assert reads.find_by_section(drug, section) == store.find_by_section(drug, section)
    assert set(reads._read) == set(PARTS)  # one read per drug, whatever the sections asked

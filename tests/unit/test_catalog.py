from __future__ import annotations

import pytest
from duocthu.catalog import Catalog, CatalogDrugResolver
from duocthu.source import Monograph, corpus_hash


@pytest.fixture(scope="module")
def resolver(sample_records: list[Monograph]) -> CatalogDrugResolver:
    return CatalogDrugResolver(Catalog.from_records(sample_records, corpus_hash(sample_records)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Chống chỉ định của amoxicilin là gì?", ("amoxicilin",)),
        ("amoxicillin dùng cho trẻ", ("amoxicilin",)),
        ("Liều Panadol cho trẻ 12 kg", ("paracetamol",)),
        ("acid acetylsalicylic và warfarin", ("acid_acetylsalicylic", "warfarin")),
        ("ESOMEPRAZOL 20 mg", ("esomeprazol",)),
        ("aspirinol có tốt không", ()),
        ("thuốc uống liều viên", ()),
    ],
)
def test_exact_alias_lookup(resolver: CatalogDrugResolver, text: str, expected: tuple[str, ...]) -> None:
    assert resolver.resolve_ids(text) == expected


def test_catalog_round_trip(tmp_path: pytest.TempPathFactory, sample_records: list[Monograph]) -> None:
    catalog = Catalog.from_records(sample_records, "abc")
    path = tmp_path / "catalog.json"  # type: ignore[operator]
    catalog.write(path)
    assert Catalog.read(path) == catalog
    assert catalog.sample_data

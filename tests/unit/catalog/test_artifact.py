from __future__ import annotations

import logging
from pathlib import Path
from unittest.mock import patch

import boto3
import pytest
from duocthu.catalog.artifact import AliasIndex, Catalog, CatalogDrug
from duocthu.catalog.resolver import CatalogDrugResolver, load_resolver
from duocthu.ingest.source import corpus_hash
from duocthu.models.source import Monograph
from duocthu.store import catalog as catalog_module
from duocthu.store.catalog import load_catalog_from_s3
from moto import mock_aws

from tests.factories import resolved_ids


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
    assert resolved_ids(resolver, text) == expected


def test_a_drug_named_twice_is_resolved_once_and_mentioned_twice(resolver: CatalogDrugResolver) -> None:
    text = "Còn esomeprazol thì sao, đổi sang Nexium có được không?"
    assert [m.drug_id for m in resolver.resolve(text)] == ["esomeprazol"]
    assert [(m.drug_id, m.matched_text) for m in resolver.mentions(text)] == [
        ("esomeprazol", "esomeprazol"),
        ("esomeprazol", "nexium"),
    ]


def test_a_word_starting_a_drug_the_message_names_is_that_drug(resolver: CatalogDrugResolver) -> None:
    # "prednis" begins prednisolon and prednisone: beside "prednisolon" it is that drug
    text = "đợt cấp COPD cần prednisolon. Liều prednis có cần khác không?"
    assert [(m.drug_id, m.matched_text) for m in resolver.mentions(text)] == [
        ("prednisolon", "prednisolon"),
        ("prednisolon", "prednis"),
    ]
    assert [m.drug_id for m in resolver.mentions("Liều prednis có cần khác không?")] == []


def test_catalog_round_trip(tmp_path: Path, sample_records: list[Monograph]) -> None:
    catalog = Catalog.from_records(sample_records, "abc")
    path = tmp_path / "catalog.json"
    catalog.write(path)
    assert Catalog.read(path) == catalog
    assert catalog.sample_data


# --- cold start ------------------------------------------------------------------------------


def test_cold_start_deserialises_the_alias_index(tmp_path: Path, sample_records: list[Monograph]) -> None:
    # Given the artifact as ingest writes it
    path = tmp_path / "catalog.json"
    Catalog.from_records(sample_records, "abc").write(path)
    # When a process loads it, nothing is derived again
    with patch.object(AliasIndex, "build", side_effect=AssertionError("re-derived at load")):
        resolver = load_resolver(path)
    # Then it resolves and suggests
    assert resolved_ids(resolver, "Liều Panadol cho trẻ") == ("paracetamol",)
    assert [s.drug_id for s in resolver.suggest("paracetamon")] == ["paracetamol"]


def test_an_index_from_other_rules_is_derived_again_and_logged(
    tmp_path: Path, sample_records: list[Monograph], caplog: pytest.LogCaptureFixture
) -> None:
    # Given an artifact whose alias index was derived under another word list
    catalog = Catalog.from_records(sample_records, "abc")
    assert catalog.alias_index is not None
    stale = catalog.alias_index.model_copy(update={"rules": "0000000000000000"})
    path = tmp_path / "catalog.json"
    path.write_text(catalog.model_copy(update={"alias_index": stale}).model_dump_json(), encoding="utf-8")
    # When it is loaded
    with caplog.at_level(logging.WARNING, logger="duocthu.catalog.resolver"):
        resolver = load_resolver(path)
    # Then the stale tables are not served
    assert "re-deriving" in caplog.text
    assert resolved_ids(resolver, "Panadol") == ("paracetamol",)


def test_an_index_from_other_names_is_not_used(sample_records: list[Monograph]) -> None:
    catalog = Catalog.from_records(sample_records, "abc")
    renamed = tuple(
        d.model_copy(update={"aliases": ("Hapacolix",)}) if d.drug_id == "paracetamol" else d
        for d in catalog.drugs
    )
    resolver = CatalogDrugResolver(catalog.model_copy(update={"drugs": renamed}))
    assert resolved_ids(resolver, "Panadol") == ()
    assert resolved_ids(resolver, "Hapacolix") == ("paracetamol",)


def test_write_adds_the_alias_index(tmp_path: Path) -> None:
    catalog = Catalog(corpus_hash="x", drugs=(CatalogDrug(drug_id="paracetamol", title="Paracetamol"),))
    assert catalog.alias_index is None
    path = tmp_path / "catalog.json"
    catalog.write(path)
    assert Catalog.read(path).alias_index == AliasIndex.build(catalog.drugs)


@pytest.fixture
def s3_client_cache() -> object:
    catalog_module._s3_client.cache_clear()  # the client is created inside the mock, not before
    yield None
    catalog_module._s3_client.cache_clear()


@mock_aws
def test_catalog_from_s3(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, sample_records: list[Monograph], s3_client_cache: object
) -> None:
    # Given the artifact in a bucket (CATALOG_S3_URI)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    catalog = Catalog.from_records(sample_records, "abc")
    path = tmp_path / "catalog.json"
    catalog.write(path)
    s3 = boto3.client("s3")
    s3.create_bucket(
        Bucket="duocthu-artifacts", CreateBucketConfiguration={"LocationConstraint": "ap-southeast-1"}
    )
    s3.put_object(Bucket="duocthu-artifacts", Key="v1/catalog.json", Body=path.read_bytes())
    # When it is loaded from there
    loaded = load_catalog_from_s3("s3://duocthu-artifacts/v1/catalog.json")
    # Then it is the same catalogue, alias index included
    assert loaded == catalog
    assert resolved_ids(CatalogDrugResolver(loaded), "Panadol") == ("paracetamol",)


@pytest.mark.parametrize("uri", ["duocthu-artifacts/catalog.json", "s3://duocthu-artifacts", "s3:///key"])
def test_s3_uri_names_a_bucket_and_a_key(uri: str) -> None:
    with pytest.raises(ValueError, match="s3://bucket/key"):
        load_catalog_from_s3(uri)


@mock_aws
def test_runtime_reads_the_catalogue_from_s3_and_checks_its_hash(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, sample_records: list[Monograph], s3_client_cache: object
) -> None:
    from duocthu.api.runtime import build_runtime
    from duocthu.ingest.pipeline import ingest_records
    from duocthu.ingest.source import corpus_hash
    from duocthu.settings import Settings
    from duocthu.store.edge import EdgeStore

    # Given an index of two drugs, and in S3 the catalogue of that corpus and of another one
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    records = sample_records[:2]
    settings = Settings(data_dir=tmp_path / "data")
    store = EdgeStore(settings.data_dir)
    ingest_records(records, store, settings)
    store.close()
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="artifacts", CreateBucketConfiguration={"LocationConstraint": "ap-southeast-1"})
    good = Catalog.from_records(records, corpus_hash(records)).model_dump_json()
    stale = Catalog.from_records(sample_records[:3], corpus_hash(sample_records[:3])).model_dump_json()
    version = store.active_manifest().version  # type: ignore[union-attr]
    s3.put_object(Bucket="artifacts", Key=f"good/{version}/catalog.json", Body=good.encode())
    s3.put_object(Bucket="artifacts", Key=f"stale/{version}/catalog.json", Body=stale.encode())
    # When the runtime starts with CATALOG_S3_URI (the prefix; the version's own key is read)
    ready = build_runtime(settings.model_copy(update={"catalog_s3_uri": "s3://artifacts/good"}))
    ready.store.close()
    mismatch = build_runtime(settings.model_copy(update={"catalog_s3_uri": "s3://artifacts/stale/"}))
    mismatch.store.close()
    # Then the matching catalogue serves, and the other is reported, never served
    assert ready.problem is None and ready.catalog is not None and len(ready.catalog.drugs) == 2
    assert mismatch.problem is not None and "CatalogMismatch" in mismatch.problem

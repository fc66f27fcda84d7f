"""Artifacts in S3 live under their index version's own keys, written once: a re-ingest adds a
version beside the one running containers read, so there is no window where a new container
sees a catalogue that does not match its index (moto)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import ClientError
from duocthu.api.runtime import build_runtime
from duocthu.ingest.pipeline import ingest_records
from duocthu.models.source import Monograph
from duocthu.settings import Settings
from duocthu.store import catalog as catalog_module
from duocthu.store.edge import EdgeStore
from duocthu.store.packed import pack
from duocthu.tools.pack import publish_version
from moto import mock_aws

BUCKET = "artifacts"


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
    with mock_aws():
        catalog_module._s3_client.cache_clear()
        client = boto3.client("s3")
        region = {"LocationConstraint": "ap-southeast-1"}
        client.create_bucket(Bucket=BUCKET, CreateBucketConfiguration=region)
        yield client
    catalog_module._s3_client.cache_clear()


def _ingest(records: list[Monograph], data_dir: Path) -> Settings:
    settings = Settings(data_dir=data_dir)
    store = EdgeStore(data_dir)
    ingest_records(records, store, settings)
    store.close()
    return settings


def _keys(s3: object) -> list[str]:
    return sorted(o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", []))  # type: ignore[attr-defined]


def test_each_version_is_published_under_its_own_keys(
    s3: object, tmp_path: Path, sample_records: list[Monograph]
) -> None:
    old = _ingest(sample_records[:2], tmp_path / "old")
    new = _ingest(sample_records[:3], tmp_path / "new")
    pack(old.data_dir, tmp_path / "old.tar.gz")
    first = publish_version(old.data_dir, f"s3://{BUCKET}/duocthu", tmp_path / "old.tar.gz")
    second = publish_version(new.data_dir, f"s3://{BUCKET}/duocthu/")
    old_v, new_v = (EdgeStore(s.data_dir).active_manifest().version for s in (old, new))  # type: ignore[union-attr]
    assert first == [
        f"s3://{BUCKET}/duocthu/{old_v}/catalog.json",
        f"s3://{BUCKET}/duocthu/{old_v}/index.tar.zst",
    ]
    assert second == [f"s3://{BUCKET}/duocthu/{new_v}/catalog.json"]
    assert _keys(s3) == sorted(u.removeprefix(f"s3://{BUCKET}/") for u in first + second)


def test_a_published_key_is_never_overwritten(
    s3: object, tmp_path: Path, sample_records: list[Monograph]
) -> None:
    settings = _ingest(sample_records[:2], tmp_path / "data")
    publish_version(settings.data_dir, f"s3://{BUCKET}/duocthu")
    with pytest.raises(ClientError, match="PreconditionFailed"):
        publish_version(settings.data_dir, f"s3://{BUCKET}/duocthu")


def test_a_container_serving_the_old_version_reads_the_old_catalogue_after_a_reingest(
    s3: object, tmp_path: Path, sample_records: list[Monograph]
) -> None:
    # Given version 1 published and served, then a re-ingest publishing version 2 beside it
    old = _ingest(sample_records[:2], tmp_path / "old")
    publish_version(old.data_dir, f"s3://{BUCKET}/duocthu")
    new = _ingest(sample_records[:3], tmp_path / "new")
    publish_version(new.data_dir, f"s3://{BUCKET}/duocthu")
    # When containers start on either index with the same CATALOG_S3_URI
    runtimes = [
        build_runtime(s.model_copy(update={"catalog_s3_uri": f"s3://{BUCKET}/duocthu"})) for s in (old, new)
    ]
    for runtime in runtimes:
        runtime.store.close()
    # Then each reads its own version's catalogue: both ready, no mismatch window
    assert [r.problem for r in runtimes] == [None, None]
    assert [len(r.catalog.drugs) for r in runtimes if r.catalog] == [2, 3]

"""Shared fixtures. Tests may read the team kit at ../shared (CI has it); the product never does."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from duocthu.catalog.artifact import Catalog
from duocthu.ingest.pipeline import ingest_records
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.models.source import Monograph
from duocthu.settings import Settings
from duocthu.store.catalog import load_active_catalog
from duocthu.store.edge import EdgeStore
from duocthu.store.server import ServerStore
from qdrant_client import QdrantClient

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT.parent / "shared"
# The developer tools find the checkout from the working directory; tests may run from anywhere.
os.environ.setdefault("DUOCTHU_GOLD_DIR", str(ROOT / "tests" / "gold"))
os.environ.setdefault("DUOCTHU_KIT_DIR", str(KIT))
os.environ.setdefault("DUOCTHU_FUNCTIONS_DIR", str(ROOT / "functions"))
ATC_CSV = KIT / "data" / "atc-dataset-v2.csv"
SAMPLE_TSV = KIT / "data" / "sample-formulary-drugs.tsv"


def kit_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


@pytest.fixture(scope="session")
def sample_records() -> list[Monograph]:
    return load_source(sample_formulary_path())


@pytest.fixture(scope="session")
def sample_index(
    tmp_path_factory: pytest.TempPathFactory, sample_records: list[Monograph]
) -> Iterator[tuple[EdgeStore, Catalog, Settings]]:
    """The sample formulary ingested once into an Edge shard (read-only for tests)."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("sample-index"))
    store = EdgeStore(settings.data_dir)
    ingest_records(sample_records, store, settings)
    _, catalog = load_active_catalog(store, settings)
    yield store, catalog, settings
    store.close()


@pytest.fixture(params=["edge", "qdrant-client-local"])
def empty_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[object, Settings]]:
    """Each store implementation, empty: the contract suite runs against both."""
    settings = Settings(data_dir=tmp_path / "data")
    store: EdgeStore | ServerStore
    if request.param == "edge":
        store = EdgeStore(settings.data_dir)
    else:
        store = ServerStore(QdrantClient(path=str(tmp_path / "qdrant-local")), alias="test_chunks")
    yield store, settings
    store.close()


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials and a region, so boto3 builds clients for Stubber and moto offline."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "ap-southeast-1",
    }.items():
        monkeypatch.setenv(name, value)

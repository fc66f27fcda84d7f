"""The understanding tests' resolver: the sample formulary's catalogue."""

from __future__ import annotations

import pytest
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.source import Monograph


@pytest.fixture(scope="module")
def resolver(sample_records: list[Monograph]) -> CatalogDrugResolver:
    return CatalogDrugResolver(Catalog.from_records(sample_records, corpus_hash="test"))

"""The understanding tests' resolver (the sample formulary's catalogue) and a stubbed Bedrock client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.source import Monograph


@pytest.fixture(scope="module")
def resolver(sample_records: list[Monograph]) -> CatalogDrugResolver:
    return CatalogDrugResolver(Catalog.from_records(sample_records, corpus_hash="test"))


@pytest.fixture
def stubbed(aws_env: None) -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client("bedrock-runtime", region_name="ap-southeast-1")
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()

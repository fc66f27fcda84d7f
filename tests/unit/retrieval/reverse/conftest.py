"""The reverse lookup tests' shard of hand-made chỉ định parts (`shards.PARTS`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from duocthu.store.edge import EdgeStore

from tests.unit.retrieval.reverse.shards import PARTS, shard


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EdgeStore]:
    with shard(tmp_path, PARTS) as edge:
        yield edge

"""A query whose limit falls inside a run of equal scores: Qdrant returns some of the tied points,
which ones varying with its threads' timing; the store reads the run whole and keeps the first in
book order, so the same question always gets the same parts (`store.base.FilteredReads`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from duocthu.models.evidence import EvidenceItem
from duocthu.store.base import Conditions, FilteredReads, SparseTerms


def payload(part: int, section: str = "lieu_luong_va_cach_dung") -> dict[str, Any]:
    return {
        "drug_id": "diazepam",
        "display_name": "Diazepam",
        "section_key": section,
        "part_index": part,
        "chunk_kind": "prose",
        "text": f"part {part}",
    }


class TiedBackend(FilteredReads):
    """Five parts scoring 5, 5, 3, 3, 3; asked for three, it answers with the later tied parts
    first, as a backend whose threads finished in another order might."""

    def __init__(self) -> None:
        self.points = [(f"p{i}", payload(i), score) for i, score in enumerate((5.0, 5.0, 3.0, 3.0, 3.0))]

    def _query(
        self,
        using: str,
        vector: SparseTerms | list[float],
        where: Conditions,
        limit: int,
        threshold: float | None,
    ) -> list[tuple[Any, Mapping[str, Any], float]]:
        kept = [p for p in self.points if threshold is None or p[2] > threshold]
        return sorted(kept, key=lambda p: (-p[2], -p[1]["part_index"]))[:limit]

    def _scroll(self, where: Conditions) -> list[EvidenceItem]:
        return []

    def _count(self, where: Conditions | None) -> int:
        return len(self.points)

    def _payloads(self, point_ids: Collection[str]) -> dict[str, Mapping[str, Any]]:
        return {}

    def find_by_phrase(self, phrase: str, *, section_key: str | None = None) -> list[EvidenceItem]:
        return []


def test_the_tied_parts_at_the_limit_are_the_first_in_book_order() -> None:
    found = TiedBackend().search_lexical("liều diazepam", drug_id="diazepam", limit=3)
    assert [item.part_index for item in found] == [0, 1, 2]


def test_under_the_limit_nothing_more_is_read() -> None:
    found = TiedBackend().search_lexical("liều diazepam", drug_id="diazepam", limit=10)
    assert [item.part_index for item in found] == [0, 1, 2, 3, 4]

"""The vector-store interface every backend implements, and the schema they share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from duocthu.chunking import Chunk
from duocthu.evidence import EvidenceItem, SourceRef
from duocthu.sections import SECTION_ORDER

LEXICAL_VECTOR = "lexical"
DENSE_VECTOR = "dense"
# Qdrant's default scroll page; a section is always read to exhaustion across pages.
SCROLL_PAGE = 256
UPSERT_BATCH = 256

# Every payload field a filter uses gets an index ("keyword", "integer", "bool", "text").
PAYLOAD_INDEXES: Mapping[str, str] = {
    "drug_id": "keyword",
    "section_key": "keyword",
    "chunk_kind": "keyword",
    "atc_codes": "keyword",
    "part_index": "integer",
    "requires_visual_check": "bool",
    "has_quarantined_content": "bool",
    "text_norm": "text",  # word tokens, lower-cased, phrase matching on
}

Progress = Callable[[int], None]


class StoreUnavailable(RuntimeError):
    """The store could not be reached or read (a dependency fault, not a program error)."""


class NoIndex(RuntimeError):
    """No index version has been activated yet (run `duocthu ingest`)."""


class Manifest(BaseModel):
    """What the active index version is: the pointer readers follow."""

    model_config = ConfigDict(frozen=True)

    version: str
    corpus_hash: str
    created_at: str
    points: int
    drugs: int
    embedding_model: str | None = None
    dense_dim: int | None = None
    dense_threshold: float | None = None

    @staticmethod
    def now() -> str:
        return datetime.now(UTC).isoformat(timespec="seconds")


class VectorStore(Protocol):
    backend: str

    def build_version(
        self,
        version: str,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float]] | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Create a new, inactive index version holding exactly these chunks."""

    def activate(self, manifest: Manifest) -> None:
        """Atomically point readers at `manifest.version` (built before)."""

    def active_manifest(self) -> Manifest | None: ...

    def find_by_section(self, drug_id: str, section_key: str) -> list[EvidenceItem]:
        """Every part of one section, in part order: a filtered scroll to exhaustion."""

    def find_by_drug(self, drug_id: str, chunk_kind: str | None = None) -> list[EvidenceItem]:
        """Every part of one drug, in book order (section order, then part order)."""

    def count(self, drug_id: str | None = None) -> int: ...

    def close(self) -> None: ...


def item_from_payload(point_id: Any, payload: Mapping[str, Any], score: float) -> EvidenceItem:
    return EvidenceItem(
        id=str(point_id),
        drug_id=payload["drug_id"],
        display_name=payload["display_name"],
        section_key=payload["section_key"],
        part_index=payload["part_index"],
        chunk_kind=payload["chunk_kind"],
        score=score,
        text=payload["text"],
        source_refs=tuple(SourceRef.model_validate(ref) for ref in payload.get("source_refs") or ()),
        requires_visual_check=bool(payload.get("requires_visual_check")),
        has_quarantined_content=bool(payload.get("has_quarantined_content")),
    )


def book_order(items: Iterable[EvidenceItem]) -> list[EvidenceItem]:
    return sorted(items, key=lambda i: (SECTION_ORDER.get(i.section_key, 99), i.part_index))


def part_order(items: Iterable[EvidenceItem]) -> list[EvidenceItem]:
    # Scrolls come back in id order, not part order (uuid ids).
    return sorted(items, key=lambda i: i.part_index)

"""One turn's reads of whole sections, each drug's read in one scroll.

A patient check reads, for each drug it checks, several whole sections: the facets' sections, the
contraindications it quotes, its "Loại thuốc" for its classes, the interactions and cautions that
may name an alternative; section by section, 6–8 filtered scrolls a drug, most of a patient turn
at the book's size. This reader fetches all of them for a drug in one scroll the first time any is
asked and answers the rest from it: the same parts in the same order as `find_by_section`. It
lives for one turn (nothing outlives the request); every other read goes to the store.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from duocthu.models.chunk import Chunk
from duocthu.models.evidence import EvidenceItem, RankedLine
from duocthu.store import Manifest, VectorStore
from duocthu.store.base import Progress, part_order
from duocthu.store.prose_parts import ProsePart


class SectionReads:
    """A VectorStore whose `find_by_section` for `sections` is served from one read per drug."""

    def __init__(self, store: VectorStore, sections: Collection[str]):
        self.store = store
        self.backend = store.backend
        self.sections = frozenset(sections)
        self._read: dict[str, dict[str, list[EvidenceItem]]] = {}

    def find_by_section(self, drug_id: str, section_key: str) -> list[EvidenceItem]:
        if section_key not in self.sections:
            return self.store.find_by_section(drug_id, section_key)
        if drug_id not in self._read:
            by_section: dict[str, list[EvidenceItem]] = {}
            for item in self.store.find_by_drug(drug_id, section_keys=self.sections):
                by_section.setdefault(item.section_key, []).append(item)
            self._read[drug_id] = {k: part_order(v) for k, v in by_section.items()}
        return list(self._read[drug_id].get(section_key, ()))

    # -- everything else, as the store does it ------------------------------------------------
    def find_by_drug(
        self, drug_id: str, chunk_kind: str | None = None, section_keys: Collection[str] | None = None
    ) -> list[EvidenceItem]:
        return self.store.find_by_drug(drug_id, chunk_kind, section_keys)

    def search_lexical(
        self,
        query: str,
        *,
        drug_id: str | None = None,
        section_keys: Collection[str] | None = None,
        exclude_sections: Collection[str] = (),
        chunk_kind: str | None = None,
        min_score: float | None = None,
        limit: int = 10,
    ) -> list[EvidenceItem]:
        return self.store.search_lexical(
            query,
            drug_id=drug_id,
            section_keys=section_keys,
            exclude_sections=exclude_sections,
            chunk_kind=chunk_kind,
            min_score=min_score,
            limit=limit,
        )

    def find_by_phrase(self, phrase: str, *, section_key: str | None = None) -> list[EvidenceItem]:
        return self.store.find_by_phrase(phrase, section_key=section_key)

    def find_prose(
        self, phrase: str, *, section_key: str, skip_drugs: Collection[str] = frozenset()
    ) -> list[ProsePart]:
        return self.store.find_prose(phrase, section_key=section_key, skip_drugs=skip_drugs)

    def search_dense(
        self,
        vector: Sequence[float],
        *,
        section_key: str | None = None,
        chunk_kind: str | None = None,
        limit: int = 10,
    ) -> list[EvidenceItem]:
        return self.store.search_dense(vector, section_key=section_key, chunk_kind=chunk_kind, limit=limit)

    def search_lines(self, tokens: Sequence[str], *, drug_id: str | None, limit: int) -> list[RankedLine]:
        return self.store.search_lines(tokens, drug_id=drug_id, limit=limit)

    def probe(self) -> None:
        self.store.probe()

    def build_version(
        self,
        version: str,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float] | None] | None = None,
        progress: Progress | None = None,
    ) -> None:
        raise TypeError("a turn's reader never writes")

    def activate(self, manifest: Manifest) -> None:
        raise TypeError("a turn's reader never writes")

    def active_manifest(self) -> Manifest | None:
        return self.store.active_manifest()

    def count(self, drug_id: str | None = None) -> int:
        return self.store.count(drug_id)

    def close(self) -> None:
        """The store belongs to the runtime, not to the turn."""

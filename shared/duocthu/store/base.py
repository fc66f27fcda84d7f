"""The vector-store interface every backend implements, and the schema they share."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from duocthu.core.sections import DOSE_SECTION, SECTION_HEADINGS, SECTION_ORDER
from duocthu.core.sentences import sentence_leads
from duocthu.core.text import fold, folded_words, stop_words, words
from duocthu.models.chunk import Chunk
from duocthu.models.evidence import EvidenceItem, RankedLine, SourceRef
from duocthu.store.lexical import LINE_KIND, SparseTerms, lexical_terms, token_index
from duocthu.store.prose_parts import ProsePart

LEXICAL_VECTOR = "lexical"
LINES_VECTOR = "lines"  # BM25 over the book's sentences (store.lexical), IDF modifier
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
}

Progress = Callable[[int], None]


class StoreUnavailable(RuntimeError):
    """The store could not be reached or read (a dependency fault, not a program error)."""


class NoIndex(RuntimeError):
    """No index version has been activated yet (run `duocthu ingest`)."""


# What the index holds and how: bumped when a build writes points older code cannot read, or lacks
# points newer code reads (2: a point per sentence beside the parts, for the answering lines;
# 3: a sentence point holds its span in its part, not the sentence and the part's citation;
# 4: the prose parts' folded words beside the shard, store.prose_parts; 5: an Edge part no longer
# carries its folded text, nor the shard a full-text index of it: the parts file answers phrases).
INDEX_LAYOUT = 5


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
    source: str | None = None  # "sample" for the bundled sample formulary, else the source path
    layout: int = 1  # INDEX_LAYOUT of the build; manifests from before the field are layout 1

    def readable_layout(self) -> None:
        """Raises StoreUnavailable for an index this code cannot read, naming the fix."""
        if self.layout != INDEX_LAYOUT:
            raise StoreUnavailable(
                f"index {self.version} has layout {self.layout}, this code reads layout "
                f"{INDEX_LAYOUT}: rebuild it with `duocthu ingest`"
            )

    @staticmethod
    def now() -> str:
        return datetime.now(UTC).isoformat(timespec="seconds")


class VectorStore(Protocol):
    backend: str

    def build_version(
        self,
        version: str,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float] | None] | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Create a new, inactive index version holding exactly these chunks (with `dense`, the
        dense vector of each chunk, in order; None for a chunk that carries none)."""

    def activate(self, manifest: Manifest) -> None:
        """Atomically point readers at `manifest.version` (built before)."""

    def active_manifest(self) -> Manifest | None: ...

    def find_by_section(self, drug_id: str, section_key: str) -> list[EvidenceItem]:
        """Every part of one section, in part order: a filtered scroll to exhaustion."""

    def find_by_drug(
        self, drug_id: str, chunk_kind: str | None = None, section_keys: Collection[str] | None = None
    ) -> list[EvidenceItem]:
        """Every part of one drug (of these sections only, when given), in book order (section
        order, then part order)."""

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
        """Parts scored by the number of distinct query words (stop words left out) they contain,
        best first, ties in book order. Scored inside Qdrant with the sparse `lexical` vector;
        every filter is part of the query. Only parts with a score > 0 (and >= min_score)."""

    def find_by_phrase(self, phrase: str, *, section_key: str | None = None) -> list[EvidenceItem]:
        """Every prose part (of one section) whose folded words hold the phrase's as a contiguous
        run of whole words, read to exhaustion, score 1.0, in id order: on Edge from the parts
        file (`store.prose_parts`), on a server by Qdrant's phrase match. A candidate set:
        reverse lookup applies its own, stricter rules to it."""

    def find_prose(
        self, phrase: str, *, section_key: str, skip_drugs: Collection[str] = frozenset()
    ) -> list[ProsePart]:
        """`find_by_phrase` over one section's prose parts, leaving out the parts of
        `skip_drugs`, each with its word count: what the reverse lookup reads."""

    def search_dense(
        self,
        vector: Sequence[float],
        *,
        section_key: str | None = None,
        chunk_kind: str | None = None,
        limit: int = 10,
    ) -> list[EvidenceItem]:
        """The parts nearest to `vector` by cosine (the score), best first, among the parts that
        carry a dense vector."""

    def search_lines(self, tokens: Sequence[str], *, drug_id: str | None, limit: int) -> list[RankedLine]:
        """One drug's sentences (every drug's, with None) scored by BM25 for the folded query
        tokens (a token given twice weighs twice), with the IDF of the whole book's sentences,
        best first; only scores > 0."""

    def count(self, drug_id: str | None = None) -> int: ...

    def probe(self) -> None:
        """Raises StoreUnavailable (or NoIndex) unless the index opens and a part reads back."""

    def close(self) -> None: ...


def line_from_payload(line: Mapping[str, Any], part: Mapping[str, Any], score: float) -> RankedLine:
    """A sentence point read with its part: the sentence is the part's text at the point's span."""
    return RankedLine(
        lead=line_lead(part["section_key"], part["text"], line["line_index"]),
        text=part["text"][line["start"] : line["end"]],
        drug_id=part["drug_id"],
        display_name=part["display_name"],
        section_key=part["section_key"],
        part_id=line["part_id"],
        part_index=part["part_index"],
        line_index=line["line_index"],
        score=score,
        source_refs=tuple(SourceRef.model_validate(ref) for ref in part.get("source_refs") or ()),
        needs_visual_check=bool(part.get("requires_visual_check") or part.get("has_quarantined_content")),
    )


def line_lead(section_key: str, text: str, index: int) -> str:
    """The lead-in a dose line stands under (`core.sentences.sentence_leads`); none elsewhere: a
    safety paragraph's opening ("Suy gan:") does not scope every sentence after it."""
    if section_key != DOSE_SECTION:
        return ""
    leads = sentence_leads(text)
    lead = leads[index] if index < len(leads) else ""
    # a lead-in of the section heading's own words ("Cách dùng") says nothing of whom it doses
    return "" if set(folded_words(lead)) <= _dose_heading_words() else lead


@cache
def _dose_heading_words() -> frozenset[str]:
    return frozenset(folded_words(SECTION_HEADINGS[DOSE_SECTION]))


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


@dataclass(frozen=True, slots=True)
class Conditions:
    """A payload filter, backend-neutral: each store turns it into its own client's Filter."""

    equal: Mapping[str, str] = field(default_factory=dict)
    any_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    none_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def conditions(
    *,
    drug_id: str | None = None,
    section_key: str | None = None,
    chunk_kind: str | None = None,
    section_keys: Collection[str] | None = None,
    exclude_sections: Collection[str] = (),
) -> Conditions:
    """Every read but `search_lines` reads parts: the sentence points are left out."""
    pairs = (("drug_id", drug_id), ("section_key", section_key), ("chunk_kind", chunk_kind))
    none_of = {"section_key": tuple(sorted(exclude_sections))} if exclude_sections else {}
    return Conditions(
        equal={k: v for k, v in pairs if v is not None},
        any_of={"section_key": tuple(sorted(section_keys))} if section_keys is not None else {},
        none_of=none_of if chunk_kind else {**none_of, "chunk_kind": (LINE_KIND,)},
    )


def lexical_query_tokens(query: str) -> list[str]:
    """Distinct folded query words, in query order. Stop words are matched as written, before
    folding: folded, "đã" would take "dạ" (dạ dày) with it."""
    stops = stop_words()
    return list(dict.fromkeys(fold(t) for t in words(query) if t not in stops))


def lexical_query(query: str) -> SparseTerms:
    return lexical_terms(lexical_query_tokens(query))


def score_threshold(min_score: float | None) -> float | None:
    """Qdrant's score_threshold keeps only scores strictly above it (verified on Edge and in
    local mode); a lexical score is a whole count, so "at least min_score" is "above
    ceil(min_score) - 0.5"."""
    return None if min_score is None else math.ceil(min_score) - 0.5


def dense_size(dense: Sequence[Sequence[float] | None] | None) -> int | None:
    """The dimension of a build's dense vectors; None when no chunk carries one."""
    return next((len(v) for v in dense or () if v is not None), None)


# Points read past a query's limit when it falls inside a run of equal scores (`_with_ties`)
TIE_ROOM = 64
TIE_EPSILON = 1e-4  # scores come back as 32-bit floats: a tie is equal to well within this


def rank_hits(items: Iterable[EvidenceItem]) -> list[EvidenceItem]:
    """Best score first; Qdrant leaves the order of equal scores open, so ties go in book order."""
    return sorted(
        items, key=lambda i: (-i.score, i.drug_id, SECTION_ORDER.get(i.section_key, 99), i.part_index)
    )


class FilteredReads(ABC):
    """The read contract, written once over each backend's three primitives: a filtered scroll
    to exhaustion, a nearest-vector query, a count. Backends differ only in their client calls."""

    @abstractmethod
    def _scroll(self, where: Conditions) -> list[EvidenceItem]:
        """The backend primitive."""

    @abstractmethod
    def _query(
        self,
        using: str,
        vector: SparseTerms | list[float],
        where: Conditions,
        limit: int,
        threshold: float | None,
    ) -> list[tuple[Any, Mapping[str, Any], float]]:
        """The backend primitive: (point id, payload, score) of the nearest points, best first."""

    def _nearest(
        self,
        using: str,
        vector: SparseTerms | list[float],
        where: Conditions,
        limit: int,
        threshold: float | None,
    ) -> list[EvidenceItem]:
        hits = self._with_ties(using, vector, where, limit, threshold)
        return [item_from_payload(point, payload, score) for point, payload, score in hits]

    def _with_ties(
        self,
        using: str,
        vector: SparseTerms | list[float],
        where: Conditions,
        limit: int,
        threshold: float | None,
    ) -> list[tuple[Any, Mapping[str, Any], float]]:
        """The nearest `limit` points and every point scoring as the last of them: when the limit
        falls inside a run of equal scores, which of them Qdrant returns varies with its threads'
        timing, so the run is read whole and the caller ranks ties in book order before cutting
        (the same question always gets the same parts)."""
        hits = self._query(using, vector, where, limit, threshold)
        if len(hits) < limit:
            return hits
        # the threshold keeps scores strictly above it (`score_threshold`): just under the last
        tied = min(score for _, _, score in hits) - TIE_EPSILON
        return self._query(using, vector, where, limit + TIE_ROOM, max(tied, threshold or tied))

    @abstractmethod
    def _count(self, where: Conditions | None) -> int:
        """The backend primitive."""

    @abstractmethod
    def _payloads(self, point_ids: Collection[str]) -> dict[str, Mapping[str, Any]]:
        """The backend primitive: the payload of each of these points, by id."""

    def find_by_section(self, drug_id: str, section_key: str) -> list[EvidenceItem]:
        return part_order(self._scroll(conditions(drug_id=drug_id, section_key=section_key)))

    def find_by_drug(
        self, drug_id: str, chunk_kind: str | None = None, section_keys: Collection[str] | None = None
    ) -> list[EvidenceItem]:
        return book_order(
            self._scroll(conditions(drug_id=drug_id, chunk_kind=chunk_kind, section_keys=section_keys))
        )

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
        terms = lexical_query(query)
        if not terms.indices or (section_keys is not None and not section_keys):
            return []
        where = conditions(
            drug_id=drug_id,
            chunk_kind=chunk_kind,
            section_keys=section_keys,
            exclude_sections=exclude_sections,
        )
        hits = self._nearest(LEXICAL_VECTOR, terms, where, limit, score_threshold(min_score))
        return rank_hits(h for h in hits if h.score > 0)[:limit]

    @abstractmethod
    def find_by_phrase(self, phrase: str, *, section_key: str | None = None) -> list[EvidenceItem]:
        """The backend's phrase search (`VectorStore.find_by_phrase`)."""

    def find_prose(
        self, phrase: str, *, section_key: str, skip_drugs: Collection[str] = frozenset()
    ) -> list[ProsePart]:
        found = self.find_by_phrase(phrase, section_key=section_key)
        return [ProsePart(item, len(words(item.text))) for item in found if item.drug_id not in skip_drugs]

    def search_dense(
        self,
        vector: Sequence[float],
        *,
        section_key: str | None = None,
        chunk_kind: str | None = None,
        limit: int = 10,
    ) -> list[EvidenceItem]:
        where = conditions(section_key=section_key, chunk_kind=chunk_kind)
        return rank_hits(self._nearest(DENSE_VECTOR, list(vector), where, limit, None))[:limit]

    def search_lines(self, tokens: Sequence[str], *, drug_id: str | None, limit: int) -> list[RankedLine]:
        weights: dict[int, float] = {}
        for token in tokens:  # a token given n times weighs n
            weights[token_index(token)] = weights.get(token_index(token), 0.0) + 1.0
        if not weights:
            return []
        terms = SparseTerms(tuple(sorted(weights)), tuple(weights[i] for i in sorted(weights)))
        where = conditions(drug_id=drug_id, chunk_kind=LINE_KIND)
        hits = [
            (payload, score) for _, payload, score in self._with_ties(LINES_VECTOR, terms, where, limit, None)
        ]
        parts = self._payloads({payload["part_id"] for payload, score in hits if score > 0})
        lines = [line_from_payload(p, parts[p["part_id"]], score) for p, score in hits if score > 0]
        # equal scores in book order, drug by drug (Qdrant leaves their order open)
        ranked = sorted(
            lines,
            key=lambda x: (
                -x.score,
                x.drug_id,
                SECTION_ORDER.get(x.section_key, 99),
                x.part_index,
                x.line_index,
            ),
        )
        return ranked[:limit]

    def count(self, drug_id: str | None = None) -> int:
        """The parts (of one drug)."""
        return self._count(conditions(drug_id=drug_id))

    def probe(self) -> None:
        self.count()  # a server checks its own segments; a count proves it answers

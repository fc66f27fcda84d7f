"""A Qdrant server (or Qdrant Cloud) through qdrant-client.

Each index version is a collection `<alias>__<version>`; readers use the alias, which
`activate` moves in one atomic alias operation. The manifest is the collection's metadata.
Tests run this class against the client's local mode, which executes the same client calls.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeVar

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from duocthu.core.deadline import TURN_DEADLINE
from duocthu.core.text import fold, folded_words
from duocthu.models.chunk import PROSE, Chunk
from duocthu.models.evidence import EvidenceItem
from duocthu.store.base import (
    DENSE_VECTOR,
    LEXICAL_VECTOR,
    LINES_VECTOR,
    PAYLOAD_INDEXES,
    SCROLL_PAGE,
    UPSERT_BATCH,
    Conditions,
    FilteredReads,
    Manifest,
    NoIndex,
    Progress,
    StoreUnavailable,
    conditions,
    dense_size,
    item_from_payload,
)
from duocthu.store.lexical import SparseTerms, lexical_vector, line_points

T = TypeVar("T")

_SCHEMA: dict[str, Any] = {
    "keyword": models.PayloadSchemaType.KEYWORD,
    "integer": models.IntegerIndexParams(type=models.IntegerIndexType.INTEGER, lookup=True, range=True),
    "bool": models.PayloadSchemaType.BOOL,
    "text": models.TextIndexParams(
        type=models.TextIndexType.TEXT,
        tokenizer=models.TokenizerType.WORD,
        lowercase=True,
        phrase_matching=True,
    ),
}


def _sparse(terms: SparseTerms) -> models.SparseVector:
    return models.SparseVector(indices=list(terms.indices), values=list(terms.values))


# A server finds phrases by Qdrant's phrase match on each part's folded text, a field of its own
# with a full-text index (phrase_matching on, or MatchPhrase silently finds nothing); Edge reads
# the parts file instead (`store.prose_parts`).
PHRASE_FIELD = "text_norm"


def _filter(where: Conditions, phrase: str | None = None) -> models.Filter:
    must: list[Any] = [
        models.FieldCondition(key=k, match=models.MatchValue(value=v)) for k, v in where.equal.items()
    ]
    if phrase:
        must.append(models.FieldCondition(key=PHRASE_FIELD, match=models.MatchPhrase(phrase=phrase)))
    must += [
        models.FieldCondition(key=k, match=models.MatchAny(any=list(v))) for k, v in where.any_of.items()
    ]
    must_not: list[Any] = [
        models.FieldCondition(key=k, match=models.MatchAny(any=list(v))) for k, v in where.none_of.items()
    ]
    return models.Filter(must=must, must_not=must_not or None)


class ServerStore(FilteredReads):
    backend = "qdrant-server"

    def __init__(self, client: QdrantClient, alias: str = "duocthu_chunks"):
        self.client = client
        self.alias = alias
        self._collection: str | None = None  # the version this process reads (pinned at first read)

    def collection(self, version: str) -> str:
        return f"{self.alias}__{version}"

    def build_version(
        self,
        version: str,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float] | None] | None = None,
        progress: Progress | None = None,
    ) -> None:
        name = self.collection(version)
        if self.client.collection_exists(name):  # leftover of an interrupted build, never aliased
            self.client.delete_collection(name)
        size = dense_size(dense)
        vectors = (
            {DENSE_VECTOR: models.VectorParams(size=size, distance=models.Distance.COSINE)} if size else {}
        )
        sparse = {
            LEXICAL_VECTOR: models.SparseVectorParams(),
            LINES_VECTOR: models.SparseVectorParams(modifier=models.Modifier.IDF),
        }
        self.client.create_collection(name, vectors_config=vectors, sparse_vectors_config=sparse)
        for field, kind in {**PAYLOAD_INDEXES, PHRASE_FIELD: "text"}.items():
            self.client.create_payload_index(name, field, field_schema=_SCHEMA[kind])
        for start in range(0, len(chunks), UPSERT_BATCH):
            batch = chunks[start : start + UPSERT_BATCH]
            points = []
            for offset, chunk in enumerate(batch):
                vector: dict[str, Any] = {LEXICAL_VECTOR: _sparse(lexical_vector(chunk.text))}
                own = dense[start + offset] if dense else None
                if own is not None:
                    vector[DENSE_VECTOR] = list(own)
                payload = {**chunk.payload(), PHRASE_FIELD: fold(chunk.text)}
                points.append(models.PointStruct(id=chunk.id, vector=vector, payload=payload))
            self.client.upsert(name, points=points, wait=True)
            if progress:
                progress(len(batch))
        lines = line_points(chunks)
        for start in range(0, len(lines), UPSERT_BATCH):
            batch_lines = [
                models.PointStruct(
                    id=line.id, vector={LINES_VECTOR: _sparse(line.terms)}, payload=line.payload
                )
                for line in lines[start : start + UPSERT_BATCH]
            ]
            self.client.upsert(name, points=batch_lines, wait=True)

    def activate(self, manifest: Manifest) -> None:
        name = self.collection(manifest.version)
        if not self.client.collection_exists(name):
            raise NoIndex(f"version {manifest.version} was not built")
        self.client.update_collection(name, metadata={"manifest": manifest.model_dump()})
        previous = self._aliased_collection()
        operations: list[Any] = []
        if previous:
            operations.append(
                models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=self.alias))
            )
        operations.append(
            models.CreateAliasOperation(
                create_alias=models.CreateAlias(collection_name=name, alias_name=self.alias)
            )
        )
        self.client.update_collection_aliases(change_aliases_operations=operations)
        self._collection = name
        for other in self.client.get_collections().collections:
            if other.name.startswith(f"{self.alias}__") and other.name not in {name, previous}:
                self.client.delete_collection(other.name)

    def _aliased_collection(self) -> str | None:
        for alias in self.client.get_aliases().aliases:
            if alias.alias_name == self.alias:
                return str(alias.collection_name)
        return None

    def active_manifest(self) -> Manifest | None:
        name = self._aliased_collection()
        if name is None:
            return None
        metadata = self.client.get_collection(name).config.metadata or {}
        return Manifest.model_validate(metadata["manifest"]) if "manifest" in metadata else None

    def _read(self, call: Callable[[str], T]) -> T:
        """Every read, against the collection the alias named when this process first read: like
        the Edge store, a process serves the version its catalogue was loaded with (a re-ingest
        takes effect at the next start, and the previous version is kept for warm processes).
        A missing alias is NoIndex; transport and server errors are StoreUnavailable. No read
        starts once the turn's deadline has passed: a hanging server costs the turn at most one
        QDRANT_TIMEOUT_S beyond it, never one per read."""
        deadline = TURN_DEADLINE.get()
        if deadline is not None and deadline.remaining_s() <= 0:
            raise StoreUnavailable("qdrant server: the turn's deadline passed before this read")
        try:
            if self._collection is None:
                self._collection = self._aliased_collection()
                if self._collection is None:
                    raise NoIndex(f"no collection behind alias {self.alias!r}: run `duocthu ingest`")
            return call(self._collection)
        except (ResponseHandlingException, UnexpectedResponse) as err:
            raise StoreUnavailable(f"qdrant server: {err}") from err

    def find_by_phrase(self, phrase: str, *, section_key: str | None = None) -> list[EvidenceItem]:
        folded = " ".join(folded_words(phrase))
        if not folded:
            return []
        found = self._scroll(conditions(section_key=section_key, chunk_kind=PROSE), phrase=folded)
        return sorted(found, key=lambda item: item.id)

    def _scroll(self, where: Conditions, phrase: str | None = None) -> list[EvidenceItem]:
        flt = _filter(where, phrase)

        def scroll_all(collection: str) -> list[EvidenceItem]:
            items: list[EvidenceItem] = []
            offset: Any = None
            while True:  # to exhaustion: a truncated section would read as a complete one
                records, offset = self.client.scroll(
                    collection, scroll_filter=flt, limit=SCROLL_PAGE, offset=offset, with_payload=True
                )
                items += [item_from_payload(r.id, r.payload or {}, 1.0) for r in records]
                if offset is None:
                    return items

        return self._read(scroll_all)

    def _query(
        self,
        using: str,
        vector: SparseTerms | list[float],
        where: Conditions,
        limit: int,
        threshold: float | None,
    ) -> list[tuple[Any, Mapping[str, Any], float]]:
        query: Any = _sparse(vector) if isinstance(vector, SparseTerms) else vector
        hits = self._read(
            lambda collection: (
                self.client.query_points(
                    collection,
                    query=query,
                    using=using,
                    query_filter=_filter(where),
                    score_threshold=threshold,
                    limit=limit,
                    with_payload=True,
                ).points
            )
        )
        return [(h.id, h.payload or {}, float(h.score)) for h in hits]

    def _count(self, where: Conditions | None) -> int:
        flt = _filter(where) if where else None
        return self._read(
            lambda collection: int(self.client.count(collection, count_filter=flt, exact=True).count)
        )

    def _payloads(self, point_ids: Collection[str]) -> dict[str, Mapping[str, Any]]:
        if not point_ids:
            return {}
        records = self._read(
            lambda collection: self.client.retrieve(collection, list(point_ids), with_payload=True)
        )
        return {str(r.id): r.payload or {} for r in records}

    def close(self) -> None:
        self.client.close()

"""Qdrant Edge: the embedded, in-process default. One shard folder per index version.

<data_dir>/manifest.json              the pointer (replaced atomically)
<data_dir>/versions/<version>/shard/  an Edge shard, never modified once activated
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from duocthu.chunking import Chunk
from duocthu.evidence import EvidenceItem
from duocthu.lexical import lexical_vector
from duocthu.store.base import (
    DENSE_VECTOR,
    LEXICAL_VECTOR,
    PAYLOAD_INDEXES,
    SCROLL_PAGE,
    UPSERT_BATCH,
    Conditions,
    Manifest,
    NoIndex,
    Progress,
    StoreUnavailable,
    book_order,
    conditions,
    dense_size,
    item_from_payload,
    lexical_query,
    part_order,
    rank_hits,
    score_threshold,
)
from duocthu.text import folded_words

MANIFEST_FILE = "manifest.json"
KEEP_VERSIONS = 2  # the active one and its predecessor


# An Edge shard admits one open handle per process (it locks its WAL), so every EdgeStore of
# this process shares one handle per shard folder, closed when the last store lets go.
_OPEN_SHARDS: dict[str, list[Any]] = {}  # path -> [shard, users]
_OPEN_LOCK = threading.Lock()


def _acquire(path: str, version: str) -> Any:
    with _OPEN_LOCK:
        entry = _OPEN_SHARDS.get(path)
        if entry is None:
            try:
                shard = qe.EdgeShard.load(path)
            except Exception as err:  # the engine raises plain runtime errors for unreadable shards
                raise StoreUnavailable(f"cannot open Edge shard {version}: {err}") from err
            entry = _OPEN_SHARDS[path] = [shard, 0]
        entry[1] += 1
        return entry[0]


def _release(path: str) -> None:
    with _OPEN_LOCK:
        entry = _OPEN_SHARDS.get(path)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            entry[0].close()
            del _OPEN_SHARDS[path]


def _index_params(kind: str) -> Any:
    return {
        "keyword": qe.PayloadSchemaType.Keyword,
        "integer": qe.IntegerIndexParams(lookup=True, range=True),
        "bool": qe.BoolIndexParams(),
        # phrase_matching must be on, or MatchPhrase silently finds nothing on an indexed field.
        "text": qe.TextIndexParams(tokenizer=qe.TokenizerType.Word, lowercase=True, phrase_matching=True),
    }[kind]


def _filter(where: Conditions, *extra: Any) -> qe.Filter:
    must: list[Any] = [qe.FieldCondition(key=k, match=qe.MatchValue(v)) for k, v in where.equal.items()]
    must += extra
    must += [qe.FieldCondition(key=k, match=qe.MatchAny(list(v))) for k, v in where.any_of.items()]
    must_not: list[Any] = [
        qe.FieldCondition(key=k, match=qe.MatchAny(list(v))) for k, v in where.none_of.items()
    ]
    return qe.Filter(must=must, must_not=must_not or None)


class EdgeStore:
    backend = "edge"

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self._shard: Any = None
        self._shard_version: str | None = None

    # -- layout ---------------------------------------------------------------------------
    def version_dir(self, version: str) -> Path:
        return self.data_dir / "versions" / version

    def active_manifest(self) -> Manifest | None:
        path = self.data_dir / MANIFEST_FILE
        if not path.exists():
            return None
        return Manifest.model_validate_json(path.read_text(encoding="utf-8"))

    # -- write ----------------------------------------------------------------------------
    def build_version(
        self,
        version: str,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float] | None] | None = None,
        progress: Progress | None = None,
    ) -> None:
        folder = self.version_dir(version)
        if folder.exists():  # a leftover of an interrupted build: never active, safe to replace
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        size = dense_size(dense)
        vectors = {DENSE_VECTOR: qe.EdgeVectorParams(size=size, distance=qe.Distance.Cosine)} if size else {}
        shard = qe.EdgeShard.create(
            str(folder / "shard"),
            qe.EdgeConfig(vectors=vectors, sparse_vectors={LEXICAL_VECTOR: qe.EdgeSparseVectorParams()}),
        )
        try:
            for field, kind in PAYLOAD_INDEXES.items():
                shard.update(qe.UpdateOperation.create_field_index(field, _index_params(kind)))
            for start in range(0, len(chunks), UPSERT_BATCH):
                batch = chunks[start : start + UPSERT_BATCH]
                points = []
                for offset, chunk in enumerate(batch):
                    terms = lexical_vector(chunk.text)
                    vector: dict[str, Any] = {
                        LEXICAL_VECTOR: qe.SparseVector(
                            indices=list(terms.indices), values=list(terms.values)
                        )
                    }
                    own = dense[start + offset] if dense else None
                    if own is not None:
                        vector[DENSE_VECTOR] = list(own)
                    points.append(qe.Point(id=chunk.id, vector=vector, payload=chunk.payload()))
                shard.update(qe.UpdateOperation.upsert_points(points))
                if progress:
                    progress(len(batch))
            shard.flush()
        finally:
            shard.close()

    def activate(self, manifest: Manifest) -> None:
        if not (self.version_dir(manifest.version) / "shard").is_dir():
            raise NoIndex(f"version {manifest.version} was not built")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # write-then-rename: a reader sees the old manifest or the new one, never half of one
        fd, tmp = tempfile.mkstemp(dir=self.data_dir, prefix=".manifest-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(manifest.model_dump_json(indent=2))
        os.replace(tmp, self.data_dir / MANIFEST_FILE)
        self._prune(keep=manifest.version)

    def _prune(self, keep: str) -> None:
        root = self.data_dir / "versions"
        others = sorted((p for p in root.iterdir() if p.name != keep), key=lambda p: p.stat().st_mtime)
        for old in others[: max(0, len(others) - (KEEP_VERSIONS - 1))]:
            shutil.rmtree(old, ignore_errors=True)

    # -- read -----------------------------------------------------------------------------
    def _open(self) -> Any:
        manifest = self.active_manifest()
        if manifest is None:
            raise NoIndex(f"no index in {self.data_dir}: run `duocthu ingest`")
        if self._shard is None or self._shard_version != manifest.version:
            self.close()
            self._shard = _acquire(str(self.version_dir(manifest.version) / "shard"), manifest.version)
            self._shard_version = manifest.version
        return self._shard

    def scroll(self, flt: qe.Filter) -> list[EvidenceItem]:
        shard = self._open()
        items: list[EvidenceItem] = []
        offset = None
        while True:  # to exhaustion: a truncated section would read as a complete one
            records, offset = shard.scroll(
                qe.ScrollRequest(filter=flt, limit=SCROLL_PAGE, offset=offset, with_payload=True)
            )
            items += [item_from_payload(r.id, r.payload, 1.0) for r in records]
            if offset is None:
                return items

    def find_by_section(self, drug_id: str, section_key: str) -> list[EvidenceItem]:
        return part_order(self.scroll(_filter(conditions(drug_id=drug_id, section_key=section_key))))

    def find_by_drug(
        self, drug_id: str, chunk_kind: str | None = None, section_keys: Collection[str] | None = None
    ) -> list[EvidenceItem]:
        where = conditions(drug_id=drug_id, chunk_kind=chunk_kind, section_keys=section_keys)
        return book_order(self.scroll(_filter(where)))

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
        vector = qe.SparseVector(indices=list(terms.indices), values=list(terms.values))
        hits = self._open().query(
            qe.QueryRequest(
                limit=limit,
                query=qe.Query.Nearest(vector, using=LEXICAL_VECTOR),
                filter=_filter(where),
                score_threshold=score_threshold(min_score),
                with_payload=True,
            )
        )
        return rank_hits(item_from_payload(h.id, h.payload, float(h.score)) for h in hits if h.score > 0)

    def find_by_phrase(
        self, phrase: str, *, section_key: str | None = None, chunk_kind: str | None = None
    ) -> list[EvidenceItem]:
        folded = " ".join(folded_words(phrase))
        if not folded:
            return []
        # text_norm's index has phrase_matching on (without it MatchPhrase silently finds nothing)
        phrase_match = qe.FieldCondition(key="text_norm", match=qe.MatchPhrase(folded))
        return self.scroll(_filter(conditions(section_key=section_key, chunk_kind=chunk_kind), phrase_match))

    def search_dense(
        self,
        vector: Sequence[float],
        *,
        section_key: str | None = None,
        chunk_kind: str | None = None,
        limit: int = 10,
    ) -> list[EvidenceItem]:
        hits = self._open().query(
            qe.QueryRequest(
                limit=limit,
                query=qe.Query.Nearest(list(vector), using=DENSE_VECTOR),
                filter=_filter(conditions(section_key=section_key, chunk_kind=chunk_kind)),
                with_payload=True,
            )
        )
        return rank_hits(item_from_payload(h.id, h.payload, float(h.score)) for h in hits)

    def count(self, drug_id: str | None = None) -> int:
        flt = _filter(conditions(drug_id=drug_id)) if drug_id else None
        return int(self._open().count(qe.CountRequest(filter=flt)))

    def close(self) -> None:
        if self._shard is not None and self._shard_version is not None:
            _release(str(self.version_dir(self._shard_version) / "shard"))
        self._shard = None
        self._shard_version = None

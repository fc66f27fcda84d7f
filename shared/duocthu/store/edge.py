"""Qdrant Edge: the embedded, in-process default. One shard folder per index version.

<data_dir>/manifest.json              the pointer (replaced atomically)
<data_dir>/versions/<version>/shard/  an Edge shard, never modified once activated
<data_dir>/versions/<version>/prose_parts.tsv  its prose parts' folded words (store.prose_parts),
                                      written with the shard, read when it opens

Versions kept: the active one and the one it replaced; anything else (an older version, or the
partial of a killed ingest, which was never active) is removed at the next activation, whatever
its modification time. An Edge shard admits one open handle per machine (its WAL lock): a second
process (an `ask` while `serve` runs) reads a private copy of the activated shard instead, removed
when it closes or the process exits.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from duocthu.models.chunk import Chunk
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
from duocthu.store.prose_parts import (
    PARTS_FILE,
    PartsMismatch,
    ProsePart,
    ProseParts,
    read_prose_parts,
    write_prose_parts,
)

MANIFEST_FILE = "manifest.json"


# An Edge shard admits one open handle per process (it locks its WAL), so every EdgeStore of
# this process shares one handle per shard folder, closed when the last store lets go.
_OPEN_SHARDS: dict[str, list[Any]] = {}  # path -> [shard, users, private copy or None]
_OPEN_LOCK = threading.Lock()


def _load(path: str, version: str) -> tuple[Any, str | None]:
    """The shard, and the private copy it was loaded from when another process holds it."""
    try:
        return qe.EdgeShard.load(path), None
    except Exception as err:  # the engine raises plain runtime errors for unreadable shards
        if "WouldBlock" not in str(err):
            raise StoreUnavailable(f"cannot open Edge shard {version}: {err}") from err
    copy = tempfile.mkdtemp(prefix="duocthu-reader-")
    atexit.register(shutil.rmtree, copy, ignore_errors=True)  # also when the process never closes
    try:
        shutil.copytree(path, Path(copy) / "shard")
        return qe.EdgeShard.load(str(Path(copy) / "shard")), copy
    except Exception as err:
        shutil.rmtree(copy, ignore_errors=True)
        raise StoreUnavailable(f"cannot open Edge shard {version}: {err}") from err


def _acquire(path: str, version: str) -> Any:
    with _OPEN_LOCK:
        entry = _OPEN_SHARDS.get(path)
        if entry is None:
            shard, copy = _load(path, version)
            entry = _OPEN_SHARDS[path] = [shard, 0, copy]
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
            if entry[2]:
                shutil.rmtree(entry[2], ignore_errors=True)
            del _OPEN_SHARDS[path]


@contextlib.contextmanager
def _engine_reads(version: str | None) -> Iterator[None]:
    """An engine error on a read (a zeroed or truncated segment fails to decode) is a store
    fault, as an unreachable server is: the turn abstains and /health says 503, never a 500."""
    try:
        yield
    except (NoIndex, StoreUnavailable):
        raise
    except Exception as err:  # the engine raises plain runtime errors
        raise StoreUnavailable(f"Edge shard {version} unreadable: {err}") from err


def _index_params(kind: str) -> Any:
    return {
        "keyword": qe.PayloadSchemaType.Keyword,
        "integer": qe.IntegerIndexParams(lookup=True, range=True),
        "bool": qe.BoolIndexParams(),
    }[kind]


def _sparse(terms: SparseTerms) -> Any:
    return qe.SparseVector(indices=list(terms.indices), values=list(terms.values))


def _filter(where: Conditions) -> qe.Filter:
    must: list[Any] = [qe.FieldCondition(key=k, match=qe.MatchValue(v)) for k, v in where.equal.items()]
    must += [qe.FieldCondition(key=k, match=qe.MatchAny(list(v))) for k, v in where.any_of.items()]
    must_not: list[Any] = [
        qe.FieldCondition(key=k, match=qe.MatchAny(list(v))) for k, v in where.none_of.items()
    ]
    return qe.Filter(must=must, must_not=must_not or None)


# The sections an Edge store keeps read: the book's 700 monographs hold ~13,000; a warm process
# reads a few hundred (each turn a few drugs' safety and dose sections)
SECTIONS_KEPT = 4096


class EdgeStore(FilteredReads):
    backend = "edge"

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self._shard: Any = None
        self._shard_version: str | None = None
        self._parts: ProseParts | None = None
        # the sections read whole, by (version, drug, section): a patient turn reads the same few
        # sections of each candidate for every facet, and the version a process serves never changes
        self._sections: dict[tuple[str, str, str], tuple[EvidenceItem, ...]] = {}

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
            qe.EdgeConfig(
                vectors=vectors,
                sparse_vectors={
                    LEXICAL_VECTOR: qe.EdgeSparseVectorParams(),
                    LINES_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf),
                },
                # A version is written once, flushed, and never modified after: a write-ahead log
                # would only add its preallocated files to every unpack (96 MB apparent at 700).
                wal_enabled=False,
            ),
        )
        try:
            for field, kind in PAYLOAD_INDEXES.items():
                shard.update(qe.UpdateOperation.create_field_index(field, _index_params(kind)))
            for start in range(0, len(chunks), UPSERT_BATCH):
                batch = chunks[start : start + UPSERT_BATCH]
                points = []
                for offset, chunk in enumerate(batch):
                    vector: dict[str, Any] = {LEXICAL_VECTOR: _sparse(lexical_vector(chunk.text))}
                    own = dense[start + offset] if dense else None
                    if own is not None:
                        vector[DENSE_VECTOR] = list(own)
                    points.append(qe.Point(id=chunk.id, vector=vector, payload=chunk.payload()))
                shard.update(qe.UpdateOperation.upsert_points(points))
                if progress:
                    progress(len(batch))
            lines = line_points(chunks)
            for start in range(0, len(lines), UPSERT_BATCH):
                batch_lines = [
                    qe.Point(id=line.id, vector={LINES_VECTOR: _sparse(line.terms)}, payload=line.payload)
                    for line in lines[start : start + UPSERT_BATCH]
                ]
                shard.update(qe.UpdateOperation.upsert_points(batch_lines))
            write_prose_parts(chunks, version, folder / PARTS_FILE)  # beside the shard, packed with it
            # Merged and indexed once here, so a cold start opens optimized segments instead of
            # replaying appends (measured at 700 monographs: open 538 -> 222 ms, warm memory -47 MB).
            shard.optimize()
            shard.flush()
        finally:
            shard.close()

    def activate(self, manifest: Manifest) -> None:
        if not (self.version_dir(manifest.version) / "shard").is_dir():
            raise NoIndex(f"version {manifest.version} was not built")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        previous = self.active_manifest()
        # write-then-rename: a reader sees the old manifest or the new one, never half of one
        fd, tmp = tempfile.mkstemp(dir=self.data_dir, prefix=".manifest-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(manifest.model_dump_json(indent=2))
        os.replace(tmp, self.data_dir / MANIFEST_FILE)
        self.close()  # the next read opens the version just activated
        self._prune(keep={manifest.version, previous.version if previous else manifest.version})

    def _prune(self, keep: set[str]) -> None:
        """Every version folder but the active one and the one it replaced (callers hold the
        ingest lock, so no other build is under way)."""
        for folder in (self.data_dir / "versions").iterdir():
            if folder.name not in keep:
                shutil.rmtree(folder, ignore_errors=True)

    # -- read -----------------------------------------------------------------------------
    def _open(self) -> Any:
        # The manifest is read once, when the shard is first opened: a process keeps serving the
        # version it started with (the catalogue it loaded with it stays consistent, and no read
        # pays for a file read); `activate` in this process moves it, another process's ingest
        # takes effect at the next start.
        if self._shard is None:
            manifest = self.active_manifest()
            if manifest is None:
                raise NoIndex(f"no index in {self.data_dir}: run `duocthu ingest`")
            shard = _acquire(str(self.version_dir(manifest.version) / "shard"), manifest.version)
            try:
                self._parts = read_prose_parts(
                    self.version_dir(manifest.version) / PARTS_FILE, manifest.version, self._parts_by_id
                )
            except (OSError, PartsMismatch) as err:
                _release(str(self.version_dir(manifest.version) / "shard"))
                raise StoreUnavailable(
                    f"index {manifest.version}: {err}: rebuild it with `duocthu ingest`"
                ) from err
            self._shard, self._shard_version = shard, manifest.version
        return self._shard

    def _parts_by_id(self, point_ids: Collection[str]) -> dict[str, EvidenceItem]:
        return {
            point: item_from_payload(point, payload, 1.0)
            for point, payload in self._payloads(point_ids).items()
        }

    def _prose(self) -> ProseParts:
        self._open()
        assert self._parts is not None  # read with the shard
        return self._parts

    def find_by_phrase(self, phrase: str, *, section_key: str | None = None) -> list[EvidenceItem]:
        found = [part.item for part in self.find_prose(phrase, section_key=section_key)]
        return found if section_key else sorted(found, key=lambda item: item.id)

    def find_prose(
        self, phrase: str, *, section_key: str | None, skip_drugs: Collection[str] = frozenset()
    ) -> list[ProsePart]:
        parts = self._prose()
        with _engine_reads(self._shard_version):  # a section not as its header says: a store fault
            return parts.with_phrase(phrase, section_key, skip_drugs)

    def probe(self) -> None:
        """Opens the shard and decodes one part with its payload: a start or a health check that
        reads nothing would call a zeroed payload file healthy and fail every question."""
        manifest = self.active_manifest()
        if manifest is not None:
            manifest.readable_layout()
        self.count()
        shard = self._open()
        with _engine_reads(self._shard_version):
            records, _ = shard.scroll(
                qe.ScrollRequest(filter=_filter(conditions()), limit=1, with_payload=True)
            )
            for record in records:
                item_from_payload(record.id, record.payload, 1.0)

    def _scroll(self, where: Conditions) -> list[EvidenceItem]:
        shard = self._open()
        flt = _filter(where)
        items: list[EvidenceItem] = []
        offset = None
        with _engine_reads(self._shard_version):
            while True:  # to exhaustion: a truncated section would read as a complete one
                records, offset = shard.scroll(
                    qe.ScrollRequest(filter=flt, limit=SCROLL_PAGE, offset=offset, with_payload=True)
                )
                items += [item_from_payload(r.id, r.payload, 1.0) for r in records]
                if offset is None:
                    return items

    def _query(
        self,
        using: str,
        vector: SparseTerms | list[float],
        where: Conditions,
        limit: int,
        threshold: float | None,
    ) -> list[tuple[Any, Mapping[str, Any], float]]:
        query = _sparse(vector) if isinstance(vector, SparseTerms) else vector
        shard = self._open()
        with _engine_reads(self._shard_version):
            hits = shard.query(
                qe.QueryRequest(
                    limit=limit,
                    query=qe.Query.Nearest(query, using=using),
                    filter=_filter(where),
                    score_threshold=threshold,
                    with_payload=True,
                )
            )
            return [(h.id, h.payload, float(h.score)) for h in hits]

    def _count(self, where: Conditions | None) -> int:
        flt = _filter(where) if where else None
        shard = self._open()
        with _engine_reads(self._shard_version):
            return int(shard.count(qe.CountRequest(filter=flt)))

    def _payloads(self, point_ids: Collection[str]) -> dict[str, Mapping[str, Any]]:
        if not point_ids:
            return {}
        shard = self._open()
        with _engine_reads(self._shard_version):
            return {
                str(r.id): r.payload
                for r in shard.retrieve(list(point_ids), with_payload=True, with_vector=False)
            }

    def find_by_section(self, drug_id: str, section_key: str) -> list[EvidenceItem]:
        """Every part of one section, in part order, read once per version served
        (SECTIONS_KEPT sections at most: past it the kept ones are let go)."""
        self._open()
        key = (self._shard_version or "", drug_id, section_key)
        found = self._sections.get(key)
        if found is None:
            if len(self._sections) >= SECTIONS_KEPT:
                self._sections.clear()
            found = self._sections[key] = tuple(super().find_by_section(drug_id, section_key))
        return list(found)

    def close(self) -> None:
        if self._shard is not None and self._shard_version is not None:
            _release(str(self.version_dir(self._shard_version) / "shard"))
        self._shard = None
        self._shard_version = None
        self._parts = None
        self._sections.clear()

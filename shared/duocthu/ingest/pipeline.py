"""Formulary source -> validated records -> chunks -> a new index version -> switch.

Nothing is written before every record validates; the pointer moves only after the new version
is complete, so a failed or killed ingest leaves the previous version serving. One ingest at a time
per data folder (an exclusive lock on `<data_dir>/.ingest.lock`): a second one is refused with
`IngestInProgress`, never reported as a success beside the first.
"""

from __future__ import annotations

import fcntl
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from duocthu.catalog.artifact import Catalog
from duocthu.core.ports import Embedder
from duocthu.ingest.calibration import Calibration, dense_vectors
from duocthu.ingest.chunking import chunk_monograph
from duocthu.ingest.source import corpus_hash, load_source, sample_formulary_path
from duocthu.models.chunk import Chunk
from duocthu.models.source import Monograph
from duocthu.providers.embeddings import get_embedder
from duocthu.settings import Settings
from duocthu.store import Manifest, VectorStore
from duocthu.store.base import INDEX_LAYOUT, dense_size
from duocthu.store.catalog import catalog_path

log = logging.getLogger(__name__)
SAMPLE_SOURCE = "sample"
LOCK_FILE = ".ingest.lock"


@dataclass(frozen=True, slots=True)
class IngestReport:
    version: str
    corpus_hash: str
    drugs: int
    sections: int
    points: int
    backend: str
    calibration: Calibration | None = None  # with an embedding provider: the dense threshold's basis


class IngestInProgress(RuntimeError):
    """Another ingest holds this data folder."""


@contextmanager
def ingest_lock(data_dir: Path) -> Iterator[None]:
    """The data folder's ingest lock, taken without waiting (released when the process dies)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with (data_dir / LOCK_FILE).open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as err:
            raise IngestInProgress(f"another ingest is running on {data_dir.name}") from err
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def new_version_name(digest: str) -> str:
    return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%f')}-{digest[:10]}"


def ingest_records(
    records: list[Monograph],
    store: VectorStore,
    settings: Settings,
    on_start: Callable[[int], None] | None = None,
    progress: Callable[[int], None] | None = None,
    embedder: Embedder | None = None,
    source_label: str | None = None,
) -> IngestReport:
    """With an embedding provider (`embedder`, else the one the settings configure), the parts
    the dense fallback reads get vectors, and the manifest records the model, the dimension and the
    discard threshold calibrated for it (duocthu.ingest.calibration)."""
    with ingest_lock(settings.data_dir):
        return _ingest(records, store, settings, on_start, progress, embedder, source_label)


def _ingest(
    records: list[Monograph],
    store: VectorStore,
    settings: Settings,
    on_start: Callable[[int], None] | None,
    progress: Callable[[int], None] | None,
    embedder: Embedder | None,
    source_label: str | None,
) -> IngestReport:
    digest = corpus_hash(records)
    chunks: list[Chunk] = [c for r in records for c in chunk_monograph(r)]
    version = new_version_name(digest)
    embedder = embedder or get_embedder(settings)
    dense, calibration = dense_vectors(chunks, embedder) if embedder else (None, None)
    if calibration:
        log.info("dense threshold calibrated: %s", calibration.summary())
    if on_start:
        on_start(len(chunks))
    store.build_version(version, chunks, dense=dense if calibration else None, progress=progress)
    path = catalog_path(settings, version)
    path.parent.mkdir(parents=True, exist_ok=True)
    Catalog.from_records(records, digest).write(path)
    manifest = Manifest(
        version=version,
        corpus_hash=digest,
        created_at=Manifest.now(),
        points=len(chunks),
        drugs=len(records),
        embedding_model=calibration.model if calibration else None,
        dense_dim=dense_size(dense) if calibration else None,
        dense_threshold=calibration.threshold if calibration else None,
        source=source_label,
        layout=INDEX_LAYOUT,
    )
    store.activate(manifest)
    log.info("activated index version %s (%d drugs, %d points)", version, len(records), len(chunks))
    return IngestReport(
        version=version,
        corpus_hash=digest,
        drugs=len(records),
        sections=sum(len(r.sections) for r in records),
        points=len(chunks),
        backend=store.backend,
        calibration=calibration,
    )


def ingest_path(
    source: Path,
    store: VectorStore,
    settings: Settings,
    on_start: Callable[[int], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> IngestReport:
    label = SAMPLE_SOURCE if source.resolve() == sample_formulary_path().resolve() else str(source)
    return ingest_records(
        load_source(source), store, settings, on_start=on_start, progress=progress, source_label=label
    )


def sample_index_is_stale(manifest: Manifest | None) -> bool:
    """True when there is no index, or the active one was built from the bundled sample formulary
    and the sample or the index layout has changed since (a developer pulled new monographs or new
    code). An index built from any other source is never replaced by the sample."""
    if manifest is None:
        return True
    if manifest.source != SAMPLE_SOURCE:
        return False
    if manifest.layout != INDEX_LAYOUT:
        return True
    return manifest.corpus_hash != corpus_hash(load_source(sample_formulary_path()))

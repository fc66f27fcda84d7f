"""The dense fallback of a reverse lookup at query time: the index's calibrated threshold and the
nearest chỉ định prose parts above it.

Only when the keyword pass finds nothing does `search_indication` try dense similarity, on chi_dinh
prose only, discarding every hit below the threshold calibrated at ingest for the index's embedding
model (`duocthu.ingest.calibration.calibrate`, recorded in the manifest). Dense search always
returns neighbours (a made-up phrase once got 8 unrelated "matches" live), and e5-family cosines
for unrelated text sit far above reference 09's 0.12, so a threshold carried over from another
model would discard nothing.
"""

from __future__ import annotations

from duocthu.core.deadline import Deadline
from duocthu.core.errors import EmbeddingModelMismatch
from duocthu.core.ports import Embedder
from duocthu.core.sections import INDICATION_SECTION
from duocthu.models.chunk import PROSE
from duocthu.models.evidence import EvidenceItem
from duocthu.store import Manifest, NoIndex, VectorStore

DEFAULT_QUERY_BUDGET_S = 5.0


def dense_threshold(manifest: Manifest | None, embedder: Embedder) -> float:
    """The index's calibrated threshold for this embedder's model; querying vectors of another
    model (or an index built without any) is an error, never a silent comparison."""
    if manifest is None:
        raise NoIndex("no index: run `duocthu ingest`")
    if manifest.embedding_model is None or manifest.dense_threshold is None:
        raise EmbeddingModelMismatch(
            f"index {manifest.version} has no dense vectors; re-ingest with {embedder.model_id} "
            "to use the dense fallback"
        )
    if manifest.embedding_model != embedder.model_id:
        raise EmbeddingModelMismatch(
            f"index {manifest.version} was embedded with {manifest.embedding_model}, "
            f"the configured model is {embedder.model_id}"
        )
    return manifest.dense_threshold


def search_indication(
    store: VectorStore,
    embedder: Embedder,
    indication: str,
    *,
    limit: int,
    deadline: Deadline | None = None,
    section_key: str = INDICATION_SECTION,
) -> list[EvidenceItem]:
    """Nearest prose parts of `section_key` by cosine, every hit below the index's calibrated
    threshold discarded (a weak top hit discards them all)."""
    manifest = store.active_manifest()
    threshold = dense_threshold(manifest, embedder)
    vector = embedder.embed_query(indication, deadline or Deadline.after(DEFAULT_QUERY_BUDGET_S))
    if manifest is not None and manifest.dense_dim is not None and len(vector) != manifest.dense_dim:
        raise EmbeddingModelMismatch(f"{len(vector)}-d query against {manifest.dense_dim}-d vectors")
    hits = store.search_dense(vector, section_key=section_key, chunk_kind=PROSE, limit=limit)
    return [hit for hit in hits if hit.score >= threshold]

"""At ingest: the dense vectors of the parts the reverse lookup's dense fallback reads, and the
discard threshold calibrated for the embedding model over them, which the manifest records and
the query side reads back (`duocthu.retrieval.reverse.dense.dense_threshold`).

Dense search always returns neighbours, and e5-family cosines for unrelated text sit far above
reference 09's 0.12: the threshold is set per model, just above the best cosine any nonsense
phrase of data/indication_calibration.tsv reaches over the indexed parts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from duocthu.core.deadline import Deadline
from duocthu.core.ports import Embedder
from duocthu.core.sections import INDICATION_SECTION
from duocthu.core.tables import table_rows
from duocthu.models.chunk import PROSE, Chunk

# Above the best-scoring calibration nonsense phrase, by this much: room for nonsense not in the table.
CALIBRATION_MARGIN = 0.01


def in_dense_scope(chunk: Chunk) -> bool:
    """Only the parts the dense route can return get a vector (chỉ định prose): embedding every
    part would cost ~14x the time (1,237 parts vs 89 in the sample) for vectors nothing queries."""
    return chunk.section_key == INDICATION_SECTION and chunk.chunk_kind == PROSE


@lru_cache(maxsize=1)
def calibration_phrases() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(indication phrases, nonsense phrases) of data/indication_calibration.tsv."""
    kinds: dict[str, list[str]] = {"indication": [], "nonsense": []}
    for phrase, kind in table_rows("indication_calibration.tsv"):
        kinds[kind].append(phrase)
    return tuple(kinds["indication"]), tuple(kinds["nonsense"])


@dataclass(frozen=True, slots=True)
class Calibration:
    """What the threshold rests on: each calibration phrase's best cosine over the indexed parts."""

    model: str
    threshold: float
    indication_scores: tuple[float, ...]
    nonsense_scores: tuple[float, ...]

    @property
    def indication_recall(self) -> float:
        """Share of the indication phrases whose best part clears the threshold."""
        kept = [s for s in self.indication_scores if s >= self.threshold]
        return len(kept) / len(self.indication_scores) if self.indication_scores else 0.0

    def summary(self) -> str:
        ind, non = sorted(self.indication_scores), sorted(self.nonsense_scores)
        return (
            f"{self.model}: threshold {self.threshold:.3f} (best nonsense {non[-1]:.3f} + margin "
            f"{CALIBRATION_MARGIN}); nonsense top cosines {non[0]:.3f}..{non[-1]:.3f}, "
            f"indication top cosines {ind[0]:.3f}..{ind[-1]:.3f} (median {ind[len(ind) // 2]:.3f}); "
            f"{self.indication_recall:.2f} of {len(ind)} indication phrases kept"
        )


def _unit_rows(vectors: Sequence[Sequence[float]]) -> Any:
    import numpy as np  # ingest-time calibration only: kept off the request path's cold start

    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.where(norms == 0, 1, norms))


def calibrate(embedder: Embedder, passages: Sequence[Sequence[float]]) -> Calibration:
    """The discard threshold for this model over these passages: just above the best cosine any
    calibration nonsense phrase reaches, so none of them would survive the dense fallback."""
    indications, nonsense = calibration_phrases()
    deadline = Deadline.after(600.0)  # ingest, not a request
    docs = _unit_rows(passages)

    def best(phrases: Sequence[str]) -> tuple[float, ...]:
        queries = _unit_rows([embedder.embed_query(p, deadline) for p in phrases])
        return tuple(float(s) for s in (queries @ docs.T).max(axis=1))

    nonsense_scores = best(nonsense)
    threshold = math.ceil((max(nonsense_scores) + CALIBRATION_MARGIN) * 1000) / 1000
    return Calibration(embedder.model_id, threshold, best(indications), nonsense_scores)


def dense_vectors(
    chunks: Sequence[Chunk], embedder: Embedder
) -> tuple[list[list[float] | None], Calibration | None]:
    """Each chunk's dense vector (None outside the dense scope) and the calibration over them;
    (all None, None) when no chunk is in scope (a source without chỉ định)."""
    scope = [i for i, c in enumerate(chunks) if in_dense_scope(c)]
    vectors: list[list[float] | None] = [None] * len(chunks)
    if not scope:
        return vectors, None
    embedded = embedder.embed_passages([chunks[i].text for i in scope])
    for i, vector in zip(scope, embedded, strict=True):
        vectors[i] = vector
    return vectors, calibrate(embedder, embedded)

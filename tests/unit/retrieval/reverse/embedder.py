"""A deterministic embedder for the dense fallback's and the calibration's tests."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.core.deadline import Deadline
from duocthu.core.errors import EmbeddingUnavailable

MODEL = "table-embedder"


class TableEmbedder:
    """A deterministic stand-in: each known text has a fixed unit vector; the call log shows
    whether the dense route ran at all."""

    model_id = MODEL

    def __init__(self, table: dict[str, list[float]], fail: bool = False):
        self.table, self.fail, self.queries = table, fail, []  # type: ignore[var-annotated]

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.table.get(t, [0.0, 0.0, 1.0]) for t in texts]

    def embed_query(self, text: str, deadline: Deadline) -> list[float]:
        self.queries.append(text)
        if self.fail:
            raise EmbeddingUnavailable("throttled")
        return self.table.get(text, [0.0, 0.0, 1.0])

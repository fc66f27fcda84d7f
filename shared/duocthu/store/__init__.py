"""Everything stateful the service reads: the index, the catalogue, the conversations.

- `base`: the `VectorStore` protocol and the read contract every backend shares; the manifest.
- `edge`: Qdrant Edge in-process (the default), one shard folder per index version.
- `server`: a Qdrant server or Qdrant Cloud through qdrant-client (`QDRANT_URL`).
- `lexical`: the sparse distinct-token vector.
- `prose_parts`: each prose part's folded words and word count, read at ingest beside an Edge
  shard; the reverse lookup's phrase match runs on them in memory.
- `catalog`: the active catalogue, from the version folder or S3, checked against the index.
- `sessions`: conversation state, DynamoDB with TTL or files under the data folder.

`open_store` picks the backend from settings.
"""

from __future__ import annotations

from duocthu.settings import Settings
from duocthu.store.base import Manifest, NoIndex, StoreUnavailable, VectorStore

__all__ = ["Manifest", "NoIndex", "StoreUnavailable", "VectorStore", "open_store"]


def qdrant_api_key(settings: Settings) -> str | None:
    """The key from the environment, else from Secrets Manager (cached by Powertools)."""
    if settings.qdrant_api_key or not settings.qdrant_api_key_secret_arn:
        return settings.qdrant_api_key
    from aws_lambda_powertools.utilities.parameters import get_secret

    return str(get_secret(settings.qdrant_api_key_secret_arn))


def open_store(settings: Settings) -> VectorStore:
    if settings.qdrant_url:
        from qdrant_client import QdrantClient

        from duocthu.store.server import ServerStore

        # No version check: qdrant-client would make it in a background thread at every cold
        # start, and only warn. Whether the server answers is /health's question.
        client = QdrantClient(
            url=settings.qdrant_url,
            api_key=qdrant_api_key(settings),
            timeout=int(settings.qdrant_timeout_s),
            check_compatibility=False,
        )
        return ServerStore(client, alias=settings.qdrant_alias)
    from duocthu.store.edge import EdgeStore

    return EdgeStore(settings.data_dir)

"""The store: one interface (`VectorStore`), Qdrant Edge embedded by default, a Qdrant server
through qdrant-client when QDRANT_URL is set."""

from __future__ import annotations

from duocthu.settings import Settings
from duocthu.store.base import Manifest, NoIndex, StoreUnavailable, VectorStore

__all__ = ["Manifest", "NoIndex", "StoreUnavailable", "VectorStore", "open_store"]


def open_store(settings: Settings) -> VectorStore:
    if settings.qdrant_url:
        from qdrant_client import QdrantClient

        from duocthu.store.server import ServerStore

        client = QdrantClient(
            url=settings.qdrant_url, api_key=settings.qdrant_api_key, timeout=int(settings.qdrant_timeout_s)
        )
        return ServerStore(client, alias=settings.qdrant_alias)
    from duocthu.store.edge import EdgeStore

    return EdgeStore(settings.data_dir)

"""SnapStart (template parameter `SnapStart=PublishedVersions`): a container resumed from the
snapshot Lambda made when the version was published gets fresh AWS clients.

Everything init built is in the snapshot: the unpacked index in /tmp, the open shard, the catalogue
and resolver, which is what takes them out of a cold start. A network connection a client pooled
before the snapshot is not: it is stale in every container resumed from it, and an init that read
its pack from S3 made one. So the clients, built once per process, are built again after a
restore. Lambda's Python runtime ships `snapshot_restore_py`; elsewhere there is nothing to
register and nothing to restore.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)


class _Cached(Protocol):
    def cache_clear(self) -> None: ...


def _client_caches() -> tuple[_Cached, ...]:
    from duocthu.api.services import health
    from duocthu.providers import bedrock, embeddings, rerank
    from duocthu.store import catalog, sessions

    return (
        bedrock._client,
        catalog._s3_client,
        health._s3_client,
        rerank.get_reranker,
        embeddings.get_embedder,
        sessions.get_conversation_store,
    )


def forget_clients() -> None:
    """Drop every AWS client built before the snapshot: the next use builds a fresh one."""
    for cached in _client_caches():
        cached.cache_clear()
    log.info("restored from a SnapStart snapshot: AWS clients will be built again")


def register(after_restore: Callable[[Callable[[], None]], object] | None = None) -> bool:
    """Register `forget_clients` to run after a restore; False where no runtime hook exists."""
    if after_restore is None:
        try:
            from snapshot_restore_py import register_after_restore  # type: ignore[import-not-found]
        except ImportError:  # not on Lambda's Python runtime: no snapshot to restore from
            return False
        after_restore = register_after_restore
    after_restore(forget_clients)
    return True

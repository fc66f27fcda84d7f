"""What a process builds once (a Lambda container's cold start, a CLI run): settings, the store,
the active manifest and catalogue, the resolver. Requests reuse it; nothing here runs per request.

A start that fails (no index yet, the store or S3 unreachable during a cold start) is not kept for
the container's life: `get_runtime` builds again on a later request, after a backoff that doubles
from 1 s to 30 s, so a restored manifest or a passing blip is picked up without a restart.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from dataclasses import dataclass
from typing import NamedTuple

from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.settings import Settings, get_settings
from duocthu.store import Manifest, NoIndex, StoreUnavailable, VectorStore, open_store
from duocthu.store.catalog import CatalogMismatch, load_active_catalog

log = logging.getLogger(__name__)

RETRY_FIRST_S = 1.0
RETRY_MAX_S = 30.0


class NotReady(RuntimeError):
    """The service has no usable index (missing, or built from another corpus than its catalogue)."""


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    store: VectorStore
    manifest: Manifest | None
    catalog: Catalog | None
    resolver: CatalogDrugResolver | None
    problem: str | None  # why the service cannot answer, never with a path, endpoint or bucket

    def ready(self) -> tuple[Catalog, CatalogDrugResolver]:
        if self.problem or self.catalog is None or self.resolver is None:
            raise NotReady(self.problem or "not initialised")
        return self.catalog, self.resolver


def start_problem(err: Exception) -> str:
    """What /health says about a failed start: a reason code, a sentence and the error's type, no
    internal names (the full error, with its paths, goes to the log only)."""
    if isinstance(err, FileNotFoundError | NoIndex):
        text = "index_missing: no index has been ingested (run `duocthu ingest`)"
    elif isinstance(err, StoreUnavailable):
        text = "store_unavailable: the formulary store could not be opened"
    elif isinstance(err, CatalogMismatch):
        text = "catalog_mismatch: the catalogue was built from another corpus than the index"
    else:
        text = "start_failed: the catalogue could not be loaded"
    return f"{text} [{type(err).__name__}]"


def build_runtime(settings: Settings) -> Runtime:
    store = open_store(settings)
    try:
        manifest, catalog = load_active_catalog(store, settings)
        store.probe()  # the index opened at init (cold start), not by the first question
    except (FileNotFoundError, NoIndex, StoreUnavailable, CatalogMismatch) as err:
        # Reported (health answers 503 with this reason), never silently served.
        log.error("index not ready: %s", err)
        return Runtime(settings, store, None, None, None, start_problem(err))
    except Exception as err:  # e.g. an unreadable S3 artifact: a 503 with its reason, not a crash at import
        log.exception("index not ready")
        return Runtime(settings, store, None, None, None, start_problem(err))
    runtime = Runtime(settings, store, manifest, catalog, CatalogDrugResolver(catalog), None)
    # What a start loads (modules, catalogue, the index's parts) lives as long as the process: kept
    # out of the collector's full passes, which would otherwise walk it in the middle of a turn
    # (30-40 ms at the book's size; docs/performance.md, "Chat turn at the book's size").
    gc.freeze()
    return runtime


class CacheInfo(NamedTuple):
    currsize: int


class RetriedStart:
    """The process's runtime: kept once ready; when not ready, built again at the first call after
    the backoff (one caller builds, the others get the runtime they have meanwhile)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.cache_clear()

    def cache_clear(self) -> None:
        self._runtime: Runtime | None = None
        self._failures = 0
        self._retry_at = 0.0

    def cache_info(self) -> CacheInfo:
        """As `functools.lru_cache` says it: whether a runtime is held."""
        return CacheInfo(currsize=int(self._runtime is not None))

    def __call__(self) -> Runtime:
        current = self._runtime
        if current is not None and (current.problem is None or time.monotonic() < self._retry_at):
            return current
        if current is not None and not self._lock.acquire(blocking=False):
            return current  # another request is building it again
        if current is None:
            self._lock.acquire()
        try:
            latest = self._runtime
            if latest is not None and latest is not current:  # built while this caller waited
                return latest
            if current is not None:
                current.store.close()
            fresh = build_runtime(get_settings())
            self._failures = 0 if fresh.problem is None else self._failures + 1
            self._retry_at = time.monotonic() + min(RETRY_MAX_S, RETRY_FIRST_S * 2 ** (self._failures - 1))
            self._runtime = fresh
            return fresh
        finally:
            self._lock.release()


get_runtime = RetriedStart()

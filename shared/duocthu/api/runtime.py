"""What a process builds once (a Lambda container's cold start, a CLI run): settings, the store,
the active manifest and catalogue, the resolver. Requests reuse it; nothing here runs per request.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.settings import Settings, get_settings
from duocthu.store import Manifest, NoIndex, StoreUnavailable, VectorStore, open_store
from duocthu.store.catalog import CatalogMismatch, load_active_catalog

log = logging.getLogger(__name__)


class NotReady(RuntimeError):
    """The service has no usable index (missing, or built from another corpus than its catalogue)."""


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    store: VectorStore
    manifest: Manifest | None
    catalog: Catalog | None
    resolver: CatalogDrugResolver | None
    problem: str | None  # why the service cannot answer; None when ready

    def ready(self) -> tuple[Catalog, CatalogDrugResolver]:
        if self.problem or self.catalog is None or self.resolver is None:
            raise NotReady(self.problem or "not initialised")
        return self.catalog, self.resolver


def build_runtime(settings: Settings) -> Runtime:
    store = open_store(settings)
    try:
        manifest, catalog = load_active_catalog(store, settings)
    except (FileNotFoundError, NoIndex, StoreUnavailable, CatalogMismatch) as err:
        # Reported (health answers 503 with this reason), never silently served.
        log.error("index not ready: %s", err)
        return Runtime(settings, store, None, None, None, f"{type(err).__name__}: {err}")
    except Exception as err:  # e.g. an unreadable S3 artifact: a 503 with its reason, not a crash at import
        log.exception("index not ready")
        return Runtime(settings, store, None, None, None, f"{type(err).__name__}: {err}")
    return Runtime(settings, store, manifest, catalog, CatalogDrugResolver(catalog), None)


@lru_cache(maxsize=1)
def get_runtime() -> Runtime:
    return build_runtime(get_settings())

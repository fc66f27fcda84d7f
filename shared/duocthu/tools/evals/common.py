"""What the evaluations share: where the team's gold sets live, and the index they run on."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.ingest.pipeline import ingest_records
from duocthu.ingest.source import load_source, sample_formulary_path
from duocthu.settings import Settings
from duocthu.store import VectorStore
from duocthu.store.catalog import load_active_catalog
from duocthu.store.edge import EdgeStore

# The gold sets are evaluation data, not shipped in the layer: `tests/gold` of the checkout the
# tools run from (or $DUOCTHU_GOLD_DIR), each file listed in its manifest.tsv.
from duocthu.tools.evals.manifest import GoldNotFound, gold_dir, gold_file, read_manifest, split_files

__all__ = [
    "GoldNotFound",
    "evaluation_index",
    "gold_dir",
    "gold_file",
    "open_index",
    "rate",
    "read_manifest",
    "split_files",
]


def open_index(data_dir: Path | None, workdir: Path) -> tuple[VectorStore, CatalogDrugResolver]:
    """An existing Edge index, or (None) a fresh index of the sample formulary in `workdir`, so
    that a run never depends on what .duocthu happens to hold."""
    if data_dir is None:
        settings = Settings(data_dir=workdir)
        store: VectorStore = EdgeStore(workdir)
        ingest_records(load_source(sample_formulary_path()), store, settings)
    else:
        settings = Settings(data_dir=data_dir)
        store = EdgeStore(data_dir)
    _, catalog = load_active_catalog(store, settings)
    return store, CatalogDrugResolver(catalog)


@contextmanager
def evaluation_index(data_dir: Path | None, name: str) -> Iterator[tuple[VectorStore, CatalogDrugResolver]]:
    """`open_index` in a temporary folder that lives as long as the run, the store closed after."""
    with tempfile.TemporaryDirectory(prefix=f"duocthu-eval-{name}-") as tmp:
        store, resolver = open_index(data_dir, Path(tmp))
        try:
            yield store, resolver
        finally:
            store.close()


def rate(num: int, den: int) -> str:
    """ "0.963 (79/82)", or "–" when there is nothing to divide by."""
    return f"{num / den:.3f} ({num}/{den})" if den else "–"

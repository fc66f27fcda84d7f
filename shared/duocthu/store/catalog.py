"""Loading the catalogue artifact a process serves: from the index version's folder, or from S3
when the layer does not ship it, and checked against the active index (a catalogue built from
another corpus is an error, never served). In S3 every artifact lives under its index version's
own keys (`<prefix>/<version>/catalog.json`, `<prefix>/<version>/index.tar.zst`), written once and
never overwritten: a re-ingest adds keys, so a container that starts while the index moves reads
the catalogue of the version it serves, never a newer one. A packed index (DUOCTHU_PACKED_INDEX:
the data layer's file, or an S3 object) is unpacked into the data folder first
(duocthu.store.packed), in a child process when a function starts it early
(`unpack_in_background`).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from duocthu.catalog.artifact import Catalog
from duocthu.settings import Settings
from duocthu.store.base import Manifest, VectorStore
from duocthu.store.packed import CATALOG_FILE, file_opener, unpack

log = logging.getLogger(__name__)


def load_catalog_from_s3(uri: str) -> Catalog:
    """The catalogue artifact at s3://bucket/key (CATALOG_S3_URI), for a layer that does not ship it."""
    bucket, key = bucket_key(uri)
    body = _s3_client().get_object(Bucket=bucket, Key=key)["Body"].read()
    catalog = Catalog.model_validate_json(body)
    log.info("catalogue from %s: %d drugs, corpus %s", uri, len(catalog.drugs), catalog.corpus_hash[:12])
    return catalog


def bucket_key(uri: str) -> tuple[str, str]:
    bucket, _, key = uri.removeprefix("s3://").partition("/")
    if not uri.startswith("s3://") or not bucket or not key:
        raise ValueError(f"not an s3://bucket/key URI: {uri!r}")
    return bucket, key


@lru_cache(maxsize=1)
def _s3_client() -> Any:
    import boto3  # only when the catalogue comes from S3: a cold start from the layer skips it
    from botocore.config import Config

    # a cold start must not hang on S3 (botocore's default: 60 s per attempt): at most 2 x (1 + 3) s
    config = Config(connect_timeout=1, read_timeout=3, retries={"mode": "standard", "total_max_attempts": 2})
    return boto3.client("s3", config=config)


def catalog_path(settings: Settings, version: str) -> Path:
    return settings.data_dir / "versions" / version / CATALOG_FILE


def load_active_catalog(store: VectorStore, settings: Settings) -> tuple[Manifest, Catalog]:
    """The active manifest and its catalogue; raises when they were built from different corpora."""
    if settings.packed_index:
        _unpacked(settings.packed_index, settings.data_dir)
    manifest = store.active_manifest()
    if manifest is None:
        raise FileNotFoundError("no index: run `duocthu ingest`")
    if settings.catalog_s3_uri:  # a layer that does not ship the artifact reads it from S3
        catalog = load_catalog_from_s3(version_uri(settings.catalog_s3_uri, manifest.version, CATALOG_FILE))
    else:
        catalog = Catalog.read(catalog_path(settings, manifest.version))
    if catalog.corpus_hash != manifest.corpus_hash:
        raise CatalogMismatch(manifest.corpus_hash, catalog.corpus_hash)
    return manifest, catalog


def unpack_packed_index(source: str, data_dir: Path) -> Manifest:
    """The pack at a path (the data layer) or an s3://bucket/key, unpacked into data_dir. An S3
    pack is read as it arrives, never saved beside the index: /tmp holds the index alone."""
    if not source.startswith("s3://"):
        return unpack(file_opener(Path(source)), data_dir, source)
    bucket, key = bucket_key(source)
    return unpack(lambda: _s3_client().get_object(Bucket=bucket, Key=key)["Body"], data_dir, source)


# Unpacks under way in a child process, by (pack, data folder): each is waited for once.
_UNPACKING: dict[tuple[str, Path], int] = {}
_UNPACKING_LOCK = threading.Lock()


def unpack_in_background(settings: Settings) -> None:
    """Starts unpacking the configured pack in a child process (a fork of this one, so no GIL is
    shared: a thread measured no faster), so that a cold start's remaining imports run beside it
    on a second vCPU (docs/performance.md, "Cold start at the book's size"). The runtime's start
    waits for the child, then unpacks as ever: it reuses the version the child unpacked, and after
    a child that failed it unpacks again and raises the error itself. Without fork or a second
    CPU, nothing starts."""
    if not settings.packed_index or not hasattr(os, "fork") or _cpus() < 2:
        return  # on one CPU the child would only share it (measured 7 % slower)
    key = (settings.packed_index, settings.data_dir)
    with _UNPACKING_LOCK:
        if key in _UNPACKING:
            return
        sys.stdout.flush()  # buffered output would otherwise be written twice, once by the child
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: unpack, then leave without the parent's exit handlers
            code = 1
            try:
                unpack_packed_index(*key)
                code = 0
            except BaseException:  # the start unpacks again and reports it
                log.exception("background unpack failed")
            finally:
                os._exit(code)
        _UNPACKING[key] = pid


# Lambda allots CPU by memory: one vCPU's worth of time per this many MB (two from 3,538 MB),
# while a function below 3,009 MB still sees two CPUs, which a child would only share.
LAMBDA_MB_PER_VCPU = 1769


def _cpus() -> int:
    """The CPUs a process can run on at once: on Lambda, the whole vCPUs its memory buys."""
    seen = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    memory = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "")
    if memory.isdigit():
        return max(1, min(seen, int(memory) // LAMBDA_MB_PER_VCPU))
    return seen


def _unpacked(source: str, data_dir: Path) -> Manifest:
    with _UNPACKING_LOCK:
        pid = _UNPACKING.pop((source, data_dir), None)
    if pid is not None:
        os.waitpid(pid, 0)
    return unpack_packed_index(source, data_dir)


def version_uri(prefix_uri: str, version: str, name: str) -> str:
    """s3://bucket/<prefix>/<version>/<name>: one index version's artifact under CATALOG_S3_URI."""
    return f"{prefix_uri.rstrip('/')}/{version}/{name}"


class CatalogMismatch(RuntimeError):
    def __init__(self, index_hash: str, catalog_hash: str):
        super().__init__(f"catalogue corpus hash {catalog_hash[:12]} != index corpus hash {index_hash[:12]}")
